"""Farbwechsel for learners: the dealer's first trump as a decision a learned value model can make."""

from __future__ import annotations

import numpy as np

from trickenv.games.base import GameSpec
from trickenv.games.farbwechsel.move_features import move_features
from trickenv.games.hand_features import hand_from_suit, obs_block
from trickenv.games.parts import Decision, GameLearning
from trickenv.games.trick_facts import TRICK_FACTS, trick_facts


def _trump_features(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """The dealer's hand seen from each suit it may declare. In the fixed variant (``switch_mode="cycle"``)
    the queens move trump along the suits' cycle, so the other suits keep their order after the trump."""
    hand = obs_block(spec, obs, "hand") != 0
    suits = np.broadcast_to(np.arange(4), (len(hand), 4))
    return hand_from_suit(hand, suits, sort_others=spec.options["switch_mode"] != "cycle")


def decisions(spec: GameSpec) -> tuple[Decision, ...]:
    return (Decision("trump", spec.deck, 4, _trump_features),)


GAME_LEARNING = GameLearning(action_features=trick_facts, action_feature_names=TRICK_FACTS, decisions=decisions,
                             move_features=move_features)
