"""What a Ray task costs trickenv (docs/how-it-was-found/integrations.md).

    python benchmarks/bench_cluster.py [--address HEAD:PORT] [--search-deals 16]

Rows (one run, one machine: compare rows of the same run):

- Ray's start (``ray.init`` of a local instance, or joining ``--address``);
- a Ray task that does nothing, 200 of them: the overhead per task, wall time over tasks;
- ``trickenv eval koenigrufen --agents rules,random`` over 4,096 deals, 64 deals a chunk: locally and as Ray
  tasks (64 tasks), and the wall time per chunk task;
- the search agent's cost per deal (``four_tricks``, search against pimc, every seating) with 8 and with 32 deals
  a chunk: the search is batched over the games of a chunk, so small chunks cost more per deal.
"""

from __future__ import annotations

import argparse
import time


# The rows' games and agents: a fast evaluation (the overhead shows) and a search (the work dominates).
SETTINGS = {"eval": ("koenigrufen", ["rules", "random"]), "search": ("four_tricks", ["search", "pimc"])}


def nothing(x: int) -> int:
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--address", default=None, help="a running cluster (default: a local Ray instance)")
    ap.add_argument("--search-deals", type=int, default=16, help="deals of the search rows")
    args = ap.parse_args()

    import ray

    from trickenv.agents.evaluation import evaluate
    from trickenv.cluster import connect, run_tasks

    rows = []
    t = time.perf_counter()
    connect(args.address)
    rows.append(("Ray start (connect)", f"{time.perf_counter() - t:.2f} s", ""))
    cpus = int(ray.cluster_resources().get("CPU", 0))
    run_tasks(nothing, [(0,)] * 4, lambda k, r: None)  # workers up
    n = 200
    t = time.perf_counter()
    run_tasks(nothing, [(k,) for k in range(n)], lambda k, r: None)
    s = time.perf_counter() - t
    rows.append((f"{n} empty tasks ({cpus} CPUs)", f"{s:.2f} s", f"{1000 * s / n:.1f} ms a task (wall)"))

    game, agents = SETTINGS["eval"]
    kw = dict(deals=4096, seed=1, chunk=64, progress=False, ratings=False)
    evaluate(game, agents, deals=64, seed=0, chunk=64, progress=False, ratings=False)  # compile
    t = time.perf_counter()
    evaluate(game, agents, **kw)
    local = time.perf_counter() - t
    rows.append((f"eval {game} {','.join(agents)} 4,096 deals, 64 a chunk, local (1 core)", f"{local:.2f} s",
                 f"{1000 * local / 64:.0f} ms a chunk"))
    evaluate(game, agents, ray=args.address or True, deals=256, seed=0, chunk=64,
             progress=False, ratings=False)  # the workers import and load the numba cache once
    t = time.perf_counter()
    evaluate(game, agents, ray=args.address or True, **kw)
    remote = time.perf_counter() - t
    rows.append((f"the same as 64 Ray tasks ({cpus} CPUs)", f"{remote:.2f} s",
                 f"{1000 * remote / 64 * min(cpus, 64):.0f} ms a task on a CPU"))

    game, agents = SETTINGS["search"]
    for chunk in (8, 32):
        d = args.search_deals
        t = time.perf_counter()
        res = evaluate(game, agents, deals=d, seed=2, chunk=chunk, progress=False, ratings=False)
        s = time.perf_counter() - t
        rows.append((f"{game} {','.join(agents)} {d} deals, {chunk} a chunk, local (1 core)", f"{s:.1f} s",
                     f"{s / d:.2f} s a deal ({len(res.seatings)} seatings)"))

    print("| what | wall | per unit |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
