"""Random legal play, decision steps per second: the batched env, its kernels and the AEC env.

    python benchmarks/bench_envs.py                  # the targets table, then the detail tables
    python benchmarks/bench_envs.py --quick          # the targets table only
    python benchmarks/bench_envs.py --games four_tricks --variants all --repeats 5

Every figure is timed with process CPU time (``time.process_time``) on one numba
thread, so a busy machine slows it far less than it slows the wall clock; the
wall-clock figure follows in brackets. Each is the median of ``--repeats`` runs.

The targets table (the speed goals of the engine): the batched env at ``--batch`` games per call
(``threads=1``; every batch size and the AEC env run the same step kernel); a small batch
(``--small-batch``) twice, the kernel called alone and through ``VecEnv.step``, with what
each call costs beyond its games (the arguments' unboxing, Python); the random agent
(``act_batch``) timed apart; env and
policy together; the AEC loop (``agent_iter`` / ``last`` / ``step`` with
``RandomAgent.act``). Batched rows time ``step`` alone: it returns observation +
mask for every game. "+ records" rows also call ``deal_records()`` after every
step that ended some deals. The reset table compares a random reset with a
fixed-deal reset from an integer array (duplicate play). Kernels are compiled (or
loaded from numba's cache) before timing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np

import trickenv
from trickenv.agents.random_agent import RandomAgent
from trickenv.research.timing import Clock, bench_vec

# Default variant of each game, and every variant the tests run over (--variants all).
VARIANTS = {
    "four_tricks": [{}, {"deck": 52}, {"bidding": True}],
    "farbwechsel": [{}, {"num_players": 4}, {"switch_ranks": ("Q", "J")}],
    "koenigrufen": [{}, {"partner_from": "full_hand"}],
}
# The speed goals: batched decision steps/s on one thread, AEC steps/s, policy ns/decision.
TARGET_BATCHED = {"four_tricks": 20e6, "farbwechsel": 15e6, "koenigrufen": 15e6}
TARGET_AEC = 150e3
TARGET_POLICY_NS = 10.0


def bench_aec(game: str, options: dict, seconds: float) -> tuple[float, float]:
    """AEC decision steps per second (cpu, wall) with random legal play (RandomAgent.act)."""
    env = trickenv.make(game, **options)
    agent = RandomAgent(0)
    env.reset(seed=0)

    def episode() -> int:
        steps = 0
        env.reset()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(agent.act(obs))
            steps += 1
        return steps

    episode()  # compiles / loads kernels
    clock = Clock()
    steps = 0
    while clock.cpu < seconds:
        steps += clock.time(episode)
    return steps / clock.cpu, steps / clock.wall


def bench_reset(game: str, options: dict, batch: int, repeats: int = 5) -> tuple[float, float]:
    """(random reset, fixed-deal reset) in CPU microseconds per game, best of ``repeats``."""
    v = trickenv.make_vec(game, batch, seed=0, **options)
    v.reset()
    deals, dealers = v.current_deals()
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, kwargs in enumerate(({}, {"deals": deals, "dealers": dealers})):
            t0 = time.process_time()
            v.reset(**kwargs)
            best[k] = min(best[k], time.process_time() - t0)
    return best[0] / batch * 1e6, best[1] / batch * 1e6


def median_runs(fn: Callable, repeats: int) -> tuple[float, ...]:
    """Each output of ``fn()``, the median over ``repeats`` calls."""
    runs = [fn() for _ in range(repeats)]
    return tuple(statistics.median(r[k] for r in runs) for k in range(len(runs[0])))


def label(game: str, options: dict) -> str:
    return game + "".join(f" {k}={v}" for k, v in options.items())


def targets(goals: list[tuple[bool, str]]) -> str:
    """The goals of one row, missed ones first: ``missed: a, b; met: c``."""
    parts = [f"{word}: {', '.join(text for ok, text in goals if ok == met)}"
             for word, met in (("missed", False), ("met", True)) if any(ok == met for ok, _ in goals)]
    return "; ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--variants", choices=("default", "all"), default="default",
                    help="default: each game's default options; all: the variants in VARIANTS")
    ap.add_argument("--batch", type=int, default=4096, help="games per call in the targets table")
    ap.add_argument("--small-batch", type=int, default=64, help="small batch in the targets table")
    ap.add_argument("--batches", nargs="+", type=int, default=[256, 1024, 4096, 16384],
                    help="batch sizes of the detail table")
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per timed run")
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure (the median is shown)")
    ap.add_argument("--threads", nargs="+", type=int, default=[1],
                    help="thread counts of the detail table (above 1: read the wall clock)")
    ap.add_argument("--reset-batch", type=int, default=65536, help="games per reset in the reset table")
    ap.add_argument("--quick", action="store_true", help="print the targets table only")
    args = ap.parse_args()

    import numba

    print(f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads, numpy {np.__version__}; "
          f"CPU time per figure, median of {args.repeats} (wall clock in brackets)")
    print()
    print(f"Targets (1 thread). env: VecEnv.step of {args.batch} games; small: {args.small_batch} games, the "
          f"kernel alone, then VecEnv.step (the kernel and Python's cost per call); call µs: what a call costs "
          f"beyond the env ns/step of its games; policy: RandomAgent.act_batch.")
    print()
    print("| variant | env ns/step | env M steps/s | target | small ns/step: kernel, "
          "step | call µs: kernel, step | policy ns/decision | env+policy M steps/s | AEC steps/s |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for game in args.games:
        for options in (VARIANTS[game] if args.variants == "all" else VARIANTS[game][:1]):
            env_c, env_w, pol_c, pol_w = median_runs(
                lambda game=game, options=options: bench_vec(game, options, args.batch, args.seconds), args.repeats)
            bare_c, _, _, _ = median_runs(
                lambda game=game, options=options: bench_vec(game, options, args.small_batch, args.seconds,
                                                           kernel="bare"), args.repeats)
            small_c, _, _, _ = median_runs(
                lambda game=game, options=options: bench_vec(game, options, args.small_batch, args.seconds),
                args.repeats)
            aec_c, aec_w = median_runs(lambda game=game, options=options: bench_aec(game, options, args.seconds),
                                         args.repeats)
            rate = 1e3 / env_c
            goals = [(rate * 1e6 >= TARGET_BATCHED[game], f">= {TARGET_BATCHED[game] / 1e6:.0f}M"),
                     (pol_c <= TARGET_POLICY_NS, f"policy <= {TARGET_POLICY_NS:.0f} ns"),
                     (aec_c >= TARGET_AEC, f"AEC >= {TARGET_AEC / 1e3:.0f}k")]
            print(f"| {label(game, options)} | {env_c:.1f} ({env_w:.1f}) | {rate:.1f} ({1e3 / env_w:.1f}) "
                  f"| {targets(goals)} "
                  f"| {bare_c:.1f}, {small_c:.1f} "
                  f"| {(bare_c - env_c) * args.small_batch / 1e3:.1f}, {(small_c - env_c) * args.small_batch / 1e3:.1f} "
                  f"| {pol_c:.1f} ({pol_w:.1f}) | {1e3 / (env_c + pol_c):.1f} ({1e3 / (env_w + pol_w):.1f}) "
                  f"| {aec_c:,.0f} ({aec_w:,.0f}) |", flush=True)
    if args.quick:
        return

    print()
    print("| variant | env | batch | threads | decision steps/s | policy ns/decision |")
    print("|---|---|---:|---:|---:|---:|")
    for game in args.games:
        for options in (VARIANTS[game] if args.variants == "all" else VARIANTS[game][:1]):
            for b in args.batches:
                for k in args.threads:
                    env_c, env_w, pol_c, pol_w = median_runs(
                        lambda game=game, options=options, b=b, k=k: bench_vec(game, options, b, args.seconds, k),
                        args.repeats)
                    ns = env_w if k > 1 else env_c  # CPU time adds up over threads
                    print(f"| {label(game, options)} | batched (obs + mask) | {b} | {k} | {1e9 / ns:,.0f} "
                          f"| {pol_c:.1f} |", flush=True)
                env_c, _, pol_c, _ = median_runs(
                    lambda game=game, options=options, b=b: bench_vec(game, options, b, args.seconds, records=True),
                    args.repeats)
                print(f"| {label(game, options)} | batched + records | {b} | 1 | {1e9 / env_c:,.0f} "
                      f"| {pol_c:.1f} |", flush=True)
    print()
    print("| game | batch | random reset µs/game | fixed-deal reset µs/game | ratio |")
    print("|---|---:|---:|---:|---:|")
    for game in args.games:
        rand, fixed = bench_reset(game, VARIANTS[game][0], args.reset_batch)
        print(f"| {game} | {args.reset_batch} | {rand:.2f} | {fixed:.2f} | {fixed / rand:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
