"""OpenSpiel's ISMCTS on trickenv's games: milliseconds a simulation, with each evaluator of a leaf.

    python benchmarks/bench_ismcts.py                          # every game, 200 simulations, 6 positions
    python benchmarks/bench_ismcts.py --games four_tricks --sims 500 --positions 10

Each row asks ``ismcts:SIMS`` (:mod:`trickenv.agents.openspiel_bots`) for a move in the same positions: random
deals, a few random moves in, at the first decision with a choice. ``playouts=engine`` plays each leaf's
random playout in compiled code; ``playouts=openspiel`` is OpenSpiel's own ``RandomRolloutEvaluator``, a
Python call a move. Both draw their worlds from the game's ``resample_worlds``. A first position, not timed,
compiles the kernels (or loads them). Columns: ms a decision and µs a simulation (one thread).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import trickenv
from trickenv import openspiel
from trickenv.agents import make_agent


def positions(game: str, count: int, seed: int) -> list:
    """``count`` OpenSpiel states of ``game``: a random deal, up to 5 random moves, then the first choice."""
    g = openspiel.game_for_spec(trickenv.make_spec(game))
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = g.new_initial_state()
        while state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        for _ in range(int(rng.integers(0, 6))):
            state.apply_action(int(rng.choice(state.legal_actions())))
        while not state.is_terminal() and len(state.legal_actions()) < 2:
            state.apply_action(state.legal_actions()[0])
        if not state.is_terminal():
            out.append(state)
    return out


def time_ismcts(game: str, sims: int, playouts: str, count: int) -> float:
    """Seconds a decision of ``ismcts:sims:playouts=...`` over ``count`` positions (after one untimed)."""
    agent = make_agent(f"ismcts:{sims}:playouts={playouts}", game, seed=3)
    first, *rest = positions(game, count + 1, seed=0)
    agent.choose(first)
    start = time.perf_counter()
    for state in rest:
        agent.choose(state)
    return (time.perf_counter() - start) / count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=list(trickenv.GAMES), choices=list(trickenv.GAMES))
    ap.add_argument("--sims", type=int, default=200, help="simulations a decision")
    ap.add_argument("--positions", type=int, default=6, help="positions timed a row")
    ap.add_argument("--playouts", nargs="+", default=["openspiel", "engine"], choices=["openspiel", "engine"])
    args = ap.parse_args(argv)
    print(f"| game | playouts | ms a decision ({args.sims} simulations) | µs a simulation |")
    print("|---|---|---:|---:|")
    for game in args.games:
        for playouts in args.playouts:
            seconds = time_ismcts(game, args.sims, playouts, args.positions)
            print(f"| {game} | {playouts} | {seconds * 1e3:.0f} | {seconds / args.sims * 1e6:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
