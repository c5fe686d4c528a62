"""Four Tricks rules (docs/rules.md, Four Tricks): options, phases, kernels, scoring and records."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from trickenv.engine.kernels import (
    DEAL_ENDED,
    MATCH_ENDED,
    NOTHING_ENDED,
    SERIAL,
    clear,
    close_deal,
    close_trick,
    count_illegal,
    deal_hands,
    follow_suit_bits,
    idle_game,
    lowest_card,
    next_dealer,
    play_card,
    put_bits,
    put_equal,
    seal_match,
    seat_after,
    seat_from,
    start_match,
    step_outcome,
    write_common_record,
)
from trickenv.engine.layout import (
    DEALER,
    GAME_FIELDS,
    LAST_MATCH_OVER,
    LAST_TOTALS,
    LEADER,
    NO_TRUMP,
    NUM_PHASES,
    PH_BID,
    PH_DONE,
    PH_PLAY,
    PH_TRUMP,
    PHASE,
    POINTS,
    ROUND,
    TAB_GAME,
    TAB_SUIT,
    TO_ACT,
    TOTALS,
    TRICK,
    TRICK_LEN,
    TRICK_NO,
    TRICKS,
    TRUMP,
)
from trickenv.engine.state import State
from trickenv.games.base import (
    Block,
    card_blocks,
    GameSpec,
    Option,
    OptionValues,
    SeatMetrics,
    a_bool,
    block_offsets,
    check_choice,
    check_int,
    fill_records,
    one_of,
)

NAME = "four_tricks"
COMPILE_LABEL = "the Four Tricks kernels"  # trickenv.engine.first_run
NUM_PLAYERS = 3
DEFAULT_SCHEDULE = (1, 2, 3, 4, 5, 4, 3, 2, 1)
TRUMP_MODES = ("dealer", "none", "turn_up")
DEFAULT_TARGET = 4
EXACT_SCORE = 4  # for taking exactly the target
BID_BONUS = 10  # a made bid scores bid + 10

# Game fields of the scalar table.
TARGET = GAME_FIELDS + 0
BIDS = GAME_FIELDS + 1  # 4 slots, -1 = not declared yet
NUM_BIDS = GAME_FIELDS + 5
LAST_BIDS = GAME_FIELDS + 6  # 4 slots
LAST_TARGET = GAME_FIELDS + 10
TURNED_UP = GAME_FIELDS + 11  # the face-up undealt card, -1 if none
LAST_TURNED_UP = GAME_FIELDS + 12
NUM_FIELDS = GAME_FIELDS + 13

# Config vector.
C_DECK, C_RANKS, C_HAND, C_TRUMP_MODE, C_BIDDING, C_TARGET, C_ROUNDS, C_WIN_AT, C_SCHED_LEN, C_ACTIONS = range(10)
# ... and where each observation block starts (make_spec writes them from obs_blocks, the one source of the layout).
OBS_SLOTS = ("trick", "played", "trump", "turned_up", "tricks", "target", "bids", "phase", "dealer", "leader")
(C_OFF_TRICK, C_OFF_PLAYED, C_OFF_TRUMP, C_OFF_UP, C_OFF_TRICKS, C_OFF_TARGET, C_OFF_BIDS, C_OFF_PHASE, C_OFF_DEALER,
 C_OFF_LEADER) = range(10, 20)
NUM_CFG = 20
MODE_DEALER, MODE_NONE, MODE_TURN_UP = range(3)
N = NUM_PLAYERS


def obs_blocks(deck: int, hand: int) -> list[Block]:
    """The observation, block by block; seats are relative (0 = the observer)."""
    return [
        *card_blocks(N, deck),
        Block("trump", (5,), "onehot", none_index=4, doc="trump suit `0..3` (C S H D); `[4]` no trump "
              "(`trump=\"none\"`, or not chosen yet: see `phase`)"),
        Block("turned_up", (deck,), "onehot", doc="the face-up undealt card (`trump=\"turn_up\"`), else all 0"),
        Block("tricks", (N, hand + 1), "onehot", doc="`[r, k]`: relative seat `r` has taken `k` tricks"),
        Block("target", (hand + 1,), "onehot", doc="the target of this deal (all 0 with bidding)"),
        Block("bids", (N, hand + 1), "onehot", doc="`[r, k]`: relative seat `r` bid `k` (all 0 before it bids, and "
              "without bidding)"),
        Block("phase", (NUM_PHASES,), "onehot", doc="trump, bid, call (unused), play, done"),
        Block("dealer", (N,), "onehot", doc="relative seat of the dealer"),
        Block("leader", (N,), "onehot", doc="relative seat that leads (or led) the trick in progress"),
    ]


def obs_offsets(deck: int, hand: int) -> dict[str, tuple[int, int]]:
    """Observation blocks: name -> (offset, length)."""
    return block_offsets(obs_blocks(deck, hand))


# ------------------------------------------------------------------ kernels


@njit(inline="always")
def _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, deal_row, fixed):
    """Deal (from ``deal_row`` if fixed, else at random) and open the first decision."""
    deck = cfg[C_DECK]
    hand = cfg[C_HAND]
    played_by[g, :] = -1
    played_in[g, :] = -1
    trick_trump[g, :] = -1
    deal_hands(hands, aux, dealt, rng, g, deal_row, fixed, N, hand, deck)
    for k in range(4):
        s[g, TRICK + k] = -1
        s[g, TRICKS + k] = 0
        s[g, POINTS + k] = 0
        s[g, BIDS + k] = -1
    s[g, TRICK_NO] = 0
    s[g, TRICK_LEN] = 0
    s[g, NUM_BIDS] = 0
    s[g, TURNED_UP] = -1
    if cfg[C_SCHED_LEN] > 0:
        s[g, TARGET] = tab[TAB_GAME, s[g, ROUND] % cfg[C_SCHED_LEN]]
    elif cfg[C_BIDDING]:
        s[g, TARGET] = -1
    else:
        s[g, TARGET] = cfg[C_TARGET]
    first = (s[g, DEALER] + 1) % N
    s[g, LEADER] = first
    mode = cfg[C_TRUMP_MODE]
    if mode == MODE_DEALER:
        s[g, TRUMP] = NO_TRUMP
        s[g, PHASE] = PH_TRUMP
        s[g, TO_ACT] = s[g, DEALER]
        return
    if mode == MODE_TURN_UP:
        up = lowest_card(aux[g, 0])
        s[g, TURNED_UP] = up
        s[g, TRUMP] = tab[TAB_SUIT, up]
    else:
        s[g, TRUMP] = NO_TRUMP
    s[g, TO_ACT] = first
    s[g, PHASE] = PH_BID if cfg[C_BIDDING] else PH_PLAY


@njit(inline="always")
def _deal_score(tricks, goal, bidding):
    """Score of one seat: exact -> +4 (bidding: bid + 10), else -|tricks - goal|."""
    if tricks == goal:
        return goal + BID_BONUS if bidding else EXACT_SCORE
    return -abs(tricks - goal)


@njit(inline="always")
def _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
    """Score the finished deal into rewards, totals and the records; return True if the match is over."""
    for p in range(N):
        goal = s[g, BIDS + p] if cfg[C_BIDDING] else s[g, TARGET]
        rewards[g, p] = _deal_score(s[g, TRICKS + p], goal, cfg[C_BIDDING])
        s[g, LAST_BIDS + p] = s[g, BIDS + p]
    s[g, LAST_TARGET] = s[g, TARGET]
    s[g, LAST_TURNED_UP] = s[g, TURNED_UP]
    close_deal(dealt, last_play, played_by, played_in, trick_trump, s, g, N, rewards)
    top = max(s[g, TOTALS + 0], max(s[g, TOTALS + 1], s[g, TOTALS + 2]))
    over = (cfg[C_ROUNDS] > 0 and s[g, ROUND] >= cfg[C_ROUNDS]) or (cfg[C_WIN_AT] > 0 and top >= cfg[C_WIN_AT])
    seal_match(s, g, over)
    return over


@njit(inline="always")
def apply_action(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, rewards):
    """Apply legal action ``a`` to game g; return what it ended (``engine.kernels`` codes)."""
    deck = cfg[C_DECK]
    p = s[g, TO_ACT]
    ph = s[g, PHASE]
    if ph == PH_TRUMP:
        s[g, TRUMP] = a - deck
        s[g, PHASE] = PH_BID if cfg[C_BIDDING] else PH_PLAY
        s[g, TO_ACT] = s[g, LEADER]
        return NOTHING_ENDED
    if ph == PH_BID:
        s[g, BIDS + p] = a - deck - 4
        s[g, NUM_BIDS] += 1
        if s[g, NUM_BIDS] == N:
            s[g, PHASE] = PH_PLAY
            s[g, TO_ACT] = s[g, LEADER]
        else:
            s[g, TO_ACT] = (p + 1) % N
        return NOTHING_ENDED
    play_card(hands, played_by, played_in, s, g, p, a)
    if s[g, TRICK_LEN] < N:
        s[g, TO_ACT] = (p + 1) % N
        return NOTHING_ENDED
    close_trick(s, g, tab, trick_trump, N)
    if s[g, TRICK_NO] < cfg[C_HAND]:
        return NOTHING_ENDED
    if _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
        s[g, PHASE] = PH_DONE
        return MATCH_ENDED
    return DEAL_ENDED  # the step kernel starts the next deal


@njit(inline="always")
def write_mask(hands, s, cfg, tab, g, mask):
    """Legal actions of the seat to act in game g, into ``mask[g]``."""
    for k in range(cfg[C_ACTIONS]):
        mask[g, k] = False
    ph = s[g, PHASE]
    deck = cfg[C_DECK]
    if ph == PH_PLAY:
        led = tab[TAB_SUIT, s[g, TRICK]] if s[g, TRICK_LEN] > 0 else -1
        legal = follow_suit_bits(hands[g, s[g, TO_ACT]], led, cfg[C_RANKS])
        put_bits(mask, g, 0, legal, deck)
    elif ph == PH_TRUMP:
        for k in range(4):
            mask[g, deck + k] = True
    elif ph == PH_BID:
        hand = cfg[C_HAND]
        forbidden = -1
        if s[g, TO_ACT] == s[g, DEALER]:
            total = 0
            for q in range(N):
                if s[g, BIDS + q] > 0:
                    total += s[g, BIDS + q]
            forbidden = hand - total
        for k in range(hand + 1):
            mask[g, deck + 4 + k] = k != forbidden


@njit(inline="always")
def _obs_layout(cfg):
    """The deck, the hand size and the observation's block offsets, read from ``cfg`` once per kernel call
    (read per game inside the loop, they cost Four Tricks' step a few percent)."""
    return (cfg[C_DECK], cfg[C_HAND], cfg[C_OFF_TRICK], cfg[C_OFF_PLAYED], cfg[C_OFF_TRUMP], cfg[C_OFF_UP],
            cfg[C_OFF_TRICKS], cfg[C_OFF_TARGET], cfg[C_OFF_BIDS], cfg[C_OFF_PHASE], cfg[C_OFF_DEALER],
            cfg[C_OFF_LEADER])


@njit(inline="always")
def _write_obs(hands, played_by, s, layout, g, seat, obs):
    """Everything ``seat`` knows about game g, seat-relative, into ``obs[g]`` (docs/envs/index.md);
    ``layout`` from :func:`_obs_layout`."""
    (deck, hand, o_trick, o_played, o_trump, o_up, o_tricks, o_target, o_bids, o_phase, o_dealer,
     o_leader) = layout
    # Dense blocks (hand, played) are written whole; the one-hot blocks are cleared, then set.
    put_bits(obs, g, 0, hands[g, seat], deck)
    clear(obs, g, o_trick, N * deck)
    q = seat
    for r in range(N):
        put_equal(obs, g, o_played + r * deck, played_by, q, deck)
        q = seat_after(q, N)
    clear(obs, g, o_trump, obs.shape[1] - o_trump)
    lead = s[g, LEADER]
    r = seat_from(lead, seat, N)
    for j in range(s[g, TRICK_LEN]):
        obs[g, o_trick + r * deck + s[g, TRICK + j]] = 1
        r = seat_after(r, N)
    trump = s[g, TRUMP]
    obs[g, o_trump + (trump if trump >= 0 else 4)] = 1
    if s[g, TURNED_UP] >= 0:
        obs[g, o_up + s[g, TURNED_UP]] = 1
    q = seat
    for r in range(N):
        obs[g, o_tricks + r * (hand + 1) + s[g, TRICKS + q]] = 1
        b = s[g, BIDS + q]
        if b >= 0:
            obs[g, o_bids + r * (hand + 1) + b] = 1
        q = seat_after(q, N)
    if s[g, TARGET] >= 0:
        obs[g, o_target + s[g, TARGET]] = 1
    obs[g, o_phase + s[g, PHASE]] = 1
    obs[g, o_dealer + seat_from(s[g, DEALER], seat, N)] = 1
    obs[g, o_leader + seat_from(lead, seat, N)] = 1


# Entry kernels, one per entry point: the same thin loops in every game. A shared loop taking the
# game's functions as arguments would be recompiled in every process (numba cannot cache it).
# There is no threaded twin: VecEnv(threads=k) runs step_kernel on k slices of the batch at once
# (it releases the GIL), so each game compiles one kernel per entry.


@njit(cache=True)  # without SERIAL's passes: a reset is rare, and they cost compile time
def reset_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, deal_rows, use_deal,
                 dealers, mask, obs):
    """Start a new episode in every game (from ``deal_rows[g]`` where ``use_deal[g]``)."""
    layout = _obs_layout(cfg)
    for g in range(s.shape[0]):
        start_match(s, rng, g, dealers[g], N)
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                    deal_rows[g], use_deal[g])
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, layout, g, s[g, TO_ACT], obs)


