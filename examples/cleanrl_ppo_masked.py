"""CleanRL-style PPO with invalid-action masking on one seat of a trickenv game, straight on the batched engine.

    python examples/cleanrl_ppo_masked.py --game four_tricks --total-timesteps 200000

One file in the manner of CleanRL's ``ppo.py``: the environment is
``gymnasium.make_vec("trickenv/FourTricks-v0", num_envs=N)``, a gymnasium
``VectorEnv`` over the batched engine (trickenv.gym_env.SeatVectorEnv: the
learner's seat is drawn per deal, the other seats are played by ``--opponents``
inside the env). The legal actions come in ``infos["action_mask"]``; the policy
puts -1e8 on the logits of illegal actions (Huang & Ontañón, "A Closer Look at
Invalid Action Masking in Policy Gradient Algorithms"). One episode is one deal;
the reward is the learner's deal score times the game's reward scale. At the
end the greedy policy and a uniformly random player are scored on the same
number of fresh deals.
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

import trickenv  # noqa: F401  (registers the trickenv/... gymnasium ids)

ENV_IDS = {"four_tricks": "trickenv/FourTricks-v0", "farbwechsel": "trickenv/Farbwechsel-v0",
           "koenigrufen": "trickenv/KingCalling-v0"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="four_tricks", choices=sorted(ENV_IDS))
    p.add_argument("--opponents", default="random", help="comma-separated agent names (random, rules, pimc...)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=200_000, help="learner decisions")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=32, help="steps per env per rollout")
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=10)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--eval-deals", type=int, default=2000, help="deals for the final greedy-vs-random score")
    return p.parse_args(argv)


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, num_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal actions get no probability
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def make_envs(args: argparse.Namespace, num_envs: int, seed: int, **kwargs) -> gym.vector.VectorEnv:
    return gym.make_vec(ENV_IDS[args.game], num_envs=num_envs, seat="random",
                        opponents=args.opponents.split(","), seed=seed, **kwargs)


def evaluate(args: argparse.Namespace, policy, deals: int, seed: int) -> float:
    """Mean unscaled deal score of ``policy(obs, mask) -> actions`` over ``deals`` fresh deals."""
    envs = make_envs(args, 256, seed)
    obs, infos = envs.reset(seed=seed)
    mask = infos["action_mask"]
    scores: list[np.ndarray] = []
    while sum(len(s) for s in scores) < deals:
        obs, _, term, _, infos = envs.step(policy(obs, mask))
        mask = infos["action_mask"]
        scores.append(infos["score"][term])
    return float(np.concatenate(scores)[:deals].mean())


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(1)  # small nets: one thread is many times faster than two on a busy box
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = True
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    envs = gym.wrappers.vector.RecordEpisodeStatistics(make_envs(args, args.num_envs, args.seed))
    obs_size = envs.single_observation_space.shape[0]
    num_actions = envs.single_action_space.n
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, s = args.num_envs, args.num_steps
    obs = torch.zeros((s, n, obs_size))
    masks = torch.zeros((s, n, num_actions), dtype=torch.bool)
    actions = torch.zeros((s, n), dtype=torch.long)
    logprobs = torch.zeros((s, n))
    rewards = torch.zeros((s, n))
    dones = torch.zeros((s, n))
    values = torch.zeros((s, n))

    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.from_numpy(next_obs)  # SeatVectorEnv returns new writable arrays
    next_mask = torch.from_numpy(infos["action_mask"])
    next_done = torch.zeros(n)
    returns: list[float] = []
    start = time.perf_counter()
    global_step = 0
    for iteration in range(1, num_iterations + 1):
        for step in range(s):
            global_step += n
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, term, trunc, infos = envs.step(action.numpy())
            rewards[step] = torch.from_numpy(reward)
            next_obs = torch.from_numpy(next_obs)
            next_mask = torch.from_numpy(infos["action_mask"])
            next_done = torch.from_numpy((term | trunc).astype(np.float32))
            if "episode" in infos:
                returns.extend(infos["episode"]["r"][infos["_episode"]].tolist())

        # Same-step autoreset: dones[t + 1] marks that the step taken at t ended its episode.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(s)):
                if t == s - 1:
                    nextnonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nextnonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns_ = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns_.reshape(-1)
        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for lo in range(0, batch_size, minibatch_size):
                mb = b_inds[lo:lo + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.view(-1) - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        if iteration % 10 == 0 or iteration == num_iterations:
            recent = np.mean(returns[-500:]) if returns else float("nan")
            print(f"step {global_step}: mean episodic return (last 500 deals) {recent:.3f}, "
                  f"{global_step / (time.perf_counter() - start):.0f} steps/s", flush=True)
    train_time = time.perf_counter() - start

    def greedy(o: np.ndarray, m: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits = agent.actor(torch.from_numpy(o)).masked_fill(~torch.from_numpy(m), -1e8)
        return logits.argmax(dim=1).numpy()

    rng = np.random.default_rng(args.seed)

    def uniform(o: np.ndarray, m: np.ndarray) -> np.ndarray:
        return (rng.random(m.shape) * m).argmax(axis=1)

    result = {"steps": global_step, "train_seconds": train_time, "episodes": len(returns)}
    if args.eval_deals:
        result["greedy_score"] = evaluate(args, greedy, args.eval_deals, seed=10_000 + args.seed)
        result["random_score"] = evaluate(args, uniform, args.eval_deals, seed=10_000 + args.seed)
        print(f"mean deal score over {args.eval_deals} deals: PPO (greedy) {result['greedy_score']:.3f}, "
              f"random {result['random_score']:.3f}")
    print(f"{global_step} steps in {train_time:.1f}s ({global_step / train_time:.0f} steps/s)")
    envs.close()
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
