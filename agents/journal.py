"""Resumable evaluation runs: a :class:`Journal` folder keeps every finished chunk of a run on disk.

``evaluate(..., journal=DIR)`` (``trickenv eval --journal DIR``) opens one with :func:`open_journal`; the same
call run again reads the kept chunks (:func:`kept_chunks`) and plays only the missing ones, and
:func:`trickenv.agents.evaluation.resume_evaluation` repeats that call from the folder alone
(:func:`recorded_call`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from trickenv.agents.base import parse_agent_name
from trickenv.agents.lineup import Recipe
from trickenv.agents.progress import Clock, Progress
from trickenv.agents.seatings import DESIGNS, seating_plan
from trickenv.agents.tables import Table
from trickenv.games import make_spec
from trickenv.games.base import GameSpec

__all__ = ["Journal", "JournalError", "open_journal", "recorded_call", "kept_chunks", "describe_entry",
           "player_files", "deals_hash"]


class JournalError(ValueError):
    """A journal that cannot continue this run (another run's folder, agents it cannot record, no fixed seed)."""


class Journal:
    """A folder keeping the finished chunks of one evaluation (``evaluate(..., journal=DIR)``, ``trickenv eval
    --journal DIR``): ``run.json`` says which run (game, options, agents, seed, deals, chunk, seatings, the
    trained players' hashes: :func:`player_files`), and
    every chunk played is written as ``chunk_K.npz`` (:meth:`.tables.Table.save`) as soon as it is done, with
    its clock (``chunk_K.clock.json``: the time it took, which a resumed run adds to its own).
    Since a chunk's games depend only on the run and the chunk, the same call run again plays the
    missing chunks and gives the results of the uninterrupted run. A folder of another run is refused
    (naming what differs) and left as it is."""

    def __init__(self, path: str | Path, run: dict[str, Any]) -> None:
        self.path = Path(path)
        self.run = json.loads(json.dumps(run))
        meta = self.path / "run.json"
        if meta.exists():
            have = json.loads(meta.read_text())
            differ = [k for k in sorted(set(have) | set(self.run)) if have.get(k) != self.run.get(k)]
            if differ:
                raise JournalError(f"journal {self.path} holds another run; it differs in "
                                 + "; ".join(f"{k}: {have.get(k)!r} there, {self.run.get(k)!r} here" for k in differ)
                                 + ". Repeat that run's settings or use another folder")
        else:
            if self.path.exists() and any(self.path.iterdir()):
                raise JournalError(f"journal {self.path} is a folder with other files and no run.json; use a new folder")
            self.path.mkdir(parents=True, exist_ok=True)
            tmp = meta.with_name("run.json.tmp")
            tmp.write_text(json.dumps(self.run, indent=1))
            tmp.replace(meta)

    def finished(self) -> dict[int, Table]:
        """The chunks written so far: chunk index -> table."""
        return {int(p.stem.split("_")[1]): Table.load(p) for p in sorted(self.path.glob("chunk_*.npz"))
                if not p.name.endswith(".tmp.npz")}

    def clocks(self, names: list[str]) -> dict[int, Clock]:
        """The clocks of the chunks written so far, by chunk index (a chunk kept without one has none)."""
        out = {}
        for p in sorted(self.path.glob("chunk_*.clock.json")):
            out[int(p.name.split(".")[0].split("_")[1])] = Clock.from_dict(names, json.loads(p.read_text()))
        return out

    def keep(self, k: int, table: Table, clock: Clock | None = None) -> None:
        """Write chunk ``k``'s table, and its clock first (a chunk's table marks it finished)."""
        if clock is not None:
            path = self.path / f"chunk_{k:05d}.clock.json"
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(clock.to_dict()))
            tmp.replace(path)
        table.save(self.path / f"chunk_{k:05d}.npz")


def open_journal(path: str | Path, game: str, options: dict[str, Any], agents: Sequence[Any], seed: int,
                 deals: int, chunk: int, plan: list[tuple[int, ...]], records: bool,
                 given: str | None = None) -> Journal:
    """The journal at ``path`` for this run: a new one, or the one this same run began (JournalError if the
    folder holds another run or an agent cannot be recorded). ``given``: the hash of the given deals played
    (:func:`deals_hash`), for a run of given deals."""
    described = [describe_entry(a) for a in agents]
    run = {"game": game, "options": options, "agents": described, "seed": int(seed), "deals": int(deals),
           "chunk": int(chunk), "seatings": [list(map(int, p)) for p in plan], "records": bool(records),
           "player_files": player_files(described, make_spec(game, **options))}
    if given is not None:  # only then: the journals of seeded runs keep their run.json as it was
        run["given_deals"] = given
    return Journal(path, run)


