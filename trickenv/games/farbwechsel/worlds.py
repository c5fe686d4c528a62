"""What a seat can know in Farbwechsel: the dealer's public declaration, replayed for inference and from records."""

from __future__ import annotations

import numpy as np

from trickenv.engine.layout import (
    PH_TRUMP,
    PHASE,
)
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.farbwechsel.rules import (
    DECK,
    FIRST_TRUMP,
)
from trickenv.games.parts import GameWorlds


def history_actions(spec: GameSpec, info: State, rows: np.ndarray, sim: State, games: np.ndarray) -> np.ndarray:
    """The dealer's declaration (public: ``FIRST_TRUMP``) where the replay is at it; every other decision is a card."""
    out = np.full(len(games), -1, np.int64)
    at = sim.s[games, PHASE] == PH_TRUMP
    out[at] = DECK + info.s[rows[at], FIRST_TRUMP]
    return out


def record_action(spec: GameSpec, rec: dict[str, np.ndarray], state: State, g: int) -> int | None:
    """The dealer's declaration is the record's ``first_trump``; every other decision is a card (trickenv.replay)."""
    if state.s[g, PHASE] == PH_TRUMP:
        return DECK + int(rec["first_trump"]) if "first_trump" in rec else DECK + int(rec["trick_trump"][0])
    return None


GAME_WORLDS = GameWorlds(history_actions=history_actions, record_action=record_action)
