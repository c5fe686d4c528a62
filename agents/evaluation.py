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

import math
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

import trickenv
from trickenv.agents.base import act_rows
from trickenv.agents.results import Results
from trickenv.agents.seatings import check_options, make_deals, seating_plan
from trickenv.agents.statistics import rate_matches, rating_model, summarize, table_means
from trickenv.agents.tables import Chunk, Table
from trickenv.games.base import GameSpec
from trickenv.vector import VecEnv

# Re-exported: the parts of a run, importable from here as from their own modules.
from trickenv.agents.results import format_table, tournament_table  # noqa: F401
from trickenv.agents.seatings import BASE_PATTERNS, DESIGNS, MATCH_OPTIONS, make_seatings, rotations  # noqa: F401
from trickenv.agents.statistics import mean_ci, occupancy, t_cdf, t_quantile  # noqa: F401
from trickenv.agents.tables import seat_metrics  # noqa: F401

__all__ = [
    "Results", "evaluate", "make_seatings", "make_deals", "seat_metrics", "summarize", "mean_ci", "t_quantile",
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
    ``trickenv serve``). A KeyboardInterrupt ends the run early with the deals finished so far
    (``interrupted=True``).
    """
    t_start = time.perf_counter()
    options = dict(options or {})
    check_options(options)
    check_count("deals", deals)
    check_count("chunk", chunk)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if ratings:
        rating_model()  # fail now, not after the run

    # 1. the game, the agents and the seatings every deal is played in
    spec = trickenv.make_spec(game, **options)
    names, players = build_agents(agents, spec, seed)
    design, plan = seating_plan(seatings, spec, len(players))

    # 2.-4. the deals, chunk by chunk, played into one score table
    clock = Clock(names)
    bar = Progress(deals, -(-deals // chunk), f"{game} eval", progress)
    table, interrupted = play_deals(spec, players, plan, deals, seed, chunk, threads, clock, bar, records)
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


def build_agents(entries: Sequence[Any], spec: GameSpec, seed: int) -> tuple[list[str], list[Any]]:
    """Names (made unique) and agents from names (``make_agent``), agent objects or ``(name, agent)`` pairs."""
    from trickenv.agents import make_agent

    names, agents = [], []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            names.append(entry)
            agents.append(make_agent(entry, spec, seed=agent_seed(seed, i)))
        elif isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            names.append(entry[0])
            agents.append(entry[1])
        else:
            names.append(str(getattr(entry, "name", type(entry).__name__)))
            agents.append(entry)
        if not callable(getattr(agents[-1], "act_batch", None)):
            raise ValueError(f"agent {names[-1]!r} has no act_batch method")
    return unique_names(names), agents


# ======================================================================= play

def play_deals(spec: GameSpec, agents: list[Any], plan: list[tuple[int, ...]], deals: int, seed: int, chunk: int,
               threads: int, clock: "Clock", bar: "Progress", records: bool = False) -> tuple[Table, bool]:
    """``(table, interrupted)``: deals ``0..deals-1`` played in every seating of ``plan``, ``chunk`` deals at a
    time. A KeyboardInterrupt stops the run and keeps the deals whose seatings have all finished."""
    plan_arr = np.asarray(plan, np.int64)
    parts: list[Table] = []
    envs: dict[int, VecEnv] = {}  # one env per batch size (the last chunk may be smaller)
    interrupted = False
    try:
        for start in range(0, deals, chunk):
            stop = min(start + chunk, deals)
            current: Chunk | None = None
            try:
                deal_arr, dealers = make_deals(spec, seed, start, stop)
                current = Chunk(spec, plan_arr, deal_arr, dealers, first_deal=start)
                b = (stop - start) * len(plan)
                if b not in envs:
                    envs[b] = VecEnv(spec, b, seed=seed, threads=threads)
                bar.chunk(start // chunk)
                play_chunk(envs[b], current, agents, clock, bar)
            except KeyboardInterrupt:
                interrupted = True
            if current is not None:
                parts.append(current.table(records))
            if interrupted:
                break
    finally:
        bar.close()
    return Table.concat(parts, len(plan), spec.num_players), interrupted


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
               progress: bool = True) -> dict[str, Results]:
    """A duplicate tournament of ``agents`` in each of ``games`` (default variants): ``{game: Results}``
    (:func:`tournament_table` prints them as one table)."""
    out: dict[str, Results] = {}
    for game in games:
        spec = trickenv.make_spec(game)
        players = tournament_agents(spec, agents, pimc_worlds, seed)
        out[game] = evaluate(game, players, deals=deals, seed=seed, progress=progress, ratings=False)
        if out[game].interrupted:
            break
    return out


def tournament_agents(spec: GameSpec, names: Sequence[str], pimc_worlds: int, seed: int) -> list[tuple[str, Any]]:
    """The named agents for one game; ``pimc`` with ``pimc_worlds`` worlds, ``model`` skipped (with a note)
    where the game has no shipped player."""
    from trickenv.agents import PIMCAgent, make_agent
    from trickenv.agents.policy import shipped_model_path

    out: list[tuple[str, Any]] = []
    for i, name in enumerate(names):
        if name == "model" and not shipped_model_path(spec.name).exists():
            print(f"{spec.name}: no shipped model, playing without it")
            continue
        if name == "pimc":
            out.append((name, PIMCAgent(spec, seed=seed + 1000 * (i + 1), worlds=pimc_worlds)))
        else:
            out.append((name, make_agent(name, spec, seed=seed + 1000 * (i + 1))))
    return out
