"""King Calling rules (docs/rules.md, King Calling): options, phases, the call, declarations, kernels, scoring and
records."""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.engine.kernels import (
    DEAL_ENDED,
    MATCH_ENDED,
    NOTHING_ENDED,
    SERIAL,
    bit,
    clear,
    close_deal,
    close_trick,
    count_illegal,
    deal_split,
    duty_bits,
    group_sizes,
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
    GAME_FIELDS,
    LAST_TRICKS,
    LEADER,
    NO_TRUMP,
    NUM_PHASES,
    PH_CALL,
    PH_DONE,
    PH_PLAY,
    PHASE,
    POINTS,
    ROUND,
    TAB_SUIT,
    TO_ACT,
    TRICK,
    TRICK_LEN,
    TRICK_NO,
    TRICKS,
    TRUMP,
)
from trickenv.engine.state import State
from trickenv.games import base
from trickenv.games.base import (
    Block,
    card_blocks,
    GameSpec,
    Option,
    SeatMetrics,
    at_least,
    block_offsets,
    fill_records,
    literal,
    one_of,
)

NAME = "koenigrufen"
COMPILE_LABEL = "the King Calling kernels"  # trickenv.engine.first_run
NUM_PLAYERS = 4
DECK = 32
RANKS = 8
HAND = 8
BATCH = 4  # cards per batch of the deal (two batches)
PARTNER_MODES = ("first_batch", "full_hand")

# Actions.
A_CALL = DECK  # 32 + c: call card c
A_MARRIAGE = 2 * DECK  # 64 + s: marriage in suit s
A_HUNDRED = 2 * DECK + 4  # 68
A_ALL_TRICKS = A_HUNDRED + 1  # 69
NUM_ACTIONS = A_ALL_TRICKS + 1

# The play duties (docs/rules.md): void in the suit led, trump; and beat the winning card of the
# suit you follow (or trump with) if you can. The world sampler infers hidden cards from them.
MUST_TRUMP = True
MUST_BEAT = True

# Ranks (index in the 32-card deck) and values.
RANK_TEN, RANK_O, RANK_K, RANK_A = 3, 5, 6, 7
# Strength by rank index 7, 8, 9, 10, U, O, K, A: A > 10 > K > O > U > 9 > 8 > 7.
STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)
LAST_TRICK_BONUS = 10
MARRIAGE_TRUMP = 40
MARRIAGE_PLAIN = 20
BASE_THRESHOLD = 50  # no marriage declared by the calling side
MARRIAGE_BASE = 40  # threshold = 40 + declared marriage points otherwise
HUNDRED = 100
# Big declarations (BIG_KIND field): none, the hundred, all tricks.
NO_BIG, BIG_HUNDRED, BIG_ALL_TRICKS = 0, 1, 2
BIG_NAMES = (None, "hundred", "all_tricks")
MISSED_STAKE = (0, 3, 5)  # what the declaring team loses when it misses (by kind)

# Alone kinds (ALONE field).
WITH_PARTNER, ALONE_ON_PURPOSE, ALONE_BY_CHANCE = 0, 1, 2
ALONE_NAMES = (None, "on_purpose", "by_chance")

# Game fields of the scalar table.
CALLER = GAME_FIELDS + 0
CALLED = GAME_FIELDS + 1  # called card, -1 before the call
PARTNER = GAME_FIELDS + 2  # partner seat, -1 = none (caller alone) or before the call
HOLDER = GAME_FIELDS + 3  # seat holding the called card after the full deal, -1 before the call
ALONE = GAME_FIELDS + 4  # WITH_PARTNER / ALONE_ON_PURPOSE / ALONE_BY_CHANCE, -1 before the call
REVEALED = GAME_FIELDS + 5  # 1 once the called card is played (sides public)
MARR = GAME_FIELDS + 6  # 4 slots: bitset of the suits whose marriage the seat declared
BIG_BY = GAME_FIELDS + 10  # seat that made the big declaration (hundred or all tricks), -1 = none
BIG_KIND = GAME_FIELDS + 11  # NO_BIG / BIG_HUNDRED / BIG_ALL_TRICKS
LAST_CALLER = GAME_FIELDS + 12
LAST_CALLED = GAME_FIELDS + 13
LAST_PARTNER = GAME_FIELDS + 14
LAST_ALONE = GAME_FIELDS + 15
LAST_MARR = GAME_FIELDS + 16  # 4 slots
LAST_BIG_BY = GAME_FIELDS + 20
LAST_BIG_KIND = GAME_FIELDS + 21
LAST_CALL_TOTAL = GAME_FIELDS + 22
LAST_DEF_TOTAL = GAME_FIELDS + 23
LAST_CALL_WINS = GAME_FIELDS + 24
LAST_STAKE = GAME_FIELDS + 25
LAST_THRESHOLD = GAME_FIELDS + 26
LAST_HOLDER = GAME_FIELDS + 27
NUM_FIELDS = GAME_FIELDS + 28

