"""The batched env: the engine exposed directly, thousands of games per call."""

from __future__ import annotations

from typing import Any, Sequence

import numba
import numpy as np

from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import PHASE, TO_ACT
from trickenv.games.base import GameSpec


PARALLEL_FROM = 128  # batch size from which step uses the threaded kernel by default


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VecEnv:
    """``num_envs`` independent games of one game spec, stepped together.

    ``reset`` and ``step`` return the env's own buffers as read-only views:
    they are overwritten by the next call, so copy what you keep. ``threads``
    sets how many numba threads ``step`` uses (default: all of them from 128
    games on, else the single-threaded kernel). A game whose
    episode ends is restarted at once with a new random deal (and dealer) from
    its own generator; ``done`` flags that step and ``rewards`` holds the
    final deal's scores.
    """

    def __init__(self, spec: GameSpec, num_envs: int, seed: int | None = None, threads: int | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.spec = spec
        self.num_envs = int(num_envs)
        self.num_players = spec.num_players
        self.num_actions = spec.num_actions
        self.observation_size = spec.obs_size
        self.state = spec.new_state(self.num_envs)
        self.state.rng[:] = seed_states(seed, self.num_envs)
        b = self.num_envs
        self._obs = np.zeros((b, spec.obs_size), np.int8)
        self._mask = np.zeros((b, spec.num_actions), np.bool_)
        self._player = np.zeros(b, np.int32)
        self._rewards = np.zeros((b, spec.num_players), np.float32)
        self._done = np.zeros(b, np.bool_)
        self._actions = np.zeros(b, np.int64)
        self._views = tuple(_readonly(a) for a in (self._obs, self._mask, self._player, self._rewards, self._done))
        self._deal_rows = np.full((b, spec.deck), -1, np.int8)
        self._use_deal = np.zeros(b, np.bool_)
        self._dealers = np.full(b, -1, np.int32)
        self._ready = False
        # Both step kernels give identical games. The threaded one (numba parfor) also compiles
        # to code about twice as fast per game, even on one thread (LLVM may assume its arrays
        # do not alias), so it serves every explicit thread count; the plain kernel has the
        # lower call overhead that small batches and the AEC env need.
        if threads is None:
            self.threads = numba.config.NUMBA_NUM_THREADS if self.num_envs >= PARALLEL_FROM else 0
        else:
            if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
                raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
            self.threads = min(int(threads), numba.config.NUMBA_NUM_THREADS)
        self._step_kernel = spec.step_kernel_parallel if self.threads else spec.step_kernel

    # ----------------------------------------------------------------- API
    def reset(
        self, deals: Sequence[Any] | None = None, dealers: int | Sequence[int] | None = None, seed: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start new episodes in all games; returns ``(obs, mask, player)``.

        ``deals[g]`` (per-seat card lists, or None for a random deal) and
        ``dealers`` (one seat for all games or one per game; None = random)
        fix the first deal exactly. ``seed`` re-seeds every game's generator.
        """
        b = self.num_envs
        if seed is not None:
            self.state.rng[:] = seed_states(seed, b)
        self._use_deal[:] = False
        self._dealers[:] = -1
        if dealers is not None:
            d = np.asarray(dealers)
            if d.ndim == 0:
                d = np.full(b, d)
            if d.shape != (b,):
                raise ValueError(f"dealers must be one seat or {b} seats (one per game), got shape {d.shape}")
            bad = np.flatnonzero((d < 0) | (d >= self.num_players)) if d.dtype.kind in "iu" else np.arange(b)
            if bad.size:
                g = int(bad[0])
                raise ValueError(f"dealers[{g}] must be a seat 0..{self.num_players - 1}, got {d[g].item()!r}")
            self._dealers[:] = d
        if deals is not None:
            if len(deals) != b:
                raise ValueError(f"deals must list {b} deals (one per game, None for random), got {len(deals)}")
            for g, deal in enumerate(deals):
                if deal is None:
                    continue
                dealer = int(self._dealers[g]) if self._dealers[g] >= 0 else 0
                try:
                    self._deal_rows[g], _ = self.spec.deal_row(deal, dealer)
                except ValueError as e:
                    raise ValueError(f"deals[{g}]: {e}") from None
                self._use_deal[g] = True
        self.spec.reset_kernel(
            *self.state.arrays(), self.spec.cfg, self.spec.tab, self._deal_rows, self._use_deal, self._dealers,
            self._mask, self._obs,
        )
        self._done[:] = False
        self._rewards[:] = 0
        np.copyto(self._player, self.state.s[:, TO_ACT])
        self._ready = True
        return self._views[0], self._views[1], self._views[2]

    def step(self, actions: np.ndarray | Sequence[int]) -> tuple[np.ndarray, ...]:
        """Apply one action per game; returns ``(obs, mask, player, rewards, done)``."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (action ids), got dtype {a.dtype}")
        np.copyto(self._actions, a, casting="unsafe")
        outer = numba.get_num_threads() if self.threads else 0
        switch = outer != self.threads
        if switch:
            numba.set_num_threads(self.threads)
        try:
            bad = self._step_kernel(
                *self.state.arrays(), self.spec.cfg, self.spec.tab, self._actions, self._mask, self._obs,
                self._rewards, self._done, True,
            )
        finally:
            if switch:
                numba.set_num_threads(outer)
        if bad:
            raise ValueError(self._illegal_message(bad))
        np.copyto(self._player, self.state.s[:, TO_ACT])
        return self._views

    def observe(self, seats: int | np.ndarray) -> np.ndarray:
        """Observation of ``seats`` (one seat, or one per game) in every game: a new array."""
        s = np.asarray(seats, dtype=np.int64)
        if s.ndim == 0:
            s = np.full(self.num_envs, int(s), np.int64)
        if s.shape != (self.num_envs,) or s.min() < 0 or s.max() >= self.num_players:
            raise ValueError(f"seats must be a seat 0..{self.num_players - 1} or one per game")
        out = np.zeros((self.num_envs, self.observation_size), np.int8)
        self.spec.observe_kernel(*self.state.arrays()[:-1], self.spec.cfg, self.spec.tab, s, out)
        return out

    def counter(self, name: str) -> np.ndarray:
        """Per-game counter ``name`` of the game (e.g. Farbwechsel's ``trump_changes``): a copy."""
        if name not in self.spec.counters:
            raise ValueError(f"{self.spec.name} has no counter {name!r}; counters: {sorted(self.spec.counters)}")
        return self.state.s[:, self.spec.counters[name]].copy()

    def legal_actions(self, g: int) -> list[int]:
        """Legal action ids of game ``g``."""
        return np.flatnonzero(self._mask[g]).tolist()

    def render(self, g: int = 0) -> str:
        """Text table of game ``g``."""
        return self.spec.render_text(self.spec, self.state, g)

    def _illegal_message(self, bad: int) -> str:
        a = self._actions
        ok = (a >= 0) & (a < self.num_actions)
        legal = np.zeros(self.num_envs, bool)
        legal[ok] = self._mask[np.flatnonzero(ok), a[ok]]
        g = int(np.flatnonzero(~legal)[0])
        act = int(a[g])
        seat = int(self.state.s[g, TO_ACT])
        phase = self.spec.phase_name(int(self.state.s[g, PHASE]))
        allowed = ", ".join(f"{x} ({self.spec.action_str(x)})" for x in self.legal_actions(g))
        what = (
            f"action {act} is out of range 0..{self.num_actions - 1}"
            if not 0 <= act < self.num_actions
            else f"action {act} ({self.spec.action_str(act)}) is illegal"
        )
        return (
            f"{bad} illegal action(s), nothing was stepped; first: game {g}: {what} for player_{seat} "
            f"in phase {phase}; legal: {allowed}"
        )
