"""The per-card head in torch, trained with the policy MLP (``trickenv train --card-head N``).

The same function as :class:`trickenv.agents.card_head.CardHeadWeights` (the NumPy player): each card's logit
gains ``wo . relu(Wh h + bh + Wa inputs[c]) + bo``, ``h`` the policy's last hidden layer and ``inputs[c]``
the card's fixed and position inputs (:mod:`trickenv.agents.card_head`). :meth:`CardHead.arrays` gives the
arrays a player file stores.

:class:`CardHeadPolicy` is MaskablePPO's policy with the head inside it: its optimizer, its checkpoint and its
logits hold the head, so the imitation fits (given the observations, :meth:`CardHead.inputs`) and PPO (given the
features, :class:`FeatureInputs`) train one network.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from trickenv.agents.card_head import (HEAD_ARRAYS, card_input_names, card_inputs, card_inputs_of_blocks,
                                      fixed_card_inputs)
from trickenv.agents.features import Features
from trickenv.games.base import GameSpec
from trickenv.training.critic import PrivilegedCriticPolicy

# The observation blocks the position inputs read (turned_up only in the games that have it).
INPUT_BLOCKS = ("hand", "trick", "played", "turned_up", "trump", "leader")


class CardHead(torch.nn.Module):
    """``units`` hidden units shared by every card, on top of a policy whose last hidden layer has ``hidden``."""

    def __init__(self, spec: GameSpec, hidden: int, units: int) -> None:
        super().__init__()
        if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units < 1:
            raise ValueError(f"the card head's units must be a positive integer, got {units!r}")
        self.spec = spec
        self.deck = spec.deck
        self.register_buffer("fixed", torch.as_tensor(fixed_card_inputs(spec)))
        self.hidden_in = torch.nn.Linear(hidden, units)
        self.card_in = torch.nn.Linear(len(card_input_names(spec)), units, bias=False)
        self.out = torch.nn.Linear(units, 1)

    def inputs(self, obs: np.ndarray) -> torch.Tensor:
        """The position inputs ``[B, deck, K]`` of observations ``[B, obs_size]`` (NumPy, as the player computes them)."""
        return torch.as_tensor(card_inputs(self.spec, obs))

    def forward(self, hidden: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        """Each card's score ``[B, deck]`` from the last hidden layer ``[B, hidden]`` and :meth:`inputs`; 0 for
        the cards not in the hand (a card action is legal only for those), as the NumPy player has it."""
        # Only the cards in the hand (input 0; a seventh of the deck on average in King Calling), not every card
        # then masked: the same scores for far less work.
        rows, cards = torch.nonzero(inputs[..., 0], as_tuple=True)
        own = torch.cat([self.fixed[cards], inputs[rows, cards]], dim=1)
        z = torch.relu(self.hidden_in(hidden)[rows] + self.card_in(own))
        return hidden.new_zeros(inputs.shape[:2]).index_put((rows, cards), self.out(z)[:, 0])

    def add_to(self, logits: torch.Tensor, hidden: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        """``logits [B, actions]`` with the card scores added to the card actions (ids ``0 .. deck - 1``)."""
        scores = self.forward(hidden, inputs)
        return torch.cat([logits[:, :self.deck] + scores, logits[:, self.deck:]], dim=1)

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays of a player file (:data:`trickenv.agents.card_head.HEAD_ARRAYS`)."""
        def np_(t: torch.Tensor) -> np.ndarray:
            return t.detach().cpu().numpy().astype(np.float32).copy()
        values = (np_(self.hidden_in.weight).T, np_(self.hidden_in.bias), np_(self.card_in.weight).T,
                  np_(self.out.weight)[0], np_(self.out.bias)[0])
        return dict(zip(HEAD_ARRAYS, (np.array(v, np.float32, order="C") for v in values), strict=True))


