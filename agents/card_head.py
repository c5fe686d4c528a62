"""A per-card head: one small network shared by every card scores each card from the position and the card's facts.

A plain policy network ends in one output row per action: what it learns about
playing the ten of hearts it has to learn again for the ten of spades, from that
card's rows alone. In the endgame, where every deal is a new combination of a few
cards, that is where a distilled player loses to the search it learned from
(docs/how-it-was-found/training.md). The card head, after the
action values of DouZero, adds to each card's logit a score computed by one
network for all cards, from the last hidden layer ``h`` and the card's own inputs
(:func:`card_inputs`)::

    logit[c] += wo . relu(Wh h + bh + Wa inputs[c]) + bo        for every card c in the hand

(a card action is legal only for a card of the hand, in every game, so the others are left as they
are and not computed), so what it learns about a card (it is trump, it beats the table, no unseen card
outranks it, its suit is short in the hand) holds for every card alike.

The inputs come from the observation alone (the seat's hand and the public play),
like the trick facts, so a player reading them reads nothing hidden. Each card's
inputs are a fixed part (which card: its one-hot, rank and strength in its suit,
card points) and a part that depends on the position (:data:`CARD_INPUTS`); the
fixed part goes through ``Wa`` once when a player is loaded.

The head is fitted by imitation (the warm start and expert iteration of
``trickenv train --card-head N``); the player file holds its arrays next to the
MLP's (``trickenv.agents.policy``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from trickenv.games.base import GameSpec

# The per-card inputs that depend on the position, in their order (then the game's trick facts, if it has them).
CARD_INPUTS = ("in_hand", "is_trump", "is_led", "own_in_suit", "unseen_in_suit", "unseen_trumps", "table_points")
# The head's arrays in a player file (after its MLP's W0, b0, ...).
HEAD_ARRAYS = ("H_wh", "H_bh", "H_wa", "H_wo", "H_bo")


def fixed_card_inputs(spec: GameSpec) -> np.ndarray:
    """``float32 [deck, deck + R + 2]``: each card's one-hot, rank one-hot (R ranks), strength in its suit
    (/ (R - 1)) and card points (/ the most any card has; 0 in games without points)."""
    from trickenv.decode import card_sets

    sets = card_sets(spec)
    deck = spec.deck
    ranks = deck // 4
    points = sets["points"].astype(np.float32)
    return np.concatenate([np.eye(deck, dtype=np.float32),
                           np.eye(ranks, dtype=np.float32)[sets["rank"]],
                           (sets["strength"].astype(np.float32) / max(ranks - 1, 1))[:, None],
                           (points / max(points.max(), 1.0))[:, None]], axis=1)


def card_input_names(spec: GameSpec) -> list[str]:
    """The names of the inputs of one card, fixed ones first (what a player file's ``meta["card_head"]`` lists)."""
    deck = spec.deck
    facts = list(spec.learning.action_feature_names) if spec.learning.action_features is not None else []
    return ([f"card:{c}" for c in range(deck)] + [f"rank:{r}" for r in range(deck // 4)] + ["strength", "points"]
            + list(CARD_INPUTS) + facts)


def card_inputs(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """``float32 [B, deck, K]``: the inputs of each card that depend on the position (:data:`CARD_INPUTS`, then
    the trick facts), from observations ``[B, obs_size]`` alone.

    in_hand: the seat holds it; is_trump / is_led: its suit is trump / the suit led to the trick on the table;
    own_in_suit / unseen_in_suit: cards of its suit in the hand / unseen (not in the hand, played, on the table or
    turned up), over the ranks; unseen_trumps: unseen trumps, over the ranks (the same for every card);
    table_points: card points on the table, over the most a trick can hold (0 without points).
    """
    x = np.asarray(obs)
    if x.ndim != 2 or x.shape[1] != spec.obs_size:
        raise ValueError(f"observations must be a [B, {spec.obs_size}] array for {spec.name}, got shape {x.shape}")
    o = spec.obs_offsets

    def block(name: str) -> np.ndarray:
        at, size = o[name]
        return (x[:, at:at + size] != 0).astype(np.float32)

    facts = spec.learning.action_features(spec, x) if spec.learning.action_features is not None else None  # fact-major [B, F * deck]
    return card_inputs_of_blocks(spec, block, facts)


def card_inputs_of_blocks(spec: GameSpec, block: Callable[[str], np.ndarray], facts: np.ndarray | None) -> np.ndarray:
    """:func:`card_inputs` from the observation blocks it reads, wherever they come from: ``block(name)`` gives
    block ``name`` (hand, trick, played, turned_up where the game has it, trump, leader) as 0/1 ``float32 [B,
    size]``, ``facts`` the trick facts ``[B, F * deck]`` fact-major (None in a game without them). The trainer's
    PPO reads them from the network's features (``trickenv.training.card_head.FeatureInputs``)."""
    from trickenv.decode import card_sets

    deck, n, ranks = spec.deck, spec.num_players, spec.deck // 4
    sets = card_sets(spec)
    suits = np.eye(4, dtype=np.float32)[sets["suit"]]  # [deck, 4]
    points = sets["points"].astype(np.float32)
    hand = block("hand")
    b = len(hand)
    trick = block("trick").reshape(b, n, deck)
    table = trick.max(axis=1)
    seen = np.maximum(np.maximum(hand, table), block("played").reshape(b, n, deck).max(axis=1))
    if "turned_up" in spec.obs_offsets:
        seen = np.maximum(seen, block("turned_up"))
    unseen_s = (1.0 - seen) @ suits  # [B, 4]
    trump = block("trump")[:, :4]  # one-hot suit; the block's last entry (no trump yet) is none of them
    led_s = (trick * block("leader")[:, :, None]).sum(axis=1) @ suits  # the suit of the leader's card on the table
    suit = sets["suit"].astype(np.int64)
    out = np.empty((b, deck, len(CARD_INPUTS) + (0 if facts is None else facts.shape[1] // deck)), np.float32)
    out[:, :, 0] = hand
    out[:, :, 1] = trump[:, suit]
    out[:, :, 2] = led_s[:, suit]
    out[:, :, 3] = (hand @ suits)[:, suit] / ranks
    out[:, :, 4] = unseen_s[:, suit] / ranks
    out[:, :, 5] = ((unseen_s * trump).sum(axis=1) / ranks)[:, None]
    out[:, :, 6] = ((table @ points) / max(points.max() * n, 1.0))[:, None]
    if facts is not None:
        out[:, :, len(CARD_INPUTS):] = facts.reshape(b, -1, deck).transpose(0, 2, 1)
    return out


class CardHeadWeights:
    """The head's arrays, ready for the forward pass (the fixed card inputs folded through ``Wa``)."""

    def __init__(self, spec: GameSpec, arrays: dict[str, np.ndarray], hidden: int) -> None:
        missing = [k for k in HEAD_ARRAYS if k not in arrays]
        if missing:
            raise ValueError(f"the card head lacks {', '.join(missing)}")
        wh, bh, wa, wo, bo = (np.asarray(arrays[k], np.float32) for k in HEAD_ARRAYS)
        fixed = fixed_card_inputs(spec)
        inputs = len(card_input_names(spec))
        units = wh.shape[1]
        if wh.shape != (hidden, units) or bh.shape != (units,) or wa.shape != (inputs, units) \
                or wo.shape != (units,) or bo.shape != ():
            raise ValueError(f"card head shapes {[np.shape(a) for a in (wh, bh, wa, wo, bo)]} do not fit "
                             f"{spec.name} ({hidden} hidden units, {inputs} card inputs)")
        self.spec, self.units = spec, units
        self.wh, self.wo, self.bo = wh, wo, float(bo)
        self.card_bias = fixed @ wa[:fixed.shape[1]] + bh  # [deck, units]
        self.wa_dyn = np.ascontiguousarray(wa[fixed.shape[1]:])

    def scores(self, hidden: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """``[B, deck]``: each card's score, from the last hidden layer (after its activation) and the position
        inputs ``card_inputs(spec, obs)``; 0 for the cards not in the hand (computed only for those in it)."""
        rows, cards = np.nonzero(inputs[:, :, 0])  # input 0: in_hand
        z = (hidden @ self.wh)[rows] + self.card_bias[cards] + inputs[rows, cards] @ self.wa_dyn
        np.maximum(z, 0.0, out=z)
        out = np.zeros(inputs.shape[:2], np.float32)
        out[rows, cards] = z @ self.wo + self.bo
        return out
