"""Random legal play, decision steps per second: the AEC env and the batched env.

    python benchmarks/bench_envs.py                 # all games, default variants
    python benchmarks/bench_envs.py --games four_tricks --batches 256 4096 --seconds 2

AEC rows time the whole agent_iter / last / step loop (the mask read from the
observation, a uniform random legal action: policy included, it is cheap).
Batched rows time ``step`` alone (it returns observation + mask for every
game); the numba random policy is timed apart and shown in its own column.
"+ records" rows also call ``deal_records()`` after every step that ended some
deals (the research loop of the README). The reset table compares a random
reset with a fixed-deal reset from an integer array (duplicate play).
Kernels are compiled (or loaded from numba's cache) before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import trickenv
from trickenv.agents.random_agent import RandomAgent

VARIANTS = {
    "four_tricks": {},
    "farbwechsel": {},
    "koenigrufen": {},
}


def bench_aec(game: str, options: dict, seconds: float) -> float:
    """AEC decision steps per second with random legal play."""
    env = trickenv.make(game, **options)
    agent = RandomAgent(0)
    env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    warm = True
    while True:
        env.reset()
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(agent.act(obs))
            steps += 1
        if warm:  # first episode compiles / loads kernels
            warm, steps, start = False, 0, time.perf_counter()
        elif time.perf_counter() - start > seconds:
            return steps / (time.perf_counter() - start)


def bench_vec(game: str, options: dict, batch: int, seconds: float, threads: int,
              records: bool = False) -> tuple[float, float]:
    """(env steps per second, policy ns per decision) of the batched env."""
    v = trickenv.make_vec(game, batch, seed=0, threads=threads, **options)
    agent = RandomAgent(0)
    obs, mask, player = v.reset()
    for _ in range(3):  # warm up
        obs, mask, player, rew, done = v.step(agent.act_batch(obs, mask))
    env_t = pol_t = 0.0
    calls = 0
    while env_t + pol_t < seconds:
        t0 = time.perf_counter()
        actions = agent.act_batch(obs, mask)
        t1 = time.perf_counter()
        obs, mask, player, rew, done = v.step(actions)
        if records and v.deal_end.any():
            v.deal_records()
        t2 = time.perf_counter()
        pol_t += t1 - t0
        env_t += t2 - t1
        calls += 1
    return calls * batch / env_t, pol_t / (calls * batch) * 1e9


def bench_reset(game: str, options: dict, batch: int, repeats: int = 5) -> tuple[float, float]:
    """(random reset, fixed-deal reset) in microseconds per game, best of ``repeats``."""
    v = trickenv.make_vec(game, batch, seed=0, **options)
    v.reset()
    deals, dealers = v.current_deals()
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, kwargs in enumerate(({}, {"deals": deals, "dealers": dealers})):
            t0 = time.perf_counter()
            v.reset(**kwargs)
            best[k] = min(best[k], time.perf_counter() - t0)
    return best[0] / batch * 1e6, best[1] / batch * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--batches", nargs="+", type=int, default=[256, 1024, 4096, 16384])
    ap.add_argument("--seconds", type=float, default=3.0, help="timing budget per row")
    ap.add_argument("--threads", nargs="+", type=int, default=None,
                    help="numba thread counts to time (default: 1 and all)")
    ap.add_argument("--reset-batch", type=int, default=65536, help="games per reset in the reset table")
    args = ap.parse_args()

    import numba

    print(f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads, numpy {np.__version__}")
    print()
    threads = args.threads or sorted({1, numba.config.NUMBA_NUM_THREADS})
    print("| game | env | batch | threads | decision steps/s | policy ns/decision |")
    print("|---|---|---:|---:|---:|---:|")
    for game in args.games:
        options = VARIANTS[game]
        rate = bench_aec(game, options, args.seconds)
        print(f"| {game} | AEC (agent_iter/last/step) | 1 | 1 | {rate:,.0f} | incl. |", flush=True)
        for b in args.batches:
            for k in threads:
                rate, pol = bench_vec(game, options, b, args.seconds, k)
                print(f"| {game} | batched (obs + mask) | {b} | {k} | {rate:,.0f} | {pol:.1f} |", flush=True)
            rate, pol = bench_vec(game, options, b, args.seconds, 1, records=True)
            print(f"| {game} | batched + records | {b} | 1 | {rate:,.0f} | {pol:.1f} |", flush=True)
    print()
    print("| game | batch | random reset µs/game | fixed-deal reset µs/game | ratio |")
    print("|---|---:|---:|---:|---:|")
    for game in args.games:
        rand, fixed = bench_reset(game, VARIANTS[game], args.reset_batch)
        print(f"| {game} | {args.reset_batch} | {rand:.2f} | {fixed:.2f} | {fixed / rand:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
