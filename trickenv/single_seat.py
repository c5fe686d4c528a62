"""One learning seat per game over the batched engine: the core of every single-seat env.

:class:`SeatEnv` runs ``B`` games of :func:`trickenv.make_vec`. In each game one
seat is the **learner**; the other seats are played by **opponents**, agents of
the agent protocol (``trickenv.agents``). ``reset`` and ``step`` return only
when the learner is to act in every game: opponent turns, including the trump,
bid and call phases of the next deal, are played inside, with
``vec.step(actions, where=...)``. Each pool member gets one ``act_batch`` call
per internal engine step, with all rows where it is to act; nothing loops over
games in Python.

- One **episode is one deal**. A game whose deal ends restarts with the next
  deal in the same ``step`` (same-step autoreset): the observation returned with
  ``terminated`` is already the new deal's. Episodes never truncate.
- **Reward**: the learner's deal score (King Calling: payment) times
  ``reward_scale`` (default :func:`trickenv.rewards.reward_scale`: Four Tricks
  1/4, Farbwechsel 1/120, King Calling 1), paid on the step that ends the deal;
  ``info["score"]`` holds the unscaled score.
- **Learner seat**: a fixed seat, ``"rotate"`` (game ``g`` starts at seat
  ``g % players`` and moves one seat on every deal) or ``"random"`` (drawn per deal).
- **Opponents**: a pool of agents or agent names (``"random"``, ``"rules"``,
  ``"pimc"``, ``"model:PATH"``). At every new deal a **sampler** picks the pool
  member of each opponent seat; the default draws uniformly.
  ``sampler(rng=, games=, seats=, num_players=, pool_size=)`` returns pool
  indices ``[len(games), num_players]`` (the learner's entry is ignored).
- **Illegal learner actions**: ``illegal_action="raise"`` (default) raises
  ValueError; ``"penalize"`` ends the episode with ``illegal_reward`` (raw
  score units, default :func:`trickenv.rewards.worst_score`) times
  ``reward_scale``, sets ``info["illegal_action"]``, and the rest of that deal
  is played out by a random player in the learner's seat (its score is not
  reported) before the learner's next deal starts.

Arrays returned by ``reset`` and ``step`` are new, writable arrays (torch's
``from_numpy`` takes them as they are).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from gymnasium.logger import warn

from trickenv.aec import obs_dtype
from trickenv.games import make_spec
from trickenv.games.base import GameSpec
from trickenv.rewards import reward_scale as default_reward_scale
from trickenv.rewards import worst_score
from trickenv.vector import VecEnv

SEAT_MODES = ("rotate", "random")
Sampler = Callable[..., np.ndarray]


def uniform_sampler(*, rng: np.random.Generator, games: np.ndarray, seats: np.ndarray, num_players: int,
                    pool_size: int) -> np.ndarray:
    """The default sampler: every opponent seat of every new deal gets a pool member drawn uniformly."""
    return rng.integers(pool_size, size=(len(games), num_players))


def resolve_agent(agent: Any, spec: GameSpec, seed: int | None) -> Any:
    """An agent object from an agent or an agent name (``trickenv.agents.make_agent``)."""
    if isinstance(agent, str):
        from trickenv.agents import make_agent

        return make_agent(agent, spec, seed=seed)
    if not callable(getattr(agent, "act_batch", None)):
        raise TypeError(f"an opponent must be an agent name or have act_batch(obs, mask), got {agent!r}")
    return agent


class SeatEnv:
    """``num_envs`` games, one learner seat each, opponents played inside (module docstring).

    ``reset() -> (obs, mask)`` and ``step(actions) -> (obs, mask, reward,
    terminated, info)``: ``obs [B, obs_size]`` (``dtype``, float32 by default),
    ``mask [B, A]`` bool, ``reward [B]`` float32, ``terminated [B]`` bool and
    ``info`` a dict of arrays over the games:

    - ``score`` float32 ``[B]``: the learner's unscaled deal score where ``terminated``, else 0
      (the penalty where the episode ended on an illegal action);
    - ``scores`` float32 ``[B, players]``: every seat's score of the deal that ended, else 0;
    - ``seat`` int64 ``[B]``: the learner's seat in the deal the step belongs to;
    - ``opponents`` int64 ``[B, players]``: the pool member of each seat in that deal (-1: the learner);
    - ``illegal_action`` bool ``[B]``: the learner's action was illegal (``"penalize"``).

    ``seats`` and ``assignment`` hold the seat and the opponents of the deals in play;
    :meth:`deal_records` returns the records of the deals the last step ended.
    Game options (``rounds=2``, ``deck=52``...) pass through to the game.
    """

    def __init__(
        self,
        game: str | GameSpec,
        num_envs: int = 1,
        *,
        seat: int | str = 0,
        opponents: Any = ("random",),
        sampler: Sampler | None = None,
        seed: int | None = None,
        dtype: Any = np.float32,
        reward_scale: float | None = None,
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        threads: int = 1,
        **options: Any,
    ) -> None:
        if isinstance(game, GameSpec):
            if options:
                raise ValueError("give game options either to make_spec or here, not with a GameSpec")
            spec = game
        else:
            spec = make_spec(game, **options)
        self.spec = spec
        self.vec = VecEnv(spec, num_envs, seed=seed, threads=threads)
        self.threads = self.vec.threads
        self.num_envs = b = self.vec.num_envs
        self.num_players = n = spec.num_players
        self.num_actions = spec.num_actions
        self.observation_size = spec.obs_size
        if isinstance(seat, str):
            if seat not in SEAT_MODES:
                raise ValueError(f"seat must be a seat 0..{n - 1}, 'rotate' or 'random', got {seat!r}")
        elif isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat must be a seat 0..{n - 1}, 'rotate' or 'random', got {seat!r}")
        self.seat_mode = seat if isinstance(seat, str) else int(seat)
        self.dtype = obs_dtype(dtype)
        self.reward_scale = float(default_reward_scale(spec) if reward_scale is None else reward_scale)
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(worst_score(spec) if illegal_reward is None else illegal_reward)
        self.sampler = uniform_sampler if sampler is None else sampler
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._opponent_specs: list[Any] = []
        self.pool: list[Any] = []
        self.set_opponents(opponents, resample=False)
        # Imported when an env is built, not with this module: the agents import trickenv, not the other way.
        from trickenv.agents.base import act_rows
        from trickenv.agents.random_agent import RandomAgent

        self._act_rows = act_rows
        self._fallback = RandomAgent(seed=None if seed is None else seed + 999, spec=spec)  # forfeited deals

        self.seats = np.zeros(b, np.int64)  # the learner's seat in each deal in play
        self.assignment = np.full((b, n), -1, np.int64)  # pool member per seat of each deal in play
        self._forfeit = np.zeros(b, np.bool_)
        self._rows = np.arange(b)
        self._actions = np.zeros(b, np.int64)
        self._score = np.zeros(b, np.float32)
        self._scores = np.zeros((b, n), np.float32)
        self._terminated = np.zeros(b, np.bool_)
        self._illegal = np.zeros(b, np.bool_)
        self._info_seat = np.zeros(b, np.int64)
        self._info_opp = np.zeros((b, n), np.int64)
        self._max_moves = 4 * (spec.deck + 16)  # far above the moves of any deal
        self._obs = self._mask = self._player = None
        self._ready = False

    # ------------------------------------------------------------------ the pool
    def set_opponents(self, opponents: Any, resample: bool = True) -> None:
        """Replace the opponent pool (agents or names); ``resample`` draws the seats of the deals in play anew."""
        if isinstance(opponents, str) or callable(getattr(opponents, "act_batch", None)):
            opponents = [opponents]
        opponents = list(opponents)
        if not opponents:
            raise ValueError("opponents must name at least one agent")
        self._opponent_specs = opponents
        self.pool = [resolve_agent(o, self.spec, self._agent_seed(k)) for k, o in enumerate(opponents)]
        if resample and self._ready:
            self._draw_opponents(self._rows)

    def _agent_seed(self, k: int) -> int | None:
        return None if self._seed is None else self._seed + 1 + k

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, deals: Any = None, dealers: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """New deals in every game; returns ``(obs, mask)`` with the learner to act everywhere.

        ``seed`` re-seeds the games, the seat and opponent draws and the opponents
        given by name. ``deals``/``dealers`` fix the first deals (see :meth:`VecEnv.reset`).
        """
        if seed is not None:
            self._seed = int(seed)
            self._rng = np.random.default_rng(seed)
            self.pool = [o if not isinstance(spec_, str) else resolve_agent(spec_, self.spec, self._agent_seed(k))
                         for k, (o, spec_) in enumerate(zip(self.pool, self._opponent_specs, strict=True))]
            from trickenv.agents.random_agent import RandomAgent

            self._fallback = RandomAgent(seed=self._seed + 999, spec=self.spec)
        self._obs, self._mask, self._player = self.vec.reset(deals=deals, dealers=dealers, seed=seed)
        self._forfeit[:] = False
        if self.seat_mode == "rotate":
            self.seats[:] = self._rows % self.num_players
        else:
            self._draw_seats(self._rows)
        self._draw_opponents(self._rows)
        self._ready = True
        self._clear_step()
        self._advance()
        return self._obs.astype(self.dtype), self._mask.copy()

    def step(self, actions: np.ndarray | Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                                 dict[str, np.ndarray]]:
        """The learner's action in every game; returns ``(obs, mask, reward, terminated, info)``."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            a = a.reshape(-1) if a.size == self.num_envs else a
            if a.shape != (self.num_envs,):
                raise ValueError(f"actions must have shape ({self.num_envs},), got {np.shape(actions)}")
        if a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and np.all(a == np.round(a)):
                a = a.astype(np.int64)
            else:
                raise ValueError(f"actions must be integer action ids, got dtype {a.dtype}")
        self._clear_step()
        where = None
        if self.illegal_action == "penalize":
            ok = (a >= 0) & (a < self.num_actions)
            legal = np.zeros(self.num_envs, np.bool_)
            legal[ok] = self._mask[self._rows[ok], a[ok]]
            if not legal.all():
                bad = ~legal
                warn(f"[trickenv] illegal action by the learner in {int(bad.sum())} game(s): "
                     f"episode ended with score {self.illegal_reward}")
                self._illegal[bad] = True
                self._score[bad] = self.illegal_reward
                self._terminated[bad] = True
                self._forfeit[bad] = True
                a = np.where(bad, 0, a)
                where = legal
        self._obs, self._mask, self._player, rewards, _ = self.vec.step(a, where=where)
        if self.vec.deal_end.any():
            self._deals_ended(np.flatnonzero(self.vec.deal_end), rewards)
        self._advance()
        reward = self._score * np.float32(self.reward_scale)
        info = {
            "score": self._score.copy(),
            "scores": self._scores.copy(),
            "seat": self._info_seat.copy(),
            "opponents": self._info_opp.copy(),
            "illegal_action": self._illegal.copy(),
        }
        return self._obs.astype(self.dtype), self._mask.copy(), reward, self._terminated.copy(), info

    def privileged(self) -> np.ndarray:
        """The learner's privileged observation (every hand; :mod:`trickenv.privileged`) in every game,
        row-aligned with the observation ``reset`` and ``step`` returned. For critics and labels in
        training only: a player must never read it."""
        if not self._ready:
            raise RuntimeError("call reset() before privileged()")
        return self.vec.privileged()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, bool ``[B, A]`` (sb3-contrib's MaskablePPO convention)."""
        if not self._ready:
            raise RuntimeError("call reset() first")
        return self._mask.copy()

    def deal_records(self) -> dict[str, np.ndarray]:
        """Records (docs/records.md) of the deals that the last ``step`` ended, ``"game"`` = their rows."""
        return self.vec.deal_records(np.flatnonzero(self._terminated))

    def render(self, g: int = 0) -> str:
        """Text table of game ``g``."""
        return self.vec.render(g)

    def close(self) -> None:
        """Nothing to release."""

    # ------------------------------------------------------------------ internals
    def _clear_step(self) -> None:
        self._score[:] = 0
        self._scores[:] = 0
        self._terminated[:] = False
        self._illegal[:] = False
        self._info_seat[:] = self.seats
        self._info_opp[:] = self.assignment

    def _draw_seats(self, games: np.ndarray) -> None:
        if self.seat_mode == "rotate":
            self.seats[games] = (self.seats[games] + 1) % self.num_players
        elif self.seat_mode == "random":
            self.seats[games] = self._rng.integers(self.num_players, size=len(games))
        else:
            self.seats[games] = self.seat_mode

    def _draw_opponents(self, games: np.ndarray) -> None:
        n, p = self.num_players, len(self.pool)
        if p == 1:
            picks = np.zeros((len(games), n), np.int64)
        else:
            picks = np.asarray(self.sampler(rng=self._rng, games=games, seats=self.seats[games], num_players=n,
                                            pool_size=p))
            if picks.shape != (len(games), n) or picks.dtype.kind not in "iu":
                raise ValueError(f"the sampler must return integer pool indices of shape ({len(games)}, {n}), "
                                 f"got {picks.dtype} {picks.shape}")
            learner = np.zeros(picks.shape, np.bool_)
            learner[np.arange(len(games)), self.seats[games]] = True
            if ((picks < 0) | (picks >= p))[~learner].any():
                raise ValueError(f"the sampler returned pool indices outside 0..{p - 1}")
            picks = picks.astype(np.int64)
        picks[np.arange(len(games)), self.seats[games]] = -1
        self.assignment[games] = picks

    def _deals_ended(self, games: np.ndarray, rewards: np.ndarray) -> None:
        """Pay the learners whose deal ended (unless forfeited), then set up the games' next deals."""
        paid = games[~self._forfeit[games]]
        self._score[paid] = rewards[paid, self.seats[paid]]
        self._scores[paid] = rewards[paid]
        self._terminated[paid] = True
        self._forfeit[games] = False
        self._draw_seats(games)
        self._draw_opponents(games)

    def _act(self, agent: Any, rows: np.ndarray) -> np.ndarray:
        if rows.size == self.num_envs:  # every game: the engine's (read-only) buffers as they are
            return self._act_rows(agent, self._obs, self._mask, self.vec.state, rows)
        return self._act_rows(agent, self._obs[rows], self._mask[rows], self.vec.state, rows)

    def _advance(self) -> None:
        """Opponents (and the random player of forfeited deals) move until every learner is to act."""
        p = len(self.pool)
        for _ in range(self._max_moves):
            others = (self._player != self.seats) | self._forfeit
            if not others.any():
                return
            who = self.assignment[self._rows, self._player]  # -1: the learner's seat of a forfeited deal
            present = np.flatnonzero(np.bincount(who[others] + 1, minlength=p + 1))
            for m in present - 1:
                rows = np.flatnonzero(others & (who == m)) if len(present) > 1 else np.flatnonzero(others)
                agent = self._fallback if m < 0 else self.pool[m]
                self._actions[rows] = self._act(agent, rows)
            self._obs, self._mask, self._player, rewards, _ = self.vec.step(self._actions, where=others)
            if self.vec.deal_end.any():
                self._deals_ended(np.flatnonzero(self.vec.deal_end), rewards)
        raise RuntimeError(f"opponents did not return the turn to the learner in {self._max_moves} moves")
