"""Four Tricks for learners: the suit symmetry of its rules, and the dealer's trump as a decision a learned
value model can make."""

from __future__ import annotations

import numpy as np

from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.hand_features import first_suit, hand_from_suit, obs_block
from trickenv.games.four_tricks.move_features import move_features
from trickenv.games.parts import Decision, GameLearning
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


def _trump_features(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """The dealer's hand seen from each suit it may name (the suits are alike)."""
    hand = obs_block(spec, obs, "hand") != 0
    return hand_from_suit(hand, np.broadcast_to(np.arange(4), (len(hand), 4)))


def _bid_features(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """For each bid: the bidder's hand seen from the trump (without trump, from the suit its holdings put
    first), the bids made so far and where the dealer sits (relative seats), and the bid."""
    b, deck = len(obs), spec.deck
    hand = obs_block(spec, obs, "hand") != 0
    trump = obs_block(spec, obs, "trump").argmax(axis=1)
    plain = trump == 4  # no trump: the suits are all alike, the first is the one sorted first
    if plain.any():
        trump = trump.copy()
        trump[plain] = first_suit(hand[plain])
    seen = [hand_from_suit(hand, trump[:, None])[:, 0]]
    seen += [obs_block(spec, obs, name).astype(np.float32) for name in ("bids", "dealer")]
    common = np.concatenate(seen, axis=1)
    count = spec.num_actions - deck - 4
    out = np.zeros((b, count, common.shape[1] + count), np.float32)
    out[:, :, :common.shape[1]] = common[:, None, :]
    out[:, np.arange(count), common.shape[1] + np.arange(count)] = 1.0
    return out


def decisions(spec: GameSpec) -> tuple[Decision, ...]:
    """The dealer's trump where the dealer names it (``trump="dealer"``), and the bid of each seat with
    ``bidding=True``."""
    out = []
    if spec.options["trump"] == "dealer":
        out.append(Decision("trump", spec.deck, 4, _trump_features))
    if spec.options["bidding"]:
        out.append(Decision("bid", spec.deck + 4, spec.num_actions - spec.deck - 4, _bid_features, turns=3))
    return tuple(out)


GAME_LEARNING = GameLearning(action_features=trick_facts, action_feature_names=TRICK_FACTS,
                             suit_relabel=suit_relabel, decisions=decisions, move_features=move_features)
