"""Uniformly random legal play, single and batched (numba, no Python loop over games)."""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from trickenv.engine.kernels import U0, kth_bit, popcount, seed_states, uniform_int
from trickenv.engine.simd import W, nonzero16_any
from trickenv.games.base import GameSpec

COMPILE_LABEL = "the random agent"  # trickenv.engine.first_run


@njit(cache=True)
def _pick_random_legal(mask, rng, out):
    """out[g] = a uniformly random index among the True entries of mask[g] (-1 if none)."""
    for g in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[g, a]
        if n == 0:
            out[g] = -1
            continue
        k = uniform_int(rng, g, n)
        for a in range(mask.shape[1]):
            if mask[g, a]:
                if k == 0:
                    out[g] = a
                    break
                k -= 1


@njit(inline="always")
def _mask_word(mask, g, base, a):
    """Bitset of the True entries base .. base + 63 of mask[g] (a: the row's length, >= 16).

    Up to four 16-entry reads, each clamped to end inside the row and shifted down
    to drop what it read twice. Reads that would start at or past the row's end
    are skipped (they would shift to 0); their count is the same for every row,
    so nothing here depends on the row's contents: a branch on them
    mispredicted on most rows in an older version.
    """
    x = U0
    for j in range(min(4, (a - base + W - 1) // W)):
        want = base + W * j
        start = min(want, a - W)
        x |= (nonzero16_any(mask, g, start) >> np.uint64(min(want - start, W))) << np.uint64(W * j)
    return x


@njit(cache=True)
def _pick_random_legal_bits(mask, rng, out):
    """:func:`_pick_random_legal` for a C-contiguous bool mask of 16 to 128 columns: the same picks.

    It reads each row 16 entries at a time as a bitset (one vector compare each) into two
    64-bit words, counts the legal actions with popcounts and takes the k-th set bit,
    instead of testing the entries one by one (a branch each).
    """
    a = mask.shape[1]
    wide = a > 64
    for g in range(mask.shape[0]):
        lo = _mask_word(mask, g, 0, a)  # actions 0..63
        hi = _mask_word(mask, g, 64, a) if wide else U0  # actions 64..127
        n_lo = popcount(lo)
        n = n_lo + popcount(hi)
        if n == 0:
            out[g] = -1
            continue
        k = uniform_int(rng, g, n)
        out[g] = kth_bit(lo, k) if k < n_lo else 64 + kth_bit(hi, k - n_lo)


@njit(cache=True)
def _pick_random_legal_row(mask, rng, out):
    """``out[0]`` = a random legal action of the 1-D mask of bytes ``mask`` (16 to 128 entries; an entry
    is legal when it is not 0), drawn with ``rng[0]``: :func:`_pick_random_legal_bits` on it as one row."""
    _pick_random_legal_bits(mask.reshape((1, mask.shape[0])), rng, out)


def pick_random_legal(mask: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """out[g] = a uniformly random index among the True entries of mask[g] (-1 if none), drawn with
    game g's generator ``rng[g]``: the bitset kernel for bool masks, else the plain one (same picks)."""
    if mask.dtype == np.bool_ and mask.ndim == 2 and W <= mask.shape[1] <= 128 and mask.flags.c_contiguous:
        _pick_random_legal_bits(mask, rng, out)
    else:
        _pick_random_legal(mask, rng, out)


class RandomAgent:
    """Chooses uniformly among the legal actions; seeded, so runs repeat exactly.

    Follows the agent protocol (:mod:`trickenv.agents.base`); it reads only the mask,
    so ``spec`` is optional.
    """

    name = "random"
    needs_state = False

    def __init__(self, seed: int | None = None, spec: GameSpec | None = None) -> None:
        self.seed = seed
        self.spec = spec
        self._rng = seed_states(seed, 1)
        self._out1 = np.zeros(1, np.int64)
        self._pick_row = None  # the compiled pick for masks like the last one (see act)
        self._row_dtype = self._row_shape = None
        self._batch_rng: np.ndarray | None = None
        self._out: np.ndarray | None = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Action for one AEC observation dict (``observation``, ``action_mask``)."""
        mask = observation["action_mask"]
        if type(mask) is np.ndarray and mask.dtype is self._row_dtype and mask.shape == self._row_shape \
                and mask.strides == (1,):
            # The AEC env's int8 (or bool) mask, read in place by the compiled kernel, called without
            # numba's dispatcher (it types the arguments on every call and cost more than the pick).
            self._pick_row(mask, self._rng, self._out1)
        else:
            rows = np.asarray(mask, dtype=np.bool_)[None, :]
            pick_random_legal(rows, self._rng, self._out1)
            if (isinstance(mask, np.ndarray) and mask.ndim == 1 and mask.dtype in (np.int8, np.uint8, np.bool_)
                    and W <= mask.shape[0] <= 128 and mask.strides == (1,)):
                # The next masks of this kind take the path above (an entry not 0 is legal, as in bool).
                self._pick_row = _pick_random_legal_row.compile(
                    tuple(numba.typeof(x) for x in (mask, self._rng, self._out1)))
                self._row_dtype, self._row_shape = mask.dtype, mask.shape
        a = self._out1.item(0)
        if a < 0:
            raise ValueError("action_mask has no legal action")
        return a

    def act_batch(self, obs: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
        """One action per row of a boolean mask ``[B, A]`` (``obs`` is not read); the returned array is reused."""
        b = mask.shape[0]
        if self._batch_rng is None or len(self._batch_rng) < b:
            # One generator per row position, kept across calls: a smaller batch uses the first ones
            # (rather than restarting them), so calls of varying size still draw fresh numbers.
            have = 0 if self._batch_rng is None else len(self._batch_rng)
            new = seed_states(self.seed, b - have, offset=1 + have)
            self._batch_rng = new if self._batch_rng is None else np.concatenate([self._batch_rng, new])
            self._out = np.zeros(b, np.int64)
        out = self._out[:b]
        pick_random_legal(mask, self._batch_rng[:b], out)
        return out
