"""An evaluation's chunks as Ray tasks (``evaluate(..., ray=ADDRESS)``, ``trickenv eval --ray``).

Each chunk is one task (:func:`chunk_task`) that plays the same games as the chunk of a local run
(:func:`trickenv.agents.evaluation.play_deals`): it makes its agents from the run's :class:`Lineup` and the
chunk's seed, so where and in which order the tasks run changes nothing. :func:`play_deals_on_ray` hands the
chunks to :func:`trickenv.cluster.run_tasks` and puts their tables back in chunk order.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from trickenv.agents.journal import Journal, kept_chunks
from trickenv.agents.lineup import Lineup
from trickenv.agents.play_loop import play_chunk
from trickenv.agents.progress import Clock, Progress
from trickenv.agents.seatings import make_deals
from trickenv.agents.tables import Chunk, Table
from trickenv.games import make_spec
from trickenv.vector import VecEnv

__all__ = ["play_deals_on_ray", "chunk_task"]


def play_deals_on_ray(game: str, options: dict[str, Any], lineup: Lineup, plan: list[tuple[int, ...]], deals: int,
                      seed: int, chunk: int, threads: int, clock: Clock, bar: Progress, records: bool,
                      address: str | None, journal: Journal | None = None,
                      agent_timeout: float | None = None,
                      given_deals: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Table, bool]:
    """:func:`~trickenv.agents.evaluation.play_deals` with every chunk a Ray task
    (:func:`trickenv.cluster.run_tasks`): the tables are put back in chunk order, so the results equal a local
    run's. The bar counts the deals of finished chunks; a KeyboardInterrupt keeps the chunks finished so far.
    With a ``journal`` as there."""
    from trickenv.cluster import run_tasks  # at call time: a run_tasks put in its place (tests) is the one used

    spec = make_spec(game, **options)
    starts = list(range(0, deals, chunk))
    parts = kept_chunks(journal, deals, chunk, bar, clock)
    todo = [k for k in range(len(starts)) if k not in parts]
    jobs = [(game, options, lineup.portable(), plan, seed, starts[k], min(starts[k] + chunk, deals), k, threads,
             records, agent_timeout,
             None if given_deals is None else tuple(x[starts[k]:min(starts[k] + chunk, deals)] for x in given_deals))
            for k in todo]

    def done(i: int, result: tuple[Table, Clock]) -> None:
        table, part = result
        k = todo[i]
        parts[k] = table
        if journal is not None:
            journal.keep(k, table, part)
        clock.merge(part)
        bar.deals(len(table.scores))

    interrupted = False
    try:
        run_tasks(chunk_task, jobs, done, address=address)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    return Table.concat([parts[k] for k in sorted(parts)], len(plan), spec.num_players), interrupted


def chunk_task(game: str, options: dict[str, Any], lineup: Lineup, plan: list[tuple[int, ...]], seed: int,
               start: int, stop: int, k: int, threads: int, records: bool,
               agent_timeout: float | None = None,
               given_deals: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Table, Clock]:
    """One chunk of a run, as a Ray task (:func:`play_deals_on_ray`): the same games as chunk ``k`` of
    :func:`~trickenv.agents.evaluation.play_deals`; returns its table and its clock."""
    # Ray hands over the arrays inside agent objects read-only (zero-copy from its object store); an agent
    # writes into its buffers, so it plays with a copy of its own.
    lineup = copy.deepcopy(lineup)
    spec = make_spec(game, **options)
    deal_arr, dealers = make_deals(spec, seed, start, stop) if given_deals is None else (
        np.array(given_deals[0]), np.array(given_deals[1]))  # this chunk's given deals (copies: Ray's are read-only)
    current = Chunk(spec, np.asarray(plan, np.int64), deal_arr, dealers, first_deal=start)
    clock = Clock(lineup.names)
    vec = VecEnv(spec, (stop - start) * len(plan), seed=seed, threads=threads)
    t0 = time.perf_counter()
    play_chunk(vec, current, lineup.make(spec, k), clock, Progress(0, 0, "", False), agent_timeout)
    clock.play, clock.deals = time.perf_counter() - t0, stop - start
    return current.table(records), clock
