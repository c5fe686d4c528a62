"""What a seat can know in King Calling: who may be the partner, the declared marriages, the first batch before the
call; the world sampler's hooks, inference's replay of a deal and the replay of records."""

from __future__ import annotations

import numpy as np

from trickenv.engine.bitsets import deal_unseen
from trickenv.engine.layout import (
    PH_CALL,
    PH_PLAY,
    PHASE,
    TO_ACT,
    TRICK_NO,
)
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.koenigrufen.rules import (
    A_ALL_TRICKS,
    A_CALL,
    A_HUNDRED,
    A_MARRIAGE,
    ALONE,
    ALONE_BY_CHANCE,
    ALONE_ON_PURPOSE,
    BIG_BY,
    BIG_HUNDRED,
    BIG_KIND,
    C_PARTNER_MODE,
    CALLED,
    CALLER,
    HOLDER,
    MARR,
    MODE_FULL_HAND,
    NUM_PLAYERS,
    PARTNER,
    RANK_K,
    RANK_O,
    RANKS,
    REVEALED,
    UNKNOWN,
    WITH_PARTNER,
)
from trickenv.games.parts import GameWorlds


def hide_private(spec: GameSpec, info: State, seats: np.ndarray, undealt: np.ndarray) -> None:
    """The world sampler's information state: keep the partnership fields only where they are public or the
    seat's own knowledge."""
    s = info.s
    called = s[:, CALLED] >= 0
    revealed = s[:, REVEALED] != 0
    is_partner = s[:, PARTNER] == seats
    holds = s[:, HOLDER] == seats  # holder (or holder once): knows the caller is alone unless it is the partner
    known = ~called | revealed | is_partner | holds
    for col in (PARTNER, HOLDER, ALONE):
        s[:, col] = np.where(known, s[:, col], UNKNOWN)


def required_cards(spec: GameSpec, info: State, i: int, others: list[int]) -> dict[int, int]:
    """The world sampler: the king and ober of every declared marriage stay with their declarer."""
    out = {}
    for q in others:
        m = int(info.s[i, MARR + q])
        req = 0
        for su in range(4):
            if m >> su & 1:
                req |= (1 << (su * RANKS + RANK_K)) | (1 << (su * RANKS + RANK_O))
        if req:
            out[q] = req
    return out


def deal_worlds(spec: GameSpec, info: State, worlds: State, i: int, caller: int, k: int, rng: np.ndarray) -> bool:
    """The world sampler before the call: the caller knows its first 4 cards; the other first batches and
    every second batch (its own too) are dealt again uniformly. False (nothing done) after the call."""
    if info.s[i, PHASE] != PH_CALL:
        return False
    caps = np.array([4, 4, 4, 4, 4, 4, 4], np.int64)
    mine = info.hands[i, caller]
    pool_ids = [c for c in range(32) if not (int(mine) >> c) & 1]
    others = [q for q in range(4) if q != caller]
    for w in range(k):
        row = i * k + w
        hands = deal_unseen(rng, caps, pool_ids)
        for j, q in enumerate(others):
            worlds.hands[row, q] = hands[j]
        for q in range(4):
            worlds.aux[row, 1 + q] = hands[3 + q]
        worlds.hands[row, caller] = mine
        for q in range(4):
            worlds.dealt[row, 0, q] = worlds.hands[row, q] | worlds.aux[row, 1 + q]
            worlds.dealt[row, 0, 4 + q] = worlds.aux[row, 1 + q]
    return True


def settle_worlds(spec: GameSpec, worlds: State, rows: np.ndarray, k: int, coin_seeds: np.ndarray) -> None:
    """The world sampler: fix partner, holder and alone kind where the seat does not know them, from the
    world's cards.

    ``rows`` are the worlds of some decisions, ``k`` consecutive ones each; decision j's coins (is the
    called card in the holder's first batch?) are drawn from ``coin_seeds[j]``.
    """
    s = worlds.s[rows]
    unknown = s[:, PARTNER] == UNKNOWN
    if not unknown.any():
        return
    coin = np.zeros(len(rows), np.bool_)
    for j in np.flatnonzero(unknown.reshape(-1, k).any(axis=1)):  # in the first batch: even odds
        coin[j * k:(j + 1) * k] = np.random.default_rng(int(coin_seeds[j])).random(k) < 0.5
    called = s[:, CALLED]
    card = np.uint64(1) << called.astype(np.uint64)
    held = (worlds.hands[rows] & card[:, None]) != 0
    holder = np.where(held.any(axis=1), held.argmax(axis=1), -1)
    # a played called card would be public (revealed), so here some hand holds it
    caller = s[:, CALLER]
    full_hand = spec.cfg[C_PARTNER_MODE] == MODE_FULL_HAND
    with_partner = (holder != caller) & (full_hand | coin)
    s[:, PARTNER] = np.where(unknown, np.where(with_partner, holder, -1), s[:, PARTNER])
    s[:, HOLDER] = np.where(unknown, holder, s[:, HOLDER])
    kind = np.where(with_partner, WITH_PARTNER, np.where((holder == caller) & coin, ALONE_ON_PURPOSE, ALONE_BY_CHANCE))
    s[:, ALONE] = np.where(unknown, kind, s[:, ALONE])
    worlds.s[rows] = s


