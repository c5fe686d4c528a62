"""Four Tricks (docs/rules.md, Four Tricks): 3 players try to take exactly 4 tricks.

Options (defaults in brackets): ``deck`` 48 | 52 [48]; ``trump`` "dealer" |
"none" | "turn_up" ["dealer" with 48 cards, "turn_up" with 52]; ``bidding``
[False]; ``target`` [4]; ``target_schedule`` a list or "default" (1..5..1)
[None]; ``rounds`` deals per episode [1, or len(schedule), or unlimited with
win_at]; ``win_at`` end the match once a total reaches it [None].
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from trickenv import cards
from trickenv.engine.kernels import (
    DEAL_ENDED,
    SERIAL,
    MATCH_ENDED,
    NOTHING_ENDED,
    close_deal,
    count_illegal,
    idle_game,
    deal_hands,
    close_trick,
    follow_suit_bits,
    lowest_card,
    play_card,
    put_bits,
    put_equal,
    clear,
    seal_match,
    seat_after,
    seat_from,
    uniform_int,
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
    Block, GameSpec, block_offsets, card_table, check_bool, check_choice, check_int, check_unknown, fill_records,
)

NAME = "four_tricks"
NUM_PLAYERS = 3
DEFAULT_SCHEDULE = (1, 2, 3, 4, 5, 4, 3, 2, 1)
OPTIONS = ("deck", "trump", "bidding", "target", "target_schedule", "rounds", "win_at")
TRUMP_MODES = ("dealer", "none", "turn_up")
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
MODE_DEALER, MODE_NONE, MODE_TURN_UP = range(3)
N = NUM_PLAYERS


def obs_blocks(deck: int, hand: int) -> list[Block]:
    """The observation, block by block (docs/observations/four_tricks.md)."""
    return [
        Block("hand", (deck,)),
        Block("trick", (N, deck), "onehot"),
        Block("played", (N, deck)),
        Block("trump", (5,), "onehot", none_index=4),
        Block("turned_up", (deck,), "onehot"),
        Block("tricks", (N, hand + 1), "onehot"),
        Block("target", (hand + 1,), "onehot"),
        Block("bids", (N, hand + 1), "onehot"),
        Block("phase", (NUM_PHASES,), "onehot"),
        Block("dealer", (N,), "onehot"),
        Block("leader", (N,), "onehot"),
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
def _start_match(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, deal_row, fixed, dealer):
    """Zero the match and deal its first round (dealer < 0: drawn at random)."""
    for k in range(4):
        s[g, TOTALS + k] = 0
    s[g, ROUND] = 0
    s[g, DEALER] = dealer if dealer >= 0 else uniform_int(rng, g, N)
    _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, deal_row, fixed)


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
def _apply(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, rewards, empty_row):
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
    s[g, DEALER] = (s[g, DEALER] + 1) % N
    _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, empty_row, False)
    return DEAL_ENDED


@njit(inline="always")
def _write_mask(hands, s, cfg, tab, g, mask):
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
def _write_obs(hands, played_by, s, cfg, g, seat, obs):
    """Everything ``seat`` knows about game g, seat-relative, into ``obs[g]`` (docs/observations.md)."""
    deck = cfg[C_DECK]
    hand = cfg[C_HAND]
    o_trick = deck
    o_played = o_trick + N * deck
    o_trump = o_played + N * deck
    o_up = o_trump + 5
    o_tricks = o_up + deck
    o_target = o_tricks + N * (hand + 1)
    o_bids = o_target + hand + 1
    o_phase = o_bids + N * (hand + 1)
    o_dealer = o_phase + NUM_PHASES
    o_leader = o_dealer + N
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


# Entry kernels: the same thin loops in every game. A shared loop taking the game's
# functions as arguments would be recompiled in every process (numba cannot cache it).


@njit(cache=True, parallel=SERIAL)
def reset_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, deal_rows, use_deal,
                 dealers, mask, obs):
    """Start a new episode in every game (from ``deal_rows[g]`` where ``use_deal[g]``)."""
    for g in range(s.shape[0]):
        _start_match(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                     deal_rows[g], use_deal[g], dealers[g])
        _write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, cfg, g, s[g, TO_ACT], obs)


@njit(inline="always")
def _step_game(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, mask, obs,
               rewards, done, deal_end, autoreset, empty_row):
    """One step of game g, then its next mask and the observation of the seat to act."""
    for p in range(rewards.shape[1]):
        rewards[g, p] = 0
    ended = _apply(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, rewards,
                   empty_row)
    done[g] = ended == MATCH_ENDED
    deal_end[g] = ended != NOTHING_ENDED
    if ended == MATCH_ENDED and autoreset:
        _start_match(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, empty_row,
                     False, -1)
    _write_mask(hands, s, cfg, tab, g, mask)
    _write_obs(hands, played_by, s, cfg, g, s[g, TO_ACT], obs)


@njit(cache=True, parallel=SERIAL)
def step_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, actions, where, mask,
                obs, rewards, done, deal_end, autoreset):
    """Apply one action to every game ``g`` with ``where[g]``; return the number of illegal ones.

    With any illegal action nothing changes. Games outside ``where`` keep their
    state, mask and observation; their rewards, done and deal_end read zero.
    """
    bad = count_illegal(actions, where, mask, cfg[C_ACTIONS])
    empty_row = np.empty(0, np.int8)
    if bad == 0:
        for g in range(s.shape[0]):
            if where[g]:
                _step_game(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                           actions[g], mask, obs, rewards, done, deal_end, autoreset, empty_row)
            else:
                idle_game(rewards, done, deal_end, g)
    return bad


@njit(cache=True, parallel=True)
def step_kernel_parallel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, actions,
                         where, mask, obs, rewards, done, deal_end, autoreset):
    """:func:`step_kernel` with the games split over threads (for large batches)."""
    bad = count_illegal(actions, where, mask, cfg[C_ACTIONS])
    empty_row = np.empty(0, np.int8)
    if bad == 0:
        for g in prange(s.shape[0]):
            if where[g]:
                _step_game(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                           actions[g], mask, obs, rewards, done, deal_end, autoreset, empty_row)
            else:
                idle_game(rewards, done, deal_end, g)
    return bad


@njit(cache=True, parallel=SERIAL)
def observe_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, cfg, tab, seats, obs):
    """Observation of ``seats[g]`` in every game g."""
    for g in range(s.shape[0]):
        _write_obs(hands, played_by, s, cfg, g, seats[g], obs)


# --------------------------------------------------------------- the spec


def make_spec(**options: Any) -> GameSpec:
    """Validate Four Tricks options and build its spec."""
    check_unknown(NAME, options, OPTIONS)
    deck = check_choice("deck", options.get("deck", 48), (48, 52))
    trump = check_choice("trump", options.get("trump", "turn_up" if deck == 52 else "dealer"), TRUMP_MODES)
    if trump == "turn_up" and deck != 52:
        raise ValueError('trump="turn_up" needs deck=52 (with 48 cards no card is left to turn up)')
    bidding = check_bool("bidding", options.get("bidding", False))
    hand = deck // NUM_PLAYERS
    schedule = options.get("target_schedule")
    target = options.get("target")
    if bidding and (target is not None or schedule is not None):
        raise ValueError("bidding=True cannot be combined with target or target_schedule (the bid is the target)")
    if target is not None and schedule is not None:
        raise ValueError("give either target or target_schedule, not both")
    target = 4 if target is None else check_int("target", target, 0, hand)
    if schedule is not None:
        if isinstance(schedule, str):
            check_choice("target_schedule", schedule, ("default",))
            schedule = DEFAULT_SCHEDULE
        if not hasattr(schedule, "__len__") or len(schedule) == 0:
            raise ValueError(f'target_schedule must be a non-empty list of targets or "default", got {schedule!r}')
        schedule = tuple(check_int("target_schedule entry", t, 0, hand) for t in schedule)
    win_at = options.get("win_at")
    if win_at is not None:
        win_at = check_int("win_at", win_at, 1)
    rounds = options.get("rounds")
    if rounds is None:
        rounds = 0 if win_at is not None else (len(schedule) if schedule else 1)
    else:
        rounds = check_int("rounds", rounds, 1)

    ranks = cards.num_ranks(deck)
    num_actions = deck + 4 + hand + 1
    width = max(deck, len(schedule) if schedule else 0)
    ids = np.arange(deck)
    # A > K > Q > J > 10 > ...: face order; no card points.
    tab = card_table(ids // ranks, ids % ranks, np.zeros(deck), game_rows=1, width=width)
    if schedule:
        tab[TAB_GAME, : len(schedule)] = schedule
    cfg = np.zeros(10, np.int32)
    cfg[[C_DECK, C_RANKS, C_HAND, C_TRUMP_MODE, C_BIDDING, C_TARGET, C_ROUNDS, C_WIN_AT, C_SCHED_LEN, C_ACTIONS]] = [
        deck, ranks, hand, TRUMP_MODES.index(trump), bidding, target, rounds, win_at or 0,
        len(schedule) if schedule else 0, num_actions,
    ]
    resolved = dict(deck=deck, trump=trump, bidding=bidding, target=None if (bidding or schedule) else target,
                    target_schedule=schedule, rounds=rounds or None, win_at=win_at)
    blocks = obs_blocks(deck, hand)
    offsets = block_offsets(blocks)
    obs_size = sum(b.size for b in blocks)

    def describe(a: int) -> str:
        if deck <= a < deck + 4:
            return f"trump {cards.SUIT_NAMES[a - deck]}"
        if deck + 4 <= a < num_actions:
            return f"bid {a - deck - 4}"
        return f"action {a}"

    return GameSpec(
        name=NAME, options=resolved, num_players=NUM_PLAYERS, deck=deck, hand_size=hand, num_tricks=hand,
        num_actions=num_actions, obs_size=obs_size, num_fields=NUM_FIELDS, num_aux=1, cfg=cfg, tab=tab,
        reset_kernel=reset_kernel, step_kernel=step_kernel, step_kernel_parallel=step_kernel_parallel,
        observe_kernel=observe_kernel, obs_blocks=blocks, records=deal_records,
        describe_action=describe, render_text=render,
        extra={"obs_offsets": offsets},
    )


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


def render(spec: GameSpec, state: State, g: int) -> str:
    """A readable table of game g: trump, trick, tricks won, scores, the acting hand."""
    from trickenv.render import render_table

    s = state.s[g]
    extra = []
    if s[TURNED_UP] >= 0:
        extra.append(f"turned up {cards.card_symbol(int(s[TURNED_UP]), spec.deck)}")
    if spec.options["bidding"]:
        extra.append("bids " + " ".join("-" if b < 0 else str(b) for b in s[BIDS:BIDS + spec.num_players]))
    elif s[TARGET] >= 0:
        extra.append(f"target {s[TARGET]}")
    return render_table(spec, state, g, extra)
