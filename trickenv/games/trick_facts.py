"""Per-card facts about the trick in play, for networks (``GameSpec.action_features``).

A network reading the observation sees which cards are where, but whether a
card of its hand would take the trick now, or for sure, is a composition of
several blocks (the trick, the led suit, the trump, the played cards, the
card strengths) it would have to learn. :func:`trick_facts` computes three such
facts for every card of the seat's hand, from the observation alone (what the
seat knows; "unseen" cards are those neither in its hand, played, on the table
nor turned up):

- ``beats_now``: a card is on the table and this card would take the lead of the trick;
- ``higher_unseen``: unseen cards of its suit that rank above it (by the game's strength in
  that suit, trump or not), over the ranks - 1;
- ``sure_win``: playing it wins the trick whatever the unseen cards are: it leads or beats the
  table, and either no one plays after the seat or no unseen card can beat it (no stronger one
  of its suit and, unless it is trump, no unseen trump; voids are not used, so it is
  conservative).

It serves any game whose tricks follow suit and go to the highest trump, else the
highest card of the led suit, with strengths from the card table (``TAB_STRENGTH``,
``TAB_TRUMP_STRENGTH``; within each suit they are 0..R-1, one card each) and the observation blocks ``hand``, ``trick``, ``played``,
``trump``, ``leader`` (and ``turned_up`` where the game has a face-up card). A game opts in
with ``action_features=trick_facts, action_feature_names=TRICK_FACTS``. Each fact is a
function of the public history and the seat's own hand only.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.engine.layout import TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH
from trickenv.games.base import GameSpec

TRICK_FACTS = ("beats_now", "higher_unseen", "sure_win")


def trick_facts(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """``float32 [B, 3 * deck]`` (fact-major, zero off the hand) of observations ``[B, obs_size]``."""
    o = spec.obs_offsets
    x = np.asarray(obs)
    if x.ndim != 2 or x.shape[1] != spec.obs_size:
        raise ValueError(f"observations must be a [B, {spec.obs_size}] array for {spec.name}, got shape {x.shape}")
    if x.dtype != np.int8:
        x = (x != 0).astype(np.int8)
    blocks = np.array([o["hand"][0], o["trick"][0], o["played"][0], o["trump"][0], o["trump"][1], o["leader"][0],
                       o["turned_up"][0] if "turned_up" in o else -1], np.int64)
    deck = spec.deck
    out = np.zeros((len(x), len(TRICK_FACTS) * deck), np.float32)
    _facts_kernel(np.ascontiguousarray(x), blocks, spec.num_players, deck,
                  spec.tab[TAB_SUIT, :deck].astype(np.int64), spec.tab[TAB_STRENGTH, :deck].astype(np.int64),
                  spec.tab[TAB_TRUMP_STRENGTH, :deck].astype(np.int64), out)
    return out


@njit(cache=True, nogil=True)
def _facts_kernel(x: np.ndarray, blocks: np.ndarray, n: int, deck: int, suit: np.ndarray, plain: np.ndarray,
                  trumps: np.ndarray, out: np.ndarray) -> None:
    hand_at, trick_at, played_at, trump_at, trump_size, leader_at, turned_at = blocks
    ranks = deck // 4
    unseen = np.zeros(deck, np.bool_)
    on_table = np.zeros(deck, np.bool_)
    strength = np.zeros(deck, np.int64)
    by_slot = np.zeros(4 * ranks, np.int64)  # unseen cards by suit * R + strength; then how many rank above
    for i in range(x.shape[0]):
        row = x[i]
        trump = 0  # the first set entry of the trump block (4: no trump yet), 0 when none is set (as argmax)
        for t in range(trump_size):
            if row[trump_at + t] != 0:
                trump = t
                break
        leader = 0
        for p in range(n):
            if row[leader_at + p] != 0:
                leader = p
                break
        led_card = 0  # the leader's card on the table, card 0 when there is none (masked below)
        for c in range(deck):
            if row[trick_at + leader * deck + c] != 0:
                led_card = c
                break
        led = suit[led_card]
        played_here = 0
        unseen_trump = 0
        best = 0  # trick strength of the table's best card: 0 off suit, 1..R in the led suit, 2R+1..3R in trump
        by_slot[:] = 0
        for c in range(deck):
            table = False
            gone = False
            for p in range(n):
                if row[trick_at + p * deck + c] != 0:
                    table = True
                if row[played_at + p * deck + c] != 0:
                    gone = True
            seen = row[hand_at + c] != 0 or gone or table or (turned_at >= 0 and row[turned_at + c] != 0)
            on_table[c] = table
            unseen[c] = not seen
            is_trump = suit[c] == trump
            strength[c] = trumps[c] if is_trump else plain[c]
            if not seen:
                by_slot[suit[c] * ranks + strength[c]] = 1
                if is_trump:
                    unseen_trump += 1
            if table:
                played_here += 1
                key = (strength[c] + 1) * (suit[c] == led or is_trump) + 2 * ranks * is_trump
                best = max(best, key)
        for s in range(4):  # unseen cards above each slot of the suit
            above = 0
            for r in range(ranks - 1, -1, -1):
                here = by_slot[s * ranks + r]
                by_slot[s * ranks + r] = above
                above += here
        for c in range(deck):
            if row[hand_at + c] == 0:
                continue
            is_trump = suit[c] == trump
            key = (strength[c] + 1) * (suit[c] == led or is_trump) + 2 * ranks * is_trump
            beats = played_here > 0 and key > best
            higher = by_slot[suit[c] * ranks + strength[c]]
            safe = higher == 0 and (is_trump or unseen_trump == 0)
            out[i, c] = beats
            out[i, deck + c] = np.float32(higher / (ranks - 1))
            out[i, 2 * deck + c] = (played_here == 0 or beats) and (played_here == n - 1 or safe)
