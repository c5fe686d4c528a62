"""King Calling / Königrufen as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``.

Options: see :mod:`trickenv.games.koenigrufen` and docs/envs/koenigrufen.md.
"""

from __future__ import annotations

from trickenv.aec import bind_game
from trickenv.games import koenigrufen

raw_env, env = bind_game(koenigrufen.make_spec, "koenigrufen_v0", __name__, "King Calling / Königrufen (4 players)")
