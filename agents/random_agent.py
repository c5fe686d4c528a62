"""Uniformly random legal play, single and batched (numba, no Python loop over games)."""

from __future__ import annotations

import numpy as np
from numba import njit

from trickenv.engine.kernels import seed_states, uniform_int
from trickenv.games.base import GameSpec


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
        self._batch_rng: np.ndarray | None = None
        self._out: np.ndarray | None = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """Action for one AEC observation dict (``observation``, ``action_mask``)."""
        mask = np.asarray(observation["action_mask"], dtype=np.bool_)[None, :]
        _pick_random_legal(mask, self._rng, self._out1)
        if self._out1[0] < 0:
            raise ValueError("action_mask has no legal action")
        return int(self._out1[0])

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
        _pick_random_legal(mask, self._batch_rng[:b], out)
        return out