# aux columns: 0 = undealt rest (always empty: all 32 cards are dealt), 1 + p = seat p's second batch
# until the call is made.
NUM_AUX = 1 + NUM_PLAYERS

# Config vector.
C_ROUNDS, C_PARTNER_MODE, C_ACTIONS = range(3)
MODE_FIRST_BATCH, MODE_FULL_HAND = range(2)
N = NUM_PLAYERS
POINT_LEVELS = 10  # card points per seat are multiples of 10 in 0..90


def obs_blocks() -> list[Block]:
    """The observation, block by block; seats are relative (0 = the observer)."""
    return [
        *card_blocks(N, DECK, hand_doc="`[c]`: the observer holds card `c`; during the call only the first batch "
                    "(4 cards), the second is dealt after the call"),
        Block("trump", (5,), "onehot", none_index=4, doc="trump suit `0..3` (C S H D), the called card's suit; "
              "`[4]` none yet (the call)"),
        Block("called", (DECK,), "onehot", doc="the called card (all 0 during the call)"),
        Block("own_status", (3,), doc="what the observer alone knows of its side: `[0]` I am the partner; `[1]` I "
              "hold (or held) the called card but am not the partner, so the caller plays alone; `[2]` I am the "
              "caller and hold (or held) the called card; all 0: none of these"),
        Block("sides", (N + 1,), "onehot", doc="public partnership, all 0 until the called card is played: `[r]` "
              "relative seat `r` is the partner, `[4]` the caller plays alone"),
        Block("marriages", (N, 4), doc="`[r, s]`: relative seat `r` declared the marriage in suit `s`"),
        Block("big_declaration", (N, 2), doc="`[r, k]`: relative seat `r` declared the hundred (`k = 0`) or all "
              "tricks (`k = 1`)"),
        Block("points", (N, POINT_LEVELS), "onehot", scale=10, doc="`[r, p / 10]`: relative seat `r` has taken "
              "`p` card points (multiples of 10; the last trick's 10 added when it closes)"),
        Block("tricks", (N, HAND + 1), "onehot", doc="`[r, k]`: relative seat `r` has taken `k` tricks"),
        Block("phase", (NUM_PHASES,), "onehot", doc="trump, bid, call, play, done (King Calling uses call, play "
              "and done)"),
        Block("dealer", (N,), "onehot", doc="relative seat of the dealer"),
        Block("leader", (N,), "onehot", doc="relative seat that leads the trick in progress (during the call: the "
              "caller, who leads the first trick)"),
        Block("caller", (N,), "onehot", doc="relative seat of the caller (forehand, left of the dealer)"),
    ]


def obs_offsets() -> dict[str, tuple[int, int]]:
    """Observation blocks: name -> (offset, length)."""
    return block_offsets(obs_blocks())


_OFF = obs_offsets()
O_HAND = _OFF["hand"][0]
O_TRICK = _OFF["trick"][0]
O_PLAYED = _OFF["played"][0]
O_TRUMP = _OFF["trump"][0]
O_CALLED = _OFF["called"][0]
O_OWN = _OFF["own_status"][0]
O_SIDES = _OFF["sides"][0]
O_MARR = _OFF["marriages"][0]
O_BIG = _OFF["big_declaration"][0]
O_POINTS = _OFF["points"][0]
O_TRICKS = _OFF["tricks"][0]
O_PHASE = _OFF["phase"][0]
O_DEALER = _OFF["dealer"][0]
O_LEADER = _OFF["leader"][0]
O_CALLER = _OFF["caller"][0]
OBS_SIZE = sum(size for _, size in _OFF.values())


