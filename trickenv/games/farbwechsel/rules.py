"""Farbwechsel rules (docs/rules.md, Farbwechsel): options, phases, kernels, trump changes, scoring and records."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from trickenv import cards
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
    DEALS_DONE,
    GAME_FIELDS,
    LAST_POINTS,
    LEADER,
    NO_TRUMP,
    NUM_PHASES,
    PH_DONE,
    PH_PLAY,
    PH_TRUMP,
    PHASE,
    POINTS,
    ROUND,
    TAB_GAME,
    TAB_POINTS,
    TAB_SUIT,
    TO_ACT,
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
    at_least,
    block_offsets,
    check_bool,
    fill_records,
    literal,
    one_of,
)

NAME = "farbwechsel"
COMPILE_LABEL = "the Farbwechsel kernels"  # trickenv.engine.first_run
RANKINGS = ("skat", "natural", "trump_ten")
SWITCH_MODES = ("last_suit", "cycle")
SWITCH_RANKS = (("Q",), ("Q", "J"), ())  # (): nothing switches (a control for research)
DECK = 32
RANKS = 8
MAX_POINTS = 120  # card points in the deck
MAX_TRICKS = 10
# Trick strength of ranks 7 8 9 10 J Q K A (ids 0..7 within a suit).
SKAT_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)  # A > 10 > K > Q > J > 9 > 8 > 7
NATURAL_STRENGTH = (0, 1, 2, 3, 4, 5, 6, 7)  # face order
# ranking -> (strength outside trump, strength in trump)
STRENGTHS = {
    "skat": (SKAT_STRENGTH, SKAT_STRENGTH),
    "natural": (NATURAL_STRENGTH, NATURAL_STRENGTH),
    "trump_ten": (NATURAL_STRENGTH, SKAT_STRENGTH),
}
CARD_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
RANK_INDEX = {"J": 4, "Q": 5}

# ------------------------------------------------------------------ game fields
FIRST_TRUMP = GAME_FIELDS + 0  # trump the dealer declared this deal (-1 before)
CHANGES = GAME_FIELDS + 1  # trump changes so far this deal
CHANGES_TOTAL = GAME_FIELDS + 2  # trump changes since the env was created (never reset)
LAST_CHANGES = GAME_FIELDS + 3  # trump changes of the last finished deal
LAST_FIRST_TRUMP = GAME_FIELDS + 4
SWITCH_CARDS = GAME_FIELDS + 5  # switching cards played so far this deal
SWITCH_TOTAL = GAME_FIELDS + 6  # switching cards played since the env was created
# One record per trump change (at most one per trick but the last).
R_TRICK, R_SEAT, R_CARD, R_OLD, R_NEW, R_POINTS, R_WINNER, R_NSWITCH = range(8)
REC_SIZE = 8
MAX_CHANGES = MAX_TRICKS - 1
REC = GAME_FIELDS + 7  # records of this deal: REC + k * REC_SIZE + R_*
LAST_REC = REC + MAX_CHANGES * REC_SIZE  # records of the last finished deal
LAST_SWITCH_CARDS = LAST_REC + MAX_CHANGES * REC_SIZE  # switching cards played in the last finished deal
NUM_FIELDS = LAST_SWITCH_CARDS + 1

# Config vector.
C_N, C_HAND, C_PARTNER, C_CYCLE, C_ROUNDS, C_ACTIONS, C_PAR = range(7)
# ... and where each observation block starts (make_spec writes them from obs_blocks, the one source of the layout).
OBS_SLOTS = ("trick", "played", "played_in", "trump", "trick_trump", "tricks", "points", "phase", "dealer", "leader")
(C_OFF_TRICK, C_OFF_PLAYED, C_OFF_IN, C_OFF_TRUMP, C_OFF_TT, C_OFF_TRICKS, C_OFF_POINTS, C_OFF_PHASE, C_OFF_DEALER,
 C_OFF_LEADER) = range(7, 17)
NUM_CFG = 17
TAB_SWITCH = TAB_GAME  # 1 for a card that changes trump (queens; jacks too in Double Farbwechsel)


def obs_blocks(n: int, tricks: int) -> list[Block]:
    """The observation, block by block; ``n`` seats are relative (0 = the observer), ``tricks`` per deal."""
    return [
        *card_blocks(n, DECK),
        Block("played_in", (tricks, DECK), "onehot", axis=0,
              doc="`[t, c]`: card `c` was played in trick `t`; with `played` and the first leader (left of the "
              "dealer), the whole public history of the deal"),
        Block("trump", (5,), "onehot", none_index=4, doc="trump in force now: suit `0..3` (C S H D); `[4]` none "
              "yet (the dealer has not declared)"),
        Block("trick_trump", (tricks, 4), "onehot", doc="`[t, s]`: suit `s` was trump at completed trick `t`; a "
              "change shows as a different suit at `t + 1`"),
        Block("tricks", (n, tricks + 1), "onehot", doc="`[r, k]`: relative seat `r` has taken `k` tricks"),
        Block("points", (n, MAX_POINTS + 1), "onehot", doc="`[r, p]`: relative seat `r` has taken `p` card points "
              "(0..120); partners' team points are seats 0 + 2"),
        Block("phase", (NUM_PHASES,), "onehot", doc="trump, bid, call, play, done (Farbwechsel uses trump, play "
              "and done)"),
        Block("dealer", (n,), "onehot", doc="relative seat of the dealer"),
        Block("leader", (n,), "onehot", doc="relative seat that leads (or led) the trick in progress"),
    ]


def obs_offsets(n: int, tricks: int) -> dict[str, tuple[int, int]]:
    """Observation blocks: name -> (offset, length)."""
    return block_offsets(obs_blocks(n, tricks))


# ------------------------------------------------------------------ kernels


@njit(inline="always")
def score_points(p, par):
    """Deal score of a side that took ``p`` card points with par ``par`` (docs/rules.md, Farbwechsel)."""
    if 2 * p >= 3 * par:
        return p + 2 * (p - par)
    if 2 * p < par:
        return p - 2 * (par - p)
    return p


@njit(inline="always")
def _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, g, deal_row, fixed):
    """Deal (from ``deal_row`` if fixed, else at random); the dealer then declares trump."""
    n = cfg[C_N]
    hand = cfg[C_HAND]
    played_by[g, :] = -1
    played_in[g, :] = -1
    trick_trump[g, :] = -1
    deal_hands(hands, aux, dealt, rng, g, deal_row, fixed, n, hand, DECK)
    for k in range(4):
        s[g, TRICK + k] = -1
        s[g, TRICKS + k] = 0
        s[g, POINTS + k] = 0
    s[g, TRICK_NO] = 0
    s[g, TRICK_LEN] = 0
    s[g, TRUMP] = NO_TRUMP
    s[g, FIRST_TRUMP] = NO_TRUMP
    s[g, CHANGES] = 0
    s[g, SWITCH_CARDS] = 0
    s[g, LEADER] = (s[g, DEALER] + 1) % n
    s[g, PHASE] = PH_TRUMP
    s[g, TO_ACT] = s[g, DEALER]


@njit(inline="always")
def _change_trump(s, g, tab, cfg, leader, winner, last_trick):
    """After a trick: count its switching cards and, unless it was the last, move trump and record a change.

    ``leader`` led the trick just closed (close_trick has already made the winner lead).
    """
    n = cfg[C_N]
    last = -1
    count = 0
    pts = 0
    for j in range(n):
        c = s[g, TRICK + j]
        pts += tab[TAB_POINTS, c]
        if tab[TAB_SWITCH, c] != 0:
            last = j
            count += 1
    if count == 0:
        return
    s[g, SWITCH_CARDS] += count
    s[g, SWITCH_TOTAL] += count
    if last_trick:
        # No trick follows the last one, so its switching cards change nothing [ruling].
        return
    old = s[g, TRUMP]
    card = s[g, TRICK + last]
    if cfg[C_CYCLE]:
        new = (old + count) % 4
    else:
        new = tab[TAB_SUIT, card]
    if new == old:
        return
    s[g, TRUMP] = new
    r = REC + s[g, CHANGES] * REC_SIZE
    s[g, r + R_TRICK] = s[g, TRICK_NO] - 1
    s[g, r + R_SEAT] = (leader + last) % n
    s[g, r + R_CARD] = card
    s[g, r + R_OLD] = old
    s[g, r + R_NEW] = new
    s[g, r + R_POINTS] = pts
    s[g, r + R_WINNER] = winner
    s[g, r + R_NSWITCH] = count
    s[g, CHANGES] += 1
    s[g, CHANGES_TOTAL] += 1


@njit(inline="always")
def _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
    """Score the finished deal into rewards, totals and the records; return True if the match is over."""
    n = cfg[C_N]
    par = cfg[C_PAR]
    for p in range(n):
        pts = s[g, POINTS + p]
        if cfg[C_PARTNER]:
            pts += s[g, POINTS + (p + 2) % 4]
        rewards[g, p] = score_points(pts, par)
    s[g, LAST_FIRST_TRUMP] = s[g, FIRST_TRUMP]
    s[g, LAST_CHANGES] = s[g, CHANGES]
    s[g, LAST_SWITCH_CARDS] = s[g, SWITCH_CARDS]
    for k in range(s[g, CHANGES] * REC_SIZE):
        s[g, LAST_REC + k] = s[g, REC + k]
    close_deal(dealt, last_play, played_by, played_in, trick_trump, s, g, n, rewards)
    over = s[g, ROUND] >= cfg[C_ROUNDS]
    seal_match(s, g, over)
    return over


@njit(inline="always")
def apply_action(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, rewards):
    """Apply legal action ``a`` to game g; return what it ended (``engine.kernels`` codes)."""
    n = cfg[C_N]
    p = s[g, TO_ACT]
    if s[g, PHASE] == PH_TRUMP:
        s[g, TRUMP] = a - DECK
        s[g, FIRST_TRUMP] = a - DECK
        s[g, PHASE] = PH_PLAY
        s[g, TO_ACT] = s[g, LEADER]
        return NOTHING_ENDED
    play_card(hands, played_by, played_in, s, g, p, a)
    if s[g, TRICK_LEN] < n:
        s[g, TO_ACT] = (p + 1) % n
        return NOTHING_ENDED
    leader = s[g, LEADER]
    winner = close_trick(s, g, tab, trick_trump, n)
    last_trick = s[g, TRICK_NO] == cfg[C_HAND]
    _change_trump(s, g, tab, cfg, leader, winner, last_trick)
    if not last_trick:
        return NOTHING_ENDED
    if _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
        s[g, PHASE] = PH_DONE
        return MATCH_ENDED
    return DEAL_ENDED  # the step kernel starts the next deal


@njit(inline="always")
def write_mask(hands, s, cfg, tab, g, mask):
    """Legal actions of the seat to act in game g, into ``mask[g]``."""
    ph = s[g, PHASE]
    if ph == PH_PLAY:
        led = tab[TAB_SUIT, s[g, TRICK]] if s[g, TRICK_LEN] > 0 else -1
        legal = follow_suit_bits(hands[g, s[g, TO_ACT]], led, RANKS)
        put_bits(mask, g, 0, legal, DECK)
        for k in range(4):
            mask[g, DECK + k] = False
    else:
        on = ph == PH_TRUMP
        for k in range(DECK):
            mask[g, k] = False
        for k in range(4):
            mask[g, DECK + k] = on


@njit(inline="always")
def _write_obs(hands, played_by, played_in, trick_trump, s, cfg, g, seat, obs):
    """Everything ``seat`` knows about game g, seat-relative, into ``obs[g]`` (docs/envs/farbwechsel.md)."""
    n = cfg[C_N]
    nt = cfg[C_HAND]
    o_trick = cfg[C_OFF_TRICK]
    o_played = cfg[C_OFF_PLAYED]
    o_in = cfg[C_OFF_IN]
    o_trump = cfg[C_OFF_TRUMP]
    o_tt = cfg[C_OFF_TT]
    o_tricks = cfg[C_OFF_TRICKS]
    o_points = cfg[C_OFF_POINTS]
    o_phase = cfg[C_OFF_PHASE]
    o_dealer = cfg[C_OFF_DEALER]
    o_leader = cfg[C_OFF_LEADER]
    # Dense blocks (hand, played, played_in) are written whole; the one-hot blocks are cleared, then set.
    put_bits(obs, g, 0, hands[g, seat], DECK)
    clear(obs, g, o_trick, n * DECK)
    q = seat
    for r in range(n):
        put_equal(obs, g, o_played + r * DECK, played_by, q, DECK)
        q = seat_after(q, n)
    for t in range(nt):
        put_equal(obs, g, o_in + t * DECK, played_in, t, DECK)
    clear(obs, g, o_trump, obs.shape[1] - o_trump)
    lead = s[g, LEADER]
    r = seat_from(lead, seat, n)
    for j in range(s[g, TRICK_LEN]):
        obs[g, o_trick + r * DECK + s[g, TRICK + j]] = 1
        r = seat_after(r, n)
    trump = s[g, TRUMP]
    obs[g, o_trump + (trump if trump >= 0 else 4)] = 1
    for t in range(s[g, TRICK_NO]):
        obs[g, o_tt + t * 4 + trick_trump[g, t]] = 1
    q = seat
    for r in range(n):
        obs[g, o_tricks + r * (nt + 1) + s[g, TRICKS + q]] = 1
        obs[g, o_points + r * (MAX_POINTS + 1) + s[g, POINTS + q]] = 1
        q = seat_after(q, n)
    obs[g, o_phase + s[g, PHASE]] = 1
    obs[g, o_dealer + seat_from(s[g, DEALER], seat, n)] = 1
    obs[g, o_leader + seat_from(lead, seat, n)] = 1


# Entry kernels, one per entry point: the same thin loops in every game. A shared loop taking the
# game's functions as arguments would be recompiled in every process (numba cannot cache it).
# There is no threaded twin: VecEnv(threads=k) runs step_kernel on k slices of the batch at once
# (it releases the GIL), so each game compiles one kernel per entry.


@njit(cache=True)  # without SERIAL's passes: a reset is rare, and they cost compile time
def reset_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, deal_rows, use_deal,
                 dealers, mask, obs):
    """Start a new episode in every game (from ``deal_rows[g]`` where ``use_deal[g]``)."""
    for g in range(s.shape[0]):
        start_match(s, rng, g, dealers[g], cfg[C_N])
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, g,
                    deal_rows[g], use_deal[g])
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, played_in, trick_trump, s, cfg, g, s[g, TO_ACT], obs)


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
    for g in range(s.shape[0]):
        idle_game(rewards, done, deal_end, g)  # zero rewards and flags; a stepped game's are set below
        if not where[g]:
            continue
        ended = apply_action(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                       actions[g], rewards)
        if step_outcome(done, deal_end, g, ended, autoreset):
            next_dealer(s, rng, g, ended == MATCH_ENDED, cfg[C_N])
            _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, g,
                        empty_row, False)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, played_in, trick_trump, s, cfg, g, s[g, TO_ACT], obs)
    return 0


@njit(cache=True, parallel=SERIAL)
def observe_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, cfg, tab, seats, obs):
    """Observation of ``seats[g]`` in every game g."""
    for g in range(s.shape[0]):
        _write_obs(hands, played_by, played_in, trick_trump, s, cfg, g, seats[g], obs)


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
    for g in range(s.shape[0]):
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, g,
                    deal_rows[g], True)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, played_in, trick_trump, s, cfg, g, s[g, TO_ACT], obs)


# --------------------------------------------------------------- the spec


def _check_partnership(name: str, value: Any, opts: OptionValues) -> bool:
    partnership = check_bool(name, value)
    if partnership and opts["num_players"] != 4:
        raise ValueError("partnership=True needs num_players=4 (teams are seats 0+2 and 1+3)")
    return partnership


def _check_switch_ranks(name: str, value: Any, opts: OptionValues) -> tuple[str, ...]:
    """Normalise switch_ranks to ("Q",), ("Q", "J") or (), else raise ValueError."""
    allowed = "('Q',), ('Q', 'J') or () (no card switches)"
    if isinstance(value, str) or not isinstance(value, (tuple, list)):
        raise ValueError(f"switch_ranks must be {allowed}, got {value!r}")
    if any(not isinstance(v, str) for v in value) or len(set(value)) != len(value):
        raise ValueError(f"switch_ranks must be {allowed}, got {value!r}")
    ranks = set(value)
    for want in SWITCH_RANKS:
        if ranks == set(want):
            return want
    raise ValueError(f"switch_ranks must be {allowed}, got {value!r}")


def deal_score(points: int, par: int) -> int:
    """Deal score of a side that took ``points`` card points with par ``par`` (Python entry to the kernel rule)."""
    return int(score_points(int(points), int(par)))


OPTIONS = (
    Option("num_players", 3, "3 | 4", "10 cards to each seat and 2 set aside with 3 players, 8 each with 4.",
           one_of(3, 4), label="Players", choices=((3, "3 (two cards set aside)"), (4, "4"))),
    Option("partnership", False, "True | False",
           "4 players only: seats 0+2 play against 1+3 and score their card points together.", _check_partnership,
           label="Partnerships", choices=((False, "each for themselves"), (True, "two against two (4 players)"))),
    Option("ranking", "skat", " | ".join(map(literal, RANKINGS)),
           'the card order: "skat" A > 10 > K > Q > J > 9 > 8 > 7 in every suit; "natural" A > K > Q > J > 10 > ...; '
           '"trump_ten" natural except in the trump suit, where the 10 ranks just below the ace.', one_of(*RANKINGS),
           label="Card order", choices=(("skat", "A 10 K Q J 9 8 7"), ("natural", "A K Q J 10 9 8 7"),
                                        ("trump_ten", "A K Q J 10 9 8 7, in trump A 10 K Q J 9 8 7"))),
    Option("switch_ranks", SWITCH_RANKS[0], " | ".join(map(literal, SWITCH_RANKS)),
           "the ranks whose cards change trump (with the jacks: Double Farbwechsel; (): none, the dealer's trump "
           "stays, a control variant for measuring what switching is worth).", _check_switch_ranks,
           label="Cards that change trump", choices=((("Q",), "queens"), (("Q", "J"), "queens and jacks"),
                                                     ((), "none: trump stays"))),
    Option("switch_mode", "last_suit", " | ".join(map(literal, SWITCH_MODES)),
           "the suit of the trick's last switching card becomes trump, or each switching card moves trump one suit "
           "along C, S, H, D (Fixed Farbwechsel).", one_of(*SWITCH_MODES), label="How trump changes",
           choices=(("last_suit", "to the suit of the last one in the trick"), ("cycle", "one suit on, per card"))),
    Option("rounds", 1, "an integer >= 1", "deals per episode.", at_least(1), label="Deals in a match"),
)


# ------------------------------------------------------------ what the other layers ask

# 1/120 of the deck's card points: the par of 40 points (3 players) is worth +0.33 to a single-seat learner.
# The worst score (make_spec) is a side's without card points: p - 2 * (par - p) at p = 0.
REWARD_SCALE = 1 / MAX_POINTS


def seat_metrics(spec: GameSpec, rec: dict[str, np.ndarray]) -> SeatMetrics:
    """Per seat of finished deals: card points and the trump changes it caused; see GameSpec."""
    n = spec.num_players
    seats = np.arange(n)[None, :]
    every = np.ones((len(rec["scores"]), n), bool)
    j = np.arange(rec["change_seat"].shape[1])[None, :]
    counted = (j < rec["trump_changes"][:, None])[:, :, None]
    caused = ((rec["change_seat"][:, :, None] == seats[:, None, :]) & counted).sum(axis=1)
    return {"card_points": (rec["points"], every), "trump_changes_caused": (caused, every)}


# ------------------------------------------------------------ text and infos


def _suit(x: int) -> str | None:
    return cards.SUITS[x] if x >= 0 else None


def _records(s: np.ndarray, base: int, start: int, stop: int) -> list[dict[str, Any]]:
    """Trump-change records ``start .. stop-1`` stored from column ``base`` of a scalar row."""
    out = []
    for k in range(start, stop):
        r = base + k * REC_SIZE
        rec = s[r:r + REC_SIZE].tolist()
        out.append({
            "trick": rec[R_TRICK],
            "seat": rec[R_SEAT],
            "card": rec[R_CARD],
            "card_str": cards.card_str(rec[R_CARD], DECK),
            "old_trump": _suit(rec[R_OLD]),
            "new_trump": _suit(rec[R_NEW]),
            "points": rec[R_POINTS],
            "winner": rec[R_WINNER],
            "switch_cards": rec[R_NSWITCH],
        })
    return out


# The change record fields, in the order of the R_* columns.
CHANGE_FIELDS = ("trick", "seat", "card", "old_trump", "new_trump", "points", "winner", "switch_cards")


def deal_records(spec: GameSpec, state: State, games: np.ndarray) -> dict[str, np.ndarray]:
    """Records of the last finished deal of ``games``: the common fields, first trump and the trump changes.

    ``change_<field>[k, j]`` is field ``<field>`` of the deal's j-th trump change
    (``CHANGE_FIELDS``), -1 past its ``trump_changes`` changes.
    """
    rec = fill_records(spec, state, games, record_kernel, RECORD_FIELDS)
    if not spec.options["partnership"]:
        del rec["team_points"]  # written for every game, a field of partnership games only
    return rec


# The game's own record fields, in the order record_kernel writes them.
RECORD_FIELDS = (
    (("first_trump", np.int8, ()), ("trump_changes", np.int8, ()), ("switch_cards", np.int8, ()))
    + tuple(("change_" + name, np.int16 if name == "points" else np.int8, (MAX_CHANGES,)) for name in CHANGE_FIELDS)
    + (("set_aside_points", np.int16, ()), ("team_points", np.int16, (2,)))
)


@njit(cache=True)
def record_kernel(dealt, last_play, s, games, first_batch, common, extra):
    """Write the record of the last finished deal of each game in ``games`` (see :func:`deal_records`)."""
    first_trump, trump_changes, switch_cards, trick, seat, card, old_trump, new_trump, points, winner, \
        switching, set_aside, team_points = extra
    n = common[1].shape[1]  # players, from the deal's shape
    for i in range(games.shape[0]):
        g = games[i]
        write_common_record(dealt, last_play, s, g, i, first_batch, common)
        first_trump[i] = s[g, LAST_FIRST_TRUMP]
        count = s[g, LAST_CHANGES]
        trump_changes[i] = count
        switch_cards[i] = s[g, LAST_SWITCH_CARDS]
        for j in range(MAX_CHANGES):
            r = LAST_REC + j * REC_SIZE
            valid = j < count
            trick[i, j] = s[g, r + R_TRICK] if valid else -1
            seat[i, j] = s[g, r + R_SEAT] if valid else -1
            card[i, j] = s[g, r + R_CARD] if valid else -1
            old_trump[i, j] = s[g, r + R_OLD] if valid else -1
            new_trump[i, j] = s[g, r + R_NEW] if valid else -1
            points[i, j] = s[g, r + R_POINTS] if valid else -1
            winner[i, j] = s[g, r + R_WINNER] if valid else -1
            switching[i, j] = s[g, r + R_NSWITCH] if valid else -1
        taken = 0
        for p in range(n):
            taken += s[g, LAST_POINTS + p]
        set_aside[i] = MAX_POINTS - taken
        team_points[i, 0] = s[g, LAST_POINTS + 0] + s[g, LAST_POINTS + 2]  # seats 0 + 2 (partnership games)
        team_points[i, 1] = s[g, LAST_POINTS + 1] + s[g, LAST_POINTS + 3]


def step_events(spec: GameSpec, state: State, g: int, s_before: np.ndarray) -> list[dict[str, Any]]:
    """Trump changes made by the last step of game g (one dict each), from its scalar row before and after."""
    after = state.s[g, CHANGES_TOTAL]
    if after == s_before[CHANGES_TOTAL]:
        return []
    s = state.s[g]
    new = int(after - s_before[CHANGES_TOTAL])
    if s[DEALS_DONE] != s_before[DEALS_DONE]:
        base, count = LAST_REC, int(s[LAST_CHANGES])
    else:
        base, count = REC, int(s[CHANGES])
    events = _records(s, base, count - new, count)
    for e in events:
        e["event"] = "trump_change"
        e["round"] = int(s_before[ROUND])
    return events
