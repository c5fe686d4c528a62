"""The games: each module builds a :class:`~trickenv.games.base.GameSpec` from options."""

from __future__ import annotations

import importlib

from trickenv.games.base import GameSpec

GAMES = {
    "four_tricks": "trickenv.games.four_tricks",
    "farbwechsel": "trickenv.games.farbwechsel",
    "koenigrufen": "trickenv.games.koenigrufen",
}


def make_spec(game: str, **options) -> GameSpec:
    """Build the spec of ``game`` with ``options`` (ValueError on unknown names)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    return importlib.import_module(GAMES[game]).make_spec(**options)