# ------------------------------------------------------------------ scoring


@njit(inline="always")
def score_deal(call_total: int, call_tricks: int, call_declared: int, def_total: int,
               big_side: int, big_kind: int) -> tuple[bool, int]:
    """Result of a deal: (calling side wins, stake) from the two team totals.

    ``call_declared`` is the marriage points the calling side declared (counted
    or not: they set its threshold); ``big_side`` is -1 (no big declaration), 0
    (the calling side made it) or 1 (the defenders did), ``big_kind`` its kind
    (BIG_HUNDRED or BIG_ALL_TRICKS). docs/rules.md section 2 (Result, Stakes).
    """
    def_tricks = HAND - call_tricks
    made = False
    if big_side >= 0:
        if big_side == 0:
            total, tricks = call_total, call_tricks
        else:
            total, tricks = def_total, def_tricks
        made = total >= HUNDRED if big_kind == BIG_HUNDRED else tricks == HAND
        call_wins = (big_side == 0) == made
        if not made:
            return call_wins, MISSED_STAKE[big_kind]
    else:
        threshold = BASE_THRESHOLD if call_declared == 0 else MARRIAGE_BASE + call_declared
        call_wins = call_total >= threshold
    if call_wins:
        total, tricks = call_total, call_tricks
    else:
        total, tricks = def_total, def_tricks
    if made and big_kind == BIG_HUNDRED:
        tier = 3
    elif total >= HUNDRED or tricks == HAND:
        tier = 2
    else:
        tier = 1
    if made and big_kind == BIG_ALL_TRICKS:
        bonus = 3
    elif tricks == HAND:
        bonus = 2
    else:
        bonus = 0
    return call_wins, tier + bonus


@njit(inline="always")
def pay(rewards: np.ndarray, g: int, call_wins: bool, stake: int, caller: int, partner: int) -> None:
    """Zero-sum payment of a deal into ``rewards[g]``: 2 v 2 each +-stake; 1 v 3 the caller +-3*stake."""
    sign = 1 if call_wins else -1
    for q in range(N):
        if q == caller:
            rewards[g, q] = sign * stake * (3 if partner < 0 else 1)
        elif q == partner:
            rewards[g, q] = sign * stake
        else:
            rewards[g, q] = -sign * stake


@njit(inline="always")
def marriage_value(suit: int, trump: int) -> int:
    """Points of a marriage in ``suit``: 40 in trump, 20 otherwise."""
    return MARRIAGE_TRUMP if suit == trump else MARRIAGE_PLAIN


# ------------------------------------------------------------------ kernels


@njit(inline="always")
def _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, deal_row, fixed):
    """Deal both batches (the second into aux until the call) and open the call."""
    played_by[g, :] = -1
    played_in[g, :] = -1
    trick_trump[g, :] = -1
    for k in range(NUM_AUX):
        aux[g, k] = 0
    for p in range(N):
        hands[g, p] = 0
    if fixed:
        for c in range(DECK):
            code = deal_row[c]
            if code >= N:
                aux[g, 1 + code - N] |= bit(c)
            elif code >= 0:
                hands[g, code] |= bit(c)
            else:
                aux[g, 0] |= bit(c)
    else:
        groups = dealt[g, 0]  # the deal's record, filled in below, holds the groups meanwhile
        deal_split(rng, g, group_sizes(2 * N, BATCH, 0), 2 * N, groups)
        for p in range(N):
            hands[g, p] = groups[p]
            aux[g, 1 + p] = groups[N + p]
    for p in range(N):
        dealt[g, 0, p] = hands[g, p] | aux[g, 1 + p]
        dealt[g, 0, N + p] = aux[g, 1 + p]
    for k in range(4):
        s[g, TRICK + k] = -1
        s[g, TRICKS + k] = 0
        s[g, POINTS + k] = 0
        s[g, MARR + k] = 0
    s[g, TRICK_NO] = 0
    s[g, TRICK_LEN] = 0
    s[g, TRUMP] = NO_TRUMP
    caller = (s[g, DEALER] + 1) % N
    s[g, CALLER] = caller
    s[g, CALLED] = -1
    s[g, PARTNER] = -1
    s[g, HOLDER] = -1
    s[g, ALONE] = -1
    s[g, REVEALED] = 0
    s[g, BIG_BY] = -1
    s[g, BIG_KIND] = NO_BIG
    s[g, LEADER] = caller
    s[g, TO_ACT] = caller
    s[g, PHASE] = PH_CALL


