"""RLlib (new API stack): every seat of a trickenv game as an agent of a ``MultiAgentEnv``, with action masking.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``: ray[rllib] and torch);
``import trickenv`` does not import ray, this module does.

- :class:`TrickMultiAgentEnv`: turn-based ``MultiAgentEnv`` over the AEC env.
  Each agent's observation is ``{"observations": float32 [obs_size],
  "action_mask": float32 [num_actions]}``, the keys and dtypes RLlib's
  action-masking modules read. Only the seat to act gets an observation; every
  seat gets its reward on every step (the deal scores when a deal ends; RLlib
  keeps the reward of a seat without an observation until its next turn), so
  the acting agent is always in ``rewards``. An illegal action ends the episode
  with the game's penalty (``illegal_action="penalize"``): RLlib's env check
  steps unmasked random actions.
- :class:`MaskedPPOModule`: a small torch RLModule for PPO: an MLP policy whose
  illegal logits are masked, and an MLP value function.
- :func:`ppo_config`: PPO on one game with a shared policy (``policies="shared"``)
  or one policy per seat (``"per_seat"``).

``examples/rllib_train.py`` trains with it locally or on a Ray cluster
(docs/guides/rl-libraries.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from trickenv.envs import make

OBS_KEY, MASK_KEY = "observations", "action_mask"
POLICY_MODES = ("shared", "per_seat")


class TrickMultiAgentEnv(MultiAgentEnv):
    """A trickenv game for RLlib; ``config``: ``{"game": ..., "illegal_action": ..., **game options}``."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        game = config.pop("game", "four_tricks")
        illegal = config.pop("illegal_action", "penalize")
        self._env = make(game, illegal_action=illegal, dtype="float32", mask_dtype="float32",
                                  observation_key=OBS_KEY, mask_key=MASK_KEY, **config).unwrapped
        self.possible_agents = list(self._env.possible_agents)
        self.agents = list(self.possible_agents)
        space = self._env.observation_space(self.possible_agents[0])
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self._env.action_space(a) for a in self.possible_agents}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new episode; the observation of the seat to act."""
        self._env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        actor = self._env.agent_selection
        return {actor: self._env.observe(actor)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """The acting seat's action; the next seat's observation, or every seat's at the episode's end."""
        env = self._env
        actor = env.agent_selection
        env.step(int(action_dict[actor]))
        rewards = {a: float(env.rewards[a]) for a in self.possible_agents}
        if all(env.terminations.values()):
            obs = {a: env.observe(a) for a in self.possible_agents}
            terminated = {a: True for a in self.possible_agents}
            terminated["__all__"] = True
            truncated = {a: False for a in self.possible_agents}
            truncated["__all__"] = False
            return obs, rewards, terminated, truncated, {}
        nxt = env.agent_selection
        return {nxt: env.observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def render(self) -> str | None:
        """The table as text."""
        return self._env.spec.text.render(self._env.spec, self._env.game, 0)


def _mlp(n_in: int, hidden: list[int], n_out: int) -> torch.nn.Sequential:
    layers: list[torch.nn.Module] = []
    for h in hidden:
        layers += [torch.nn.Linear(n_in, h), torch.nn.ReLU()]
        n_in = h
    layers.append(torch.nn.Linear(n_in, n_out))
    return torch.nn.Sequential(*layers)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value MLPs over ``observations``; logits of actions with ``action_mask == 0`` are -1e9.

    ``model_config={"hidden": [256, 256]}`` sets the hidden layers of both.
    """

    def setup(self) -> None:
        """Build the two MLPs."""
        hidden = list((self.model_config or {}).get("hidden", [256, 256]))
        n_in = int(np.prod(self.observation_space[OBS_KEY].shape))
        self.pi = _mlp(n_in, hidden, int(self.action_space.n))
        self.vf = _mlp(n_in, hidden, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(obs[OBS_KEY])
        logits = logits.masked_fill(obs[MASK_KEY] <= 0, -1e9)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """State values for PPO's advantages."""
        return self.vf(batch[Columns.OBS][OBS_KEY]).squeeze(-1)


def policy_mapping(policies: str = "shared"):
    """``policy_mapping_fn`` of RLlib: every seat to ``"shared"``, or each seat to its own policy."""
    if policies == "shared":
        return lambda agent_id, episode, **kwargs: "shared"
    if policies == "per_seat":
        return lambda agent_id, episode, **kwargs: agent_id
    raise ValueError(f"policies must be one of {list(POLICY_MODES)}, got {policies!r}")


def ppo_config(game: str = "four_tricks", policies: str = "shared", num_env_runners: int = 0,
               hidden: tuple[int, ...] = (256, 256), env_config: dict | None = None, **training: Any):
    """A ``PPOConfig`` for masked PPO on ``game`` (every seat an agent); ``training`` goes to ``.training()``."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env_config = {"game": game, **(env_config or {})}
    agents = TrickMultiAgentEnv(env_config).possible_agents
    ids = ["shared"] if policies == "shared" else list(agents)
    mapping = policy_mapping(policies)
    spec = RLModuleSpec(module_class=MaskedPPOModule, model_config={"hidden": list(hidden)})
    train = dict(train_batch_size_per_learner=2000, minibatch_size=500, num_epochs=4, lr=3e-4)
    train.update(training)
    return (
        PPOConfig()
        .environment(TrickMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={i: spec for i in ids}))
        .training(**train)
    )


__all__ = ["TrickMultiAgentEnv", "MaskedPPOModule", "policy_mapping", "ppo_config"]
