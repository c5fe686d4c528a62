"""Numba helpers shared by the games, inlined into each game's batch loop.

Every helper works on one game ``g`` of the batch and is marked
``inline="always"``: calling a non-inlined helper per game with the state
arrays as arguments made the loop about ten times slower (measured on the engine's prototype),
and a helper of scalars only, left to LLVM to inline, still cost the random agent and the
King Calling rule-based agent 1-6% a decision. Nesting costs compile time instead: numba
copies an inlined function's whole expanded IR at each call site, so the entry kernels call
the games' functions directly rather than through one more inlined level (docs/how-it-was-found/speed.md).
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit
from numba.core.cpu_options import ParallelOptions
from numba.core.errors import NumbaPerformanceWarning

from trickenv.engine.simd import W, bits16_any, equal16_any, nonzero16_any
from trickenv.engine.layout import (
    DEALER,
    DEALS_DONE,
    LAST_DEALER,
    LAST_MATCH_OVER,
    LAST_POINTS,
    LAST_ROUND,
    LAST_SCORES,
    LAST_TOTALS,
    LAST_TRICKS,
    LAST_TRUMP,
    LEADER,
    NO_TRUMP,
    POINTS,
    ROUND,
    TAB_POINTS,
    TAB_STRENGTH,
    TAB_SUIT,
    TAB_TRUMP_STRENGTH,
    TO_ACT,
    TOTALS,
    TRICK,
    TRICK_LEN,
    TRICK_NO,
    TRICKS,
    TRUMP,
)

U1 = np.uint64(1)
U0 = np.uint64(0)

# Compile option of every game's entry kernels: ``@njit(cache=True, parallel=SERIAL)`` runs numba's
# parfor passes with every transformation turned off. They parallelize nothing (the loops stay
# plain loops, no thread is involved), but they copy-propagate the arguments of the inlined
# helpers. Without that, each inlined helper holds its own reference to each array argument, and
# a kernel made about 40 atomic reference-count updates per game and step (1.3-2.2x the cost).
SERIAL = ParallelOptions({option: False for option in (
    "comprehension", "reduction", "inplace_binop", "setitem", "numpy", "stencil", "fusion", "prange")})
# ... and numba says, when it compiles them, that it parallelized nothing: that is the point. (Its message may
# begin with a terminal colour code, hence the leading ``.*``.)
warnings.filterwarnings("ignore", category=NumbaPerformanceWarning,
                        message=r"(?s).*The keyword argument 'parallel=True' was specified but no transformation"
                                r".*trickenv[/\\]games[/\\]")

# --------------------------------------------------------------------- random


GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)  # splitmix64's increment


@njit(inline="always")
def splitmix(z):
    """splitmix64's output function: 64 random bits from the generator state z."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def next_u64(rng, g):
    """splitmix64: advance game g's generator and return 64 random bits."""
    z = rng[g] + GOLDEN_GAMMA
    rng[g] = z
    return splitmix(z)


