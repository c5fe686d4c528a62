"""Duplicate-deal evaluation of agents: ``evaluate(game, agents, deals=N, seed=S) -> Results``.

How a run works, top to bottom (:func:`evaluate` follows it step by step):

1. **Seatings** (:mod:`trickenv.agents.seatings`). A *seating* says which agent
   sits in which seat. Every deal is played once in each seating of a fixed
   list (:func:`make_seatings`), so luck of the cards cancels: each agent gets
   every hand in every seat as often as every other agent. For the seatings of
   each game see :func:`make_seatings` and docs/guides/evaluation.md.
2. **Deals** (:func:`make_deals`). Deal ``i`` is game ``i``'s first deal of
   ``make_vec(game, N, seed=S, **options).reset()`` (cards and dealer), read
   with ``current_deals()``; the same seed repeats the run exactly. The deals
   are made chunk by chunk with the same generator states.
3. **Play** (:mod:`trickenv.agents.play_loop`, :func:`play_chunk`). A chunk of
   ``K`` deals becomes one batched env of ``K x seatings`` games, reset with the
   repeated deals and dealers. At every step each agent gets one ``act_batch``
   call with the rows whose seat to act is its own
   (:func:`trickenv.agents.base.act_rows`: search agents, ``needs_state=True``,
   also get ``state=vec.state, games=rows``). A game is finished when its first
   deal ends (``vec.deal_end``): its record
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

The agents of a run (:mod:`trickenv.agents.lineup`): every chunk makes them
afresh from the run's :class:`Lineup`, so its games depend only on the run and
the chunk. That is what lets ``journal=DIR`` keep finished chunks on disk and
continue a killed run (:mod:`trickenv.agents.journal`, :func:`resume_evaluation`)
and ``ray=ADDRESS`` play the chunks as Ray tasks (:mod:`trickenv.agents.ray_chunks`)
with the results of a local run.

:func:`tournament` runs :func:`evaluate` in each game with its default options.
The public names of the modules above are importable from here too (the CLI,
the trainer, tests and notebooks import them from this module).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

# Re-exported: the parts of a run, importable from here as from their own modules.
from trickenv.agents.journal import (  # noqa: F401
    Journal,
    JournalError,
    deals_hash,
    describe_entry,
    kept_chunks,
    open_journal,
    player_files,
    recorded_call,
)
from trickenv.agents.lineup import Lineup, Recipe, _model_from_bytes, agent_seed, build_agents, unique_names  # noqa: F401
from trickenv.agents.play_loop import (
    check_actions,  # noqa: F401
    play_chunk,
)
from trickenv.agents.progress import Clock, Progress
from trickenv.agents.ray_chunks import (
    chunk_task,  # noqa: F401
    play_deals_on_ray,
)
from trickenv.agents.results import Results, format_table, tournament_table  # noqa: F401
from trickenv.agents.seatings import (  # noqa: F401
    BASE_PATTERNS,
    DESIGNS,
    MATCH_OPTIONS,
    check_options,
    deals_of,
    make_deals,
    make_seatings,
    rotations,
    seating_plan,
)
from trickenv.agents.statistics import (  # noqa: F401
    mean_ci,
    occupancy,
    rate_matches,
    rating_model,
    summarize,
    t_cdf,
    t_quantile,
    table_means,
)
from trickenv.agents.tables import (
    Chunk,
    Table,
    seat_metrics,  # noqa: F401
)
from trickenv.games import make_spec
from trickenv.games.base import GameSpec
from trickenv.vector import VecEnv

__all__ = [
    "Results", "evaluate", "Recipe", "Lineup", "make_seatings", "make_deals", "seat_metrics", "summarize", "mean_ci", "t_quantile",
    "unique_names", "format_table", "read_journal",
]

TOURNAMENT_GAMES = ("four_tricks", "farbwechsel", "koenigrufen")


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
    agent_timeout: float | None = None,
    given_deals: tuple[np.ndarray, np.ndarray] | None = None,
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
    fixed. ``timing``'s ``play_seconds`` and rates cover this call; the agents' seconds and decisions,
    ``chunk_seconds`` (the chunks' play time) and ``timed_deals`` (the deals it covers) add the time the
    journal's chunks took when they were played (a chunk kept by an older trickenv has none). ``agent_timeout``: seconds an agent may take a
    decision. An agent that raises, returns what is not one legal action per row, or takes longer stops the run
    with an :class:`~trickenv.agents.base.AgentError` naming it, the deal and the seat (a journal keeps the
    chunks finished before). ``given_deals``: ``(deals [D, players, cards], dealers [D])`` to play instead of
    the deals drawn from ``seed`` (a fixed deal set, e.g. a benchmark's; ``deals`` <= D; the seed still seeds
    the agents; a journal keeps such a run by the hash of the deals played).
    """
    t_start = time.perf_counter()
    options = dict(options or {})
    check_options(options)
    check_count("deals", deals)
    check_count("chunk", chunk)
    if agent_timeout is not None and not (isinstance(agent_timeout, (int, float)) and agent_timeout > 0):
        raise ValueError(f"agent_timeout must be a positive number of seconds, got {agent_timeout!r}")
    given = None  # the given deals' hash: a journal keeps a run of given deals by it
    if given_deals is not None:
        given_deals = (np.asarray(given_deals[0]), np.asarray(given_deals[1], np.int64))
        if len(given_deals[0]) < deals or len(given_deals[1]) < deals:
            raise ValueError(f"given_deals holds {len(given_deals[0])} deals; {deals} asked for")
        given = deals_hash(given_deals[0][:deals], given_deals[1][:deals])
    if seed is None:
        if journal is not None:
            raise JournalError("a journal continues one run: it needs a fixed seed (got seed=None)")
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if ratings:
        rating_model()  # fail now, not after the run

    # 1. the game, the agents and the seatings every deal is played in
    spec = make_spec(game, **options)
    lineup = Lineup.of(agents, spec, seed)
    names = lineup.names
    design, plan = seating_plan(seatings, spec, len(names))
    book = None if journal is None else open_journal(journal, game, options, agents, seed, deals, chunk, plan, records,
                                                     given)

    # 2.-4. the deals, chunk by chunk, played into one score table
    clock = Clock(names)
    bar = Progress(deals, -(-deals // chunk), f"{game} eval", progress)
    if ray:
        table, interrupted = play_deals_on_ray(game, options, lineup, plan, deals, seed, chunk, threads, clock, bar,
                                               records, None if ray is True else str(ray), book, agent_timeout,
                                               given_deals)
    else:
        table, interrupted = play_deals(spec, lineup, plan, deals, seed, chunk, threads, clock, bar, records, book,
                                        agent_timeout, given_deals)
    t_play = time.perf_counter() - t_start

    # 5.-6. statistics over the deals, the ratings, the results
    return _results(game, options, spec, names, design, plan, table, deals, seed, chunk, interrupted, clock,
                    t_start, t_play, ratings)


def _results(game: str, options: dict[str, Any], spec: GameSpec, names: list[str], design: str | None,
             plan: list[tuple[int, ...]], table: Table, deals: int, seed: int, chunk: int, interrupted: bool,
             clock: Clock, t_start: float, t_play: float, ratings: bool) -> Results:
    """Steps 5 and 6 of a run: the statistics over the deals of ``table``, the ratings (slow: one openskill
    match per deal-seating) and the :class:`Results`."""
    summary = summarize(names, plan, table, ratings=False)
    t0 = time.perf_counter()
    if ratings:
        try:
            summary["ratings"] = rate_matches(names, *table_means(plan, table, len(names)))
        except KeyboardInterrupt:  # a second Ctrl-C while rating: results without ratings
            interrupted = True
            summary["ratings"] = None
    t_ratings = time.perf_counter() - t0
    played = len(table.scores)
    timing = {
        "seconds": time.perf_counter() - t_start,
        "play_seconds": t_play,
        "ratings_seconds": t_ratings,
        "env_seconds": clock.env,
        "deals_per_second": played / t_play if t_play > 0 else math.nan,
        "games_per_second": played * len(plan) / t_play if t_play > 0 else math.nan,
        "agent_seconds": dict(zip(names, clock.agent_seconds, strict=True)),
        "agent_decisions": dict(zip(names, clock.agent_decisions, strict=True)),
        "chunk_seconds": clock.play,
        "timed_deals": clock.deals,
    }
    return Results(
        game=game, options=options, resolved_options=dict(spec.options), names=names, seatings=plan,
        seating_design=design, deals=played, deals_requested=int(deals), seed=int(seed), chunk=int(chunk),
        interrupted=interrupted, timing=timing, summary=summary, table_data=table,
    )


def read_journal(journal: str | Path, ratings: bool = False) -> Results:
    """The results of the chunks ``journal`` holds so far, playing nothing: a run under way in another process,
    or stopped, read back. Every chunk written counts, in chunk order (with ``ray`` they finish out of order);
    while chunks are missing, ``deals`` < ``deals_requested`` and ``interrupted`` is True. The agents are named
    as the run names them, but not made. The timing is the chunks' own clocks, as one run of them would report
    it (``play_seconds``: the time they took to play). A :class:`JournalError` if ``journal`` holds no run or
    no finished chunk."""
    t_read = time.perf_counter()
    call = recorded_call(journal, given_deals=True)
    spec = make_spec(call["game"], **call["options"])
    names = unique_names(e if isinstance(e, str) else e.name for e in call["agents"])
    design, plan = seating_plan(call["seatings"], spec, len(names))
    book = Journal(journal, json.loads((Path(journal) / "run.json").read_text()))
    clock = Clock(names)
    kept = kept_chunks(book, call["deals"], call["chunk"], Progress(call["deals"], 1, "", False), clock)
    if not kept:
        raise JournalError(f"journal {journal} holds no finished chunk yet")
    table = Table.concat([kept[k] for k in sorted(kept)], len(plan), spec.num_players)
    interrupted = len(table.scores) < call["deals"]
    return _results(call["game"], call["options"], spec, names, design, plan, table, call["deals"], call["seed"],
                    call["chunk"], interrupted, clock, t_read - clock.play, clock.play, ratings)


def resume_evaluation(journal: str | Path, ray: str | bool | None = None, progress: bool = True, threads: int = 1,
                      ratings: bool = True) -> Results:
    """Continue (or read back) the evaluation kept in ``journal`` with the settings of its ``run.json``: the same
    call as the one that began it, so it needs no other argument (``ray``, ``threads``, ``progress`` and
    ``ratings`` change how it runs, not its results)."""
    return evaluate(**recorded_call(journal), progress=progress, ratings=ratings, threads=threads, ray=ray,
                    journal=journal)


# ======================================================================= tournament

def tournament(agents: Sequence[str] = ("random", "rules", "pimc", "model"), deals: int = 100, seed: int = 0,
               games: Sequence[str] = TOURNAMENT_GAMES, pimc_worlds: int = 8,
               progress: bool = True, ray: str | bool | None = None) -> dict[str, Results]:
    """A duplicate tournament of ``agents`` in each of ``games`` (default variants): ``{game: Results}``
    (:func:`tournament_table` prints them as one table). ``ray``: as in :func:`evaluate`."""
    out: dict[str, Results] = {}
    for game in games:
        spec = make_spec(game)
        players = tournament_agents(spec, agents, pimc_worlds, seed)
        out[game] = evaluate(game, players, deals=deals, seed=seed, progress=progress, ratings=False, ray=ray)
        if out[game].interrupted:
            break
    return out


# ======================================================================= play (here; on Ray: ray_chunks)

def play_deals(spec: GameSpec, lineup: Lineup, plan: list[tuple[int, ...]], deals: int, seed: int, chunk: int,
               threads: int, clock: Clock, bar: Progress, records: bool = False,
               journal: Journal | None = None, agent_timeout: float | None = None,
               given_deals: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Table, bool]:
    """``(table, interrupted)``: deals ``0..deals-1`` played in every seating of ``plan``, ``chunk`` deals at a
    time. A KeyboardInterrupt stops the run and keeps the deals whose seatings have all finished. With a
    ``journal`` its finished chunks are read instead of played, and every chunk played is written to it."""
    plan_arr = np.asarray(plan, np.int64)
    parts: list[Table] = []
    envs: dict[int, VecEnv] = {}  # one env per batch size (the last chunk may be smaller)
    interrupted = False
    kept = kept_chunks(journal, deals, chunk, bar, clock)
    try:
        for start in range(0, deals, chunk):
            stop = min(start + chunk, deals)
            if start // chunk in kept:
                parts.append(kept[start // chunk])
                continue
            current: Chunk | None = None
            part = Clock(clock.names)
            try:
                deal_arr, dealers = deals_of(spec, seed, start, stop, given_deals)
                current = Chunk(spec, plan_arr, deal_arr, dealers, first_deal=start)
                b = (stop - start) * len(plan)
                if b not in envs:
                    envs[b] = VecEnv(spec, b, seed=seed, threads=threads)
                bar.chunk(start // chunk)
                t0 = time.perf_counter()
                play_chunk(envs[b], current, lineup.make(spec, start // chunk), part, bar, agent_timeout)
                part.play, part.deals = time.perf_counter() - t0, stop - start
            except KeyboardInterrupt:
                interrupted = True
            clock.merge(part)
            if current is not None:
                parts.append(current.table(records))
                if journal is not None and not interrupted:
                    journal.keep(start // chunk, parts[-1], part)
            if interrupted:
                break
    finally:
        bar.close()
    return Table.concat(parts, len(plan), spec.num_players), interrupted


# ======================================================================= checks and the tournament's agents

def check_count(what: str, value: Any) -> None:
    """ValueError unless ``value`` is a positive integer (``bool`` is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be a positive integer, got {value!r}")


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
