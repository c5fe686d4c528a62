"""Duplicate-deal evaluation of agents: ``evaluate(game, agents, deals=N, seed=S) -> Results``.

How a run works, top to bottom (:func:`evaluate` follows it step by step):

1. **Seatings** (:mod:`trickenv.agents.seatings`). A *seating* says which agent
   sits in which seat. Every deal is played once in each seating of a fixed
   list (:func:`make_seatings`), so luck of the cards cancels: each agent gets
   every hand in every seat as often as every other agent. For the seatings of
   each game see :func:`make_seatings` and docs/agents.md.
2. **Deals** (:func:`make_deals`). Deal ``i`` is game ``i``'s first deal of
   ``make_vec(game, N, seed=S, **options).reset()`` (cards and dealer), read
   with ``current_deals()``; the same seed repeats the run exactly. The deals
   are made chunk by chunk with the same generator states.
3. **Play** (this module: :func:`play_chunk`). A chunk of ``K`` deals becomes
   one batched env of ``K x seatings`` games, reset with the repeated deals and
   dealers. At every step each agent gets one ``act_batch`` call with the rows
   whose seat to act is its own (:func:`trickenv.agents.base.act_rows`: search
   agents, ``needs_state=True``, also get ``state=vec.state, games=rows``). A
   game is finished when its first deal ends (``vec.deal_end``): its record
   (``vec.deal_records()``) is kept and it is left out of later steps with
   ``where=``. One deal per game is evaluated, so the match options ``rounds``
   (other than 1), ``win_at`` and ``target_schedule`` are refused with a
   ValueError.
4. **Tables** (:mod:`trickenv.agents.tables`). Each deal leaves a score table
   ``[seatings, seats]`` and a few per-seat facts (:func:`seat_metrics`: Four
   Tricks exact hits, Farbwechsel card points and trump changes caused, King
   Calling roles and wins).
5. **Statistics** (:mod:`trickenv.agents.statistics`, :func:`summarize`).
   Deals are the independent units: an agent's *deal mean* is its average score
   over all its seats in all seatings of that deal; its result is the mean of
   its deal means with a 95 % Student-t interval over deals. A pair ``(a, b)``
   gets the mean of the per-deal differences with a paired t-interval. Ratings:
   every deal-seating is one ranked match (openskill's Plackett-Luce model) of
   the agents at the table, each ranked by its mean score over the seats it
   holds there.
6. **Results** (:mod:`trickenv.agents.results`, :class:`Results`): a JSON dict
   with stable keys, a CSV in long form and a text table of the same numbers.

Ctrl-C (KeyboardInterrupt) stops the run between or inside chunks: the deals
whose seatings have all finished are kept, and the results say
``interrupted: true`` with the number of deals.

:func:`tournament` runs :func:`evaluate` in each game with its default options.
The public names of the modules above are importable from here too (the CLI,
the trainer, tests and notebooks import them from this module).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

import trickenv
from trickenv.agents.base import act_rows, parse_agent_name
from trickenv.agents.results import Results
from trickenv.agents.seatings import DESIGNS, check_options, make_deals, seating_plan
from trickenv.agents.statistics import rate_matches, rating_model, summarize, table_means
from trickenv.agents.tables import Chunk, Table
from trickenv.games.base import GameSpec
from trickenv.vector import VecEnv

# Re-exported: the parts of a run, importable from here as from their own modules.
from trickenv.agents.results import format_table, tournament_table  # noqa: F401
from trickenv.agents.seatings import BASE_PATTERNS, MATCH_OPTIONS, make_seatings, rotations  # noqa: F401
from trickenv.agents.statistics import mean_ci, occupancy, t_cdf, t_quantile  # noqa: F401
from trickenv.agents.tables import seat_metrics  # noqa: F401

__all__ = [
    "Results", "evaluate", "Recipe", "Lineup", "make_seatings", "make_deals", "seat_metrics", "summarize", "mean_ci", "t_quantile",
    "unique_names", "format_table",
]


# ======================================================================= evaluate

def evaluate(
    game: str,
    agents: Sequence[Any],
    deals: int = 1000,
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    chunk: int = 256,
    progress: bool = True,
    seatings: str | Sequence[Sequence[int]] = "rotations",
    ratings: bool = True,
    threads: int = 1,
    records: bool = False,
    ray: str | bool | None = None,
    journal: str | Path | None = None,
) -> Results:
    """Play ``deals`` duplicate deals of ``game`` between ``agents`` and return the :class:`Results`.

    ``agents``: names for :func:`trickenv.agents.make_agent` (``"random"``, ``"rules"``,
    ``"model:PATH"``, ...; agent ``i`` gets a seed derived from ``seed`` and ``i``), agent
    objects or ``(name, agent)`` pairs; repeated names become ``name#2``, ... ``options``:
    game options (``rounds``/``win_at``/``target_schedule`` raise ValueError). ``chunk``: deals
    per batched env (``chunk x seatings`` games). ``seatings``: ``"rotations"``, ``"all"``
    (:func:`make_seatings`) or an explicit list of seatings (agent index per seat).
    ``seed=None`` draws a seed and reports it, so the run can be repeated.
    ``records=True`` keeps every deal's record in every seating (``Results.save_records``, the replay of
    ``trickenv serve``). ``ray``: run the chunks as Ray tasks on the cluster at that address (``True`` or
    ``"local"``: a Ray instance on this machine; :mod:`trickenv.cluster`); the results are the same as
    without it. Every chunk starts its agents afresh (:class:`Lineup`), so a chunk's games depend only
    on the seed and the chunk, wherever and in whatever order the chunks run. A KeyboardInterrupt ends the run early with the deals finished so far
    (``interrupted=True``). ``journal``: a folder that keeps every finished chunk (:class:`Journal`), so the
    same call run again (after a kill, or in another session) plays only the chunks still missing and
    returns the results of the whole run; the agents must then be names or :class:`Recipe`s and the seed
    fixed. The timing covers the chunks played by this call.
    """
    t_start = time.perf_counter()
    options = dict(options or {})
    check_options(options)
    check_count("deals", deals)
    check_count("chunk", chunk)
    if seed is None:
        if journal is not None:
            raise JournalError("a journal continues one run: it needs a fixed seed (got seed=None)")
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if ratings:
        rating_model()  # fail now, not after the run

    # 1. the game, the agents and the seatings every deal is played in
    spec = trickenv.make_spec(game, **options)
    lineup = Lineup.of(agents, spec, seed)
    names = lineup.names
    design, plan = seating_plan(seatings, spec, len(names))
    book = None
    if journal is not None:
        described = [describe_entry(a) for a in agents]
        book = Journal(journal, {"game": game, "options": options, "agents": described, "seed": int(seed),
                                 "deals": int(deals), "chunk": int(chunk), "seatings": [list(map(int, p)) for p in plan],
                                 "records": bool(records), "player_files": player_files(described)})

    # 2.-4. the deals, chunk by chunk, played into one score table
    clock = Clock(names)
    bar = Progress(deals, -(-deals // chunk), f"{game} eval", progress)
    if ray:
        table, interrupted = play_deals_on_ray(game, options, lineup, plan, deals, seed, chunk, threads, clock, bar,
                                               records, None if ray is True else str(ray), book)
    else:
        table, interrupted = play_deals(spec, lineup, plan, deals, seed, chunk, threads, clock, bar, records, book)
    t_play = time.perf_counter() - t_start

    # 5. statistics over the deals, then the ratings (slow: one openskill match per deal-seating)
    summary = summarize(names, plan, table, ratings=False)
    t0 = time.perf_counter()
    if ratings:
        try:
            summary["ratings"] = rate_matches(names, *table_means(plan, table, len(names)))
        except KeyboardInterrupt:  # a second Ctrl-C while rating: results without ratings
            interrupted = True
            summary["ratings"] = None
    t_ratings = time.perf_counter() - t0

    # 6. the results
    played = len(table.scores)
    seconds = time.perf_counter() - t_start
    timing = {
        "seconds": seconds,
        "play_seconds": t_play,
        "ratings_seconds": t_ratings,
        "env_seconds": clock.env,
        "deals_per_second": played / t_play if t_play > 0 else math.nan,
        "games_per_second": played * len(plan) / t_play if t_play > 0 else math.nan,
        "agent_seconds": dict(zip(names, clock.agent_seconds)),
        "agent_decisions": dict(zip(names, clock.agent_decisions)),
    }
    return Results(
        game=game, options=options, resolved_options=dict(spec.options), names=names, seatings=plan,
        seating_design=design, deals=played, deals_requested=int(deals), seed=int(seed), chunk=int(chunk),
        interrupted=interrupted, timing=timing, summary=summary, table_data=table,
    )


def resume_evaluation(journal: str | Path, ray: str | bool | None = None, progress: bool = True, threads: int = 1,
                      ratings: bool = True) -> Results:
    """Continue (or read back) the evaluation kept in ``journal`` with the settings of its ``run.json``: the same
    call as the one that began it, so it needs no other argument (``ray``, ``threads``, ``progress`` and
    ``ratings`` change how it runs, not its results)."""
    meta = Path(journal) / "run.json"
    if not meta.exists():
        raise JournalError(f"no evaluation journal at {journal} (no run.json)")
    run = json.loads(meta.read_text())
    agents = [a if isinstance(a, str) else Recipe(a["name"], a["agent"], a["seed"], tuple(a["kwargs"].items()))
              for a in run["agents"]]
    spec = trickenv.make_spec(run["game"], **run["options"])
    plan = [tuple(p) for p in run["seatings"]]
    # The design by its name where the plan is one of the named designs (the results then say so, as the first call's).
    seatings = next((d for d in DESIGNS if [tuple(p) for p in seating_plan(d, spec, len(agents))[1]] == plan), plan)
    return evaluate(run["game"], agents, deals=run["deals"], seed=run["seed"], options=run["options"],
                    chunk=run["chunk"], progress=progress, seatings=seatings,
                    ratings=ratings, threads=threads, records=run["records"], ray=ray, journal=journal)


def check_count(what: str, value: Any) -> None:
    """ValueError unless ``value`` is a positive integer (``bool`` is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


# ======================================================================= the agents of a run

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


def describe_entry(entry: Any) -> Any:
    """How a journal records an agent of a run (a name, or a :class:`Recipe`'s fields); ValueError for an agent
    object, which a later call could not be checked to repeat."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Recipe):
        return json.loads(json.dumps({**asdict(entry), "kwargs": dict(entry.kwargs)}, default=str))
    raise JournalError("a journal needs the agents as names or Recipes (a later call must be able to show it repeats "
                     f"the run); got {type(entry).__name__}")


def player_files(described: list[Any]) -> dict[str, str]:
    """sha256 (16 hex digits) of every trained player a run may read: the shipped ones (searches read them too)
    and any ``model:PATH`` among the agents, so a journal refuses to continue with other networks."""
    from trickenv.agents.policy import shipped_model_path

    files = {p.name: p for p in sorted(shipped_model_path("x").parent.glob("*.npz"))}
    for entry in described:
        for text in ([entry] if isinstance(entry, str) else [str(v) for v in entry["kwargs"].values()] + [entry["agent"]]):
            base, path, _ = parse_agent_name(text)
            if base == "model" and path:
                files[path] = Path(path)
    return {name: hashlib.sha256(p.read_bytes()).hexdigest()[:16] for name, p in files.items() if p.is_file()}


class JournalError(ValueError):
    """A journal that cannot continue this run (another run's folder, agents it cannot record, no fixed seed)."""


class Journal:
    """A folder keeping the finished chunks of one evaluation (``evaluate(..., journal=DIR)``, ``trickenv eval
    --journal DIR``): ``run.json`` says which run (game, options, agents, seed, deals, chunk, seatings, the
    trained players' hashes: :func:`player_files`), and
    every chunk played is written as ``chunk_K.npz`` (:meth:`.tables.Table.save`) as soon as it is done.
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

    def keep(self, k: int, table: Table) -> None:
        """Write chunk ``k``'s table."""
        table.save(self.path / f"chunk_{k:05d}.npz")


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
    def of(entries: Sequence[Any], spec: GameSpec, seed: int) -> "Lineup":
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

    def portable(self) -> "Lineup":
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


# ======================================================================= play

def play_deals(spec: GameSpec, lineup: Lineup, plan: list[tuple[int, ...]], deals: int, seed: int, chunk: int,
               threads: int, clock: "Clock", bar: "Progress", records: bool = False,
               journal: "Journal | None" = None) -> tuple[Table, bool]:
    """``(table, interrupted)``: deals ``0..deals-1`` played in every seating of ``plan``, ``chunk`` deals at a
    time. A KeyboardInterrupt stops the run and keeps the deals whose seatings have all finished. With a
    ``journal`` its finished chunks are read instead of played, and every chunk played is written to it."""
    plan_arr = np.asarray(plan, np.int64)
    parts: list[Table] = []
    envs: dict[int, VecEnv] = {}  # one env per batch size (the last chunk may be smaller)
    interrupted = False
    kept = kept_chunks(journal, deals, chunk, bar)
    try:
        for start in range(0, deals, chunk):
            stop = min(start + chunk, deals)
            if start // chunk in kept:
                parts.append(kept[start // chunk])
                continue
            current: Chunk | None = None
            try:
                deal_arr, dealers = make_deals(spec, seed, start, stop)
                current = Chunk(spec, plan_arr, deal_arr, dealers, first_deal=start)
                b = (stop - start) * len(plan)
                if b not in envs:
                    envs[b] = VecEnv(spec, b, seed=seed, threads=threads)
                bar.chunk(start // chunk)
                play_chunk(envs[b], current, lineup.make(spec, start // chunk), clock, bar)
            except KeyboardInterrupt:
                interrupted = True
            if current is not None:
                parts.append(current.table(records))
                if journal is not None and not interrupted:
                    journal.keep(start // chunk, parts[-1])
            if interrupted:
                break
    finally:
        bar.close()
    return Table.concat(parts, len(plan), spec.num_players), interrupted


def kept_chunks(journal: "Journal | None", deals: int, chunk: int, bar: "Progress") -> dict[int, Table]:
    """The finished chunks ``journal`` holds, by chunk index (none without a journal), counted on the bar."""
    kept = journal.finished() if journal is not None else {}
    for k in kept:
        bar.deals(min((k + 1) * chunk, deals) - k * chunk)
    return kept


def chunk_task(game: str, options: dict[str, Any], lineup: Lineup, plan: list[tuple[int, ...]], seed: int,
               start: int, stop: int, k: int, threads: int, records: bool) -> tuple[Table, Clock]:
    """One chunk of a run, as a Ray task (:func:`play_deals_on_ray`): the same games as chunk ``k`` of
    :func:`play_deals`; returns its table and its clock."""
    import copy

    # Ray hands over the arrays inside agent objects read-only (zero-copy from its object store); an agent
    # writes into its buffers, so it plays with a copy of its own.
    lineup = copy.deepcopy(lineup)
    spec = trickenv.make_spec(game, **options)
    deal_arr, dealers = make_deals(spec, seed, start, stop)
    current = Chunk(spec, np.asarray(plan, np.int64), deal_arr, dealers, first_deal=start)
    clock = Clock(lineup.names)
    vec = VecEnv(spec, (stop - start) * len(plan), seed=seed, threads=threads)
    play_chunk(vec, current, lineup.make(spec, k), clock, Progress(0, 0, "", False))
    return current.table(records), clock


def play_deals_on_ray(game: str, options: dict[str, Any], lineup: Lineup, plan: list[tuple[int, ...]], deals: int,
                      seed: int, chunk: int, threads: int, clock: "Clock", bar: "Progress", records: bool,
                      address: str | None, journal: "Journal | None" = None) -> tuple[Table, bool]:
    """:func:`play_deals` with every chunk a Ray task (:func:`trickenv.cluster.run_tasks`): the tables are put
    back in chunk order, so the results equal a local run's. The bar counts the deals of finished chunks;
    a KeyboardInterrupt keeps the chunks finished so far. With a ``journal`` as in :func:`play_deals`."""
    from trickenv.cluster import run_tasks

    spec = trickenv.make_spec(game, **options)
    starts = list(range(0, deals, chunk))
    parts = kept_chunks(journal, deals, chunk, bar)
    todo = [k for k in range(len(starts)) if k not in parts]
    jobs = [(game, options, lineup.portable(), plan, seed, starts[k], min(starts[k] + chunk, deals), k, threads,
             records) for k in todo]

    def done(i: int, result: tuple[Table, Clock]) -> None:
        table, part = result
        k = todo[i]
        parts[k] = table
        if journal is not None:
            journal.keep(k, table)
        for a in range(len(clock.names)):
            clock.add_agent(a, part.agent_seconds[a], part.agent_decisions[a])
        clock.env += part.env
        bar.deals(len(table.scores))

    interrupted = False
    try:
        run_tasks(chunk_task, jobs, done, address=address)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return Table.concat([parts[k] for k in sorted(parts)], len(plan), spec.num_players), interrupted


def play_chunk(vec: VecEnv, chunk: Chunk, agents: list[Any], clock: "Clock", progress: "Progress") -> None:
    """Play every game of ``chunk`` in ``vec`` until its first deal ends, storing the records in ``chunk``.

    One ``act_batch`` call per agent per step with the rows where its seat is to act.
    """
    b = vec.num_envs
    rows_all = np.arange(b)
    obs, mask, player = vec.reset(deals=chunk.deals, dealers=chunk.dealers)
    active = np.ones(b, bool)
    actions = np.zeros(b, np.int64)
    deals_done = 0
    max_steps = 4 * (vec.spec.deck + 16)  # far above any deal's number of decisions
    for step in range(max_steps):
        owner = chunk.seat_agent[rows_all, player]
        for a, agent in enumerate(agents):
            rows = np.flatnonzero(active & (owner == a))
            if rows.size == 0:
                continue
            t0 = time.perf_counter()
            act = act_rows(agent, obs[rows], mask[rows], vec.state, rows)
            clock.add_agent(a, time.perf_counter() - t0, rows.size)
            actions[rows] = check_actions(act, mask, rows, clock.names[a])
        t0 = time.perf_counter()
        obs, mask, player, _, _ = vec.step(actions, where=active)
        if vec.deal_end.any():
            rec = vec.deal_records()
            chunk.store(rec)
            active[rec["game"]] = False
            now = int(chunk.deals_done().sum())
            progress.deals(now - deals_done)
            deals_done = now
        clock.env += time.perf_counter() - t0
        progress.step(step + 1)
        if not active.any():
            return
    raise RuntimeError(f"{int(active.sum())} games did not finish their deal in {max_steps} steps")


def check_actions(act: Any, mask: np.ndarray, rows: np.ndarray, name: str) -> np.ndarray:
    """``act`` as int64 if it holds one legal action per row, else ValueError naming the agent."""
    act = np.asarray(act)
    if act.shape != rows.shape or act.dtype.kind not in "iu":
        raise ValueError(f"agent {name} returned {act.dtype} {act.shape} from act_batch; expected "
                         f"{rows.size} integer actions")
    act = act.astype(np.int64)
    ok = (act >= 0) & (act < mask.shape[1])
    ok[ok] = mask[rows[ok], act[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"agent {name} chose illegal action {int(act[i])} in game {int(rows[i])}; legal: "
                         f"{np.flatnonzero(mask[rows[i]]).tolist()}")
    return act


class Progress:
    """A tqdm bar counting finished deals, with the chunk and step in play (does nothing when disabled)."""

    def __init__(self, total: int, chunks: int, desc: str, enabled: bool) -> None:
        self.bar = None
        self.chunks = chunks
        self.label = ""
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - depends on the install
                return
            self.bar = tqdm(total=total, desc=desc, unit="deal", dynamic_ncols=True)

    def chunk(self, index: int) -> None:
        self.label = f"chunk {index + 1}/{self.chunks} step "

    def step(self, t: int) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(self.label + str(t), refresh=False)

    def deals(self, k: int) -> None:
        if self.bar is not None and k > 0:
            self.bar.update(k)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@dataclass
class Clock:
    """Where the time goes: per agent (seconds, decisions) and the env."""

    names: list[str]
    agent_seconds: list[float] = field(default_factory=list)
    agent_decisions: list[int] = field(default_factory=list)
    env: float = 0.0

    def __post_init__(self) -> None:
        self.agent_seconds = [0.0] * len(self.names)
        self.agent_decisions = [0] * len(self.names)

    def add_agent(self, a: int, seconds: float, decisions: int) -> None:
        self.agent_seconds[a] += seconds
        self.agent_decisions[a] += decisions


# ======================================================================= tournament

TOURNAMENT_GAMES = ("four_tricks", "farbwechsel", "koenigrufen")


def tournament(agents: Sequence[str] = ("random", "rules", "pimc", "model"), deals: int = 100, seed: int = 0,
               games: Sequence[str] = TOURNAMENT_GAMES, pimc_worlds: int = 8,
               progress: bool = True, ray: str | bool | None = None) -> dict[str, Results]:
    """A duplicate tournament of ``agents`` in each of ``games`` (default variants): ``{game: Results}``
    (:func:`tournament_table` prints them as one table). ``ray``: as in :func:`evaluate`."""
    out: dict[str, Results] = {}
    for game in games:
        spec = trickenv.make_spec(game)
        players = tournament_agents(spec, agents, pimc_worlds, seed)
        out[game] = evaluate(game, players, deals=deals, seed=seed, progress=progress, ratings=False, ray=ray)
        if out[game].interrupted:
            break
    return out


def tournament_agents(spec: GameSpec, names: Sequence[str], pimc_worlds: int, seed: int) -> list[Recipe]:
    """The named agents for one game as recipes; ``pimc`` with ``pimc_worlds`` worlds, ``model`` skipped (with a
    note) where the game has no shipped player."""
    from trickenv.agents.policy import shipped_model_path

    out: list[Recipe] = []
    for i, name in enumerate(names):
        if name == "model" and not shipped_model_path(spec.name).exists():
            print(f"{spec.name}: no shipped model, playing without it")
            continue
        kwargs = (("worlds", pimc_worlds),) if name == "pimc" else ()
        out.append(Recipe(name, name, seed + 1000 * (i + 1), kwargs))
    return out
