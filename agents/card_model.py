"""Where the unseen cards are: a learned card-location model, for weighting the worlds a search samples.

The world sampler deals the hidden cards uniformly among the deals consistent with
the hard facts (voids, duties, declared marriages). The play says more: a dealer
who chose hearts holds hearts, a seat that ducked an ace trick may hold no low card.
:class:`CardModel` reads the acting seat's observation (only that) and gives, for
every card, the probability of each place it can be: in the hand of the seat 1, 2
or 3 places to the left, or elsewhere (set aside, undealt). It is a linear softmax
per card over the observation, fitted on deal records of rule-based self-play, where
the true hands are the labels (``python -m trickenv.training.card_model GAME``).

A search weights each sampled world by ``exp(strength * sum log p(card -> its place in
the world))`` over the unseen cards: importance weights from the uniform sampler to
the model's belief, tempered by ``strength``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from trickenv.engine.layout import TO_ACT
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.engine.bitsets import card_bits, relative_seats


def shipped_card_model_path(game: str) -> Path:
    """Path of the card-location model shipped for ``game`` (may not exist)."""
    return Path(str(resources.files("trickenv.agents") / "models" / f"{game}_cards.npz"))


def place_classes(spec: GameSpec, hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``[B, deck]`` int8: where each card is relative to ``seats[i]``: ``k`` = in the hand of the seat ``k``
    places to the left (``1 .. n-1``), 0 = anywhere else (the seat's own hand, played, set aside, undealt)."""
    n = spec.num_players
    held = card_bits(hands[np.arange(len(seats))[:, None], relative_seats(seats, n)], spec.deck)  # [B, n, deck]
    return (held[:, 1:] * np.arange(1, n, dtype=np.int8)[None, :, None]).sum(axis=1, dtype=np.int8)


def unseen_cards(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``[B, deck]`` bool: the cards ``seats[i]`` has not seen in game ``games[i]``: not in its hand, not played.
    (A turned-up card counts as unseen here; the model has learned from the observation that it is elsewhere.)"""
    mine = card_bits(state.hands[games, seats], spec.deck)
    return (mine == 0) & (state.played_by[games] < 0)


class CardModel:
    """A linear softmax per card over an observation: ``log_probs(obs) -> [B, deck, n]`` (places as in
    :func:`place_classes`). ``path``: a file written by ``trickenv.training.card_model`` (default: the one
    shipped for the game)."""

    def __init__(self, spec: GameSpec, path: str | Path | None = None) -> None:
        path = shipped_card_model_path(spec.name) if path is None else Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no card-location model at {path}; make one with "
                                    f"python -m trickenv.training.card_model {spec.name}")
        with np.load(path, allow_pickle=False) as f:
            self.meta = json.loads(str(f["meta"]))
            self.W = f["W"].astype(np.float32)
            self.b = f["b"].astype(np.float32)
        if self.meta.get("game") != spec.name or self.meta.get("options") != _plain(spec.options):
            raise ValueError(f"{path} was fitted for {self.meta.get('game')} {self.meta.get('options')}, "
                             f"not {spec.name} {_plain(spec.options)}")
        self.spec = spec
        if self.W.shape != (spec.obs_size, spec.deck * spec.num_players):
            raise ValueError(f"{path}: weights {self.W.shape} do not fit the observation and deck of {spec.name}")

    def log_probs(self, obs: np.ndarray) -> np.ndarray:
        logits = (np.asarray(obs, np.float32) @ self.W + self.b).reshape(len(obs), self.spec.deck, -1)
        logits -= logits.max(axis=2, keepdims=True)
        return logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))

    def world_log_weights(self, state: State, games: np.ndarray, worlds: State, per: int) -> np.ndarray:
        """``[len(games), per]``: sum over the unseen cards of log p(card -> its place) in each of the ``per``
        worlds of each decision (worlds ``i * per .. (i + 1) * per - 1`` belong to ``games[i]``), read from the
        acting seat's observation in the real game: the only thing read from it."""
        spec = self.spec
        games = np.asarray(games, np.int64)
        seats = state.s[games, TO_ACT].astype(np.int64)
        obs = np.zeros((len(games), spec.obs_size), np.int8)
        view = state.take(games)
        spec.observe_kernel(*view.arrays()[:-1], spec.cfg, spec.tab, seats, obs)
        logp = self.log_probs(obs)  # [B, deck, n]
        unseen = unseen_cards(spec, worlds, np.arange(worlds.batch_size), np.repeat(seats, per))
        places = place_classes(spec, worlds.hands, np.repeat(seats, per)).astype(np.int64)
        rows = np.repeat(np.arange(len(games)), per)
        picked = np.take_along_axis(logp[rows], places[:, :, None], axis=2)[:, :, 0]
        return np.where(unseen, picked, 0.0).sum(axis=1).reshape(len(games), per)


def _plain(options: dict) -> dict:
    """Options as JSON gives them back (tuples become lists)."""
    return json.loads(json.dumps(options))
