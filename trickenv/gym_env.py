"""gymnasium faces of :class:`trickenv.single_seat.SeatEnv`: one seat of a game as an ``Env`` and a ``VectorEnv``.

- :class:`SingleSeatEnv` (``trickenv.make_single(game, ...)``,
  ``gymnasium.make("trickenv/FourTricks-v0")``, ``"trickenv/Farbwechsel-v0"``,
  ``"trickenv/KingCalling-v0"`` = ``"trickenv/Koenigrufen-v0"``): a SeatEnv of one
  game. ``gymnasium.utils.env_checker.check_env`` and Stable-Baselines3's
  ``check_env`` pass; sb3-contrib's MaskablePPO reads ``action_masks()``.
- :class:`SeatVectorEnv` (``gymnasium.make_vec("trickenv/FourTricks-v0", num_envs=64)``):
  a ``gymnasium.vector.VectorEnv`` over a SeatEnv of ``num_envs`` games, for
  CleanRL-style trainers; same-step autoreset.

Both: ``Box(0, 1, (obs_size,))`` observations (float32, or ``dtype="int8"``),
``Discrete(num_actions)`` actions, the mask as ``action_masks()`` and
``info["action_mask"]``, one episode = one deal, reward = the learner's deal
score times ``reward_scale`` (``info["score"]``: unscaled). See
docs/guides/rl-libraries.md.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from trickenv.single_seat import SeatEnv

STEP_INFO_KEYS = ("score", "scores", "illegal_action")  # present where a deal ended


def _reset_args(options: dict | None, batch: int) -> dict[str, Any]:
    """``reset(options={"deal": ..., "dealer": ...})`` (one game) or ``{"deals": ..., "dealers": ...}`` (all)."""
    options = dict(options or {})
    out: dict[str, Any] = {}
    if "deal" in options or "dealer" in options:
        if batch != 1:
            raise ValueError('options "deal"/"dealer" fix one game; give "deals"/"dealers" (one per game)')
        if options.get("deal") is not None:
            out["deals"] = [options.pop("deal")]
        else:
            options.pop("deal", None)
        dealer = options.pop("dealer", None)
        if dealer is not None:
            out["dealers"] = [dealer]
    for key in ("deals", "dealers"):
        if options.get(key) is not None:
            out[key] = options.pop(key)
        options.pop(key, None)
    if options:
        gym.logger.warn(f"[trickenv] ignoring unknown reset option(s) {sorted(options)}")
    return out


class SingleSeatEnv(gym.Env):
    """One seat of ``game`` as a gymnasium env; the other seats are played by ``opponents``.

    ``seat``: a seat, ``"rotate"`` or ``"random"``; ``opponents``: agents or agent
    names (``"random"``, ``"rules"``, ``"pimc"``, ``"model:PATH"``), one drawn per
    opponent seat and deal by ``sampler``. An illegal action ends the episode
    with the game's penalty (``illegal_action="penalize"``, the default, as the
    checkers step unmasked random actions; pass ``"raise"`` while debugging).

    When a deal ends, the next one is already dealt (and its opening moves of
    the opponents played): the observation returned with ``terminated=True`` is
    its first, and ``reset()`` without a seed or options continues with it.
    Everything else as :class:`trickenv.single_seat.SeatEnv` (info keys
    ``score``, ``scores``, ``seat``, ``opponents``, ``illegal_action``, plus
    ``action_mask``).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        game: str = "four_tricks",
        seat: int | str = 0,
        opponents: Any = ("random",),
        *,
        sampler: Any = None,
        seed: int | None = None,
        dtype: Any = np.float32,
        reward_scale: float | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.core = SeatEnv(game, 1, seat=seat, opponents=opponents, sampler=sampler, seed=seed, dtype=dtype,
                            reward_scale=reward_scale, illegal_action=illegal_action, illegal_reward=illegal_reward,
                            **options)
        self.game = self.core.spec.name
        self.render_mode = render_mode
        self.observation_space = gym.spaces.Box(0, 1, (self.core.observation_size,), self.core.dtype)
        self.action_space = gym.spaces.Discrete(self.core.num_actions)
        self._pending: np.ndarray | None = None  # first observation of the deal already dealt

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a deal: ``seed`` re-seeds; ``options={"deal": [...], "dealer": d}`` fixes it."""
        super().reset(seed=seed)
        args = _reset_args(options, 1)
        if seed is not None or args or self._pending is None:
            obs, _ = self.core.reset(seed=seed, **args)
            obs = obs[0]
        else:
            obs = self._pending
        self._pending = None
        info = {"action_mask": self.core.action_masks()[0], "seat": int(self.core.seats[0])}
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``; the opponents answer until the learner is to act again."""
        obs, mask, reward, terminated, info = self.core.step(np.asarray([action]).reshape(1))
        done = bool(terminated[0])
        out = {k: v[0] for k, v in info.items()}
        out["illegal_action"] = bool(out["illegal_action"])
        out["score"] = float(out["score"])
        out["seat"] = int(out["seat"])
        out["action_mask"] = mask[0]
        self._pending = obs[0].copy() if done else None
        if self.render_mode == "human":
            self.render()
        return obs[0], float(reward[0]), done, False, out

    def action_masks(self) -> np.ndarray:
        """The legal actions now, bool ``[num_actions]``."""
        return self.core.action_masks()[0]

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: print it."""
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = self.core.render(0)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None


class SeatVectorEnv(VectorEnv):
    """``num_envs`` games of one learner seat each as a gymnasium ``VectorEnv`` (same-step autoreset).

    Built on :class:`trickenv.single_seat.SeatEnv` (the same options; illegal
    actions raise by default). ``step`` returns observations ``[num_envs,
    obs_size]``, rewards, terminations (truncations are always False) and infos
    as arrays with gymnasium's ``"_key"`` masks: ``action_mask`` and ``seat``
    for every env, ``score``, ``scores`` and ``illegal_action`` where a deal
    ended. The engine restarts a finished game at once and keeps no final
    observation, so there is no ``final_obs`` (episodes only terminate, nothing
    needs to bootstrap from it).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(
        self,
        game: str = "four_tricks",
        num_envs: int = 64,
        seat: int | str = 0,
        opponents: Any = ("random",),
        *,
        sampler: Any = None,
        seed: int | None = None,
        dtype: Any = np.float32,
        reward_scale: float | None = None,
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
        threads: int = 1,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.core = SeatEnv(game, num_envs, seat=seat, opponents=opponents, sampler=sampler, seed=seed, dtype=dtype,
                            reward_scale=reward_scale, illegal_action=illegal_action, illegal_reward=illegal_reward,
                            threads=threads, **options)
        self.game = self.core.spec.name
        self.num_envs = self.core.num_envs
        self.render_mode = render_mode
        self.single_observation_space = gym.spaces.Box(0, 1, (self.core.observation_size,), self.core.dtype)
        self.single_action_space = gym.spaces.Discrete(self.core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._all = np.ones(self.num_envs, np.bool_)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """New deals everywhere; ``options={"deals": ..., "dealers": ...}`` fixes them (see VecEnv.reset)."""
        super().reset(seed=seed)
        obs, mask = self.core.reset(seed=seed, **_reset_args(options, self.num_envs))
        infos = {"action_mask": mask, "_action_mask": self._all.copy(),
                 "seat": self.core.seats.copy(), "_seat": self._all.copy()}
        return obs, infos

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One learner action per env."""
        obs, mask, reward, terminated, info = self.core.step(np.asarray(actions))
        infos: dict[str, Any] = {"action_mask": mask, "_action_mask": self._all.copy(),
                                 "seat": info["seat"], "_seat": self._all.copy()}
        for key in STEP_INFO_KEYS:
            infos[key] = info[key]
            infos[f"_{key}"] = terminated.copy()
        return obs, reward, terminated, np.zeros(self.num_envs, np.bool_), infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every env, bool ``[num_envs, num_actions]``."""
        return self.core.action_masks()

    def render(self) -> tuple[str, ...] | None:
        """``"ansi"``: the table of every game as text."""
        if self.render_mode is None:
            gym.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return tuple(self.core.render(g) for g in range(self.num_envs))