def deals_hash(deals: Any, dealers: Any) -> str:
    """sha256 (16 hex digits) of given deals and their dealers: what a journal of a run of given deals played."""
    import numpy as np

    h = hashlib.sha256()
    for a in (np.asarray(deals, np.int64), np.asarray(dealers, np.int64)):
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def recorded_call(journal: str | Path, given_deals: bool = False) -> dict[str, Any]:
    """The arguments of the ``evaluate`` call that began ``journal`` (from its ``run.json``), without the
    journal itself and the settings that change how a run goes, not its results. A run of given deals cannot
    be repeated from its folder alone (a :class:`JournalError`) unless ``given_deals`` (only to be read)."""
    meta = Path(journal) / "run.json"
    if not meta.exists():
        raise JournalError(f"no evaluation journal at {journal} (no run.json)")
    run = json.loads(meta.read_text())
    if run.get("given_deals") and not given_deals:
        raise JournalError(f"journal {journal} is a run of given deals (a benchmark's): repeat that call, with "
                           "its deals, to continue it")
    agents = [a if isinstance(a, str) else Recipe(a["name"], a["agent"], a["seed"], tuple(a["kwargs"].items()))
              for a in run["agents"]]
    spec = make_spec(run["game"], **run["options"])
    plan = [tuple(p) for p in run["seatings"]]
    # The design by its name where the plan is one of the named designs (the results then say so, as the first call's).
    seatings = next((d for d in DESIGNS if [tuple(p) for p in seating_plan(d, spec, len(agents))[1]] == plan), plan)
    return dict(game=run["game"], agents=agents, deals=run["deals"], seed=run["seed"], options=run["options"],
                chunk=run["chunk"], seatings=seatings, records=run["records"])


def kept_chunks(journal: Journal | None, deals: int, chunk: int, bar: Progress, clock: Clock) -> dict[int, Table]:
    """The finished chunks ``journal`` holds, by chunk index (none without a journal), counted on the bar; the
    time they took is added to ``clock``."""
    kept = journal.finished() if journal is not None else {}
    for k in kept:
        bar.deals(min((k + 1) * chunk, deals) - k * chunk)
    if journal is not None:
        for k, part in journal.clocks(clock.names).items():
            if k in kept:
                clock.merge(part)
    return kept


def describe_entry(entry: Any) -> Any:
    """How a journal records an agent of a run (a name, or a :class:`Recipe`'s fields); ValueError for an agent
    object, which a later call could not be checked to repeat."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Recipe):
        return json.loads(json.dumps({**asdict(entry), "kwargs": dict(entry.kwargs)}, default=str))
    raise JournalError("a journal needs the agents as names or Recipes (a later call must be able to show it repeats "
                     f"the run); got {type(entry).__name__}")


def player_files(described: list[Any], spec: GameSpec | None = None) -> dict[str, str]:
    """sha256 (16 hex digits) of every trained player a run may read: the shipped ones (searches read them too),
    any ``model:PATH`` among the agents and the value files of the decisions before the play an agent takes
    (``decisions=PATH``, the shipped ones for ``learned``, and with ``spec`` those an agent takes by default),
    so a journal refuses to continue with other networks."""
    from trickenv.agents.decisions import default_value_files, shipped_value_files
    from trickenv.agents.policy import shipped_model_path

    files = {p.name: p for p in sorted(shipped_model_path("x").parent.glob("*.npz"))}
    for entry in described:
        agent = entry if isinstance(entry, str) else entry["agent"]
        texts = [entry] if isinstance(entry, str) else [str(v) for v in entry["kwargs"].values()] + [entry["agent"]]
        learned = None if isinstance(entry, str) else entry["kwargs"].get("decisions")
        for text in texts:
            base, path, kwargs = parse_agent_name(text)
            if base == "model" and path:
                files[path] = Path(path)
            learned = kwargs.get("decisions", learned)
        if learned == "learned":
            files.update({f"decisions/{p.name}": p for p in shipped_value_files()})
        elif learned is None and spec is not None:
            files.update({f"decisions/{p.name}": p for p in default_value_files(agent, spec)})
        elif learned is not None and learned != "own":
            files[str(learned)] = Path(str(learned))
    return {name: hashlib.sha256(p.read_bytes()).hexdigest()[:16] for name, p in files.items() if p.is_file()}
