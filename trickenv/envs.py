"""The envs by game name: :func:`make` (the PettingZoo AEC env) and :func:`make_vec` (the batched engine).

``trickenv.make`` and ``trickenv.make_vec`` are these; modules inside the package import them from here, so
that nothing below the package's front door imports the front door itself.
"""

from __future__ import annotations

import importlib
from typing import Any

from trickenv.aec import bind_game
from trickenv.games import GAMES, make_spec
from trickenv.vector import VecEnv

# game -> its versioned AEC env module (PettingZoo's <name>_v<version> convention), where it has one
ENV_MODULES = {"four_tricks": "four_tricks_v0", "farbwechsel": "farbwechsel_v0", "koenigrufen": "koenigrufen_v0"}


def make(game: str, render_mode: str | None = None, **options: Any):
    """The AEC env of ``game`` (same as ``trickenv.<game>_v0.env(**options)``).

    Env options beside the game options: ``illegal_action`` (``"penalize"``, the
    default, or ``"raise"``), ``illegal_reward``, ``dtype`` and ``mask_dtype`` (``"int8"``
    or ``"float32"``), ``observation_key``, ``mask_key`` (see :class:`trickenv.aec.TrickEnv`).
    A game without a versioned module of its own gets the same env, bound here.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    if game in ENV_MODULES:
        return importlib.import_module(f"trickenv.{ENV_MODULES[game]}").env(render_mode=render_mode, **options)
    _, env = bind_game(importlib.import_module(GAMES[game]).make_spec, game, __name__, game)
    return env(render_mode=render_mode, **options)


def make_vec(game: str, num_envs: int, seed: int | None = None, threads: int = 1, **options: Any) -> VecEnv:
    """``num_envs`` games of ``game`` stepped together (see :class:`trickenv.vector.VecEnv`)."""
    return VecEnv(make_spec(game, **options), num_envs, seed=seed, threads=threads)
