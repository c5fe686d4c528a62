"""Agents from outside trickenv, named wherever agents are named (``trickenv eval``, ``tournament``, ``play``,
``serve`` and :func:`trickenv.agents.make_agent`).

- ``package.module:attribute`` and ``path/to/file.py:attribute`` (the file is imported as a module; nothing is
  installed). The attribute is one of
  - a class or a factory function: called as ``attribute(spec, seed=seed, **keywords)`` (``seed`` is left out
    when it takes none; a factory is a function whose first parameter is named ``spec``), it makes the agent;
  - a function ``(obs, mask) -> action`` of one observation row and its legal-action mask: it is the agent's
    policy, asked one row at a time;
  - an agent object (it has ``act_batch`` or ``act``), used as it is.
- An installed package's agents: the entry points of the group ``trickenv.agents`` (in ``pyproject.toml``:
  ``[project.entry-points."trickenv.agents"] my-agent = "my_package.agents:MyAgent"``), each named by its
  entry point's name and taken as an attribute above.

Keywords follow the name as for every agent: ``my_package.agents:MyAgent:depth=3``. An agent with ``act`` only
(an AEC-style agent) plays a batch one row at a time. ``trickenv eval --list-agents`` lists every name.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import numpy as np

from trickenv.games.base import GameSpec

ENTRY_POINT_GROUP = "trickenv.agents"


def entry_points() -> dict[str, metadata.EntryPoint]:
    """The installed agents: ``{name: entry point}`` of the group ``trickenv.agents``."""
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def is_import_name(base: str) -> bool:
    """Whether an agent name's first part names a module or a file (``pkg.mod``, ``agents/mine.py``)."""
    return "." in base or "/" in base or "\\" in base


def _findable(base: str) -> bool:
    """Whether ``base`` is a top-level module Python can import (``mymodule:MyAgent``)."""
    try:
        return base.isidentifier() and importlib.util.find_spec(base) is not None
    except (ImportError, ValueError):
        return False


def could_be_external(base: str) -> bool:
    """Whether an agent name's first part may name an agent from outside trickenv (an installed agent, a module
    or a file); :func:`external_agent` says for sure."""
    return base in entry_points() or is_import_name(base) or _findable(base)


def external_agent(name: str, base: str, attribute: str, keywords: dict[str, Any], spec: GameSpec,
                   seed: int | None) -> Any | None:
    """The agent ``name`` from a module, a file or an entry point (see the module docstring); None if ``base``
    is none of these."""
    installed = entry_points()
    if base in installed:
        if attribute:
            raise ValueError(f"agent {name!r}: the installed agent {base!r} takes no argument after ':', only "
                             f"keyword=value pairs")
        try:
            target = installed[base].load()
        except Exception as e:  # noqa: BLE001 - whatever the package raises, said in one line
            raise ValueError(f"agent {name!r}: loading the entry point {installed[base].value!r} raised "
                             f"{type(e).__name__}: {e}") from None
        return agent_from(target, name, spec, seed, keywords)
    if not is_import_name(base) and not (attribute and _findable(base)):
        return None
    if not attribute:
        raise ValueError(f"agent {name!r}: name the agent in the module after a colon, e.g. {base}:MyAgent")
    return agent_from(load_attribute(base, attribute, name), name, spec, seed, keywords)


