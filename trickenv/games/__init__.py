"""The games: each a package that builds a :class:`~trickenv.games.base.GameSpec` from options.

A game's package holds its rules and everything that is its own, by concern:

- ``rules.py``: options (one ``OPTIONS`` table), phases, state columns, the numba kernels (reset, step,
  observe), scoring and the deal records; it reads like the game's section of ``docs/rules.md``;
- ``text.py``: what the table says (action names, the table, why a move is illegal, news and deal facts),
  a :class:`~trickenv.games.parts.GameText`;
- ``worlds.py``: what a seat can know (the world sampler's hooks, decisions replayed for inference and
  from records), a :class:`~trickenv.games.parts.GameWorlds`;
- ``learning.py`` where the game has something for learners (suit symmetry, a privileged block), a
  :class:`~trickenv.games.parts.GameLearning`;
- ``solver.py``: the hooks of the perfect-information solver (:mod:`trickenv.engine.alphabeta`);
- ``__init__.py``: the user's page (its docstring) and ``make_spec(**options)``, which puts them together.

Agents' and trainers' settings are not game knowledge: the search's defaults per game live in
:mod:`trickenv.agents.search_defaults`, the training recipes in :mod:`trickenv.training`.

Adding a game (say Hearts):

1. a folder ``trickenv/games/hearts/`` with the modules above (``rules.py`` and ``__init__.py`` are enough to
   start: the parts default to "nothing of the game's own");
2. its name in :data:`GAMES` below, and its variants in :mod:`trickenv.games.variants`;
3. its rule-based agent, ``agents/rules_hearts.py``, named in ``agents/rules.py``;
4. its tests: ``tests/test_hearts.py`` (scripted deals checked by hand), and the shared suites pick it up from
   the variants (AEC against batched, invariants, fingerprints).

No other layer changes: the envs (``trickenv.make("hearts")``, ``make_vec``, ``make_single``), the sampler,
the search, evaluation, training and the table ask the spec. Once its rules are settled, a game may get a
versioned PettingZoo module (``trickenv/hearts_v0.py``, named in :mod:`trickenv.envs`), a gymnasium id
(``trickenv/__init__.py``) and tuned search defaults (:mod:`trickenv.agents.search_defaults`).
"""

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
