"""Farbwechsel as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``.

Options: see :mod:`trickenv.games.farbwechsel` and docs/envs/farbwechsel.md.
"""

from __future__ import annotations

from trickenv.aec import bind_game
from trickenv.games import farbwechsel

raw_env, env = bind_game(farbwechsel.make_spec, "farbwechsel_v0", __name__, "Farbwechsel (3 or 4 players)")
