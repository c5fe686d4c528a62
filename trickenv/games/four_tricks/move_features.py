"""Four Tricks in a player's words: readable features of every legal move, for the playbook.

:func:`move_features` describes each position and each legal move by what a person sees at the table
(:class:`trickenv.games.parts.MoveFeatures`): the card play's shared words (:mod:`trickenv.games.move_words`)
and Four Tricks' own: the tricks you must take and still need, the tricks left, your aces and high cards, and
for a bid the number bid and the others' bids so far. The dealer's trump moves are described by the suit they
name. It reads the observation alone (docs/envs/four_tricks.md), so a rule stated in these words reads only
what the seat may know.
"""

from __future__ import annotations

import numpy as np

from trickenv.games.base import GameSpec
from trickenv.games.hand_features import obs_block
from trickenv.games.move_words import PLAY_KINDS, assemble, card_play, onehot, words_for
from trickenv.games.parts import MoveFeatures

KINDS = ("choosing trump", "bidding") + PLAY_KINDS

OWN_WORDS: dict[str, tuple[str, ...]] = {
    "target": ("tricks you must take",),
    "need": ("tricks you still need",),
    "tricks_left": ("tricks still to play",),
    "aces": ("aces you hold",),
    "high": ("aces and kings you hold",),
    "suit_high": ("aces, kings and queens you hold in its suit",),
    "bid": ("the number it bids",),
    "bids_so_far": ("tricks the others have bid",),
}


def move_features(spec: GameSpec, obs: np.ndarray, mask: np.ndarray) -> MoveFeatures:
    """:class:`MoveFeatures` of a batch: ``obs [B, obs_size]``, ``mask [B, num_actions]`` (the legal moves)."""
    obs, mask = np.asarray(obs), np.asarray(mask, bool)
    b, n, deck, actions = len(obs), spec.num_players, spec.deck, spec.num_actions
    ranks = deck // 4
    play = card_play(spec, obs, mask)
    bids = onehot(obs_block(spec, obs, "bids").reshape(b, n, -1))  # -1 before a seat bids
    target = onehot(obs_block(spec, obs, "target"))
    target = np.where(target >= 0, target, np.maximum(bids[:, 0], 0))
    held = play.hand.reshape(b, 4, ranks)
    play.context.update({
        "target": target, "need": target - play.context["my_tricks"],
        "tricks_left": spec.num_tricks - play.context["trick"], "aces": held[:, :, -1].sum(axis=1),
        "high": held[:, :, -2:].sum(axis=(1, 2)), "bids_so_far": np.where(bids[:, 1:] >= 0, bids[:, 1:], 0).sum(axis=1),
    })
    play.by_suit["suit_high"] = held[:, :, -3:].sum(axis=2)
    bid = np.zeros((b, actions), np.float32)
    bid[:, deck + 4:] = np.arange(actions - deck - 4)
    named = np.full((b, actions - deck), -1)
    named[:, :4] = np.arange(4)  # the dealer's trump moves name their suit
    choosing = mask[:, deck:deck + 4].any(axis=1)
    bidding = mask[:, deck + 4:].any(axis=1)
    kind = np.where(choosing, 0, np.where(bidding, 1, 2 + play.kind))
    return assemble(spec, mask, play, KINDS, kind, {**words_for(spec), **OWN_WORDS}, {"suit": named, "bid": bid})
