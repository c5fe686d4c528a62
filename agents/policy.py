"""Trained players: ``PolicyAgent`` plays a saved policy network through the agent protocol.

A saved player is a small ``.npz`` file: the weights of the policy's MLP
(``W0, b0, W1, b1, ...``; the last layer gives one logit per action) and a
JSON ``meta`` entry (game, options, features, activation, how it was trained).
The forward pass is plain NumPy, so playing needs neither torch nor
stable-baselines3: a trained player is as portable as the rule-based ones.
The agent plays the legal action with the highest logit (deterministic), or
samples from the masked softmax with ``sample=True``. A player trained with a
per-card head (``meta["card_head"]``; :mod:`trickenv.agents.card_head`) holds its
arrays too (``H_wh, H_bh, H_wa, H_wo, H_bo``) and adds its card scores to the logits.
A file may hold several networks of one shape (``meta["networks"]`` = K: an
ensemble, ``trickenv train --bc-networks K``): the first under the names above,
network ``i`` under ``n{i}/W0, ...``; the player plays the mean of their logits,
which is the product of their move probabilities renormalised (the same move as
the sum of their log-probabilities over the legal actions).

``make_agent("model", spec)`` loads the player shipped with the package for the
game (``trickenv/agents/models/<game>.npz``, default options);
``make_agent("model:PATH", spec)`` loads any saved file.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from trickenv.agents.base import BatchAgent
from trickenv.agents.card_head import HEAD_ARRAYS, CardHeadWeights, card_input_names, card_inputs
from trickenv.agents.features import features_of
from trickenv.agents.sparse_layer import add_sparse_product
from trickenv.engine.kernels import seed_states
from trickenv.games.base import GameSpec

ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0, out=x),
    "tanh": lambda x: np.tanh(x, out=x),
}


def shipped_model_path(game: str) -> Path:
    """Path of the player shipped for ``game`` (may not exist for a game without one)."""
    return Path(str(resources.files("trickenv.agents") / "models" / f"{game}.npz"))


def save_policy(path: str | Path, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                card_head: dict[str, np.ndarray] | None = None,
                more: Sequence[tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray] | None]] = ()) -> None:
    """Write a player file: ``weights`` = [(W [in, out], b [out]), ...] and ``meta`` (JSON-able); ``card_head``:
    the per-card head's arrays (``training.card_head.CardHead.arrays()``), whose presence ``meta["card_head"]``
    must say (the card inputs' names, :func:`trickenv.agents.card_head.card_input_names`). ``more``: further
    networks of the same shape, ``(weights, card_head)`` each; the file then says ``meta["networks"]``."""
    if any((head is None) != (meta.get("card_head") is None) for head in [card_head, *(h for _, h in more)]):
        raise ValueError("meta['card_head'] and the card head's arrays go together: give both or neither")
    shapes = [[w.shape for w, _ in net] for net in [weights, *(w for w, _ in more)]]
    if any(shape != shapes[0] for shape in shapes):
        raise ValueError(f"the networks of one player file must have one shape, got {shapes}")
    if more:
        meta = {**meta, "networks": 1 + len(more)}
    arrays: dict[str, np.ndarray] = {}
    for k, (net, head) in enumerate([(weights, card_head), *more]):
        prefix = f"n{k}/" if k else ""
        arrays.update({prefix + name: a for name, a in (head or {}).items()})
        for i, (w, b) in enumerate(net):
            arrays[f"{prefix}W{i}"] = np.asarray(w, np.float32)
            arrays[f"{prefix}b{i}"] = np.asarray(b, np.float32)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def load_networks(path: str | Path) -> tuple[list[tuple[list[tuple[np.ndarray, np.ndarray]],
                                                         dict[str, np.ndarray] | None]], dict[str, Any]]:
    """Every network of a player file, ``[(weights, card_head arrays or None), ...]`` (one, or
    ``meta["networks"]``), and its meta."""
    with np.load(path, allow_pickle=False) as f:
        meta = json.loads(str(f["meta"]))
        count = meta.get("networks", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"{path}: meta['networks'] must be a whole number >= 1, got {count!r}")
        networks = []
        for k in range(count):
            prefix = f"n{k}/" if k else ""
            weights = []
            while f"{prefix}W{len(weights)}" in f:
                i = len(weights)
                weights.append((f[f"{prefix}W{i}"], f[f"{prefix}b{i}"]))
            if not weights:
                raise ValueError(f"{path}: meta['networks'] says {count} networks, network {k} has no weights")
            head = {name: f[prefix + name] for name in HEAD_ARRAYS if prefix + name in f} or None
            networks.append((weights, head))
    return networks, meta


def load_card_head(path: str | Path) -> dict[str, np.ndarray] | None:
    """The per-card head's arrays of a player file (its first network), None for a player without one."""
    return load_networks(path)[0][0][1]


def load_policy(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """Read a player file: (weights of its first network, meta); its card head, if any: :func:`load_card_head`;
    all its networks: :func:`load_networks`."""
    networks, meta = load_networks(path)
    return networks[0][0], meta


class PolicyAgent(BatchAgent):
    """Plays a saved policy network (see the module docstring); ``path=None``: the shipped player."""

    name = "model"

    def __init__(self, spec: GameSpec, seed: int | None = None, path: str | Path | None = None,
                 sample: bool = False) -> None:
        super().__init__(spec)
        path = shipped_model_path(spec.name) if path is None else Path(path)
        if not path.exists():
            raise ValueError(f"no trained player at {path} (train one with `trickenv train {spec.name}`)")
        networks, meta = load_networks(path)
        self.path, self.meta, self.sample = path, meta, sample
        if meta.get("game") != spec.name:
            raise ValueError(f"{path} plays {meta.get('game')!r}, not {spec.name!r}")
        if meta.get("options") is not None and meta["options"] != _jsonable(spec.options):
            raise ValueError(f"{path} was trained with options {meta['options']}, the game has {_jsonable(spec.options)}")
        self.features = features_of(spec, meta.get("features"))
        size = self.features.size if self.features is not None else spec.obs_size
        for k, (weights, _) in enumerate(networks):
            if weights[0][0].shape[0] != size or weights[-1][0].shape[1] != spec.num_actions:
                raise ValueError(f"{path}: network {k}'s shape {weights[0][0].shape[0]} -> {weights[-1][0].shape[1]} "
                                 f"does not fit {spec.name} ({size} features, {spec.num_actions} actions)")
        self.weights = networks[0][0]
        self.activation = ACTIVATIONS[meta.get("activation", "relu")]
        self._rng = np.random.default_rng(int(seed_states(seed, 1)[0] >> np.uint64(1)))
        self.head = _card_head(spec, meta, networks[0][1], self.weights, str(path))
        self._fold()
        self.others = [PolicyAgent.from_weights(spec, w, meta, card_head=h) for w, h in networks[1:]]

    @classmethod
    def from_weights(cls, spec: GameSpec, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                     sample: bool = False, card_head: dict[str, np.ndarray] | None = None,
                     more: Sequence[tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray] | None]] = ()
                     ) -> "PolicyAgent":
        """An agent from weights in memory (a trainer's current policy), without a file; ``card_head``: the
        per-card head's arrays when ``meta["card_head"]`` says it has one; ``more``: further networks,
        ``(weights, card_head)`` each, whose logits the agent averages with the first's (as a file's
        ``meta["networks"]``)."""
        agent = cls.__new__(cls)
        BatchAgent.__init__(agent, spec)
        agent.path, agent.meta, agent.sample = None, meta, sample
        agent.features = features_of(spec, meta.get("features"))
        agent.weights = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in weights]
        agent.activation = ACTIVATIONS[meta.get("activation", "relu")]
        agent._rng = np.random.default_rng(0)
        agent.head = _card_head(spec, meta, card_head, agent.weights, "the weights")
        agent._fold()
        agent.others = [cls.from_weights(spec, w, meta, card_head=h) for w, h in more]
        return agent

    def _fold(self) -> None:
        """The first layer as the forward pass uses it: the linear part of the feature map folded into it, so
        it reads the 0/1 observation directly (``_w_obs``), and the rows for the per-card facts (``_w_facts``)."""
        w0 = self.weights[0][0]
        if self.features is None:  # "raw": the network reads the observation
            self._w_obs, self._w_facts = np.ascontiguousarray(w0, np.float32), None
            return
        lin = self.features.linear_size
        folded = self.features.linear_matrix().astype(np.float64) @ w0[:lin].astype(np.float64)
        self._w_obs = np.ascontiguousarray(folded, np.float32)
        self._w_facts = np.ascontiguousarray(w0[lin:], np.float32) if lin < len(w0) else None

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The logits ``[B, actions]`` for observations ``[B, obs_size]``: the network's, or with several networks
        (``meta["networks"]``) the mean of theirs."""
        x = np.asarray(obs)
        if x.ndim != 2 or x.shape[1] != self.spec.obs_size:
            raise ValueError(f"observations must be a [B, {self.spec.obs_size}] array for {self.spec.name}, "
                             f"got shape {x.shape}")
        # What every network reads alike (the networks of a file have one shape and one meta): computed once.
        facts = self.spec.learning.action_features(self.spec, x) if self._w_facts is not None else None
        inputs = card_inputs(self.spec, x) if self.head is not None else None
        out = self._network_logits(x, facts, inputs)
        if self.others:
            for other in self.others:
                out += other._network_logits(x, facts, inputs)
            out /= np.float32(1 + len(self.others))
        return out

    def _network_logits(self, x: np.ndarray, facts: np.ndarray | None, inputs: np.ndarray | None) -> np.ndarray:
        """This agent's own network's logits ``[B, actions]`` for observations ``x [B, obs_size]`` (its others'
        aside), given their trick facts (None without them) and card-head inputs (None without a head).

        The first layer adds up only the weight rows of the observation's ones and of the nonzero trick
        facts (:mod:`trickenv.agents.sparse_layer`): the same values as the dense ``features(obs) @ W0 + b0``
        up to float rounding, and faster (docs/how-it-was-found/speed.md). The weights are
        folded when the agent is made: change a player by making a new one."""
        h = np.empty((len(x), self.weights[0][1].shape[0]), np.float32)
        h[:] = self.weights[0][1]
        add_sparse_product(x, self._w_obs, h)
        if self._w_facts is not None:
            add_sparse_product(facts, self._w_facts, h)
        if len(self.weights) == 1:  # no hidden layer: the first layer gives the logits
            return h
        for w, b in self.weights[1:-1]:
            h = self.activation(h) @ w + b
        h = self.activation(h)
        out = h @ self.weights[-1][0] + self.weights[-1][1]
        if self.head is not None:
            out[:, :self.spec.deck] += self.head.scores(h, inputs)
        return out

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The best legal action per row (or a sample of the masked softmax with ``sample=True``)."""
        mask = np.asarray(mask, np.bool_)
        z = np.where(mask, self.logits(obs), -np.inf)
        if not self.sample:
            return z.argmax(axis=1)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        u = self._rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), mask.shape[1] - 1)


def _card_head(spec: GameSpec, meta: dict[str, Any], arrays: dict[str, np.ndarray] | None,
               weights: list[tuple[np.ndarray, np.ndarray]], where: str) -> CardHeadWeights | None:
    """The player's per-card head, checked against what ``meta`` says it reads; None without one."""
    names = meta.get("card_head")
    if names is None and arrays is None:
        return None
    if names is None or arrays is None:
        raise ValueError(f"{where}: meta['card_head'] and the card head's arrays go together, found only "
                         f"{'the meta entry' if arrays is None else 'the arrays'}")
    if list(names) != card_input_names(spec):
        raise ValueError(f"{where}: its card head reads {len(names)} card inputs that are not the "
                         f"{len(card_input_names(spec))} this version computes for {spec.name}; retrain the player")
    if len(weights) < 2:
        raise ValueError(f"{where}: a card head needs a hidden layer to read; the network has none")
    return CardHeadWeights(spec, arrays, hidden=weights[-1][0].shape[0])


def _jsonable(options: dict[str, Any]) -> dict[str, Any]:
    """Options as they look after a JSON round trip (tuples become lists)."""
    return json.loads(json.dumps(options))
