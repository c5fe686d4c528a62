"""Four Tricks as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``."""

from __future__ import annotations


from trickenv.aec import OrderEnforcing, TrickEnv
from trickenv.games import four_tricks


class raw_env(TrickEnv):
    """Four Tricks, 3 players; options as in :mod:`trickenv.games.four_tricks`."""

    metadata = {"render_modes": ["human", "ansi"], "name": "four_tricks_v0", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", **options) -> None:
        super().__init__(four_tricks.make_spec(**options), render_mode, illegal_action)


def env(render_mode: str | None = None, **options) -> OrderEnforcing:
    """The AEC env wrapped in PettingZoo's OrderEnforcingWrapper."""
    return OrderEnforcing(raw_env(render_mode=render_mode, **options))
