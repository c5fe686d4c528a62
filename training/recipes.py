"""Named recipes of training settings, kept as data in ``recipes.json`` beside this module: for each game, each
recipe has a one-line summary and the :class:`~trickenv.training.config.TrainConfig` settings it sets
(``trickenv train GAME --recipe NAME``; ``--list-recipes``). ``shipped`` is the command that made the game's
shipped player (``agents/models/<game>.npz``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from trickenv.training.config import settings_from_data

RECIPES_FILE = "recipes.json"


@dataclass(frozen=True)
class Recipe:
    """One named recipe of one game: the settings it gives a run (the other settings keep their defaults)."""

    game: str
    name: str
    summary: str
    settings: dict[str, Any]


@cache
def recipes() -> dict[str, dict[str, Recipe]]:
    """Every recipe, by game and name, read from the package's ``recipes.json`` (its settings checked)."""
    data = json.loads(resources.files("trickenv.training").joinpath(RECIPES_FILE).read_text(encoding="utf-8"))
    return {game: {name: Recipe(game, name, entry["summary"],
                                settings_from_data(entry["settings"], f"{RECIPES_FILE}: {game} {name}"))
                   for name, entry in named.items()}
            for game, named in data.items()}


def recipe(game: str, name: str) -> Recipe:
    """The recipe ``name`` of ``game``; ``ValueError`` naming the known ones if it has none of that name."""
    known = recipes().get(game, {})
    if name not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise ValueError(f"no recipe {name!r} for {game}; its recipes: {listed} (trickenv train --list-recipes)")
    return known[name]


def recipe_lines(game: str | None = None) -> list[str]:
    """One line per recipe (of ``game``, or of every game): ``GAME NAME  summary``."""
    chosen = [r for g, named in recipes().items() if game in (None, g) for r in named.values()]
    width = max((len(f"{r.game} {r.name}") for r in chosen), default=0)
    return [f"{f'{r.game} {r.name}':<{width}}  {r.summary}" for r in chosen]
