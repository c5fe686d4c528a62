"""Stable-baselines3's ``VecEnv`` over :class:`trickenv.single_seat.SeatEnv`: one learner seat per game.

Each of the ``B`` games has a learner seat (rotating every deal); the other
seats are played inside by the opponent pool, in batch. One ``step`` of this
VecEnv is one learner decision in every game; one episode is one deal; the
reward is the learner's deal score times the game's scale
(:func:`trickenv.rewards.reward_scale`). Observations go through the compact
feature transform (:class:`trickenv.agents.features.Features`).

The SB3 contract: ``reset``, ``step_async``/``step_wait`` with
``terminal_observation`` in the infos of finished episodes (here the first
observation of the next deal: the engine restarts a game in the same step, and
since deals always terminate, never truncate, PPO does not bootstrap from it),
``seed``, ``get_attr``/``set_attr``/``env_method`` (``env_method("action_masks")``
returns the per-game masks, which is what
``sb3_contrib.common.maskable.utils.get_action_masks`` calls) and
``env_is_wrapped``. Masks come from one array, never a per-game wrapper.

``privileged=True`` appends the learner's privileged observation (every hand:
:mod:`trickenv.privileged`) to each observation, after the ``actor_inputs``
feature columns, for a critic that sees every hand
(:class:`~trickenv.training.critic.PrivilegedCriticPolicy`); the actor reads only
the features.

``points_bonus`` (default 0) shapes the reward: at a deal's end the learner also
gets ``points_bonus * (side card points - 60) / 120`` (King Calling: its side's
total with counted marriages). King Calling pays in whole stake units decided by
a threshold, so most moves change the payment of few deals; the points say how
close a deal came. ``info["score"]`` and the evaluations stay the unshaped score.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from trickenv.agents.features import Features
from trickenv.privileged import privileged_size
from trickenv.single_seat import SeatEnv


class SeatVecEnv(VecEnv):
    """SB3 VecEnv of a SeatEnv (module docstring). ``clock`` adds up the seconds spent stepping."""

    def __init__(self, seat_env: SeatEnv, points_bonus: float = 0.0, privileged: bool = False,
                 actions: bool = False) -> None:
        self.seat_env = seat_env
        self.points_bonus = float(points_bonus)
        self.features = Features(seat_env.spec, actions=actions)
        self.privileged = bool(privileged)
        self.actor_inputs = self.features.size  # the columns a player may read; the rest is privileged
        size = self.features.size + (privileged_size(seat_env.spec) if self.privileged else 0)
        self.render_mode = None  # VecEnv.__init__ reads it through get_attr
        self.clock = 0.0
        b = seat_env.num_envs
        self._actions = np.zeros(b, np.int64)
        self._ep_return = np.zeros(b, np.float64)
        self._ep_length = np.zeros(b, np.int64)
        self._start = time.time()
        space = spaces.Box(0.0, 1.0, (size,), np.float32)
        super().__init__(b, space, spaces.Discrete(seat_env.num_actions))

    def reset(self) -> np.ndarray:
        """New deals everywhere (seeded by ``seed()`` if it was called); the learners' features."""
        t0 = time.perf_counter()
        obs, _ = self.seat_env.reset(seed=self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        self._ep_return[:] = 0
        self._ep_length[:] = 0
        out = self._observation(obs)
        self.clock += time.perf_counter() - t0
        return out

    def _observation(self, obs: np.ndarray) -> np.ndarray:
        """The features of the learners' observations, with their privileged block if ``privileged``."""
        feats = self.features(obs)
        if not self.privileged:
            return feats
        return np.concatenate([feats, self.seat_env.privileged().astype(np.float32)], axis=1)

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learners' actions for :meth:`step_wait`."""
        np.copyto(self._actions, np.asarray(actions).reshape(-1), casting="unsafe")

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Play the learners' actions and the opponents' replies; ``(obs, reward, done, infos)``."""
        t0 = time.perf_counter()
        obs, _, reward, done, info = self.seat_env.step(self._actions)
        if self.points_bonus and done.any():
            rec = self.seat_env.deal_records()
            games = rec["game"]
            reward = reward.copy()
            spec = self.seat_env.spec
            reward[games] += self.points_bonus * (spec.side_points(spec, rec, info["seat"][games]) - 60.0) / 120.0
        feats = self._observation(obs)
        self._ep_return += reward
        self._ep_length += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]  # SB3's contract: one dict per game
        for g in np.flatnonzero(done):
            infos[g] = {
                "terminal_observation": feats[g],
                "episode": {"r": float(self._ep_return[g]), "l": int(self._ep_length[g]),
                            "t": round(time.time() - self._start, 6)},
                "score": float(info["score"][g]),
                "TimeLimit.truncated": False,
            }
        self._ep_return[done] = 0
        self._ep_length[done] = 0
        self.clock += time.perf_counter() - t0
        return feats, reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions, bool ``[B, A]``."""
        return self.seat_env.action_masks()

    def close(self) -> None:
        """Close the SeatEnv."""
        self.seat_env.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The attribute of this env, once per requested game."""
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of this env (it is shared by all games)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """``action_masks``: one mask per game; any other method: its result once per game."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.seat_env.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No game is wrapped in a gymnasium wrapper."""
        return [False] * len(self._indices(indices))

    def _indices(self, indices: None | int | Iterable[int]) -> Sequence[int]:
        return list(self._get_indices(indices))
