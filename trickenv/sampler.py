"""Worlds a seat cannot tell apart: sampling the hidden cards from what one seat knows.

Search agents (determinized Monte Carlo, PIMC) look ahead in full games, but a
seat may only use what it knows. :func:`information_state` erases from copies
of the games every fact the seat could not know (the other hands, set-aside or
undealt cards, King Calling's second batches before the call and the
partnership before it is public), and :func:`sample_worlds` deals the unknown
cards again, uniformly over all deals consistent with what is left:

- each other seat holds as many cards as it has not played;
- a seat that did not follow the suit led is void in it; with the game's
  ``GameSpec.duties`` (King Calling), a seat that neither followed nor trumped
  is void in trump too, and a seat that followed (or trumped) under a card of
  that suit it could have beaten holds no higher card of that suit;
- what the game's hooks add (``GameSpec.worlds.required_cards``, ``deal_worlds``,
  ``settle_worlds``), in King Calling: a declared marriage's king and ober stay
  with their declarer until played; before the call the batches are dealt
  again; the partner is the called card's holder (in ``first_batch`` mode only
  if the card came in the holder's first batch: even odds, since the batches
  are hidden), unless the seat already knows.

Uniformity is exact: a small dynamic program counts the consistent deals card
by card (at most three receiving groups in play) and draws each card's group
in proportion to the deals that remain. Because sampling starts from the
erased copy, two games that differ only in what the seat cannot know give the
same worlds for the same seed (the tests check this).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv import cards
from trickenv.engine.bitsets import deal_unseen, popcount_py  # noqa: F401  (deal_unseen: re-exported)
from trickenv.engine.kernels import beats, bit, next_u64, popcount, seed_states, shown_missing
from trickenv.engine.layout import DEALER, LEADER, TAB_SUIT, TRICK, TRICK_LEN, TRICK_NO, TRUMP
from trickenv.engine.state import State
from trickenv.games.base import GameSpec

COMPILE_LABEL = "the world sampler of the search agents"  # trickenv.engine.first_run

U0 = np.uint64(0)


# ------------------------------------------------------------------ what a seat knows


def information_state(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray) -> State:
    """Copies of ``games`` holding only what ``seats[i]`` knows in game ``games[i]``.

    Every hidden fact is erased: the other seats' hands, the undealt rest, every
    other ``aux`` column (King Calling's second batches), the deal records
    (``dealt``, ``last_play``) and the generators; then the game's
    ``GameSpec.worlds.hide_private`` puts back what is public (a turned-up card) and
    erases what the seat cannot know of the game's own fields (King Calling's
    partnership, unless public or known to the seat).
    """
    games = np.asarray(games, np.int64)
    seats = np.asarray(seats, np.int64)
    info = state.take(games)
    k = len(games)
    own = info.hands[np.arange(k), seats].copy()
    info.hands[:] = 0
    info.hands[np.arange(k), seats] = own
    undealt = info.aux[:, 0].copy()
    info.aux[:] = 0
    info.dealt[:] = 0
    info.last_play[:] = -1
    info.rng[:] = 0
    if spec.worlds.hide_private is not None:
        spec.worlds.hide_private(spec, info, seats, undealt)
    return info


# ------------------------------------------------------------------ constraints


@njit(cache=True)
def _constraints(hands, aux, played_by, played_in, trick_trump, s, tab, g, seat, n, ranks, deck, per_seat,
                 must_trump, must_beat, forbid, caps):
    """Cards each other seat cannot hold (``forbid[q]``) and how many it holds (``caps[q]``); returns the pool.

    The pool is every card the seat has not seen: not in its hand, not played,
    not a public undealt card.
    """
    for q in range(4):
        forbid[q] = U0
        caps[q] = 0
    played = U0
    count = np.zeros(4, np.int64)
    for c in range(deck):
        if played_by[g, c] >= 0:
            played |= bit(c)
            count[played_by[g, c]] += 1
    for q in range(n):
        caps[q] = per_seat - count[q]
    caps[seat] = 0
    full = (np.uint64(1) << np.uint64(deck)) - np.uint64(1)
    pool = full & ~played & ~hands[g, seat] & ~aux[g, 0]
    order = np.empty(4, np.int64)
    leader = (s[g, DEALER] + 1) % n
    done = s[g, TRICK_NO]
    for t in range(done + 1):
        if t < done:
            trump = trick_trump[g, t]
            size = n
            for c in range(deck):
                if played_in[g, c] == t:
                    order[(played_by[g, c] - leader + n) % n] = c
        else:
            trump = s[g, TRUMP]
            size = s[g, TRICK_LEN]
            leader = s[g, LEADER]
            for j in range(size):
                order[j] = s[g, TRICK + j]
        if size == 0:
            break
        led = tab[TAB_SUIT, order[0]]
        best = order[0]
        best_pos = 0
        for j in range(1, size):
            c = order[j]
            q = (leader + j) % n
            forbid[q] |= shown_missing(tab, c, led, best, trump, ranks, must_trump, must_beat)
            if beats(tab, c, best, trump):
                best = c
                best_pos = j
        leader = (leader + best_pos) % n
    return pool


# ------------------------------------------------------------------ uniform consistent deals


@njit(inline="always")
def _uniform(rng):
    """A float in [0, 1) from a one-element splitmix64 generator."""
    return np.float64(next_u64(rng, 0) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _deal_consistent(pool, allowed, caps, k, rng, out):
    """Deal ``pool`` into 3 groups ``k`` times: group j gets ``caps[j]`` cards, all from ``allowed[j]``.

    Every consistent deal is equally likely: ``ways[i, a, b]`` counts the ways to
    place cards ``i..`` with ``a`` and ``b`` places left in groups 0 and 1 (group 2
    takes the rest), and each card goes to a group in proportion to the ways left.
    Returns the number of consistent deals (0: none, and ``out`` is untouched).
    """
    m = popcount(pool)
    cards = np.empty(m, np.int64)
    i = 0
    for c in range(64):
        if (pool >> np.uint64(c)) & np.uint64(1):
            cards[i] = c
            i += 1
    d0 = caps[0] + 1
    d1 = caps[1] + 1
    ways = np.zeros((m + 1, d0, d1))
    ways[m, 0, 0] = 1.0
    for i in range(m - 1, -1, -1):
        b_ = bit(cards[i])
        rem = m - i
        for a in range(d0):
            for b in range(d1):
                r2 = rem - a - b
                if r2 < 0 or r2 > caps[2]:
                    continue
                tot = 0.0
                if a > 0 and allowed[0] & b_:
                    tot += ways[i + 1, a - 1, b]
                if b > 0 and allowed[1] & b_:
                    tot += ways[i + 1, a, b - 1]
                if r2 > 0 and allowed[2] & b_:
                    tot += ways[i + 1, a, b]
                ways[i, a, b] = tot
    total = ways[0, caps[0], caps[1]] if m == caps[0] + caps[1] + caps[2] else 0.0
    if total == 0.0:
        return total
    for w in range(k):
        a = caps[0]
        b = caps[1]
        out[w, 0] = U0
        out[w, 1] = U0
        out[w, 2] = U0
        for i in range(m):
            b_ = bit(cards[i])
            r2 = m - i - a - b
            w0 = ways[i + 1, a - 1, b] if a > 0 and allowed[0] & b_ else 0.0
            w1 = ways[i + 1, a, b - 1] if b > 0 and allowed[1] & b_ else 0.0
            w2 = ways[i + 1, a, b] if r2 > 0 and allowed[2] & b_ else 0.0
            u = _uniform(rng) * (w0 + w1 + w2)
            if u < w0:
                out[w, 0] |= b_
                a -= 1
            elif u < w0 + w1:
                out[w, 1] |= b_
                b -= 1
            else:
                out[w, 2] |= b_
    return total


# ------------------------------------------------------------------ worlds


def sample_worlds(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray, k: int,
                  seed: int | None = None) -> State:
    """``k`` worlds per game consistent with what ``seats[i]`` knows in game ``games[i]``.

    Returns a State of ``len(games) * k`` games (world ``w`` of game ``i`` at
    ``i * k + w``) built from :func:`information_state` only, so it cannot depend
    on anything the seat does not know. Each world's generator is seeded from
    ``seed`` (the rollouts' randomness). Raises ValueError if no deal is consistent
    (a state that no legal play could reach).
    """
    games = np.asarray(games, np.int64).reshape(-1)
    seats = np.asarray(seats, np.int64).reshape(-1)
    if games.shape != seats.shape:
        raise ValueError("games and seats must have the same length")
    info = information_state(spec, state, games, seats)
    return sample_from_information(spec, info, seats, k, seed)


def sample_from_information(spec: GameSpec, info: State, seats: np.ndarray, k: int, seed: int | None = None) -> State:
    """:func:`sample_worlds` from information states already erased by :func:`information_state`."""
    n, deck = spec.num_players, spec.deck
    b = info.batch_size
    worlds = info.take(np.repeat(np.arange(b), k))
    rng = seed_states(seed, b)
    must_trump, must_beat = spec.duties
    ranks = cards.num_ranks(deck)
    forbid = np.zeros(4, np.uint64)
    caps = np.zeros(4, np.int64)
    out = np.zeros((k, 3), np.uint64)
    dealt_here = np.zeros(b, np.bool_)  # decisions whose worlds get their deal record at the end
    coin_seed = np.zeros(b, np.uint64)  # seeds of each decision's coins in GameSpec.worlds.settle_worlds
    for i in range(b):
        seat = int(seats[i])
        rows = slice(i * k, (i + 1) * k)
        r = rng[i:i + 1].copy()
        if spec.worlds.deal_worlds is not None and spec.worlds.deal_worlds(spec, info, worlds, i, seat, k, r):
            continue
        pool = _constraints(info.hands, info.aux, info.played_by, info.played_in, info.trick_trump, info.s,
                            spec.tab, i, seat, n, ranks, deck, spec.cards_per_seat, must_trump, must_beat,
                            forbid, caps)
        others = [q for q in range(n) if q != seat]
        required = spec.worlds.required_cards(spec, info, i, others) if spec.worlds.required_cards is not None else {}
        hands = {q: np.uint64(0) for q in others}
        for q, req in required.items():
            req = np.uint64(req) & pool
            if req & forbid[q]:
                raise ValueError(f"inconsistent state: seat {q} must hold cards it cannot hold")
            hands[q] = req
            caps[q] -= popcount_py(req)
            pool &= ~req
        rest = popcount_py(pool) - sum(int(caps[q]) for q in others)
        groups = others + [-1] * (3 - len(others))
        gcaps = np.array([int(caps[q]) if q >= 0 else 0 for q in groups], np.int64)
        allowed = np.array([pool & ~forbid[q] if q >= 0 else np.uint64(0) for q in groups], np.uint64)
        if len(others) < 3:  # the undealt rest (set-aside cards, the 52nd card) is the third group
            gcaps[len(others)] = rest
            allowed[len(others)] = pool
        elif rest != 0:
            raise ValueError("inconsistent state: cards unaccounted for")
        if _deal_consistent(pool, allowed, gcaps, k, r, out) == 0.0:
            raise ValueError(f"no deal is consistent with what seat {seat} knows in game {i}")
        for j, q in enumerate(groups):
            if q >= 0:
                worlds.hands[rows, q] = out[:, j] | hands[q]
        if len(others) < 3:
            worlds.aux[rows, 0] = out[:, len(others)]
        dealt_here[i] = True
        coin_seed[i] = r[0]
    # Done for all decisions at once: per decision they cost more than the dealing itself.
    done = np.flatnonzero(dealt_here)
    rows_done = (done[:, None] * k + np.arange(k)[None, :]).reshape(-1)
    if spec.worlds.settle_worlds is not None:
        spec.worlds.settle_worlds(spec, worlds, rows_done, k, coin_seed[done])
    _note_deal(spec, worlds, rows_done)
    worlds.rng[:] = seed_states(None if seed is None else seed + 1, b * k)
    return worlds


def _note_deal(spec: GameSpec, worlds: State, rows: np.ndarray) -> None:
    """The worlds' deal record: each hand as dealt is what it holds plus what it played."""
    played = np.zeros((len(rows), 4), np.uint64)
    pb = worlds.played_by[rows]
    weights = np.uint64(1) << np.arange(spec.deck, dtype=np.uint64)
    for q in range(spec.num_players):
        played[:, q] = ((pb == q) * weights).sum(axis=1, dtype=np.uint64)  # distinct bits: the sum is the union
    worlds.dealt[rows, 0, :4] = worlds.hands[rows] | played