def _next_declaration(p: np.ndarray, marriages: np.ndarray, declared: np.ndarray, big_by: np.ndarray,
                      big_kind: np.ndarray, big_made: np.ndarray) -> np.ndarray:
    """The declaration seat ``p`` makes next before its first card, or -1: a marriage of ``marriages`` (suit
    bitsets) not yet in ``declared``, lowest suit first, then the hundred or all tricks where ``big_by`` is ``p``
    and none is made yet (``big_made`` < 0). Vectorized over rows."""
    left = marriages & ~declared
    suit = np.argmax((left[:, None] >> np.arange(4)) & 1, axis=1)
    big = np.where(big_kind == BIG_HUNDRED, A_HUNDRED, A_ALL_TRICKS)
    return np.where(left != 0, A_MARRIAGE + suit, np.where((big_by == p) & (big_made < 0), big, -1))


def record_action(spec: GameSpec, rec: dict[str, np.ndarray], state: State, g: int) -> int | None:
    """The call is the record's ``called_card``; in the first trick a seat makes its declarations (marriages,
    then the hundred or all tricks) before its card, as the record's ``marriages`` and ``big_*`` say."""
    s = state.s[g]
    if s[PHASE] == PH_CALL:
        return A_CALL + int(rec["called_card"])
    if s[PHASE] != PH_PLAY or s[TRICK_NO] != 0:
        return None
    p = int(s[TO_ACT])
    marriages = sum(1 << su for su in range(4) if rec["marriages"][p, su]) if "marriages" in rec else 0
    a = int(_next_declaration(np.array([p]), np.array([marriages]), np.array([int(s[MARR + p])]),
                              np.array([int(rec.get("big_declared_by", -1))]),
                              np.array([int(rec.get("big_declaration", 0))]), np.array([s[BIG_BY]]))[0])
    return None if a < 0 else a


def history_actions(spec: GameSpec, info: State, rows: np.ndarray, sim: State, games: np.ndarray) -> np.ndarray:
    """Inference's replay: the call, and in the first trick a seat's declarations before its card (marriages,
    then the hundred or all tricks), all public, as in the real deal ``info``; -1 where the move is a card."""
    out = np.full(len(games), -1, np.int64)
    s, real = sim.s[games], info.s[rows]
    call = s[:, PHASE] == PH_CALL
    out[call] = A_CALL + real[call, CALLED]
    k = np.flatnonzero((s[:, PHASE] == PH_PLAY) & (s[:, TRICK_NO] == 0))
    p = s[k, TO_ACT].astype(np.int64)
    out[k] = _next_declaration(p, real[k, MARR + p], s[k, MARR + p], real[k, BIG_BY], real[k, BIG_KIND], s[k, BIG_BY])
    return out


def replay_deal(spec: GameSpec, worlds: State, rows: np.ndarray) -> None:
    """Inference's replay deals in two batches: a second batch the world keeps (the true deal's record) goes
    back to it, and the called card comes in its holder's second batch where the world's caller is alone by
    chance, so that the replay's partnership is the world's."""
    second = worlds.dealt[:, 0, NUM_PLAYERS:]
    for q in range(NUM_PLAYERS):
        bits = ((second[:, q, None] >> np.arange(spec.deck, dtype=np.uint64)) & np.uint64(1)).astype(np.bool_)
        rows[bits] = NUM_PLAYERS + q
    w = np.flatnonzero(worlds.s[:, CALLED] >= 0)
    called, holder = worlds.s[w, CALLED], worlds.s[w, HOLDER]
    by_chance = worlds.s[w, ALONE] == ALONE_BY_CHANCE
    rows[w, called] = np.where(by_chance, NUM_PLAYERS + holder, holder)


def unweighed(spec: GameSpec, sim: State, games: np.ndarray) -> np.ndarray:
    """The call is made from the caller's first batch, which a world dealt after the call does not keep apart
    from its second: inference replays it but does not weigh it."""
    return sim.s[games, PHASE] == PH_CALL


GAME_WORLDS = GameWorlds(hide_private=hide_private, required_cards=required_cards, deal_worlds=deal_worlds,
                         settle_worlds=settle_worlds, history_actions=history_actions, replay_deal=replay_deal,
                         unweighed=unweighed, record_action=record_action)
