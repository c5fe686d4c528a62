"""Moved: the table text shared by the games lives in :mod:`trickenv.games.table_text` (re-exported here)."""

from trickenv.games.table_text import hand_text, render_table  # noqa: F401