@njit(cache=True, parallel=SERIAL, nogil=True)
def step_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, actions, where, mask,
                obs, rewards, done, deal_end, autoreset):
    """Apply one action to every game ``g`` with ``where[g]``; return the number of illegal ones.

    With any illegal action nothing changes. Games outside ``where`` keep their
    state, mask and observation; their rewards, done and deal_end read zero.
    """
    # The loop body is written out here rather than in a helper inlined per game: numba copies an
    # inlined function's whole expanded IR at each call site, and that copy was 40% of the compile.
    bad = count_illegal(actions, where, mask, cfg[C_ACTIONS])
    if bad:
        return bad
    empty_row = np.empty(0, np.int8)
    layout = _obs_layout(cfg)
    for g in range(s.shape[0]):
        idle_game(rewards, done, deal_end, g)  # zero rewards and flags; a stepped game's are set below
        if not where[g]:
            continue
        ended = apply_action(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                       actions[g], rewards)
        if step_outcome(done, deal_end, g, ended, autoreset):
            next_dealer(s, rng, g, ended == MATCH_ENDED, N)
            _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                        empty_row, False)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, layout, g, s[g, TO_ACT], obs)
    return 0


@njit(cache=True, parallel=SERIAL)
def observe_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, cfg, tab, seats, obs):
    """Observation of ``seats[g]`` in every game g."""
    layout = _obs_layout(cfg)
    for g in range(s.shape[0]):
        _write_obs(hands, played_by, s, layout, g, seats[g], obs)


