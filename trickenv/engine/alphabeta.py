"""Perfect-information solver: alpha-beta over a game's own rules, for positions whose every card is known.

A search agent samples worlds (deals of the hidden cards) and needs the value of a
world with every hand open. This module solves such a position exactly, to the end of
the deal, by playing the game's own ``_apply`` on scratch copies of the engine state
(one row per ply): the solver cannot disagree with the rules, in any variant (trump
changes, duties, declarations, bids are whatever the game's ``_apply`` and
``_write_mask`` say).

The value is one seat's (``me``): its deal reward, plus ``tiebreak`` times its side's
card points (the game's ``side_total``) / 120. The seats on ``me``'s side (the game's
``allied``: partners, King Calling's calling side) maximize it and every other seat
minimizes it: the *paranoid* reduction, exact for two-sided games (King Calling once a
world fixes the partner, Farbwechsel with partnerships) and a pessimistic model of
the opponents otherwise.

The usual tools, each measured in ``benchmarks/bench_solver.py``:

- alpha-beta with fail-soft bounds, iterative (an explicit stack: numba cannot cache a
  recursive function that takes functions as arguments);
- a transposition table of lower and upper bounds keyed by a hash of the hands, the
  deal's common fields and the game's ``key_fields`` of ``State.s`` (its fields that
  decide the rest of the deal and its value), plus the table's best move, tried first;
- move ordering: the table's move, then winning cards before losing ones;
- equivalent cards merged: two cards of one hand, of one suit, with equal points and
  the same ``card_kind`` (the game's: Farbwechsel's trump-switching cards are of their
  own kind, King Calling's called card is never merged), with no card still in play
  ranking between them (in the plain and the trump order), are one move.

With ``maxn`` the other seats play each for its own value instead (max^n, no pruning;
:func:`_search_maxn`).

A game module passes its own functions to :func:`solve_positions` from a small cached
kernel (``solve_kernel`` in ``trickenv/games/<game>_solver.py``), which
:class:`trickenv.solver.Solver` calls. The search functions are inlined into that kernel
(``inline="always"``): numba then resolves the game's functions at compile time, where
passing them down to compiled callees would make them function pointers, which numba
cannot cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.engine.kernels import beats, bit, splitmix, strength
from trickenv.engine.layout import LEADER, PHASE, POINTS, TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH, \
    TO_ACT, TRICK, TRICK_LEN, TRICK_NO, TRICKS, TRUMP

COMPILE_LABEL = "the perfect-information solver"  # trickenv.engine.first_run

INF = 1e18
U0 = np.uint64(0)
NOTHING = 0  # engine.kernels' code for "the action ended nothing"

# The search loop's modes.
_ENTER = 0
_NEXT = 1
_RETURN = 2
_CHILD = 3


@njit
def _copy_ply(hands, aux, s, fields, d, e):
    """Ply row ``e`` of the scratch state becomes a copy of row ``d``: the hands, the stock and the first
    ``fields`` scalar fields. The games' ``_apply`` and ``_write_mask`` write but never read ``played_by``,
    ``played_in``, ``trick_trump``, the deal records and the fields from the game's ``COPY_FIELDS`` on
    (records of the deal, the last deal's facts), so those need no copy; the brute-force tests would catch
    a game that starts reading them."""
    for k in range(hands.shape[1]):
        hands[e, k] = hands[d, k]
    for k in range(aux.shape[1]):
        aux[e, k] = aux[d, k]
    for k in range(fields):
        s[e, k] = s[d, k]


@njit
def _key(hands, aux, s, d, key_fields, me):
    """64-bit hash of what decides the rest of the deal at ply ``d`` (and whose value it is): the hands, the
    game's stock (``aux`` beyond the undealt rest), the common fields of the deal, the cards of the current
    trick, and the game's ``key_fields``."""
    z = splitmix(np.uint64(me + 1))
    for k in range(hands.shape[1]):
        z = splitmix(z ^ hands[d, k])
    for k in range(1, aux.shape[1]):
        z = splitmix(z ^ aux[d, k])
    for f in (PHASE, TO_ACT, LEADER, TRUMP, TRICK_NO, TRICK_LEN):
        z = splitmix(z ^ np.uint64(s[d, f] + 1000))
    for j in range(s[d, TRICK_LEN]):
        z = splitmix(z ^ np.uint64(s[d, TRICK + j] + 2000))
    for q in range(4):
        z = splitmix(z ^ np.uint64(s[d, TRICKS + q] + 64 * s[d, POINTS + q] + 3000))
    for f in key_fields:
        z = splitmix(z ^ np.uint64(s[d, f] + 1000))
    return z


@njit
def _between_in_play(tab, live, c, c2, ranks):
    """Whether a card still in play (``live``) ranks strictly between ``c`` and ``c2`` (one suit) in either order.

    Card ids run suit by suit (``suit * ranks + rank``), so only the suit's cards are looked at."""
    first = tab[TAB_SUIT, c] * ranks
    for row in (TAB_STRENGTH, TAB_TRUMP_STRENGTH):
        lo = min(tab[row, c], tab[row, c2])
        hi = max(tab[row, c], tab[row, c2])
        if hi - lo <= 1:
            continue
        for x in range(first, first + ranks):
            if (live & bit(x)) != U0 and lo < tab[row, x] < hi:
                return True
    return False


@njit(inline="always")
def _same_kind(card_kind, s, d, tab, c, c2):
    """Equal suit, points and game kind (``card_kind``, -1 = never merged): cards that differ only in strength."""
    if tab[TAB_SUIT, c] != tab[TAB_SUIT, c2] or tab[TAB_POINTS, c] != tab[TAB_POINTS, c2]:
        return False
    k = card_kind(s, d, tab, c)
    return k >= 0 and k == card_kind(s, d, tab, c2)


@njit
def _order_key(tab, s, d, c, deck):
    """Sort key of legal action ``c`` (higher is tried first): a card that would win the trick so far first,
    strong cards first among winners, weak ones first among the rest; other actions after the cards."""
    if c >= deck:
        return -1000 - c
    trump = s[d, TRUMP]
    n = s[d, TRICK_LEN]
    st = strength(tab, c, trump) + (20 if tab[TAB_SUIT, c] == trump else 0)
    if n == 0:
        return 100 + st
    best = s[d, TRICK]
    for j in range(1, n):
        if beats(tab, s[d, TRICK + j], best, trump):
            best = s[d, TRICK + j]
    if beats(tab, c, best, trump):
        return 100 + st
    return 50 - st


@njit(inline="always")
def _gen_moves(write_mask, card_kind, hands, s, mask, cfg, tab, d, moves, nmoves, rep, okey, first, cards_only,
               merge, deck):
    """Legal actions at ply ``d`` into ``moves[d]`` (one per class of equivalent cards, ``first`` in front
    if legal); ``rep[d, a]`` = the action whose value ``a`` shares (``a`` itself unless merged)."""
    write_mask(hands, s, cfg, tab, d, mask)
    na = mask.shape[1]
    any_card = False
    for a in range(deck):
        if mask[d, a]:
            any_card = True
            break
    live = U0
    for k in range(hands.shape[1]):
        live |= hands[d, k]
    for j in range(s[d, TRICK_LEN]):
        live |= bit(s[d, TRICK + j])
    m = 0
    for a in range(na):
        rep[d, a] = -1
        if not mask[d, a] or (cards_only and any_card and a >= deck):
            continue
        rep[d, a] = a
        if merge and a < deck:
            for j in range(m):
                b = moves[d, j]
                if b < deck and _same_kind(card_kind, s, d, tab, a, b) \
                        and not _between_in_play(tab, live, a, b, deck // 4):
                    rep[d, a] = b
                    break
        if rep[d, a] == a:
            moves[d, m] = a
            m += 1
    # Insertion sort by the ordering key, the table's move in front.
    for i in range(m):
        a = moves[d, i]
        okey[i] = 10_000 if a == first else _order_key(tab, s, d, a, deck)
    for i in range(1, m):
        a = moves[d, i]
        ka = okey[i]
        j = i - 1
        while j >= 0 and okey[j] < ka:
            moves[d, j + 1] = moves[d, j]
            okey[j + 1] = okey[j]
            j -= 1
        moves[d, j + 1] = a
        okey[j + 1] = ka
    nmoves[d] = m


@njit(inline="always")
def _play_next(apply, ply, moves, idx, fields, cfg, tab, d):
    """Play ply ``d``'s next move into ply ``d + 1`` (a copy of ``d``); True if it ended the deal."""
    hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, rewards, mask = ply
    a = moves[d, idx[d]]
    idx[d] += 1
    _copy_ply(hands, aux, s, fields, d, d + 1)
    return apply(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, d + 1, a,
                 rewards) != NOTHING


@njit(inline="always")
def _search(apply, write_mask, allied, side_total, card_kind, key_fields, ply, stack, table, cfg, tab, d0, alpha, beta,
            me, tiebreak, flags, nodes):
    """The value of the position at ply ``d0`` within the window (``alpha``, ``beta``), fail-soft.

    ``ply``: the scratch state, one row per ply (the engine's arrays, then rewards and mask); ``stack``: the
    search's per-ply bookkeeping; ``table``: the transposition table; ``flags``: (cards_only, merge, use_tt).
    (Grouped in tuples: Python compiles a call of 30 or more arguments into one numba cannot inline.)
    """
    hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, rewards, mask = ply
    moves, nmoves, rep, okey, idx, al, be, al0, be0, best, bestm, keys, ismax = stack
    tt_keys, tt_lo, tt_hi, tt_move = table
    cards_only, merge, use_tt, fields = flags
    deck = played_by.shape[1]
    tmask = np.uint64(len(tt_keys) - 1)
    d = d0
    al[d] = alpha
    be[d] = beta
    mode = _ENTER
    v = 0.0
    while True:
        if mode == _ENTER:
            nodes[0] += 1
            al0[d] = al[d]
            be0[d] = be[d]
            first = -1
            if use_tt:
                k = _key(hands, aux, s, d, key_fields, me)
                keys[d] = k
                slot = k & tmask
                if tt_keys[slot] == k:
                    lo = tt_lo[slot]
                    hi = tt_hi[slot]
                    if lo >= be[d] or lo == hi:
                        v = lo
                        mode = _RETURN
                    elif hi <= al[d]:
                        v = hi
                        mode = _RETURN
                    else:
                        al[d] = max(al[d], lo)
                        be[d] = min(be[d], hi)
                        first = tt_move[slot]
            if mode == _ENTER:
                _gen_moves(write_mask, card_kind, hands, s, mask, cfg, tab, d, moves, nmoves, rep, okey, first,
                           cards_only, merge, deck)
                ismax[d] = allied(s, d, cfg, me, s[d, TO_ACT])
                best[d] = -INF if ismax[d] else INF
                bestm[d] = moves[d, 0]
                idx[d] = 0
                mode = _NEXT
        elif mode == _NEXT:
            if idx[d] < nmoves[d]:
                e = d + 1
                if _play_next(apply, ply, moves, idx, fields, cfg, tab, d):
                    v = rewards[e, me] + tiebreak * side_total(s, e, me) / 120.0
                    mode = _CHILD
                else:
                    al[e] = al[d]
                    be[e] = be[d]
                    d = e
                    mode = _ENTER
            else:
                v = best[d]
                if use_tt:
                    slot = keys[d] & tmask
                    lo = -INF
                    hi = INF
                    if tt_keys[slot] == keys[d]:
                        lo = tt_lo[slot]
                        hi = tt_hi[slot]
                    if v <= al0[d]:
                        hi = min(hi, v)
                    elif v >= be0[d]:
                        lo = max(lo, v)
                    else:
                        lo = v
                        hi = v
                    tt_keys[slot] = keys[d]
                    tt_lo[slot] = lo
                    tt_hi[slot] = hi
                    tt_move[slot] = bestm[d]
                mode = _RETURN
        elif mode == _RETURN:
            if d == d0:
                return v
            d -= 1
            mode = _CHILD
        else:  # _CHILD: v is the value of the move last tried at ply d
            if ismax[d]:
                if v > best[d]:
                    best[d] = v
                    bestm[d] = moves[d, idx[d] - 1]
                if best[d] > al[d]:
                    al[d] = best[d]
            else:
                if v < best[d]:
                    best[d] = v
                    bestm[d] = moves[d, idx[d] - 1]
                if best[d] < be[d]:
                    be[d] = best[d]
            if al[d] >= be[d]:
                idx[d] = nmoves[d]  # cut off: the rest cannot change the parent's choice
            mode = _NEXT


@njit(inline="always")
def _utilities(side_total, rewards, s, e, n, tiebreak, out):
    for q in range(n):
        out[q] = rewards[e, q] + tiebreak * side_total(s, e, q) / 120.0


@njit(inline="always")
def _search_maxn(apply, write_mask, allied, side_total, card_kind, key_fields, ply, stack, table, cfg, tab, d0, me,
                 n, tiebreak, flags, nodes):
    """The position's value for every seat when each seat plays for its own value (max^n), as a vector in
    ``best[d0]``; a seat choosing between moves of equal value to itself takes the one worse for ``me``
    unless it is on ``me``'s side (cautious). No pruning: the table holds exact vectors."""
    hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, rewards, mask = ply
    moves, nmoves, rep, okey, idx, al, be, al0, be0, best, bestm, keys, ismax, vec, child = stack
    tt_keys, tt_lo, tt_hi, tt_move, tt_vec = table
    cards_only, merge, use_tt, fields = flags
    deck = played_by.shape[1]
    tmask = np.uint64(len(tt_keys) - 1)
    d = d0
    mode = _ENTER
    while True:
        if mode == _ENTER:
            nodes[0] += 1
            first = -1
            if use_tt:
                k = _key(hands, aux, s, d, key_fields, me + 8)  # + 8: apart from the paranoid entries
                keys[d] = k
                slot = k & tmask
                if tt_keys[slot] == k:
                    for q in range(n):
                        child[q] = tt_vec[slot, q]
                    mode = _RETURN
            if mode == _ENTER:
                _gen_moves(write_mask, card_kind, hands, s, mask, cfg, tab, d, moves, nmoves, rep, okey, first,
                           cards_only, merge, deck)
                ismax[d] = allied(s, d, cfg, me, s[d, TO_ACT])
                idx[d] = 0
                mode = _NEXT
        elif mode == _NEXT:
            if idx[d] < nmoves[d]:
                e = d + 1
                if _play_next(apply, ply, moves, idx, fields, cfg, tab, d):
                    _utilities(side_total, rewards, s, e, n, tiebreak, child)
                    mode = _CHILD
                else:
                    d = e
                    mode = _ENTER
            else:
                for q in range(n):
                    child[q] = vec[d, q]
                if use_tt:
                    slot = keys[d] & tmask
                    tt_keys[slot] = keys[d]
                    for q in range(n):
                        tt_vec[slot, q] = vec[d, q]
                mode = _RETURN
        elif mode == _RETURN:
            if d == d0:
                for q in range(n):
                    vec[d0, q] = child[q]
                return child[me]
            d -= 1
            mode = _CHILD
        else:  # _CHILD: child holds the values of the move last tried at ply d
            q = s[d, TO_ACT]
            take = idx[d] == 1
            if not take:
                if child[q] > vec[d, q]:
                    take = True
                elif child[q] == vec[d, q] and not ismax[d] and child[me] < vec[d, me]:
                    take = True
            if take:
                for r in range(n):
                    vec[d, r] = child[r]
                bestm[d] = moves[d, idx[d] - 1]
            mode = _NEXT


@njit(inline="always")
def solve_positions(apply, write_mask, allied, side_total, card_kind, key_fields, copy_fields, state, cfg, tab, games,
                    me, per_move, tiebreak, flags, table, values, nodes):
    """Solve the positions ``games`` of the engine state for seats ``me``.

    ``per_move``: ``values[i, a]`` = the value for ``me[i]`` of each legal action ``a`` of the seat to act
    (NaN for the others; with ``cards_only`` the declarations are left out when a card may be played);
    otherwise ``values[i, 0]`` = the position's value. A position must be in play (not between deals).
    ``nodes[0]`` counts the positions visited. The table (``tt_*``, a power of two long) may be kept from
    call to call: an entry is keyed by the whole position and ``me``, so it stays true for the same game
    options and ``tiebreak``. ``state``: ``State.arrays()``; ``flags``: (cards_only, merge, use_tt, maxn):
    with ``maxn`` every seat plays for its own value (:func:`_search_maxn`) instead of the paranoid
    reduction; ``table``: (keys, lower bounds, upper bounds, moves, value vectors).
    """
    hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng = state
    cards_only, merge, use_tt, maxn = flags
    search_flags = (cards_only, merge, use_tt, copy_fields)
    deck = played_by.shape[1]
    plies = deck + 24  # every card, plus room for bids, calls and declarations
    na = values.shape[1]
    H = np.zeros((plies + 1, hands.shape[1]), hands.dtype)
    X = np.zeros((plies + 1, aux.shape[1]), aux.dtype)
    PB = np.zeros((plies + 1, deck), played_by.dtype)
    PI = np.zeros((plies + 1, deck), played_in.dtype)
    TT_ = np.zeros((plies + 1, trick_trump.shape[1]), trick_trump.dtype)
    DL = np.zeros((plies + 1, dealt.shape[1], dealt.shape[2]), dealt.dtype)
    LP = np.zeros((plies + 1, last_play.shape[1], last_play.shape[2]), last_play.dtype)
    S = np.zeros((plies + 1, s.shape[1]), s.dtype)
    R = np.zeros(plies + 1, rng.dtype)
    RW = np.zeros((plies + 1, 4), np.float32)
    M = np.zeros((plies + 1, na), np.bool_)
    moves = np.zeros((plies + 1, na), np.int64)
    nmoves = np.zeros(plies + 1, np.int64)
    rep = np.zeros((plies + 1, na), np.int64)
    idx = np.zeros(plies + 1, np.int64)
    al = np.zeros(plies + 1)
    be = np.zeros(plies + 1)
    al0 = np.zeros(plies + 1)
    be0 = np.zeros(plies + 1)
    best = np.zeros(plies + 1)
    bestm = np.zeros(plies + 1, np.int64)
    keys = np.zeros(plies + 1, np.uint64)
    ismax = np.zeros(plies + 1, np.bool_)
    ply = (H, X, PB, PI, TT_, DL, LP, S, R, RW, M)
    okey = np.zeros(na, np.int64)
    stack = (moves, nmoves, rep, okey, idx, al, be, al0, be0, best, bestm, keys, ismax)
    vec = np.zeros((plies + 1, 4))
    child = np.zeros(4)
    stack_maxn = stack + (vec, child)
    table_ab = table[:4]
    for i in range(len(games)):
        g = games[i]
        for k in range(hands.shape[1]):
            H[0, k] = hands[g, k]
        for k in range(aux.shape[1]):
            X[0, k] = aux[g, k]
        for k in range(deck):
            PB[0, k] = played_by[g, k]
            PI[0, k] = played_in[g, k]
        for k in range(trick_trump.shape[1]):
            TT_[0, k] = trick_trump[g, k]
        for k in range(s.shape[1]):
            S[0, k] = s[g, k]
        R[0] = rng[g]
        for a in range(na):
            values[i, a] = np.nan
        # The root's moves, or the root itself (-1) for its value: one call site of the inlined search.
        todo = np.full(1, -1, np.int64)
        if per_move:
            _gen_moves(write_mask, card_kind, H, S, M, cfg, tab, 0, moves, nmoves, rep, okey, -1, cards_only, merge,
                       deck)
            todo = moves[0, :nmoves[0]].copy()
        for j in range(len(todo)):
            a = todo[j]
            d0 = 0
            if a >= 0:
                _copy_ply(H, X, S, copy_fields, 0, 1)
                if apply(H, X, PB, PI, TT_, DL, LP, S, R, cfg, tab, 1, a, RW) != NOTHING:
                    values[i, a] = RW[1, me[i]] + tiebreak * side_total(S, 1, me[i]) / 120.0
                    continue
                d0 = 1
            if maxn:
                v = _search_maxn(apply, write_mask, allied, side_total, card_kind, key_fields, ply, stack_maxn, table,
                                 cfg, tab, d0, me[i], 4, tiebreak, search_flags, nodes)
            else:
                v = _search(apply, write_mask, allied, side_total, card_kind, key_fields, ply, stack, table_ab, cfg,
                            tab, d0, -INF, INF, me[i], tiebreak, search_flags, nodes)
            values[i, max(a, 0)] = v
        if not per_move:
            continue
        for a in range(na):
            # rep[0] still holds the root's classes: later plies use rows >= 1
            if rep[0, a] >= 0 and rep[0, a] != a:
                values[i, a] = values[i, rep[0, a]]