@njit(inline="always")
def _call(hands, aux, s, cfg, tab, g, c):
    """The caller names card c: trump and partner are fixed, the second batch is dealt."""
    caller = s[g, CALLER]
    b = bit(c)
    first = -1
    second = -1
    for q in range(N):
        if hands[g, q] & b:
            first = q
        if aux[g, 1 + q] & b:
            second = q
        hands[g, q] |= aux[g, 1 + q]
        aux[g, 1 + q] = 0
    holder = first if first >= 0 else second
    if holder == caller:
        partner = -1
        alone = ALONE_ON_PURPOSE if first == caller else ALONE_BY_CHANCE
    elif first >= 0 or cfg[C_PARTNER_MODE] == MODE_FULL_HAND:
        partner = holder
        alone = WITH_PARTNER
    else:
        # first_batch mode, the card came in someone's second batch: nobody was holding it at the call.
        partner = -1
        alone = ALONE_BY_CHANCE
    s[g, CALLED] = c
    s[g, TRUMP] = tab[TAB_SUIT, c]
    s[g, HOLDER] = holder
    s[g, PARTNER] = partner
    s[g, ALONE] = alone
    s[g, PHASE] = PH_PLAY
    s[g, TO_ACT] = s[g, LEADER]


@njit(inline="always")
def _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
    """Score the finished deal into rewards, totals and the records; return True if the match is over."""
    caller = s[g, CALLER]
    partner = s[g, PARTNER]
    trump = s[g, TRUMP]
    call_pts = 0
    def_pts = 0
    call_tricks = 0
    call_decl = 0
    call_cnt = 0
    def_cnt = 0
    for q in range(N):
        m = s[g, MARR + q]
        decl = 0
        for su in range(4):
            if (m >> su) & 1:
                decl += marriage_value(su, trump)
        cnt = decl if s[g, TRICKS + q] > 0 else 0
        if q == caller or q == partner:
            call_pts += s[g, POINTS + q]
            call_tricks += s[g, TRICKS + q]
            call_decl += decl
            call_cnt += cnt
        else:
            def_pts += s[g, POINTS + q]
            def_cnt += cnt
    big_by = s[g, BIG_BY]
    big_side = -1 if big_by < 0 else (0 if big_by == caller or big_by == partner else 1)
    call_total = call_pts + call_cnt
    def_total = def_pts + def_cnt
    call_wins, stake = score_deal(call_total, call_tricks, call_decl, def_total, big_side, s[g, BIG_KIND])
    pay(rewards, g, call_wins, stake, caller, partner)
    for q in range(N):
        s[g, LAST_MARR + q] = s[g, MARR + q]
    s[g, LAST_CALLER] = caller
    s[g, LAST_CALLED] = s[g, CALLED]
    s[g, LAST_PARTNER] = partner
    s[g, LAST_ALONE] = s[g, ALONE]
    s[g, LAST_HOLDER] = s[g, HOLDER]
    s[g, LAST_BIG_BY] = big_by
    s[g, LAST_BIG_KIND] = s[g, BIG_KIND]
    s[g, LAST_CALL_TOTAL] = call_total
    s[g, LAST_DEF_TOTAL] = def_total
    s[g, LAST_CALL_WINS] = call_wins
    s[g, LAST_STAKE] = stake
    s[g, LAST_THRESHOLD] = BASE_THRESHOLD if call_decl == 0 else MARRIAGE_BASE + call_decl
    close_deal(dealt, last_play, played_by, played_in, trick_trump, s, g, N, rewards)
    over = s[g, ROUND] >= cfg[C_ROUNDS]
    seal_match(s, g, over)
    return over


