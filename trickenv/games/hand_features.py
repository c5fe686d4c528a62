"""A hand seen from a suit: the features of the decisions before the play (:class:`trickenv.games.parts.Decision`).

Where the rules treat the suits alike, the value of making suit ``t`` trump (or calling a card of it) depends on
the holding in ``t`` and on the other three holdings, not on the suits' names. :func:`hand_from_suit` writes a
hand as the holding of ``t`` followed by the other holdings in an order fixed by the holdings themselves, so
that hands alike but for the names of the suits give the same row.
"""

from __future__ import annotations

import numpy as np

__all__ = ["hand_from_suit", "first_suit"]


def hand_from_suit(hand: np.ndarray, suits: np.ndarray, sort_others: bool = True) -> np.ndarray:
    """``hand`` [B, deck] (bool; card ``c`` is rank ``c % R`` of suit ``c // R``, ``R = deck // 4``) seen from
    ``suits`` [B, K] (a suit per choice): float32 [B, K, deck], the holding of ``suits[b, k]`` then the other
    three. ``sort_others``: longest first, then by the cards held (rules that treat the suits alike); else in
    suit order after the chosen one (``t+1, t+2, t+3``: rules where the suits follow a cycle)."""
    hand = np.asarray(hand, bool)
    b, deck = hand.shape
    ranks = deck // 4
    held, key = _holdings(hand)
    suits = np.asarray(suits, np.int64)
    k = suits.shape[1]
    out = np.empty((b, k, deck), np.float32)
    rows = np.arange(b)
    for j in range(k):
        t = suits[:, j]
        others = (t[:, None] + np.arange(1, 4)[None, :]) % 4  # [B, 3], in cycle order after t
        if sort_others:
            order = np.argsort(-np.take_along_axis(key, others, axis=1), axis=1, kind="stable")
            others = np.take_along_axis(others, order, axis=1)
        out[:, j, :ranks] = held[rows, t]
        out[:, j, ranks:] = held[rows[:, None], others].reshape(b, 3 * ranks)
    return out


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
