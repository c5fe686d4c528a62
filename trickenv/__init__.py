"""trickenv: trick-taking card games as PettingZoo AEC envs and batched numba engines."""

from __future__ import annotations

import importlib
from typing import Any

from trickenv.decode import card_sets, decode, encode
from trickenv.games import GAMES, make_spec
from trickenv.vector import VecEnv

__version__ = "0.1.0"
__all__ = [
    "GAMES", "make", "make_vec", "make_spec", "VecEnv", "decode", "encode", "card_sets",
    "four_tricks_v0", "farbwechsel_v0", "koenigrufen_v0",
]

_ENV_MODULES = {"four_tricks": "four_tricks_v0", "farbwechsel": "farbwechsel_v0", "koenigrufen": "koenigrufen_v0"}


def make(game: str, render_mode: str | None = None, **options: Any):
    """The AEC env of ``game`` (same as ``trickenv.<game>_v0.env(**options)``)."""
    if game not in _ENV_MODULES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    return importlib.import_module(f"trickenv.{_ENV_MODULES[game]}").env(render_mode=render_mode, **options)


def make_vec(game: str, num_envs: int, seed: int | None = None, threads: int = 1, **options: Any) -> VecEnv:
    """``num_envs`` games of ``game`` stepped together (see :class:`trickenv.vector.VecEnv`)."""
    return VecEnv(make_spec(game, **options), num_envs, seed=seed, threads=threads)


def __getattr__(name: str):
    if name in {"four_tricks_v0", "farbwechsel_v0", "koenigrufen_v0"}:
        return importlib.import_module(f"trickenv.{name}")
    raise AttributeError(f"module 'trickenv' has no attribute {name!r}")