@njit(inline="always")
def apply_action(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g, a, rewards):
    """Apply legal action ``a`` to game g; return what it ended (``engine.kernels`` codes)."""
    p = s[g, TO_ACT]
    if s[g, PHASE] == PH_CALL:
        _call(hands, aux, s, cfg, tab, g, a - A_CALL)
        return NOTHING_ENDED
    if a >= A_MARRIAGE:
        # A declaration: the same player stays to act.
        if a >= A_HUNDRED:
            s[g, BIG_BY] = p
            s[g, BIG_KIND] = BIG_HUNDRED if a == A_HUNDRED else BIG_ALL_TRICKS
        else:
            s[g, MARR + p] |= 1 << (a - A_MARRIAGE)
        return NOTHING_ENDED
    play_card(hands, played_by, played_in, s, g, p, a)
    if a == s[g, CALLED]:
        s[g, REVEALED] = 1
    if s[g, TRICK_LEN] < N:
        s[g, TO_ACT] = (p + 1) % N
        return NOTHING_ENDED
    winner = close_trick(s, g, tab, trick_trump, N)
    if s[g, TRICK_NO] < HAND:
        return NOTHING_ENDED
    s[g, POINTS + winner] += LAST_TRICK_BONUS
    if _finish_deal(played_by, played_in, trick_trump, dealt, last_play, s, cfg, g, rewards):
        s[g, PHASE] = PH_DONE
        return MATCH_ENDED
    return DEAL_ENDED  # the step kernel starts the next deal


@njit(inline="always")
def write_mask(hands, s, cfg, tab, g, mask):
    """Legal actions of the seat to act in game g, into ``mask[g]``."""
    for k in range(NUM_ACTIONS):
        mask[g, k] = False
    ph = s[g, PHASE]
    if ph == PH_PLAY:
        p = s[g, TO_ACT]
        hand = hands[g, p]
        legal = duty_bits(hand, s, g, tab, RANKS, MUST_TRUMP, MUST_BEAT)
        put_bits(mask, g, 0, legal, DECK)
        if s[g, TRICK_NO] == 0:
            m = s[g, MARR + p]
            for su in range(4):
                pair = (hand >> np.uint64(su * RANKS + RANK_O)) & np.uint64(3)  # O and K are adjacent ranks
                mask[g, A_MARRIAGE + su] = pair == np.uint64(3) and not (m >> su) & 1
            free = s[g, BIG_BY] < 0
            mask[g, A_HUNDRED] = free
            mask[g, A_ALL_TRICKS] = free
    elif ph == PH_CALL:
        for k in range(DECK):
            mask[g, A_CALL + k] = True


@njit(inline="always")
def _write_obs(hands, played_by, s, cfg, g, seat, obs):
    """Everything ``seat`` knows about game g, seat-relative, into ``obs[g]`` (docs/envs/koenigrufen.md)."""
    # Dense blocks (hand, played) are written whole; the one-hot blocks are cleared, then set.
    put_bits(obs, g, O_HAND, hands[g, seat], DECK)
    clear(obs, g, O_TRICK, N * DECK)
    q = seat
    for r in range(N):
        put_equal(obs, g, O_PLAYED + r * DECK, played_by, q, DECK)
        q = seat_after(q, N)
    clear(obs, g, O_TRUMP, OBS_SIZE - O_TRUMP)
    lead = s[g, LEADER]
    r = seat_from(lead, seat, N)
    for j in range(s[g, TRICK_LEN]):
        obs[g, O_TRICK + r * DECK + s[g, TRICK + j]] = 1
        r = seat_after(r, N)
    trump = s[g, TRUMP]
    obs[g, O_TRUMP + (trump if trump >= 0 else 4)] = 1
    caller = s[g, CALLER]
    called = s[g, CALLED]
    if called >= 0:
        obs[g, O_CALLED + called] = 1
        partner = s[g, PARTNER]
        holder = s[g, HOLDER]
        # What the seat knows privately about its own side (see the doc's "own_status").
        if partner == seat:
            obs[g, O_OWN + 0] = 1
        elif holder == seat and seat != caller:
            obs[g, O_OWN + 1] = 1
        elif holder == seat:
            obs[g, O_OWN + 2] = 1
        if s[g, REVEALED]:
            if partner >= 0:
                obs[g, O_SIDES + seat_from(partner, seat, N)] = 1
            else:
                obs[g, O_SIDES + N] = 1
    big_by = s[g, BIG_BY]
    if big_by >= 0:
        obs[g, O_BIG + seat_from(big_by, seat, N) * 2 + s[g, BIG_KIND] - 1] = 1
    q = seat
    for r in range(N):
        m = s[g, MARR + q]
        for su in range(4):
            obs[g, O_MARR + r * 4 + su] = (m >> su) & 1
        obs[g, O_POINTS + r * POINT_LEVELS + s[g, POINTS + q] // 10] = 1
        obs[g, O_TRICKS + r * (HAND + 1) + s[g, TRICKS + q]] = 1
        q = seat_after(q, N)
    obs[g, O_PHASE + s[g, PHASE]] = 1
    obs[g, O_DEALER + seat_from(s[g, DEALER], seat, N)] = 1
    obs[g, O_LEADER + seat_from(lead, seat, N)] = 1
    obs[g, O_CALLER + seat_from(caller, seat, N)] = 1


# Entry kernels, one per entry point: the same thin loops in every game. A shared loop taking the
# game's functions as arguments would be recompiled in every process (numba cannot cache it).
# There is no threaded twin: VecEnv(threads=k) runs step_kernel on k slices of the batch at once
# (it releases the GIL), so each game compiles one kernel per entry.


@njit(cache=True)  # without SERIAL's passes: a reset is rare, and they cost compile time
def reset_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, deal_rows, use_deal,
                 dealers, mask, obs):
    """Start a new episode in every game (from ``deal_rows[g]`` where ``use_deal[g]``)."""
    for g in range(s.shape[0]):
        start_match(s, rng, g, dealers[g], N)
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                    deal_rows[g], use_deal[g])
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, cfg, g, s[g, TO_ACT], obs)


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
            next_dealer(s, rng, g, ended == MATCH_ENDED, N)
            _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                        empty_row, False)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, cfg, g, s[g, TO_ACT], obs)
    return 0


