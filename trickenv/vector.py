"""The batched env: the engine exposed directly, thousands of games per call."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numba
import numpy as np

from trickenv.engine.entry import ThreadedCall, compiled, illegal_count, row_slices
from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import PHASE, TO_ACT
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.privileged import privileged_obs


class _Bound(NamedTuple):
    """The step kernel bound to a VecEnv's arrays (see VecEnv._bind)."""

    state: State  # the state the arguments hold
    kernel: Callable  # the kernel it was compiled from
    call: Callable  # the compiled kernel
    every: tuple  # its arguments when every game steps
    some: tuple  # ... when the games in VecEnv._where step
    threaded: tuple[ThreadedCall, ThreadedCall] | None  # with threads > 1: (every, some) over slices
    check: Callable | None  # with threads > 1: the compiled illegal-action count of the whole batch


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VecEnv:
    """``num_envs`` independent games of one game spec, stepped together.

    ``reset`` and ``step`` return the env's own buffers as read-only views:
    they are overwritten by the next call, so copy what you keep. ``threads``
    sets how many threads ``step`` uses, each on a slice of the batch (default 1:
    a step waits for its slowest thread, so with a busy core two threads can be
    many times slower; ask for more only on idle cores, and large batches). A game whose episode ends is
    restarted at once with a new random deal (and dealer) from its own
    generator; ``done`` flags that step and ``rewards`` holds the final deal's
    scores. ``deal_end`` flags every step that finished a deal (each deal of a
    match), and :meth:`deal_records` returns those deals' records.
    """

    def __init__(self, spec: GameSpec, num_envs: int, seed: int | None = None, threads: int | None = 1) -> None:
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
        self._deal_end = np.zeros(b, np.bool_)
        self._actions = np.zeros(b, np.int64)
        self._all = np.ones(b, np.bool_)
        self._where = np.ones(b, np.bool_)  # a step's where, copied (see _bind)
        self.__setstate__({})  # the read-only views step returns
        self._deal_rows = np.full((b, spec.deck), -1, np.int8)
        self._use_deal = np.zeros(b, np.bool_)
        self._dealers = np.full(b, -1, np.int32)
        self._ready = False
        if threads is None:
            threads = 1
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        self.threads = min(int(threads), numba.config.NUMBA_NUM_THREADS)
        # One step kernel per game; with threads > 1 it runs on that many slices of the batch at
        # once (it releases the GIL; engine.entry). Same games whatever the thread count.
        self._parallel = self.threads > 1
        self._step_kernel = spec.step_kernel
        self._bound: _Bound | None = None  # see _bind

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_bound"] = None  # a compiled entry point (or a thread pool) does not copy or pickle; bound again on use
        del state["_views"], state["deal_end"]  # views: a copy would not share its buffer; made again below
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._views = tuple(_readonly(a) for a in (self._obs, self._mask, self._player, self._rewards, self._done))
        self.deal_end = _readonly(self._deal_end)

    # ----------------------------------------------------------------- API
    def reset(
        self, deals: Any = None, dealers: int | Sequence[int | None] | None = None, seed: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start new episodes in all games; returns ``(obs, mask, player)``.

        ``deals`` fixes the first deal of each game: an integer array
        ``[num_envs, players, cards]`` of card ids (validated at once, fast), or a
        list with one entry per game: card lists or text per seat, or None for a
        random deal. ``dealers``: one seat for all games, one per game, or None
        (entries may be None): None deals from a random dealer, with or without a
        fixed deal. ``seed`` re-seeds every game's generator first.
        """
        b = self.num_envs
        if seed is not None:
            self.state.rng[:] = seed_states(seed, b)
        self._use_deal[:] = False
        self._dealers[:] = self._dealer_array(dealers)
        if deals is not None:
            self._set_deals(deals)
        self.spec.reset_kernel(
            *self.state.arrays(), self.spec.cfg, self.spec.tab, self._deal_rows, self._use_deal, self._dealers,
            self._mask, self._obs,
        )
        self._done[:] = False
        self._deal_end[:] = False
        self._rewards[:] = 0
        np.copyto(self._player, self.state.s[:, TO_ACT])
        self._ready = True
        return self._views[0], self._views[1], self._views[2]

    def _dealer_array(self, dealers: Any) -> np.ndarray:
        b, n = self.num_envs, self.num_players
        if dealers is None:
            return np.full(b, -1, np.int32)
        if isinstance(dealers, np.ndarray) and dealers.dtype == object:
            dealers = dealers.tolist()
        if isinstance(dealers, (list, tuple)):
            for g, x in enumerate(dealers):
                if x is not None and (isinstance(x, bool) or not isinstance(x, (int, np.integer))):
                    raise ValueError(f"dealers[{g}] must be a seat 0..{n - 1} or None, got {x!r}")
            dealers = [-1 if x is None else x for x in dealers]
        d = np.asarray(dealers)
        if d.ndim == 0:
            d = np.full(b, d)
        if d.shape != (b,):
            raise ValueError(f"dealers must be one seat or {b} seats (one per game), got shape {d.shape}")
        if d.dtype.kind not in "iu":
            raise ValueError(f"dealers must be seats 0..{n - 1} or None, got {dealers!r}")
        bad = np.flatnonzero((d < -1) | (d >= n))
        if bad.size:
            g = int(bad[0])
            raise ValueError(f"dealers[{g}] must be a seat 0..{n - 1} or None, got {int(d[g])}")
        return d.astype(np.int32)

    def _set_deals(self, deals: Any) -> None:
        b = self.num_envs
        if len(deals) != b:
            raise ValueError(f"deals must list {b} deals (one per game, None for random), got {len(deals)}")
        arr = deals if isinstance(deals, np.ndarray) else None
        if arr is None and not any(d is None or isinstance(d, str) for d in deals):
            try:
                arr = np.asarray(deals)
            except ValueError:  # ragged: checked deal by deal below
                arr = None
        if arr is not None and arr.dtype.kind in "iu":
            self._deal_rows[:] = self.spec.deal_rows(arr)
            self._use_deal[:] = True
            return
        for g, deal in enumerate(deals):
            if deal is None:
                continue
            try:
                self._deal_rows[g], _ = self.spec.deal_row(deal)
            except ValueError as e:
                raise ValueError(f"deals[{g}]: {e}") from None
            self._use_deal[g] = True

    def step(self, actions: np.ndarray | Sequence[int], where: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """Apply one action per game; returns ``(obs, mask, player, rewards, done)``.

        ``where`` (bool ``[num_envs]``) steps only those games: the others keep
        their state, observation and mask (their actions are ignored) and read
        zero rewards, ``done`` and ``deal_end``.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers (action ids), got dtype {a.dtype}")
        np.copyto(self._actions, a, casting="unsafe")
        if where is None:
            where = self._all
        else:
            where = np.asarray(where)
            if where.shape != (self.num_envs,) or where.dtype != np.bool_:
                raise ValueError(f"where must be a bool array of shape ({self.num_envs},), got "
                                 f"{where.dtype} {where.shape}")
            np.copyto(self._where, where)
        # The kernel's arguments are the env's own arrays, bound once (see _bind).
        bound = self._bound
        if bound is None or bound.state is not self.state or bound.kernel is not self._step_kernel:
            bound = self._bind()
        every = where is self._all
        if bound.threaded is None:
            bad = bound.call(*(bound.every if every else bound.some))
        else:
            # Any illegal action leaves every game unchanged: checked over the whole batch before a slice steps.
            bad = bound.check(self._actions, self._all if every else self._where, self._mask, self.num_actions)
            if not bad:
                bad = bound.threaded[0 if every else 1]()
        if bad:
            raise ValueError(self._illegal_message(bad, where))
        np.copyto(self._player, self.state.s[:, TO_ACT])
        return self._views

    def _bind(self) -> _Bound:
        """Bind the step kernel to the env's arrays, compiled for their types (see :func:`compiled`).

        Without numba's dispatcher, which types all 19 arguments on every call, and without
        rebuilding the argument tuple, a step of a small batch costs about half as much. A step
        with ``where`` copies it into the env's own ``_where`` (as it copies the actions), so
        both argument tuples have the same types.
        """
        def arguments(rows: slice | None, where: np.ndarray) -> tuple:
            batch = (*self.state.arrays(), self._actions, where, self._mask, self._obs, self._rewards, self._done,
                     self._deal_end)
            if rows is not None:  # a slice of the batch: views of the same buffers, of the same types
                batch = tuple(a[rows] for a in batch)
            *state, actions, where, mask, obs, rewards, done, deal_end = batch
            return (*state, self.spec.cfg, self.spec.tab, actions, where, mask, obs, rewards, done, deal_end, True)

        every, some = arguments(None, self._all), arguments(None, self._where)
        call = compiled(self._step_kernel, every)
        threaded = check = None
        if self._parallel:
            parts = row_slices(self.num_envs, self.threads)
            threaded = tuple(ThreadedCall(call, [arguments(rows, where) for rows in parts])
                             for where in (self._all, self._where))
            check = compiled(illegal_count, (self._actions, self._all, self._mask, self.num_actions))
        self._bound = _Bound(self.state, self._step_kernel, call, every, some, threaded, check)
        return self._bound

    def deal_records(self, games: np.ndarray | Sequence[int] | None = None) -> dict[str, np.ndarray]:
        """Records of the deals that the last ``step`` finished (or of the last finished deal of ``games``).

        A dict of NumPy arrays with a leading axis over those games; ``"game"``
        holds their indices. The keys are documented in docs/records.md; they
        match the AEC env's deal-end infos.
        """
        idx = np.flatnonzero(self._deal_end) if games is None else np.asarray(games, np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_envs):
            raise ValueError(f"games must be indices 0..{self.num_envs - 1}")
        rec = self.spec.records(self.spec, self.state, idx)
        return {"game": idx, **rec}

    def current_deals(self, games: np.ndarray | Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(deals, dealers)`` of the deals in play (all games, or ``games``), in the form ``reset`` accepts."""
        idx = np.arange(self.num_envs) if games is None else np.asarray(games, np.int64).reshape(-1)
        return self.spec.current_deals(self.state, idx)

    def _seat_array(self, seats: int | np.ndarray) -> np.ndarray:
        """``seats`` (one seat, or one per game) as one seat per game, checked."""
        s = np.asarray(seats, dtype=np.int64)
        if s.ndim == 0:
            s = np.full(self.num_envs, int(s), np.int64)
        if s.shape != (self.num_envs,) or s.min() < 0 or s.max() >= self.num_players:
            raise ValueError(f"seats must be a seat 0..{self.num_players - 1} or one per game")
        return s

    def observe(self, seats: int | np.ndarray) -> np.ndarray:
        """Observation of ``seats`` (one seat, or one per game) in every game: a new array."""
        s = self._seat_array(seats)
        out = np.zeros((self.num_envs, self.observation_size), np.int8)
        self.spec.observe_kernel(*self.state.arrays()[:-1], self.spec.cfg, self.spec.tab, s, out)
        return out

    def privileged(self, seats: int | np.ndarray | None = None) -> np.ndarray:
        """The privileged observation (every hand; :mod:`trickenv.privileged`) of ``seats`` in every game,
        by default of the seat to act (row-aligned with the observation ``reset`` and ``step`` return).
        For training signals only (a critic, labels): a player must never read it."""
        s = self.state.s[:, TO_ACT].astype(np.int64) if seats is None else self._seat_array(seats)
        return privileged_obs(self.spec, self.state, np.arange(self.num_envs), s)

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
        return self.spec.text.render(self.spec, self.state, g)

    def _illegal_message(self, bad: int, where: np.ndarray) -> str:
        a = self._actions
        ok = (a >= 0) & (a < self.num_actions)
        legal = np.zeros(self.num_envs, bool)
        legal[ok] = self._mask[np.flatnonzero(ok), a[ok]]
        g = int(np.flatnonzero(~legal & where)[0])
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
