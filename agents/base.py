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

import inspect
import re
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from trickenv.engine.state import State
from trickenv.games.base import GameSpec


class AgentError(ValueError):
    """An agent broke the protocol in play: it raised, returned what is not one legal action per row, or ran
    out of time. The message names the agent, where (deal and seat) and what it did."""


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


# keyword -> wrap(agent, spec, value): a keyword every bundled agent takes (``decisions``), filled by
# trickenv.agents.__init__; an agent whose constructor takes the keyword applies it itself (its default too)
WRAPPERS: dict[str, Callable[[Any, GameSpec, Any], Any]] = {}


def register(name: str, factory: Callable[..., Any], argument: tuple[str, type] | None = None) -> None:
    """Make ``factory(spec, seed=None, **kwargs)`` available as ``make_agent(name, ...)``; with ``argument`` =
    ``(keyword, type)``, ``make_agent(f"{name}:{value}")`` passes ``keyword=type(value)``."""
    AGENTS[name] = factory
    if argument is not None:
        NAME_ARGUMENTS[name] = argument


_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _value(text: str) -> Any:
    """A keyword's value as written in an agent name: an int, a float, true/false, none, else the text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_agent_name(name: str) -> tuple[str, str, dict[str, Any]]:
    """``"search:128:refine=3:rollout=rules"`` -> ``("search", "128", {"refine": 3, "rollout": "rules"})``.

    After the agent's name come, each behind a colon, at most one plain argument (``model:PATH``, ``pimc:32``)
    and then ``keyword=value`` pairs (ints, floats, ``true``/``false``, ``none`` or text). Pairs are read from
    the end, so a path that itself holds colons stays whole. Only the syntax is checked here;
    :func:`make_agent` checks the names and values."""
    base, _, rest = name.partition(":")
    parts = rest.split(":") if rest else []
    kwargs: dict[str, Any] = {}
    while parts and _KEYWORD.match(parts[-1]):
        key, _, text = parts.pop().partition("=")
        if key in kwargs:
            raise ValueError(f"agent {name!r} gives {key!r} twice")
        if not text:
            raise ValueError(f"agent {name!r}: {key}= needs a value")
        kwargs[key] = _value(text)
    return base, ":".join(parts), dict(reversed(list(kwargs.items())))


def _keywords(factory: Callable[..., Any]) -> list[str] | None:
    """The keywords ``factory`` names (None: it passes others on, so only building the agent tells)."""
    params = inspect.signature(factory).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def make_agent(name: str, spec: GameSpec | str, seed: int | None = None, **kwargs: Any) -> Any:
    """The agent called ``name`` (``random``, ``rules``, ``pimc``, ``search``, ``model``, ``sb3:PATH``, an
    installed package's agent, or your own as ``module.path:Attribute`` / ``path/to/file.py:Attribute``:
    :mod:`trickenv.agents.external`) for a game spec.

    A name may carry its agent's argument after a colon: ``model:PATH`` (a saved player), ``pimc:32``,
    ``search:16`` (worlds per decision), and after that any keyword of the agent's constructor as
    ``:keyword=value`` (:func:`parse_agent_name`): ``search:refine=3:refine_worlds=128``,
    ``pimc:32:rollout=random``. That is how the command line passes them. Every bundled agent takes
    ``decisions=learned`` (or ``decisions=PATH``, ``decisions=own``): its decisions before the play (the call,
    the dealer's trump) from learned values (:mod:`trickenv.agents.decisions`; an agent that takes the keyword
    itself, ``pimc`` and ``search``, applies it, else the agent is wrapped). A keyword given both in the name
    and in ``kwargs`` is an error, as are ``spec`` and ``seed`` in a name (the caller seeds the agent)."""
    if isinstance(spec, str):
        from trickenv.games import make_spec

        spec = make_spec(spec)
    base, arg, named = parse_agent_name(name)
    for key, wrap in WRAPPERS.items():  # a keyword every bundled agent takes: the agent made, then wrapped
        if base not in AGENTS or (key not in named and key not in kwargs) or key in (_keywords(AGENTS[base]) or ()):
            continue  # not asked for, or the agent takes the keyword itself
        if key in named and key in kwargs:
            raise ValueError(f"agent {name!r} gives {key!r}, and so does the caller")
        value = named.pop(key) if key in named else kwargs[key]
        rest = {k: v for k, v in kwargs.items() if k != key}
        both = [k for k in named if k in rest]
        if both:
            raise ValueError(f"agent {name!r} gives {both[0]!r}, and so does the caller")
        return wrap(make_agent(base + (f":{arg}" if arg else ""), spec, seed, **named, **rest), spec, value)
    if base not in AGENTS:
        from trickenv.agents.external import entry_points, external_agent

        for key in named:
            if key in kwargs:
                raise ValueError(f"agent {name!r} gives {key!r}, and so does the caller")
        agent = external_agent(name, base, arg, {**named, **kwargs}, spec, seed)
        if agent is None:
            installed = sorted(entry_points())
            raise ValueError(f"unknown agent {name!r}; agents are {', '.join(sorted(AGENTS) + installed)}, or "
                             f"your own as module.path:Attribute or path/to/file.py:Attribute")
        return agent
    if arg:
        if base not in NAME_ARGUMENTS:
            raise ValueError(f"agent {base!r} takes no argument after ':' (got {name!r}); "
                             f"those that do: {', '.join(f'{k}:{v[0].upper()}' for k, v in NAME_ARGUMENTS.items())}")
        keyword, kind = NAME_ARGUMENTS[base]
        if keyword in named:
            raise ValueError(f"agent {name!r} gives {keyword!r} twice (':{arg}' is the {keyword})")
        try:
            named = {keyword: kind(arg), **named}
        except ValueError:
            raise ValueError(f"agent {name!r}: {keyword} must be {kind.__name__}, got {arg!r}") from None
    allowed = _keywords(AGENTS[base])
    for key in named:
        if key in ("spec", "seed") or (allowed is not None and key not in allowed):
            choices = ", ".join(k for k in allowed or [] if k not in ("spec", "seed")) or "none"
            raise ValueError(f"agent {name!r}: {base} takes no keyword {key!r}; its keywords: {choices}")
        if key in kwargs:
            raise ValueError(f"agent {name!r} gives {key!r}, and so does the caller")
    if named and allowed is None:
        try:
            return AGENTS[base](spec, seed=seed, **named, **kwargs)
        except TypeError as e:  # its factory passes keywords on: the agent's class refuses an unknown one
            if "unexpected keyword" not in str(e):
                raise
            raise ValueError(f"agent {name!r}: {e}") from None
    return AGENTS[base](spec, seed=seed, **named, **kwargs)
