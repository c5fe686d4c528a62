"""Asymmetric actor-critic: the value network reads every hand, the policy only its own observation.

PerfectDou's "perfect-training-imperfect-execution": during training the critic
may see what no player can (every seat's hand, King Calling's partner:
:mod:`trickenv.privileged`), which makes its value of a position far less noisy
than one guessed from the seat's own cards; the actor, the part that plays, reads
only the seat's observation. With ``privileged=True`` the
:class:`~trickenv.training.vec_env.SeatVecEnv` returns each observation as the
compact features followed by the privileged block; :class:`PrivilegedCriticPolicy`
feeds the actor the features with the privileged columns zeroed
(:class:`ActorView`) and the critic all of it.

Zeroing, not slicing, keeps SB3's one ``MlpExtractor`` (its actor and critic nets
take inputs of one width). A zero input adds nothing to the actor's first layer
and gets no gradient, so the rows of its weight matrix on those columns are dead;
:func:`~trickenv.training.train.policy_weights` drops them, and the exported player
(``PolicyAgent``) has the weights of the features alone
(``tests/test_privileged.py`` checks the actor never depends on them).
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class ActorView(BaseFeaturesExtractor):
    """The observation with every column from ``actor_inputs`` on set to zero (the actor's input)."""

    def __init__(self, observation_space: spaces.Box, actor_inputs: int) -> None:
        size = int(observation_space.shape[0])
        super().__init__(observation_space, size)
        keep = torch.zeros(size)
        keep[:actor_inputs] = 1.0
        self.register_buffer("keep", keep)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations.flatten(1) * self.keep


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with the actor on the first ``actor_inputs`` columns and the critic on all."""

    def __init__(self, observation_space: spaces.Box, action_space: spaces.Space, lr_schedule: Any,
                 actor_inputs: int, **kwargs: Any) -> None:
        if not 0 < actor_inputs < int(observation_space.shape[0]):
            raise ValueError(f"actor_inputs must be between 1 and the observation's {observation_space.shape[0] - 1} "
                             f"columns, got {actor_inputs!r}")
        self.actor_inputs = int(actor_inputs)
        kwargs["share_features_extractor"] = False
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)
        # The critic keeps the flattened whole observation; the actor gets its own view (no parameters:
        # the optimizer built above holds everything that learns).
        self.pi_features_extractor = self.features_extractor = ActorView(observation_space, self.actor_inputs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["actor_inputs"] = self.actor_inputs
        data.pop("share_features_extractor", None)
        return data