@njit(cache=True, parallel=SERIAL)
def observe_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, cfg, tab, seats, obs):
    """Observation of ``seats[g]`` in every game g."""
    for g in range(s.shape[0]):
        _write_obs(hands, played_by, s, cfg, g, seats[g], obs)


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
        _start_deal(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, g,
                    deal_rows[g], True)
        write_mask(hands, s, cfg, tab, g, mask)
        _write_obs(hands, played_by, s, cfg, g, s[g, TO_ACT], obs)


# --------------------------------------------------------------- the spec


def card_table() -> np.ndarray:
    """The int32 card table: suit, strength (A > 10 > K > O > U > 9 > 8 > 7), points (A and 10: 10)."""
    ids = np.arange(DECK)
    return base.card_table(ids // RANKS, np.array(STRENGTH)[ids % RANKS],
                           np.where(np.isin(ids % RANKS, (RANK_TEN, RANK_A)), 10, 0))


OPTIONS = (
    Option("partner_from", "first_batch", " | ".join(map(literal, PARTNER_MODES)),
           "whose hand decides the partner: the holder of the called card among the other seats' first 4 cards, "
           "or its holder after the full deal.", one_of(*PARTNER_MODES), label="The partner holds the called card",
           choices=(("first_batch", "in the first 4 cards"), ("full_hand", "anywhere in the hand"))),
    Option("rounds", 1, "an integer >= 1", "deals per episode.", at_least(1), label="Deals in a match"),
)


# ------------------------------------------------------------ what the other layers ask

REWARD_SCALE = 1.0  # a plain 2-against-2 win pays +1
WORST_SCORE = -15.0  # alone against three, stake 5 (all tricks declared and missed): 3 * 5
BEST_SCORE = 15.0  # the same deal won

UNKNOWN = -2  # in an information state: a partnership field the seat cannot know (partner, holder, alone kind)


def side_points(spec: GameSpec, rec: dict[str, np.ndarray], seats: np.ndarray) -> np.ndarray:
    """Card points with counted marriages of ``seats[j]``'s side in deal record j: its team total."""
    rows = np.arange(len(seats))
    calling = rec["calling_side"][rows, seats]
    return np.where(calling, rec["team_totals"][:, 0], rec["team_totals"][:, 1]).astype(np.float32)


