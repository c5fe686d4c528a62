"""The per-card head in torch, fitted beside the policy MLP by imitation (``trickenv train --card-head N``).

The same function as :class:`trickenv.agents.card_head.CardHeadWeights` (the NumPy player): each card's logit
gains ``wo . relu(Wh h + bh + Wa inputs[c]) + bo``, ``h`` the policy's last hidden layer and ``inputs[c]``
the card's fixed and position inputs (:mod:`trickenv.agents.card_head`). :meth:`CardHead.arrays` gives the
arrays a player file stores.
"""

from __future__ import annotations

import numpy as np
import torch

from trickenv.agents.card_head import HEAD_ARRAYS, card_input_names, card_inputs, fixed_card_inputs
from trickenv.games.base import GameSpec


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
        return dict(zip(HEAD_ARRAYS, (np.array(v, np.float32, order="C") for v in values)))