class FeatureInputs:
    """:func:`~trickenv.agents.card_head.card_inputs` from the network's features instead of the observation: what
    PPO needs, whose rollout buffer holds the features alone.

    The blocks the inputs read are kept column for column in the features (0/1 values), and the trick facts are
    their last columns (``Features(spec, actions=True)``), so the same function
    (:func:`~trickenv.agents.card_head.card_inputs_of_blocks`) gives the same numbers (tested). They are inputs:
    no gradient flows into them.
    """

    def __init__(self, spec: GameSpec, features: Features) -> None:
        if not features.actions:
            raise ValueError("to be read from the features, the card head's inputs need the trick facts among the "
                             "features (features='actions'); these are the compact features")
        self.spec = spec
        column = {name: i for i, name in enumerate(features.names)}
        self.columns: dict[str, np.ndarray] = {}
        for name in INPUT_BLOCKS:
            if name not in spec.obs_offsets:
                continue
            names = [f"{name}:{i}" for i in range(spec.obs_offsets[name][1])]
            missing = [c for c in names if c not in column]
            if missing:
                raise ValueError(f"the features do not keep block {name!r} as it is (missing {missing[0]})")
            self.columns[name] = np.array([column[c] for c in names])
        facts = len(spec.learning.action_feature_names) * spec.deck
        self.facts = slice(features.size - facts, features.size)

    def __call__(self, features: torch.Tensor) -> torch.Tensor:
        """``[B, deck, K]`` from features ``[B, size]`` (more columns after them, a privileged block, are not read)."""
        x = features.detach().cpu().numpy()

        def block(name: str) -> np.ndarray:
            return (x[:, self.columns[name]] != 0).astype(np.float32)

        return torch.as_tensor(card_inputs_of_blocks(self.spec, block, x[:, self.facts]))


class CardHeadPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a :class:`CardHead` on its card logits.

    ``card_head``: ``{"game", "options", "units", "seed", "features"}``, the game, the head's units, the seed of
    its initial weights (drawn aside: the MLP's stay those of the model's seed) and the run's feature set. PPO
    computes the head's inputs from the features (:class:`FeatureInputs`, so features ``"actions"``); a policy on
    the compact features is fitted by imitation alone, and its PPO entry points refuse to run.

    SB3 makes the logits in ``_get_action_dist_from_latent(latent)``, which gets the latent alone; the entry
    points that reach it (``forward``, ``evaluate_actions``, ``get_distribution``) keep the observation for it.
    """

    def __init__(self, observation_space: Any, action_space: Any, lr_schedule: Any, card_head: dict[str, Any],
                 **kwargs: Any) -> None:
        self.card_head_options = dict(card_head)
        self._obs: torch.Tensor | None = None
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        # Here, not after _build: the optimizer _build makes then holds the head's weights too.
        from trickenv.agents.features import features_of
        from trickenv.games import make_spec

        super()._build_mlp_extractor()
        o = self.card_head_options
        spec = make_spec(o["game"], **o["options"])
        with torch.random.fork_rng():
            torch.manual_seed(o["seed"])
            self.card_head = CardHead(spec, self.mlp_extractor.latent_dim_pi, o["units"])
        features = features_of(spec, o["features"])
        self.head_inputs = FeatureInputs(spec, features) if features is not None and features.actions else None

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["card_head"] = self.card_head_options
        return data

    @contextmanager
    def _reading(self, obs: torch.Tensor) -> Iterator[None]:
        if self.head_inputs is None:
            raise ValueError("this policy's card head reads its inputs from the compact features, which lack the "
                             "trick facts: PPO needs features='actions' (imitation fits pass the observations)")
        self._obs = obs
        try:
            yield
        finally:
            self._obs = None

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> MaskableDistribution:
        if self._obs is None:
            raise RuntimeError("the card head needs the observation: call forward, evaluate_actions or "
                               "get_distribution")
        logits = self.card_head.add_to(self.action_net(latent_pi), latent_pi, self.head_inputs(self._obs))
        return self.action_dist.proba_distribution(action_logits=logits)

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks: np.ndarray | None = None):
        with self._reading(obs):
            return super().forward(obs, deterministic, action_masks)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks: torch.Tensor | None = None):
        with self._reading(obs):
            return super().evaluate_actions(obs, actions, action_masks)

    def get_distribution(self, obs: torch.Tensor, action_masks: np.ndarray | None = None) -> MaskableDistribution:
        with self._reading(obs):
            return super().get_distribution(obs, action_masks)


class PrivilegedCardHeadPolicy(CardHeadPolicy, PrivilegedCriticPolicy):
    """:class:`CardHeadPolicy` with the critic that sees every hand (:mod:`trickenv.training.critic`)."""
