"""Four Tricks as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``.

Options: see :mod:`trickenv.games.four_tricks` and docs/envs/four_tricks.md.
"""

from __future__ import annotations

from trickenv.aec import bind_game
from trickenv.games import four_tricks

raw_env, env = bind_game(four_tricks.make_spec, "four_tricks_v0", __name__, "Four Tricks (3 players)")
