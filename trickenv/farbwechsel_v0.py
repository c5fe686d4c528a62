"""Farbwechsel as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``."""

from __future__ import annotations


from trickenv.aec import OrderEnforcing, TrickEnv
from trickenv.games import farbwechsel


class raw_env(TrickEnv):
    """Farbwechsel, 3 or 4 players; options as in :mod:`trickenv.games.farbwechsel`."""

    metadata = {"render_modes": ["human", "ansi"], "name": "farbwechsel_v0", "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", **options) -> None:
        super().__init__(farbwechsel.make_spec(**options), render_mode, illegal_action)


def env(render_mode: str | None = None, **options) -> OrderEnforcing:
    """The AEC env wrapped in PettingZoo's OrderEnforcingWrapper."""
    return OrderEnforcing(raw_env(render_mode=render_mode, **options))
