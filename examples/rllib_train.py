"""PPO with action masking on a trickenv game with RLlib: every seat an agent, locally or on a Ray cluster.

    pip install torch==2.13.0 && pip install -e ".[rllib]"     # its own venv: ray pins gymnasium
    python examples/rllib_train.py --game four_tricks --iterations 3
    python examples/rllib_train.py --game koenigrufen --policies per_seat --num-env-runners 2

Without ``RAY_ADDRESS`` the script starts a local Ray instance of ``--num-cpus`` CPUs.
With ``RAY_ADDRESS`` set (or ``--address``) it connects to that cluster and runs
unchanged; scale out with ``--num-env-runners`` (docs/guides/cluster.md shows the
cluster recipe). ``--checkpoint DIR`` saves the trained algorithm.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="four_tricks", choices=["four_tricks", "farbwechsel", "koenigrufen"])
    p.add_argument("--iterations", type=int, default=3, help="training iterations")
    p.add_argument("--policies", default="shared", choices=["shared", "per_seat"],
                   help="one policy for all seats, or one per seat")
    p.add_argument("--num-env-runners", type=int, default=0, help="remote env runners (0: sample in the driver)")
    p.add_argument("--num-learners", type=int, default=0, help="remote learners (0: learn in the driver)")
    p.add_argument("--batch-size", type=int, default=2000, help="env steps per training batch")
    p.add_argument("--minibatch-size", type=int, default=500)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--address", default=None, help="Ray cluster address (default: $RAY_ADDRESS, else a local instance)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local instance")
    p.add_argument("--checkpoint", default=None, help="save the algorithm here at the end")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def start_ray(address: str | None, num_cpus: int) -> None:
    import ray

    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        # An existing cluster: resources are the cluster's (num_cpus may not be given).
        ray.init(address=address)
    else:
        # address="local" always starts a fresh instance (a plain ray.init() would join a cluster
        # whose head was left running on this machine).
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    import ray
    import torch

    from trickenv.rllib_env import ppo_config

    torch.set_num_threads(1)  # small nets on few cores: one thread is many times faster
    start_ray(args.address, args.num_cpus)
    config = (
        ppo_config(args.game, policies=args.policies, num_env_runners=args.num_env_runners,
                   train_batch_size_per_learner=args.batch_size, minibatch_size=args.minibatch_size,
                   num_epochs=args.epochs, lr=args.lr)
        .learners(num_learners=args.num_learners)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    result: dict = {}
    t0 = time.perf_counter()
    for i in range(args.iterations):
        t = time.perf_counter()
        result = algo.train()
        runners = result.get("env_runners", {})
        returns = {k: round(float(v), 2) for k, v in sorted(runners.get("agent_episode_returns_mean", {}).items())}
        print(f"iteration {i + 1}: {time.perf_counter() - t:.1f}s  "
              f"env steps {int(runners.get('num_env_steps_sampled_lifetime', 0))}  "
              f"episodes {int(runners.get('num_episodes_lifetime', 0))}  "
              f"mean return per seat {returns}", flush=True)
    print(f"trained {args.iterations} iterations in {time.perf_counter() - t0:.1f}s")
    if args.checkpoint:
        path = algo.save_to_path(os.path.abspath(args.checkpoint))
        print(f"saved to {path}")
    algo.stop()
    ray.shutdown()
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
