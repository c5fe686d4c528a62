"""The perfect-information solver: what each tool buys, and where exact solving stops being affordable.

    python benchmarks/bench_solver.py                       # every game, 2..6 tricks left
    python benchmarks/bench_solver.py --games koenigrufen --tricks 4 5 6 --positions 20

Each row solves the same random endgames (``trickenv.solver.random_endgames``: random
play up to ``tricks`` tricks before the end, some positions a few cards into the next
trick) for the value of every legal move of the seat to act, with the solver's tools
on or off: the transposition table, merging equivalent cards, and both (the default).
Alpha-beta pruning and move ordering are always on; "selfish" is max^n (every seat for
itself, no pruning). Columns: positions visited per endgame and milliseconds per
endgame (one thread). Kernels are compiled (or loaded) before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import trickenv
from trickenv.agents.search_defaults import search_defaults
from trickenv.engine.layout import TO_ACT
from trickenv.solver import Solver, random_endgames

TOOLS = {  # name -> Solver options
    "none": {"merge": False, "use_tt": False},
    "table": {"merge": False, "use_tt": True},
    "merge": {"merge": True, "use_tt": False},
    "table+merge": {},
    "selfish (max^n)": {"opponents": "selfish"},
}


def time_solver(game: str, tricks: int, positions: int, options: dict, budget: float) -> tuple[float, float]:
    """(positions visited per endgame, ms per endgame) for every legal move's value; stops early after ``budget`` s."""
    spec = trickenv.make_spec(game)
    v, _ = random_endgames(game, tricks, positions, seed=100 + tricks)
    seats = v.state.s[:, TO_ACT].astype(np.int64)
    Solver(spec, **options).move_values(v.state, [0], seats[:1])  # compile / load
    solver = Solver(spec, tiebreak=search_defaults(spec).tiebreak, **options)
    done, start = 0, time.perf_counter()
    for g in range(positions):
        solver.move_values(v.state, [g], seats[g:g + 1])
        done += 1
        if time.perf_counter() - start > budget:
            break
    return solver.nodes / done, (time.perf_counter() - start) / done * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=list(trickenv.GAMES), choices=list(trickenv.GAMES))
    ap.add_argument("--tricks", nargs="+", type=int, default=[2, 3, 4, 5, 6], help="tricks left in the endgames")
    ap.add_argument("--positions", type=int, default=30, help="endgames per row")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds per row at most (fewer endgames then)")
    ap.add_argument("--tools", nargs="+", default=list(TOOLS), choices=list(TOOLS))
    args = ap.parse_args()
    print("| game | tricks left | tools | positions visited | ms per endgame |")
    print("|---|---:|---|---:|---:|")
    for game in args.games:
        for tricks in args.tricks:
            for name in args.tools:
                nodes, ms = time_solver(game, tricks, args.positions, TOOLS[name], args.budget)
                print(f"| {game} | {tricks} | {name} | {nodes:,.0f} | {ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