def seat_metrics(spec: GameSpec, rec: dict[str, np.ndarray]) -> SeatMetrics:
    """Per seat of finished deals: wins by role, scores by role, partner and alone rates, declarations;
    see GameSpec."""
    n = spec.num_players
    seats = np.arange(n)[None, :]
    every = np.ones((len(rec["scores"]), n), bool)
    caller = rec["caller"][:, None]
    partner = rec["partner"][:, None]
    calling = rec["calling_side"]
    wins = rec["calling_wins"][:, None]
    is_caller = seats == caller
    is_partner = (seats == partner) & ~is_caller
    won = np.where(calling, wins, ~wins)
    declared = seats == rec["big_declared_by"][:, None]
    alone = rec["alone_kind"][:, None]
    scores = rec["scores"]
    return {
        "win_rate": (won, every),
        "caller_win_rate": (won, is_caller),
        "partner_win_rate": (won, is_partner),
        "defender_win_rate": (won, ~calling),
        "caller_score": (scores, is_caller),
        "partner_score": (scores, is_partner),
        "defender_score": (scores, ~calling),
        "partner_share": (is_partner, every),
        "alone_on_purpose_rate": (np.broadcast_to(alone == 1, every.shape), is_caller),
        "alone_by_chance_rate": (np.broadcast_to(alone == 2, every.shape), is_caller),
        "declaration_rate": (declared, every),
        "declaration_win_rate": (won, declared),
        "marriages_declared": (rec["marriages"].sum(axis=2), every),
    }


def deal_records(spec: GameSpec, state: State, games: np.ndarray) -> dict[str, np.ndarray]:
    """Records of the last finished deal of ``games``: the common fields plus the call, sides,
    declarations and the result (``scores`` are the payments)."""
    return fill_records(spec, state, games, record_kernel, RECORD_FIELDS)


# The game's own record fields, in the order record_kernel writes them.
RECORD_FIELDS = (
    ("caller", np.int8, ()), ("called_card", np.int8, ()), ("holder", np.int8, ()), ("partner", np.int8, ()),
    ("alone_kind", np.int8, ()), ("calling_side", np.bool_, (N,)), ("marriages", np.bool_, (N, 4)),
    ("marriages_counted", np.bool_, (N, 4)), ("big_declaration", np.int8, ()), ("big_declared_by", np.int8, ()),
    ("threshold", np.int16, ()), ("team_totals", np.int16, (2,)), ("team_tricks", np.int8, (2,)),
    ("calling_wins", np.bool_, ()), ("stake", np.int8, ()),
)


@njit(cache=True)
def record_kernel(dealt, last_play, s, games, first_batch, common, extra):
    """Write the record of the last finished deal of each game in ``games`` (see :func:`deal_records`)."""
    caller, called_card, holder, partner, alone_kind, calling_side, marriages, marriages_counted, big_declaration, \
        big_declared_by, threshold, team_totals, team_tricks, calling_wins, stake = extra
    for i in range(games.shape[0]):
        g = games[i]
        write_common_record(dealt, last_play, s, g, i, first_batch, common)
        caller[i] = s[g, LAST_CALLER]
        called_card[i] = s[g, LAST_CALLED]
        holder[i] = s[g, LAST_HOLDER]
        partner[i] = s[g, LAST_PARTNER]
        alone_kind[i] = s[g, LAST_ALONE]
        side_tricks = other_tricks = 0
        for p in range(N):
            on_side = p == s[g, LAST_CALLER] or p == s[g, LAST_PARTNER]
            calling_side[i, p] = on_side
            if on_side:
                side_tricks += s[g, LAST_TRICKS + p]
            else:
                other_tricks += s[g, LAST_TRICKS + p]
            for su in range(4):
                declared = (s[g, LAST_MARR + p] >> su) & 1 == 1
                marriages[i, p, su] = declared
                marriages_counted[i, p, su] = declared and s[g, LAST_TRICKS + p] > 0  # it counts with a trick
        big_declaration[i] = s[g, LAST_BIG_KIND]
        big_declared_by[i] = s[g, LAST_BIG_BY]
        threshold[i] = s[g, LAST_THRESHOLD]
        team_totals[i, 0] = s[g, LAST_CALL_TOTAL]
        team_totals[i, 1] = s[g, LAST_DEF_TOTAL]
        team_tricks[i, 0] = side_tricks
        team_tricks[i, 1] = other_tricks
        calling_wins[i] = s[g, LAST_CALL_WINS] != 0
        stake[i] = s[g, LAST_STAKE]