def load_attribute(base: str, attribute: str, name: str) -> Any:
    """``attribute`` of the module ``base`` (a dotted module name, or a ``.py`` file's path)."""
    if base.endswith(".py"):
        path = Path(base).expanduser().resolve()
        if not path.is_file():
            raise ValueError(f"agent {name!r}: there is no file {base}")
        key = f"trickenv_agent_{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
        module = sys.modules.get(key)
        if module is None:
            spec = importlib.util.spec_from_file_location(key, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[key] = module  # a dataclass or pickle in it looks its module up there
            try:
                spec.loader.exec_module(module)
            except Exception as e:  # noqa: BLE001
                del sys.modules[key]
                raise ValueError(f"agent {name!r}: importing {base} raised {type(e).__name__}: {e}") from None
    else:
        try:
            module = importlib.import_module(base)
        except ImportError as e:
            raise ValueError(f"agent {name!r}: cannot import {base!r} ({e}); give an importable module or a "
                             f"path/to/file.py") from None
        except Exception as e:  # noqa: BLE001
            raise ValueError(f"agent {name!r}: importing {base} raised {type(e).__name__}: {e}") from None
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent {name!r}: {base} has no attribute {attribute!r}")
        target = getattr(target, part)
    return target


def _parameters(fn: Callable[..., Any]) -> list[inspect.Parameter] | None:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _is_agent(obj: Any) -> bool:
    return not isinstance(obj, type) and (callable(getattr(obj, "act_batch", None)) or
                                          callable(getattr(obj, "act", None)))


def agent_from(target: Any, name: str, spec: GameSpec, seed: int | None, keywords: dict[str, Any]) -> Any:
    """An agent from what a name points at: a class or factory (called), an ``(obs, mask) -> action`` function
    (wrapped), or an agent object (as it is)."""
    what = getattr(target, "__name__", type(target).__name__)
    if _is_agent(target):
        if keywords:
            raise ValueError(f"agent {name!r}: {what} is an agent object; it takes no keywords")
        return as_batch_agent(target, spec)
    params = _parameters(target) if callable(target) else None
    if params is None:
        raise ValueError(f"agent {name!r}: {what} is a {type(target).__name__}, not an agent class, a factory "
                         f"(spec, seed=None, ...) or an (obs, mask) -> action function")
    if isinstance(target, type) or (params and params[0].name == "spec"):
        takes_seed = any(p.name == "seed" or p.kind is p.VAR_KEYWORD for p in params)
        try:
            agent = target(spec, seed=seed, **keywords) if takes_seed else target(spec, **keywords)
        except Exception as e:  # noqa: BLE001 - the user's constructor: its error in one line
            raise ValueError(f"agent {name!r}: {what}(spec, ...) raised {type(e).__name__}: {e}") from None
        if not _is_agent(agent):
            raise ValueError(f"agent {name!r}: {what}(spec, ...) returned a {type(agent).__name__}, which has "
                             f"neither act_batch(obs, mask) nor act(observation)")
        return as_batch_agent(agent, spec)
    if keywords:
        raise ValueError(f"agent {name!r}: {what} is an (obs, mask) -> action function; it takes no keywords")
    return FunctionAgent(spec, target)


def as_batch_agent(agent: Any, spec: GameSpec) -> Any:
    """``agent`` itself if it has both entry points; with ``act`` only, wrapped to play a batch one row at a time;
    with ``act_batch`` only, wrapped to play one observation (the AEC env) as a batch of one."""
    has_batch, has_act = callable(getattr(agent, "act_batch", None)), callable(getattr(agent, "act", None))
    if has_batch and has_act:
        return agent
    return RowAgent(spec, agent) if has_act else OneRowAgent(spec, agent)


class FunctionAgent:
    """An ``(obs, mask) -> action`` function as an agent, asked one row at a time."""

    needs_state = False

    def __init__(self, spec: GameSpec, policy: Callable[[np.ndarray, np.ndarray], Any]) -> None:
        self.spec = spec
        self.policy = policy
        self.name = getattr(policy, "__name__", "function")

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.policy(np.asarray(observation["observation"]), np.asarray(observation["action_mask"])))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.array([self.policy(o, m) for o, m in zip(obs, mask, strict=True)])


class _Wrapped:
    """An agent that lacks one entry point, with the other made from the one it has."""

    def __init__(self, spec: GameSpec, agent: Any) -> None:
        self.spec = spec
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.needs_state = bool(getattr(agent, "needs_state", False))


class RowAgent(_Wrapped):
    """An agent with ``act(observation_dict)`` only, playing a batch one row at a time."""

    def act(self, observation: dict[str, np.ndarray], **state: Any) -> int:
        return self.agent.act(observation, **state)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: Any = None, games: Any = None) -> np.ndarray:
        out = []
        for i in range(len(obs)):
            observation = {"observation": obs[i], "action_mask": mask[i]}
            if self.needs_state:
                out.append(self.agent.act(observation, state=state, game=int(games[i])))
            else:
                out.append(self.agent.act(observation))
        return np.array(out)


class OneRowAgent(_Wrapped):
    """An agent with ``act_batch`` only, playing one AEC observation as a batch of one."""

    def act(self, observation: dict[str, np.ndarray], state: Any = None, game: int = 0) -> int:
        obs = np.asarray(observation["observation"])[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        if self.needs_state:
            return int(self.agent.act_batch(obs, mask, state=state, games=np.array([game]))[0])
        return int(self.agent.act_batch(obs, mask)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, **state: Any) -> np.ndarray:
        return self.agent.act_batch(obs, mask, **state)
