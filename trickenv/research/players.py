"""The players a notebook seats by name: ``random``, ``rules``, ``pimc`` and the shipped trained ``model``,
which is left out with a note where there is none for the game and options."""

from __future__ import annotations

import json
from typing import Any, Sequence

from trickenv.agents import make_agent
from trickenv.agents.policy import PolicyAgent, load_policy, shipped_model_path


def model_or_note(spec) -> tuple[Any | None, str]:
    """``(agent, "")`` with the shipped trained player for ``spec``, or ``(None, why not)``."""
    path = shipped_model_path(spec.name)
    if not path.exists():
        return None, f"no shipped model for {spec.name} yet ({path.name} is not in trickenv/agents/models/): model skipped"
    try:
        return PolicyAgent(spec), ""
    except ValueError as e:  # trained for other options
        trained = load_policy(path)[1].get("options") or {}
        given = json.loads(json.dumps(dict(spec.options)))  # tuples as lists, as in the file
        diff = ", ".join(f"{k}={given[k]!r}" for k in trained if k in given and given[k] != trained[k])
        return None, f"model skipped for {spec.name} with {diff or e}: the shipped player was trained for other options"


def make_players(spec, names: Sequence[str], seed: int = 0, worlds: int | None = None) -> dict[str, Any]:
    """Agents by name for ``spec``: ``random``, ``rules``, ``pimc`` (``worlds`` worlds) and ``model`` when shipped.

    A ``model`` that is not available is left out with a printed note.
    """
    out: dict[str, Any] = {}
    for i, name in enumerate(names):
        if name == "model":
            agent, note = model_or_note(spec)
            if agent is None:
                print(note)
                continue
            out[name] = agent
        elif name == "pimc":
            out[name] = make_agent("pimc", spec, seed=seed + 101 * i, **({} if worlds is None else {"worlds": worlds}))
        else:
            out[name] = make_agent(name, spec, seed=seed + 101 * i)
    return out
