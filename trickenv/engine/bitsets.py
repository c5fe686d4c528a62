"""Card bitsets on the Python side: counting, unpacking to bits, seats relative to a seat, and dealing unseen
cards as the engine deals. The games' hooks and the layers above share them."""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.engine.kernels import deal_groups

COMPILE_LABEL = "the deal helpers"  # trickenv.engine.first_run


def popcount_py(x: np.uint64) -> int:
    """Number of cards in a bitset (Python side)."""
    return bin(int(x)).count("1")


def card_bits(sets: np.ndarray, deck: int) -> np.ndarray:
    """``uint64`` card bitsets ``[...]`` as ``int8`` bits ``[..., deck]``."""
    shifts = np.arange(deck, dtype=np.uint64)
    return ((np.asarray(sets, np.uint64)[..., None] >> shifts) & np.uint64(1)).astype(np.int8)


def relative_seats(seats: np.ndarray, num_players: int) -> np.ndarray:
    """``[len(seats), num_players]``: the absolute seat of relative seat k (0 = the seat, then clockwise)."""
    return (np.asarray(seats, np.int64)[:, None] + np.arange(num_players)[None, :]) % num_players


@njit(cache=True)
def _deal_groups_py(rng, caps, out):
    """Uniform split of ``caps.sum()`` positions into groups (the engine's dealing)."""
    deal_groups(rng, 0, caps, out)


def deal_unseen(rng: np.ndarray, caps: np.ndarray, ids: list[int]) -> list[np.uint64]:
    """A uniform split of the cards ``ids`` into groups of ``caps[j]`` cards (bitsets), drawn from the
    one-element generator ``rng`` as the engine deals."""
    groups = np.zeros(len(caps), np.uint64)
    _deal_groups_py(rng, caps, groups)  # groups of the positions in ids
    return [_positions_to_cards(groups[j], ids) for j in range(len(caps))]


def _positions_to_cards(bits: np.uint64, ids: list[int]) -> np.uint64:
    out = 0
    x = int(bits)
    for j, c in enumerate(ids):
        if x >> j & 1:
            out |= 1 << c
    return np.uint64(out)