@njit(inline="always")
def scale(bits, n):
    """Uniform integer in [0, n) (n < 2**31) from 64 random bits."""
    return np.int64(((bits >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(inline="always")
def uniform_int(rng, g, n):
    """Uniform integer in [0, n) (n < 2**31) from game g's generator."""
    return scale(next_u64(rng, g), n)


def seed_states(seed: int | None, batch: int, offset: int = 0) -> np.ndarray:
    """Generator states of games ``offset .. offset+batch-1`` of a seeded env.

    Game ``i`` of any env built from ``seed`` starts from the same state, so an
    AEC env reset with ``seed`` deals exactly like game 0 of ``make_vec(seed=seed)``.
    """
    ss = np.random.SeedSequence(seed)
    base = int(ss.generate_state(2, np.uint64)[0])
    idx = np.arange(offset, offset + batch, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = idx * np.uint64(0xD1B54A32D192ED03) + np.uint64(base)
        x ^= x >> np.uint64(29)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(32)
    return x.astype(np.uint64)


# ----------------------------------------------------------------------- bits


@njit(inline="always")
def bit(c):
    """Bitset holding only card c."""
    return U1 << np.uint64(c)


@njit(inline="always")
def popcount(x):
    """Number of cards in bitset x."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(inline="always")
def suit_bits(suit, ranks):
    """Bitset of all cards of a suit in a deck with ``ranks`` ranks per suit."""
    return ((U1 << np.uint64(ranks)) - U1) << np.uint64(suit * ranks)


@njit(inline="always")
def lowest_card(x):
    """Id of the lowest card in the non-empty bitset x."""
    return popcount((x & (~x + U1)) - U1)


# Byte-parallel arithmetic ("SWAR"): eight small counts in the bytes of one integer.
BYTE_ONES = np.uint64(0x0101010101010101)  # 1 in every byte: x * BYTE_ONES sums x's bytes upwards
BYTE_HIGH = np.uint64(0x8080808080808080)  # the top bit of every byte


@njit(inline="always")
def bytes_at_most(sums, r):
    """1 in each byte of ``sums`` that is <= r, 0 in the others (every byte and r below 128).

    No borrow crosses a byte: each byte computes (128 + r) - sums[j], whose top bit says r >= sums[j].
    """
    return ((((r * BYTE_ONES) | BYTE_HIGH) - sums) & BYTE_HIGH) >> np.uint64(7)


def _select_in_byte() -> np.ndarray:
    """SELECT_IN_BYTE[y, r] = index of the r-th lowest set bit of the byte y (0 where y has fewer)."""
    table = np.zeros((256, 8), np.uint8)
    for y in range(256):
        for r, b in enumerate(i for i in range(8) if y >> i & 1):
            table[y, r] = b
    return table


SELECT_IN_BYTE = _select_in_byte()  # a 2 KB constant in the compiled code


@njit(inline="always")
def kth_bit(x, k):
    """Index of the k-th lowest set bit of x (k = 0 for the lowest; k < popcount(x)), without a loop or a branch.

    Byte-wise popcounts find the byte holding the bit; a table gives its place in
    that byte (a loop clearing the lower bits there mispredicted often enough to
    cost more than the rest of a random pick).
    """
    k = np.uint64(k)
    b = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))  # popcount, byte by byte
    b = (b & np.uint64(0x3333333333333333)) + ((b >> np.uint64(2)) & np.uint64(0x3333333333333333))
    b = (b + (b >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    sums = b * BYTE_ONES  # byte j: the set bits of bytes 0..j
    j = (bytes_at_most(sums, k) * BYTE_ONES) >> np.uint64(56)  # the byte holding the k-th bit
    shift = j << np.uint64(3)
    r = k - (((sums << np.uint64(8)) >> shift) & np.uint64(0xFF))  # set bits in that byte before it
    y = (x >> shift) & np.uint64(0xFF)
    return np.int64(shift) + np.int64(SELECT_IN_BYTE[y, r & np.uint64(7)])


# ----------------------------------------------------------------------- deal


@njit(inline="always")
def deal_split(rng, g, sizes, ng, out):
    """Deal the deck uniformly at random into ``ng`` (<= 8) groups of fixed sizes.

    Byte k of the integer ``sizes`` is the number of cards of group k (at most 127 in
    all; see :func:`group_sizes`); ``out[k]`` receives group k's bitset. Each card in
    turn goes to a group with probability proportional to the group's remaining room,
    which gives every split the same probability without a shuffle buffer: card c
    draws r uniform in [0, cards left) from game g's generator and goes to the first
    group whose room, added to the rooms of the groups before it, exceeds r.

    That search runs on the bytes of one integer, without a branch (a mispredicted
    branch per card cost more than the rest of the deal): byte j of ``ends`` holds the
    rooms of groups 0..j together, and the groups passed over are the bytes <= r.
    """
    ends = np.uint64(sizes) * BYTE_ONES
    left = np.int64(ends >> np.uint64(56))
    for k in range(ng):
        out[k] = U0
    state = rng[g]
    for c in range(left):
        state += GOLDEN_GAMMA  # next_u64, with the state kept in a register
        r = np.uint64(scale(splitmix(state), left - c))
        passed = bytes_at_most(ends, r)  # the groups before the card's group
        ends -= BYTE_ONES - passed  # the card's group k and every sum from k on lose one
        k = (passed * BYTE_ONES) >> np.uint64(56)  # groups passed over
        out[k] |= bit(c)
    rng[g] = state


@njit(inline="always")
def deal_groups(rng, g, caps, out):
    """:func:`deal_split` with the group sizes as an array ``caps`` (at most 8 groups of < 256 cards)."""
    sizes = U0
    for k in range(caps.shape[0]):
        sizes |= np.uint64(caps[k]) << np.uint64(8 * k)
    deal_split(rng, g, sizes, caps.shape[0], out)


@njit(inline="always")
def group_sizes(n, size, rest):
    """``sizes`` for :func:`deal_split`: n groups of ``size`` cards, then one of ``rest`` (if n < 8)."""
    sizes = U0 if n >= 8 else np.uint64(rest) << np.uint64(8 * n)
    for k in range(n):
        sizes |= np.uint64(size) << np.uint64(8 * k)
    return sizes


@njit(inline="always")
def deal_hands(hands, aux, dealt, rng, g, deal_row, fixed, n, hand, deck):
    """Give ``n`` seats ``hand`` cards each, the rest to ``aux[g, 0]`` (undealt); note it in ``dealt``.

    From ``deal_row`` (seat of each card, -1 undealt) if ``fixed``, else uniformly at random.
    """
    hands[g, :] = 0
    aux[g, 0] = 0
    if fixed:
        for c in range(deck):
            seat = deal_row[c]
            if seat < 0:
                aux[g, 0] |= bit(c)
            else:
                hands[g, seat] |= bit(c)
    else:
        groups = dealt[g, 0]  # the deal's record, filled in below, holds the groups meanwhile
        deal_split(rng, g, group_sizes(n, hand, deck - n * hand), n + 1, groups)
        for p in range(n):
            hands[g, p] = groups[p]
        aux[g, 0] = groups[n]
    for p in range(4):
        dealt[g, 0, p] = hands[g, p]
        dealt[g, 0, 4 + p] = U0


@njit(inline="always")
def close_deal(dealt, last_play, played_by, played_in, trick_trump, s, g, n, rewards):
    """Bookkeeping shared by every game once it has scored a deal into ``rewards[g]``.

    Copies scores, tricks, points, trump and dealer into the ``LAST_*`` fields, adds
    the scores to the match totals, archives the deal's hands and play (the deal
    records read them) and counts the deal. The game then calls :func:`seal_match`.
    """
    for p in range(n):
        sc = np.int32(rewards[g, p])
        s[g, LAST_SCORES + p] = sc
        s[g, TOTALS + p] += sc
        s[g, LAST_TRICKS + p] = s[g, TRICKS + p]
        s[g, LAST_POINTS + p] = s[g, POINTS + p]
    s[g, LAST_TRUMP] = s[g, TRUMP]
    s[g, LAST_DEALER] = s[g, DEALER]
    s[g, LAST_ROUND] = s[g, ROUND]
    s[g, ROUND] += 1
    s[g, DEALS_DONE] += 1
    for k in range(8):
        dealt[g, 1, k] = dealt[g, 0, k]
    for c in range(played_by.shape[1]):
        last_play[g, 0, c] = played_by[g, c]
        last_play[g, 1, c] = played_in[g, c]
    for t in range(trick_trump.shape[1]):
        last_play[g, 2, t] = trick_trump[g, t]


@njit(inline="always")
def start_match(s, rng, g, dealer, n):
    """Zero game g's match totals and round; its first dealer is ``dealer``, or a seat drawn at random if < 0."""
    for k in range(4):
        s[g, TOTALS + k] = 0
    s[g, ROUND] = 0
    s[g, DEALER] = dealer if dealer >= 0 else uniform_int(rng, g, n)


@njit(inline="always")
def next_dealer(s, rng, g, new_match, n):
    """Who deals after a deal of game g ended: the next seat, or for a new match (``new_match``: its totals
    and round zeroed) a seat drawn at random."""
    if new_match:
        start_match(s, rng, g, -1, n)
    else:
        s[g, DEALER] = (s[g, DEALER] + 1) % n


@njit(inline="always")
def seal_match(s, g, over):
    """Record the match totals after the last finished deal and whether it ended the match."""
    for p in range(4):
        s[g, LAST_TOTALS + p] = s[g, TOTALS + p]
    s[g, LAST_MATCH_OVER] = over


# ---------------------------------------------------------------------- play


@njit(inline="always")
def count_illegal(actions, where, mask, num_actions):
    """How many stepped games' (``where[g]``) actions are out of range or not allowed by their mask."""
    bad = 0
    for g in range(actions.shape[0]):
        if not where[g]:
            continue
        a = actions[g]
        if a < 0 or a >= num_actions or not mask[g, a]:
            bad += 1
    return bad


# Codes returned by a game's per-game ``_apply``: what the step ended.
NOTHING_ENDED, DEAL_ENDED, MATCH_ENDED = 0, 1, 2


@njit(inline="always")
def step_outcome(done, deal_end, g, ended, autoreset):
    """Game g's step flags from what its action ended (``done``: the match, ``deal_end``: a deal); True if a
    next deal is to be dealt now (a deal of the match ended, or the match did and the game restarts)."""
    done[g] = ended == MATCH_ENDED
    deal_end[g] = ended != NOTHING_ENDED
    return ended == DEAL_ENDED or (ended == MATCH_ENDED and autoreset)


@njit(inline="always")
def idle_game(rewards, done, deal_end, g):
    """Zero game g's step outputs (rewards, done, deal_end): all that a game left out of a step gets."""
    for p in range(rewards.shape[1]):
        rewards[g, p] = 0
    done[g] = False
    deal_end[g] = False



@njit(inline="always")
def follow_suit_bits(hand, led_suit, ranks):
    """Cards of ``hand`` that may be played to a trick led in ``led_suit`` (-1 = leading)."""
    if led_suit < 0:
        return hand
    same = hand & suit_bits(led_suit, ranks)
    return same if same != U0 else hand


@njit(inline="always")
def strength(tab, card, trump):
    """Trick-taking strength of ``card`` within its suit while ``trump`` is trump."""
    return tab[TAB_TRUMP_STRENGTH if tab[TAB_SUIT, card] == trump else TAB_STRENGTH, card]


@njit(inline="always")
def beats(tab, challenger, best, trump):
    """Whether ``challenger`` beats the card ``best`` currently winning a trick."""
    cs = tab[TAB_SUIT, challenger]
    bs = tab[TAB_SUIT, best]
    if cs == bs:
        return strength(tab, challenger, trump) > strength(tab, best, trump)
    return cs == trump and trump != NO_TRUMP


@njit(inline="always")
def trick_winner_pos(s, g, tab, n):
    """Position (0 = leader) of the winning card of the complete current trick."""
    trump = s[g, TRUMP]
    best = 0
    for j in range(1, n):
        if beats(tab, s[g, TRICK + j], s[g, TRICK + best], trump):
            best = j
    return best


@njit(inline="always")
def play_card(hands, played_by, played_in, s, g, seat, card):
    """Move ``card`` from ``seat``'s hand into the current trick."""
    hands[g, seat] &= ~bit(card)
    played_by[g, card] = seat
    played_in[g, card] = s[g, TRICK_NO]
    s[g, TRICK + s[g, TRICK_LEN]] = card
    s[g, TRICK_LEN] += 1


@njit(inline="always")
def close_trick(s, g, tab, trick_trump, n):
    """Judge the complete current trick, credit its winner and make them lead.

    Returns the winning seat. The trick's cards stay readable in ``s[g, TRICK:]``
    until the next card is played, so a game can inspect them afterwards.
    """
    pos = trick_winner_pos(s, g, tab, n)
    winner = (s[g, LEADER] + pos) % n
    pts = 0
    for j in range(n):
        pts += tab[TAB_POINTS, s[g, TRICK + j]]
    s[g, TRICKS + winner] += 1
    s[g, POINTS + winner] += pts
    trick_trump[g, s[g, TRICK_NO]] = s[g, TRUMP]
    s[g, TRICK_NO] += 1
    s[g, TRICK_LEN] = 0
    s[g, LEADER] = winner
    s[g, TO_ACT] = winner
    return winner


# ---------------------------------------------------------------- observation


# The observation and mask writers run for every game on every step, so they set the engine's
# speed. The block writers below write 16 bytes per vector operation (trickenv.engine.simd says
# why), and they index with unsigned integers: numba wraps a negative signed index around (a
# compare and a select per access), and it skips that for unsigned ones. A game writes its
# dense blocks (the hand, the played cards) whole and clears only its sparse one-hot blocks.


@njit(inline="always")
def put_bits(out, g, off, x, n):
    """out[g, off + c] = bit c of the bitset x, for c < n (every byte of the block is written)."""
    base = np.uint64(off)
    if n < W:
        for c in range(n):
            out[g, base + np.uint64(c)] = (x >> np.uint64(c)) & U1
        return
    for k in range(0, n - W, W):
        bits16_any(out, g, base + np.uint64(k), x >> np.uint64(k))
    # The last 16 bytes end the block (they overlap the ones before when n is no multiple of 16).
    bits16_any(out, g, base + np.uint64(n - W), x >> np.uint64(n - W))


@njit(inline="always")
def get_bits(arr, g, off, n):
    """The bitset (uint64) of the entries arr[g, off + c] that are not 0, for c < n <= 64: put_bits read back.

    Agents read their observation blocks with it (16 bytes per vector compare, see
    trickenv.engine.simd); it reads nothing outside the block.
    """
    base = np.uint64(off)
    x = U0
    if n < W:
        for c in range(n):
            if arr[g, base + np.uint64(c)] != 0:
                x |= U1 << np.uint64(c)
        return x
    for k in range(0, n - W, W):
        x |= nonzero16_any(arr, g, base + np.uint64(k)) << np.uint64(k)
    # The last 16 entries end the block (they overlap the ones before when n is no multiple of 16).
    return x | (nonzero16_any(arr, g, base + np.uint64(n - W)) << np.uint64(n - W))


@njit(inline="always")
def put_equal(out, g, off, row, value, n):
    """out[g, off + c] = (row[g, c] == value), for c < n and an int8 ``row``: e.g. the cards one seat
    played, from ``played_by``. (``value`` is cast to int8: the bytes are compared as bytes.)"""
    base = np.uint64(off)
    if n < W:
        v = np.int8(value)
        for c in range(n):
            out[g, base + np.uint64(c)] = row[g, np.uint64(c)] == v
        return
    for k in range(0, n - W, W):
        equal16_any(out, g, base + np.uint64(k), row, np.uint64(k), value)
    equal16_any(out, g, base + np.uint64(n - W), row, np.uint64(n - W), value)


@njit(inline="always")
def clear(out, g, off, n):
    """out[g, off:off + n] = 0."""
    base = np.uint64(off)
    for k in range(n):
        out[g, base + np.uint64(k)] = 0


@njit(inline="always")
def seat_from(q, seat, n):
    """Seat q as ``seat`` sees it, (q - seat) % n: 0 itself, 1 the next in play order, and so on.

    A conditional add instead of ``%``: a modulo by a runtime n is an integer division.
    """
    r = q - seat
    return r + n if r < 0 else r


@njit(inline="always")
def seat_after(q, n):
    """The seat after q in play order, (q + 1) % n, without an integer division."""
    q += 1
    return 0 if q == n else q


@njit(inline="always")
def current_winner_card(s, g, tab):
    """The card now winning the (non-empty) current trick of game g."""
    trump = s[g, TRUMP]
    best = s[g, TRICK]
    for j in range(1, s[g, TRICK_LEN]):
        c = s[g, TRICK + j]
        if beats(tab, c, best, trump):
            best = c
    return best


@njit(inline="always")
def duty_bits(hand, s, g, tab, ranks, must_trump, must_beat):
    """Cards of ``hand`` that may be played to game g's current trick.

    Follow the suit led if able; with ``must_trump``, a player void in it
    must trump if able; with ``must_beat``, a player who follows (or trumps)
    while the trick is won by a card of that same suit must play a higher one
    of it if able (King Calling's duties, docs/rules.md, King Calling).
    """
    if s[g, TRICK_LEN] == 0:
        return hand
    led = tab[TAB_SUIT, s[g, TRICK]]
    cand = hand & suit_bits(led, ranks)
    suit = led
    if cand == U0:
        trump = s[g, TRUMP]
        if not must_trump or trump == NO_TRUMP:
            return hand
        cand = hand & suit_bits(trump, ranks)
        suit = trump
        if cand == U0:
            return hand
    if not must_beat:
        return cand
    best = current_winner_card(s, g, tab)
    if tab[TAB_SUIT, best] != suit:
        return cand
    higher = higher_bits(tab, best, s[g, TRUMP], ranks) & cand
    return higher if higher != U0 else cand


@njit(inline="always")
def higher_bits(tab, card, trump, ranks):
    """Cards of ``card``'s suit that beat it while ``trump`` is trump."""
    su = tab[TAB_SUIT, card]
    row = TAB_TRUMP_STRENGTH if su == trump else TAB_STRENGTH  # one strength order for the whole suit
    top = tab[row, card]
    out = U0
    for c in range(su * ranks, su * ranks + ranks):
        if tab[row, c] > top:
            out |= bit(c)
    return out


@njit(inline="always")
def shown_missing(tab, card, led, best, trump, ranks, must_trump, must_beat):
    """Cards a seat shows it does not hold by playing ``card`` to a trick led in suit ``led``, won so far by ``best``.

    The duties of :func:`duty_bits` read backwards: a card off the suit led
    shows a void in it (and, with ``must_trump``, a card that is no trump shows
    a void in trump too); with ``must_beat``, a card that follows (or trumps)
    under a winning card of its own suit without beating it shows that the
    seat holds no card of that suit that beats it.
    """
    cs = tab[TAB_SUIT, card]
    bs = tab[TAB_SUIT, best]
    out = U0
    if cs != led:
        out |= suit_bits(led, ranks)
        if must_trump and trump != NO_TRUMP:
            if cs != trump:
                out |= suit_bits(trump, ranks)
            elif must_beat and bs == trump and not beats(tab, card, best, trump):
                out |= higher_bits(tab, best, trump, ranks)
    elif must_beat and bs == led and not beats(tab, card, best, trump):
        out |= higher_bits(tab, best, trump, ranks)
    return out


# -------------------------------------------------------------------- records
# A deal's record (docs/records.md) is built from the state by one compiled call per batch of
# games: a record built with NumPy took about 20 small array operations, 17-36 µs a call,
# which was 10-22% of the AEC env's time and a fifth of a batched step that asks for records.


@njit(inline="always")
def ids_into(bits, deck, row, start, count):
    """row[start + k] = the k-th lowest card (id < deck) of ``bits``, for k < count; -1 past its cards.

    One step per card listed, not per card of the deck: testing every card's bit was a
    branch that mispredicted about every other card (about 0.5 µs a King Calling record).
    """
    x = bits & ((U1 << np.uint64(deck)) - U1)
    for k in range(count):
        if x == U0:
            row[start + k] = -1
        else:
            row[start + k] = lowest_card(x)
            x &= x - U1


@njit(inline="always")
def hand_ids_into(full, second, deck, row, first_batch):
    """row = the ids of the cards dealt to a seat (``full``), ascending within each batch: the first
    ``first_batch`` from the first batch (``full & ~second``), then the second batch (King Calling)."""
    ids_into(full & ~second, deck, row, 0, first_batch)
    ids_into(second, deck, row, first_batch, row.shape[0] - first_batch)


@njit(inline="always")
def write_common_record(dealt, last_play, s, g, i, first_batch, common):
    """Row i of the record fields every game has (``games.base.common_fields``, in that order),
    for the last finished deal of game g.

    Sizes come from the output arrays: players (and cards per seat) from ``deal``, the deck from
    ``played_by``, tricks from ``trick_trump``. A seat's cards are listed as :func:`hand_ids_into` lists them.
    """
    dealer, deal, undealt, round_, trump, trick_trump, played_by, played_in, tricks, points, scores, totals, \
        match_over = common
    n, deck = deal.shape[1], played_by.shape[1]
    dealer[i] = s[g, LAST_DEALER]
    held = U0
    for p in range(n):
        held |= dealt[g, 1, p]
        hand_ids_into(dealt[g, 1, p], dealt[g, 1, 4 + p], deck, deal[i, p], first_batch)
    ids_into(((U1 << np.uint64(deck)) - U1) & ~held, deck, undealt[i], 0, undealt.shape[1])
    round_[i] = s[g, LAST_ROUND]
    trump[i] = s[g, LAST_TRUMP]
    for t in range(trick_trump.shape[1]):
        trick_trump[i, t] = last_play[g, 2, t]
    for c in range(deck):
        played_by[i, c] = last_play[g, 0, c]
        played_in[i, c] = last_play[g, 1, c]
    for p in range(n):
        tricks[i, p] = s[g, LAST_TRICKS + p]
        points[i, p] = s[g, LAST_POINTS + p]
        scores[i, p] = s[g, LAST_SCORES + p]
        totals[i, p] = s[g, LAST_TOTALS + p]
    match_over[i] = s[g, LAST_MATCH_OVER] != 0
