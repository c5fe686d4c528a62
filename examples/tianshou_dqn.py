"""Tianshou DQN for one seat of a trickenv game against rule-based opponents, through tianshou.env.PettingZooEnv.

    python examples/tianshou_dqn.py --game four_tricks --steps 20000
    python examples/tianshou_dqn.py --game koenigrufen --opponents random --seat 2

Every seat of the AEC env is an agent of tianshou's ``MultiAgentOffPolicyAlgorithm``:
the learner's seat is a DQN (masked: ``DiscreteQLearningPolicy`` never picks an
illegal action), the other seats are trickenv agents (``rules``, ``random``...)
wrapped as tianshou algorithms that do not learn (:class:`TrickAgentAlgorithm`).
Infos stay on: trickenv's AEC infos are fixed-shape numeric arrays at every step,
so the replay buffer stores the deal records with the transitions.

Tianshou's multi-agent buffer interleaves the seats' moves; a deal's scores are
paid on the move that ends the deal, which is often an opponent's. An n-step
return over one round of the table (``n = players``) carries the learner's
score back to its own last move.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, TrainingStats
from tianshou.algorithm.algorithm_base import Policy as BasePolicy
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import trickenv
from trickenv.single_seat import resolve_agent


class TrickAgentAlgorithm(OffPolicyAlgorithm):
    """A trickenv agent (``act_batch(obs, mask)``) as a tianshou algorithm that acts and never learns."""

    class AgentPolicy(BasePolicy):
        def __init__(self, action_space, agent) -> None:
            super().__init__(action_space=action_space)
            self.agent = agent

        def forward(self, batch: Batch, state=None, **kwargs) -> Batch:
            obs = np.asarray(batch.obs.obs, np.int8)
            mask = np.asarray(batch.obs.mask, np.bool_)
            return Batch(act=np.array(self.agent.act_batch(obs, mask), np.int64))

    def __init__(self, action_space, agent) -> None:
        super().__init__(policy=self.AgentPolicy(action_space, agent))

    def _update_with_batch(self, batch) -> TrainingStats:
        return TrainingStats()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="four_tricks", choices=["four_tricks", "farbwechsel", "koenigrufen"])
    p.add_argument("--opponents", default="rules", help="agent name of the other seats (rules, random, ...)")
    p.add_argument("--seat", type=int, default=0, help="the learner's seat")
    p.add_argument("--steps", type=int, default=20_000, help="env steps (all seats' moves) of training")
    p.add_argument("--envs", type=int, default=4, help="AEC envs collected in parallel")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--eval-episodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def make_env(game: str) -> PettingZooEnv:
    # env() as it is: int8 observation and mask under the keys PettingZooEnv reads; infos on.
    return PettingZooEnv(trickenv.make(game))


def marl(args: argparse.Namespace, env: PettingZooEnv, learner: OffPolicyAlgorithm | None,
         player: str) -> MultiAgentOffPolicyAlgorithm:
    """Seat ``args.seat`` is ``learner`` (or the agent ``player``), the others are ``args.opponents``."""
    spec = env.env.unwrapped.spec
    algos: list[OffPolicyAlgorithm] = []
    for seat in range(len(env.agents)):
        if seat == args.seat and learner is not None:
            algos.append(learner)
        else:
            name = player if seat == args.seat else args.opponents
            algos.append(TrickAgentAlgorithm(env.action_space, resolve_agent(name, spec, args.seed + 1 + seat)))
    return MultiAgentOffPolicyAlgorithm(algorithms=algos, env=env)


def seat_score(algorithm: MultiAgentOffPolicyAlgorithm, args: argparse.Namespace, seed: int) -> float:
    """Mean deal score of seat ``args.seat`` over ``args.eval_episodes`` deals."""
    envs = DummyVectorEnv([lambda: make_env(args.game) for _ in range(args.envs)])
    envs.seed(seed)
    stats = Collector[CollectStats](algorithm, envs).collect(n_episode=args.eval_episodes, reset_before_collect=True)
    return float(np.asarray(stats.returns)[:, args.seat].mean())


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    # Episode returns are [episodes, seats] in a multi-agent run; tianshou's stats log each time that it
    # flattens them. The per-seat numbers are computed below.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    torch.set_num_threads(1)  # small nets: one thread is many times faster than two on a busy box
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env(args.game)
    players = len(env.agents)
    obs_shape = env.observation_space["observation"].shape
    net = Net(state_shape=obs_shape, action_shape=int(env.action_space.n), hidden_sizes=[args.hidden, args.hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=0.99, n_step_return_horizon=players,
              target_update_freq=200)
    algorithm = marl(args, env, dqn, "random")

    train_envs = DummyVectorEnv([lambda: make_env(args.game) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.game) for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 100)
    buffer = VectorReplayBuffer(max(20_000, args.steps), args.envs)
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.envs)  # warm-up: fill the buffer a little
    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=2,
            epoch_num_steps=max(1, args.steps // 2),
            collection_step_num_env_steps=10 * args.envs,
            test_step_num_episodes=args.envs * 5,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.25,
            multi_agent_return_reduction=lambda returns: returns[:, args.seat],  # score the learner's seat
            test_in_training=False,
            show_progress=False,
        )
    )
    train_time = time.perf_counter() - start

    # The replay buffer kept the infos: one deal record per finished deal.
    info = buffer[buffer.sample_indices(0)].info
    deal_ends = np.asarray(info.deal_end, bool)
    out = {"env_steps": int(result.train_step), "train_seconds": train_time, "gradient_steps": int(result.update_step),
           "deals_in_buffer": int(deal_ends.sum()), "buffer_scores_shape": np.asarray(info.scores)[deal_ends].shape}
    if args.eval_episodes:
        out["dqn_score"] = seat_score(algorithm, args, seed=10_000 + args.seed)
        out["random_score"] = seat_score(marl(args, env, None, "random"), args, seed=10_000 + args.seed)
        print(f"seat {args.seat} mean deal score over {args.eval_episodes} deals against {args.opponents}: "
              f"DQN {out['dqn_score']:.3f}, random {out['random_score']:.3f}")
    print(f"{out['env_steps']} env steps, {out['gradient_steps']} gradient steps in {train_time:.1f}s; "
          f"{out['deals_in_buffer']} deal records in the replay buffer")
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
