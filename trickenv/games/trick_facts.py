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

from trickenv.engine.layout import TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH
from trickenv.games.base import GameSpec

TRICK_FACTS = ("beats_now", "higher_unseen", "sure_win")


def trick_facts(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """``float32 [B, 3 * deck]`` (fact-major, zero off the hand) of observations ``[B, obs_size]``."""
    o = spec.obs_offsets
    deck, n = spec.deck, spec.num_players
    x = np.asarray(obs) != 0
    b = len(x)

    def block(name: str) -> np.ndarray:
        off, size = o[name]
        return x[:, off:off + size]

    hand = block("hand")
    trick = block("trick").reshape(b, n, deck)
    on_table = trick.any(axis=1)
    seen = hand | block("played").reshape(b, n, deck).any(axis=1) | on_table
    if "turned_up" in o:
        seen |= block("turned_up")
    unseen = ~seen
    suit = spec.tab[TAB_SUIT, :deck]
    ranks = deck // 4
    trump = block("trump").argmax(axis=1)  # 4: no trump (yet)
    is_trump = suit[None, :] == trump[:, None]
    strength = np.where(is_trump, spec.tab[TAB_TRUMP_STRENGTH, :deck], spec.tab[TAB_STRENGTH, :deck])  # [B, deck]
    # Strengths within a suit are 0..R-1, one card each: card c sits at slot suit * R + strength of a row,
    # and the unseen cards above it are a reversed cumulative sum over that row's slots.
    slot = suit[None, :] * ranks + strength
    rows = np.arange(b)[:, None]
    by_slot = np.zeros((b, 4, ranks), np.int32)
    by_slot.reshape(b, -1)[rows, slot] = unseen
    above = (np.cumsum(by_slot[:, :, ::-1], axis=2)[:, :, ::-1] - by_slot).reshape(b, -1)
    higher = above[rows, slot]
    played_here = on_table.sum(axis=1)
    leader = block("leader").argmax(axis=1)
    led = suit[trick[np.arange(b), leader].argmax(axis=1)]  # meaningless on an empty table, masked below
    # Trick strength: 0 off suit, 1..R in the led suit, 2R+1..3R in trump.
    key = (strength + 1) * ((suit[None, :] == led[:, None]) | is_trump) + 2 * ranks * is_trump
    best = np.where(on_table, key, 0).max(axis=1)
    beats = (played_here > 0)[:, None] & (key > best[:, None])
    safe = (higher == 0) & (is_trump | ((unseen & is_trump).sum(axis=1) == 0)[:, None])
    sure = ((played_here == 0)[:, None] | beats) & ((played_here == n - 1)[:, None] | safe)
    out = np.concatenate([beats, higher / (ranks - 1), sure], axis=1).astype(np.float32)
    out *= np.tile(hand, len(TRICK_FACTS))
    return out
