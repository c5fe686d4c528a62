"""The agent protocol every trickenv agent follows, and a registry of agents by name.

An agent plays one game spec (``trickenv.make_spec(game, **options)``) and has
two entry points:

- ``act(observation_dict) -> int`` for the AEC env: the dict that
  ``env.observe(agent)`` / ``env.last()`` returns (``"observation"``,
  ``"action_mask"``);
- ``act_batch(obs [B, obs_size], mask [B, A]) -> actions [B]`` for the batched
  env, with no Python loop over the games. The returned array may be reused by
  the next call: copy it to keep it.

Both only ever return legal actions. Agents that need more than the
observation (search) say so with ``needs_state = True`` and are called as
``act_batch(obs, mask, state=vec.state, games=rows)``, ``rows`` being the
batch rows of ``obs`` (the seat to act is ``state.s[rows, TO_ACT]``); they may
only read the state through :mod:`trickenv.sampler`, which keeps exactly what
the acting seat could know.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from trickenv.games.base import GameSpec


@runtime_checkable
class Agent(Protocol):
    """What ``trickenv eval`` and the trainers expect of an agent."""

    name: str
    spec: GameSpec

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One legal action for one AEC observation dict."""

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``obs`` / boolean ``mask``."""


class BatchAgent:
    """Base class: ``act`` runs ``act_batch`` on a batch of one."""

    name = "agent"
    needs_state = False

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """One legal action for one AEC observation dict (``observation``, ``action_mask``)."""
        obs = np.asarray(observation["observation"], np.int8)[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        if not mask.any():
            raise ValueError("action_mask has no legal action")
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """One legal action per row."""
        raise NotImplementedError


def byte_rows(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``obs`` and ``mask`` as the 2-D C-contiguous byte arrays the agents' kernels read 16 bytes at a time
    (no copy when they already are: int8/uint8/bool obs, bool mask)."""
    obs = np.asarray(obs)
    if obs.dtype not in (np.int8, np.uint8, np.bool_):
        obs = obs.astype(np.int8)  # observations are small integers in every encoding
    return np.ascontiguousarray(obs), np.ascontiguousarray(mask, np.bool_)


# name -> factory(spec, seed=..., **kwargs); filled by trickenv.agents.__init__
AGENTS: dict[str, Callable[..., Any]] = {}


def register(name: str, factory: Callable[..., Any]) -> None:
    """Make ``factory(spec, seed=None, **kwargs)`` available as ``make_agent(name, ...)``."""
    AGENTS[name] = factory


def make_agent(name: str, spec: GameSpec | str, seed: int | None = None, **kwargs: Any) -> Any:
    """The agent called ``name`` (``random``, ``rules``, ``pimc``, ``model``, ``model:PATH``) for a game spec."""
    if isinstance(spec, str):
        from trickenv.games import make_spec

        spec = make_spec(spec)
    base, _, arg = name.partition(":")
    if base not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; agents are {', '.join(sorted(AGENTS))}")
    if arg:
        kwargs["path"] = arg
    return AGENTS[base](spec, seed=seed, **kwargs)
