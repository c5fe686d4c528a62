"""The agents of an evaluation run: their names, their seeds and the :class:`Lineup` every chunk makes afresh.

An agent of a run is a name for :func:`trickenv.agents.make_agent`, a :class:`Recipe`, an agent object or a
``(name, agent)`` pair. Because each chunk makes its agents again from their recipe and the chunk's seed, a
chunk's games depend only on the run and the chunk, so chunks can be played in any order, on any node
(:mod:`trickenv.agents.ray_chunks`) or read back from a journal (:mod:`trickenv.agents.journal`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from trickenv.agents.base import parse_agent_name
from trickenv.games.base import GameSpec

__all__ = ["Recipe", "Lineup", "unique_names", "agent_seed", "build_agents"]


def unique_names(names: Iterable[str]) -> list[str]:
    """``["rules", "random", "rules"]`` -> ``["rules", "random", "rules#2"]``."""
    out: list[str] = []
    for name in names:
        new, i = name, 1
        while new in out:
            i += 1
            new = f"{name}#{i}"
        out.append(new)
    return out


def agent_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th agent of a run with ``seed`` (distinct per agent, repeatable)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint32)[0])


@dataclass(frozen=True)
class Recipe:
    """An agent by recipe: ``make_agent(agent, spec, seed=seed, **kwargs)``, shown as ``name``. A run makes it
    afresh for every chunk (:class:`Lineup`), so it travels to Ray workers as these few fields."""

    name: str
    agent: str
    seed: int
    kwargs: tuple[tuple[str, Any], ...] = ()


def build_agents(entries: Sequence[Any], spec: GameSpec, seed: int) -> tuple[list[str], list[Any]]:
    """Names (made unique) and agents from names (``make_agent``), :class:`Recipe`s, agent objects or
    ``(name, agent)`` pairs."""
    from trickenv.agents import make_agent

    names, agents = [], []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            names.append(entry)
            agents.append(make_agent(entry, spec, seed=agent_seed(seed, i)))
        elif isinstance(entry, Recipe):
            names.append(entry.name)
            agents.append(make_agent(entry.agent, spec, seed=entry.seed, **dict(entry.kwargs)))
        elif isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            names.append(entry[0])
            agents.append(entry[1])
        else:
            names.append(str(getattr(entry, "name", type(entry).__name__)))
            agents.append(entry)
        if not callable(getattr(agents[-1], "act_batch", None)):
            raise ValueError(f"agent {names[-1]!r} has no act_batch method")
    return unique_names(names), agents


@dataclass
class Lineup:
    """The agents of a run, as every chunk gets them afresh (so chunks are independent jobs).

    An agent named in the run (``"pimc"``, ``"model:PATH"``) or given as a :class:`Recipe` is made again
    for each chunk with the chunk's seed: :func:`agent_seed` of the run for chunk 0 (as a run of one chunk
    always had), a seed derived from it and the chunk for the others. An agent object (or ``(name, agent)``
    pair) plays every chunk of a local run itself, its state carrying on from chunk to chunk, while each
    Ray task gets a copy of it as it was at the start: for results that do not depend on where the chunks
    run, give such agents by name or recipe (or make them deterministic). ``make(spec, k)`` gives chunk
    ``k``'s agents.
    """

    names: list[str]
    entries: list[Any]  # a Recipe, or ("object", agent)
    data: dict[str, bytes] = field(default_factory=dict)  # model:PATH -> the file, for nodes without it
    first: list[Any] | None = None  # chunk 0's agents, made by of() to check them (local runs use them)

    @staticmethod
    def of(entries: Sequence[Any], spec: GameSpec, seed: int) -> Lineup:
        """Check the agents (made once for chunk 0's seeds: a wrong name fails now) and keep their recipe."""
        names, agents = build_agents(entries, spec, seed)
        kept: list[Any] = []
        for i, entry in enumerate(entries):
            if isinstance(entry, str):
                kept.append(Recipe(names[i], entry, agent_seed(seed, i)))
            elif isinstance(entry, Recipe):
                kept.append(entry)
            else:
                kept.append(("object", agents[i]))
        return Lineup(names, kept, first=agents)

    def make(self, spec: GameSpec, k: int) -> list[Any]:
        """Chunk ``k``'s agents."""
        from trickenv.agents import make_agent

        if k == 0 and self.first is not None:
            first, self.first = self.first, None  # fresh, as make would build them: used once
            return first
        out = []
        for entry in self.entries:
            if not isinstance(entry, Recipe):
                out.append(entry[1])  # the object itself (a Ray task gets its own copy, as it was at the start)
                continue
            s = entry.seed if k == 0 else int(np.random.SeedSequence([entry.seed, k]).generate_state(1, np.uint32)[0])
            if entry.agent in self.data:
                out.append(_model_from_bytes(spec, self.data[entry.agent], s, entry.agent, dict(entry.kwargs)))
            else:
                out.append(make_agent(entry.agent, spec, seed=s, **dict(entry.kwargs)))
        return out

    def portable(self) -> Lineup:
        """The lineup with every ``model:PATH`` file read in, for nodes that do not have the file."""
        data = dict(self.data)
        for entry in self.entries:
            if not isinstance(entry, Recipe):
                continue
            base, path, _ = parse_agent_name(entry.agent)
            if base == "model" and path and entry.agent not in data:
                with open(path, "rb") as f:
                    data[entry.agent] = f.read()
        return Lineup(self.names, self.entries, data)  # without chunk 0's agents: tasks make their own


def _model_from_bytes(spec: GameSpec, data: bytes, seed: int, name: str, kwargs: dict[str, Any]) -> Any:
    """The player ``name`` (``model:PATH[:keyword=value...]``) with its file's bytes ``data`` standing for PATH."""
    from trickenv.agents import make_agent
    from trickenv.cluster import file_of

    with file_of(data) as path:
        return make_agent(f"model:{path}", spec, seed=seed, **parse_agent_name(name)[2], **kwargs)
