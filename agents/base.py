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
the acting seat could know. Code that drives agents calls them through
:func:`act_rows` (batched env) and :func:`act_one` (AEC env), which pass the
state exactly to the agents that ask for it.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from trickenv.engine.state import State
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


def act_rows(agent: Any, obs: np.ndarray, mask: np.ndarray, state: State | None = None,
             rows: np.ndarray | None = None) -> np.ndarray:
    """``agent``'s actions for the batch rows ``rows`` of a batched env whose engine state is ``state``.

    ``obs`` and ``mask`` are those rows' observations and masks, row ``i`` belonging to game
    ``rows[i]``; the caller picks them (``obs[rows]``, or the env's buffers as they are when
    ``rows`` is every game, which saves a copy), so nothing is copied here. An agent with
    ``needs_state = True`` is called as ``act_batch(obs, mask, state=state, games=rows)``,
    any other as ``act_batch(obs, mask)``: agents that read only the observation need not
    accept the keywords, and ``state``/``rows`` may be left out for them. Returns what
    ``act_batch`` returns (it may be reused by the agent's next call: copy it to keep it).
    """
    if getattr(agent, "needs_state", False):
        return agent.act_batch(obs, mask, state=state, games=rows)
    return agent.act_batch(obs, mask)


def act_one(agent: Any, observation: dict[str, np.ndarray], state: State) -> int:
    """``agent``'s action for one AEC observation dict: ``act(observation, state=state)`` for an agent
    with ``needs_state = True`` (``state``: the AEC env's engine state, ``env.unwrapped.game``), else
    ``act(observation)``."""
    if getattr(agent, "needs_state", False):
        return int(agent.act(observation, state=state))
    return int(agent.act(observation))


# name -> factory(spec, seed=..., **kwargs); filled by trickenv.agents.__init__
AGENTS: dict[str, Callable[..., Any]] = {}
# name -> (keyword, type) that ``make_agent("name:VALUE")`` passes VALUE as (``model:PATH``, ``pimc:32``)
NAME_ARGUMENTS: dict[str, tuple[str, type]] = {}


def register(name: str, factory: Callable[..., Any], argument: tuple[str, type] | None = None) -> None:
    """Make ``factory(spec, seed=None, **kwargs)`` available as ``make_agent(name, ...)``; with ``argument`` =
    ``(keyword, type)``, ``make_agent(f"{name}:{value}")`` passes ``keyword=type(value)``."""
    AGENTS[name] = factory
    if argument is not None:
        NAME_ARGUMENTS[name] = argument


def make_agent(name: str, spec: GameSpec | str, seed: int | None = None, **kwargs: Any) -> Any:
    """The agent called ``name`` (``random``, ``rules``, ``pimc``, ``search``, ``model``) for a game spec; a name
    may carry its agent's argument after a colon: ``model:PATH`` (a saved player), ``pimc:32``, ``search:16``
    (worlds per decision)."""
    if isinstance(spec, str):
        from trickenv.games import make_spec

        spec = make_spec(spec)
    base, _, arg = name.partition(":")
    if base not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; agents are {', '.join(sorted(AGENTS))}")
    if arg:
        if base not in NAME_ARGUMENTS:
            raise ValueError(f"agent {base!r} takes no argument after ':' (got {name!r}); "
                             f"those that do: {', '.join(f'{k}:{v[0].upper()}' for k, v in NAME_ARGUMENTS.items())}")
        keyword, kind = NAME_ARGUMENTS[base]
        try:
            kwargs[keyword] = kind(arg)
        except ValueError:
            raise ValueError(f"agent {name!r}: {keyword} must be {kind.__name__}, got {arg!r}") from None
    return AGENTS[base](spec, seed=seed, **kwargs)
