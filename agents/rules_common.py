"""Numba helpers the rule-based agents share (rules_four_tricks, rules_farbwechsel, rules_koenigrufen).

What the engine already has (``splitmix``, ``popcount``, ``lowest_card``, ``bit``, ``get_bits``)
the agents import from ``trickenv.engine.kernels``; these are the agent-side ones.
"""

from __future__ import annotations

from numba import njit

from trickenv.engine.kernels import GOLDEN_GAMMA, splitmix


@njit(inline="always")
def mix(z):
    """64 well-mixed bits of ``z`` (uint64): splitmix64's output for the state after ``z``,
    ``splitmix(z + GOLDEN_GAMMA)`` (unlike ``splitmix(0)``, ``mix(0)`` is not 0)."""
    return splitmix(z + GOLDEN_GAMMA)


@njit(inline="always")  # as the engine's helpers (trickenv/engine/kernels.py says why)
def one_hot(obs, g, off, n):
    """Index of the one in the one-hot block ``obs[g, off:off+n]``, -1 if none (it stops at the one)."""
    for k in range(n):
        if obs[g, off + k] != 0:
            return k
    return -1
