"""A hand seen from a suit: the features of the decisions before the play (:class:`trickenv.games.parts.Decision`).

Where the rules treat the suits alike, the value of making suit ``t`` trump (or calling a card of it) depends on
the holding in ``t`` and on the other three holdings, not on the suits' names. :func:`hand_from_suit` writes a
hand as the holding of ``t`` followed by the other holdings in an order fixed by the holdings themselves, so
that hands alike but for the names of the suits give the same row.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["obs_block", "hand_from_suit", "suit_order", "in_order", "first_suit"]


def obs_block(spec: Any, obs: np.ndarray, name: str) -> np.ndarray:
    """``[B, size]``: the observation block ``name`` of each row of ``obs`` (``spec.obs_offsets``)."""
    off, size = spec.obs_offsets[name]
    return np.asarray(obs)[:, off:off + size]


def hand_from_suit(hand: np.ndarray, suits: np.ndarray, sort_others: bool = True) -> np.ndarray:
    """``hand`` [B, deck] (bool; card ``c`` is rank ``c % R`` of suit ``c // R``, ``R = deck // 4``) seen from
    ``suits`` [B, K] (a suit per choice): float32 [B, K, deck], the holding of ``suits[b, k]`` then the other
    three. ``sort_others``: longest first, then by the cards held (rules that treat the suits alike); else in
    suit order after the chosen one (``t+1, t+2, t+3``: rules where the suits follow a cycle)."""
    hand = np.asarray(hand, bool)
    b, deck = hand.shape
    held, _ = _holdings(hand)
    order = suit_order(hand, suits, sort_others)  # [B, K, 4]
    return held[np.arange(b)[:, None, None], order].reshape(b, order.shape[1], deck)


def suit_order(hand: np.ndarray, suits: np.ndarray, sort_others: bool = True) -> np.ndarray:
    """int64 [B, K, 4]: the suits in the order :func:`hand_from_suit` writes them, ``suits[b, k]`` first. Other
    cards the seat sees (a trick, the declarations) can be written in the same order with :func:`in_order`.
    Equal holdings keep their cycle order after the chosen suit."""
    _, key = _holdings(np.asarray(hand, bool))
    suits = np.asarray(suits, np.int64)
    others = (suits[:, :, None] + np.arange(1, 4)[None, None, :]) % 4  # [B, K, 3], in cycle order after t
    if sort_others:
        keys = np.take_along_axis(key[:, None, :].repeat(suits.shape[1], axis=1), others, axis=2)
        others = np.take_along_axis(others, np.argsort(-keys, axis=2, kind="stable"), axis=2)
    return np.concatenate([suits[:, :, None], others], axis=2)


def in_order(cards: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``cards`` [B, ..., deck] (a card set per row, suit-major as a hand) with its suits in ``order`` [B, 4]
    (:func:`suit_order` of one choice): the same sets, suit ``order[b, j]`` written as the ``j``-th."""
    cards = np.asarray(cards)
    b, deck = cards.shape[0], cards.shape[-1]
    ranks = deck // 4
    index = (order[:, :, None] * ranks + np.arange(ranks)[None, None, :]).reshape(b, deck)
    index = index.reshape((b,) + (1,) * (cards.ndim - 2) + (deck,))
    return np.take_along_axis(cards, np.broadcast_to(index, cards.shape), axis=-1)


def first_suit(hand: np.ndarray) -> np.ndarray:
    """int64 [B]: the suit that :func:`hand_from_suit`'s order of the holdings puts first (the longest, then by
    the cards held), for rules without a trump to see the hand from."""
    return _holdings(np.asarray(hand, bool))[1].argmax(axis=1)


def _holdings(hand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The holdings [B, 4, R] (float32) and one number per holding [B, 4]: its length, then its cards as a
    binary number (equal holdings tie)."""
    ranks = hand.shape[1] // 4
    held = hand.reshape(len(hand), 4, ranks).astype(np.float32)
    key = held.sum(axis=2) * (1 << ranks) + held @ (2.0 ** np.arange(ranks)).astype(np.float32)
    return held, key