@njit(cache=True)
def mask_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, cfg, tab, mask):
    """The legal-action mask of the seat to act in every game."""
    for g in range(s.shape[0]):
        write_mask(hands, s, cfg, tab, g, mask)


@njit(cache=True)
def deal_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, deal_rows, mask,
                obs):
    """Deal the next deal of every game's match from ``deal_rows[g]``: the dealer and the match so far are kept
    (the step kernel deals it from the game's generator; an OpenSpiel state deals it by chance nodes)."""
    layout = _obs_layout(cfg)
    for g in range(s.shape[0]):
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                    deal_rows[g], True)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, layout, g, s[g, TO_ACT], obs)


# --------------------------------------------------------------- the spec


def _default_trump(opts: OptionValues) -> str:
    return "turn_up" if opts["deck"] == 52 else "dealer"


def _check_trump(name: str, value: Any, opts: OptionValues) -> str:
    trump = check_choice(name, value, TRUMP_MODES)
    if trump == "turn_up" and opts["deck"] != 52:
        raise ValueError('trump="turn_up" needs deck=52 (with 48 cards no card is left to turn up)')
    return trump


def _check_target(name: str, value: Any, opts: OptionValues) -> int | None:
    """The fixed target; None where bidding or the schedule sets the targets."""
    schedule = opts.given.get("target_schedule")
    if opts["bidding"] and (value is not None or schedule is not None):
        raise ValueError("bidding=True cannot be combined with target or target_schedule (the bid is the target)")
    if value is not None and schedule is not None:
        raise ValueError("give either target or target_schedule, not both")
    if value is None:
        return None if opts["bidding"] or schedule is not None else DEFAULT_TARGET
    return check_int(name, value, 0, opts["deck"] // NUM_PLAYERS)


def _check_schedule(name: str, value: Any, opts: OptionValues) -> tuple[int, ...] | None:
    if value is None:
        return None
    schedule = value
    if isinstance(schedule, str):
        check_choice(name, schedule, ("default",))
        schedule = DEFAULT_SCHEDULE
    if not hasattr(schedule, "__len__") or len(schedule) == 0:
        raise ValueError(f'target_schedule must be a non-empty list of targets or "default", got {schedule!r}')
    return tuple(check_int("target_schedule entry", t, 0, opts["deck"] // NUM_PLAYERS) for t in schedule)


def _check_rounds(name: str, value: Any, opts: OptionValues) -> int | None:
    """Deals per episode; None = until a total reaches win_at."""
    win_at = opts["win_at"]  # read (and so checked) before rounds
    if value is None:
        if win_at is not None:
            return None
        schedule = opts["target_schedule"]
        return len(schedule) if schedule else 1
    return check_int(name, value, 1)


def _check_win_at(name: str, value: Any, opts: OptionValues) -> int | None:
    return None if value is None else check_int(name, value, 1)


OPTIONS = (
    Option("deck", 48, "48 | 52", "the deck; 16 cards to each seat, or 17 and one card left undealt.", one_of(48, 52),
           label="Deck", choices=((48, "48 cards, 16 each"), (52, "52 cards, 17 each"))),
    Option("trump", _default_trump, '"dealer" | "none" | "turn_up"',
           "the dealer names trump, there is none, or the undealt card is turned up and its suit is trump "
           "(deck=52 only).", _check_trump, default_text='"dealer" with 48 cards, "turn_up" with 52', label="Trump",
           choices=(("dealer", "the dealer names it"), ("none", "no trump"), ("turn_up", "the undealt card's suit"))),
    Option("bidding", False, "True | False", "every seat bids a number of tricks, and its bid is its target.", a_bool,
           label="Bidding", choices=((False, "no: one target for all"), (True, "yes: each bids its target"))),
    Option("target", None, "0 .. cards per seat", "the number of tricks to take exactly.", _check_target,
           default_text=f"{DEFAULT_TARGET}; none with bidding or target_schedule", label="Tricks to take"),
    Option("target_schedule", None, f'"default" {DEFAULT_SCHEDULE} | a list of targets',
           "one target per deal, in turn.", _check_schedule,
           label="Targets deal by deal"),
    Option("rounds", None, "an integer >= 1", "deals per episode.", _check_rounds,
           default_text="1, the schedule's length, or unlimited with win_at", label="Deals in a match"),
    Option("win_at", None, "an integer >= 1", "the match ends once a total reaches it.", _check_win_at,
           label="Match ends at a total of"),
)


# ------------------------------------------------------------ what the other layers ask

# A target hit (+4) is worth +1 to a single-seat learner.
REWARD_SCALE = 1 / 4


def worst_score(options: dict[str, Any], hand: int) -> float:
    """The lowest deal score of one seat under resolved ``options`` (trickenv.rewards)."""
    if options["bidding"]:
        return -float(hand)  # bid 0 and take every trick, or bid them all and take none
    targets = options["target_schedule"] or (options["target"],)
    return -float(max(max(t, hand - t) for t in targets))  # -|tricks - target|


def best_score(options: dict[str, Any], hand: int) -> float:
    """The highest deal score of one seat under resolved ``options``: a target hit, or all tricks bid and taken."""
    return float(hand + 10) if options["bidding"] else 4.0


def seat_metrics(spec: GameSpec, rec: dict[str, np.ndarray]) -> SeatMetrics:
    """Per seat of finished deals: exact hits and tricks taken (and bids with bidding); see GameSpec."""
    every = np.ones((len(rec["scores"]), spec.num_players), bool)
    goal = np.where(rec["target"][:, None] >= 0, rec["target"][:, None], rec["bids"])
    out = {"exact_hit_rate": (rec["tricks"] == goal, every), "mean_tricks": (rec["tricks"], every)}
    if spec.options.get("bidding"):
        out["mean_bid"] = (rec["bids"], every)
    return out


# ------------------------------------------------------------ text and infos


def deal_records(spec: GameSpec, state: State, games: np.ndarray) -> dict[str, np.ndarray]:
    """Records of the last finished deal of ``games``: the common fields plus target, bids, turned-up card, winners."""
    return fill_records(spec, state, games, record_kernel, RECORD_FIELDS)


# The game's own record fields, in the order record_kernel writes them.
RECORD_FIELDS = (("target", np.int8, ()), ("bids", np.int8, (N,)), ("turned_up", np.int8, ()),
                 ("winners", np.bool_, (N,)))


@njit(cache=True)
def record_kernel(dealt, last_play, s, games, first_batch, common, extra):
    """Write the record of the last finished deal of each game in ``games`` (see :func:`deal_records`)."""
    target, bids, turned_up, winners = extra
    for i in range(games.shape[0]):
        g = games[i]
        write_common_record(dealt, last_play, s, g, i, first_batch, common)
        target[i] = s[g, LAST_TARGET]
        turned_up[i] = s[g, LAST_TURNED_UP]
        top = s[g, LAST_TOTALS]
        for p in range(N):
            bids[i, p] = s[g, LAST_BIDS + p]
            top = max(top, s[g, LAST_TOTALS + p])
        # The highest total wins the match (several seats on a tie); all False before the match ends.
        for p in range(N):
            winners[i, p] = s[g, LAST_MATCH_OVER] != 0 and s[g, LAST_TOTALS + p] == top
