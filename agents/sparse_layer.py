"""A network's first layer on 0/1 observations: the rows of the weights where the input is not zero, summed.

An observation has a few dozen ones among its 450-1000 entries (the seat's hand, the
cards played, a few flags), and the per-card trick facts are zero off the hand. A dense
``x @ W`` spends most of its multiplications on zeros; on the shipped players' first layer
(about two thirds of their arithmetic) adding only the rows of ``W`` that the ones select is
several times cheaper (docs/results/speed.md). The sum runs in float32 in the order of the
inputs, so it equals a dense product up to float rounding (not bit for bit: BLAS orders its
sums otherwise).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _add_rows(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    n, f = x.shape
    h = w.shape[1]
    for i in range(n):
        for k in range(f):
            v = x[i, k]
            if v != 0:
                s = np.float32(v)
                for j in range(h):
                    out[i, j] += s * w[k, j]


def add_sparse_product(x: np.ndarray, w: np.ndarray, out: np.ndarray) -> None:
    """``out += x @ w``, over the nonzero entries of ``x`` only (``x`` ``[B, F]`` int8 or float32, ``w``
    ``[F, H]`` float32, ``out`` ``[B, H]`` float32, all C-contiguous)."""
    if x.ndim != 2 or w.ndim != 2 or x.shape[1] != w.shape[0] or out.shape != (x.shape[0], w.shape[1]):
        raise ValueError(f"shapes do not fit: x {x.shape} @ w {w.shape} into out {out.shape}")
    if w.dtype != np.float32 or out.dtype != np.float32:
        raise ValueError(f"w and out must be float32, got {w.dtype} and {out.dtype}")
    if x.dtype not in (np.int8, np.float32):
        x = x.astype(np.float32)
    _add_rows(np.ascontiguousarray(x), np.ascontiguousarray(w), out)
