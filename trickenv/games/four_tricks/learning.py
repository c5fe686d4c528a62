"""Four Tricks for learners: the suit symmetry of its rules."""

from __future__ import annotations

import numpy as np

from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.parts import GameLearning
from trickenv.games.trick_facts import TRICK_FACTS, trick_facts

# The card blocks of the observation, relabelled card by card with the suits.
CARD_BLOCKS = ("hand", "trick", "played", "turned_up")


def suit_relabel(spec: GameSpec, perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Four Tricks' rules treat the four suits alike (no suit outranks another; trump is whichever suit the
    dealer names or the turned-up card shows), so suit ``s`` renamed ``perm[s]`` throughout a deal gives a
    deal played the same way. Column sources of its observation and of its action rows (GameSpec.suit_relabel)."""
    deck = spec.deck
    ranks = deck // 4
    old_suit = np.argsort(np.asarray(perm))  # the suit that becomes suit t
    card = np.arange(deck)
    old_card = old_suit[card // ranks] * ranks + card % ranks  # the card that becomes card c
    obs = np.arange(spec.obs_size)
    for name in CARD_BLOCKS:
        off, size = spec.obs_offsets[name]
        for k in range(0, size, deck):
            obs[off + k:off + k + deck] = off + k + old_card
    off, _ = spec.obs_offsets["trump"]
    obs[off:off + 4] = off + old_suit  # index 4, no trump, stays
    actions = np.arange(spec.num_actions)
    actions[:deck] = old_card
    actions[deck:deck + 4] = deck + old_suit  # the dealer's trump; the bids stay
    return obs, actions


GAME_LEARNING = GameLearning(action_features=trick_facts, action_feature_names=TRICK_FACTS,
                             suit_relabel=suit_relabel)
