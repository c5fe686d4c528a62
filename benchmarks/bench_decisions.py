"""The decisions before the play taken from learned values: microseconds a decision at play time.

    python benchmarks/bench_decisions.py
    python benchmarks/bench_decisions.py --batch 1,256 --repeat 200

For every value file shipped (``agents/models/decisions/``), :class:`trickenv.agents.decisions.LearnedDecisions`
chooses at the first turn of its decision in deals of its variant (the rule-based agent plays up to it), in
batches of each size; the rule-based agent's choice at the same turns is the row beside it. Columns: µs a decision (one thread; a first call, not timed, loads the
file and warms the kernels).
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import trickenv  # noqa: E402
from trickenv.agents import make_agent  # noqa: E402
from trickenv.agents.decisions import LearnedDecisions, shipped_value_files  # noqa: E402
from trickenv.vector import VecEnv  # noqa: E402


def per_decision(choose, obs: np.ndarray, mask: np.ndarray, repeat: int) -> float:
    """µs a decision of ``choose(obs, mask)``."""
    choose(obs, mask)
    t0 = time.perf_counter()
    for _ in range(repeat):
        choose(obs, mask)
    return 1e6 * (time.perf_counter() - t0) / (repeat * len(obs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", default="1,256", help="batch sizes (default 1,256)")
    ap.add_argument("--repeat", type=int, default=100, help="timed calls a row (default 100)")
    args = ap.parse_args()
    print("| variant | decision | batch | learned µs | rules µs |\n|---|---|---:|---:|---:|")
    for path in shipped_value_files():
        with np.load(path) as f:
            meta = json.loads(str(f["meta"]))
        spec = trickenv.make_spec(meta["game"], **meta["options"])
        learned = LearnedDecisions(spec, path)
        rules = make_agent("rules", spec)
        d = learned.tables[0].decision
        for b in map(int, args.batch.split(",")):
            vec = VecEnv(spec, b, seed=1)
            obs, mask, _ = vec.reset()
            while not mask[:, d.first:d.first + d.count].any(axis=1).all():  # the rules' moves up to the decision
                obs, mask, _, _, _ = vec.step(rules.act_batch(obs, mask))
            row = [per_decision(learned.choose, obs, mask, args.repeat),
                   per_decision(rules.act_batch, obs, mask, args.repeat)]
            variant = " ".join(f"{k}={v}" for k, v in meta["options"].items() if v is not None)
            print(f"| {meta['game']} {variant} | {meta['decision']} | {b} | {row[0]:.1f} | {row[1]:.1f} |")


if __name__ == "__main__":
    main()
