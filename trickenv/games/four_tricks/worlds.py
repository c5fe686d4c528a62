"""What a seat can know in Four Tricks: the world sampler's hook, and the public decisions replayed for inference
and from records."""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv.engine.layout import (
    PH_BID,
    PH_TRUMP,
    PHASE,
    TO_ACT,
    TRUMP,
)
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.four_tricks.rules import (
    BIDS,
    TURNED_UP,
)
from trickenv.games.parts import GameWorlds


def hide_private(spec: GameSpec, info: State, seats: np.ndarray, undealt: np.ndarray) -> None:
    """The world sampler's information state: a turned-up card is public, so the undealt rest stays known."""
    info.aux[:, 0] = np.where(info.s[:, TURNED_UP] >= 0, undealt, np.uint64(0))


def record_action(spec: GameSpec, rec: dict[str, np.ndarray], state: State, g: int) -> int | None:
    """The dealer's trump is the first trick's trump, a bid the record's ``bids`` (trickenv.replay)."""
    s = state.s[g]
    if s[PHASE] == PH_TRUMP:
        return spec.deck + int(rec["trick_trump"][0])
    if s[PHASE] == PH_BID:
        return spec.deck + 4 + int(rec["bids"][int(s[TO_ACT])])
    return None


def history_actions(spec: GameSpec, info: State, rows: np.ndarray, sim: State, games: np.ndarray) -> np.ndarray:
    """The dealer's trump (``TRUMP``, fixed for the deal) and the bids (``BIDS``), all public; else -1 (a card)."""
    out = np.full(len(games), -1, np.int64)
    phase = sim.s[games, PHASE]
    at = phase == PH_TRUMP
    out[at] = spec.deck + info.s[rows[at], TRUMP]
    at = phase == PH_BID
    seat = sim.s[games[at], TO_ACT]
    out[at] = spec.deck + 4 + info.s[rows[at], BIDS + seat]
    return out


def record_options(spec: GameSpec, rec: dict[str, np.ndarray]) -> dict[str, Any]:
    """A deal of a ``target_schedule`` match alone: its own target."""
    target = int(rec["target"]) if "target" in rec else -1
    return {"target": target} if target >= 0 and not spec.options["bidding"] else {}


GAME_WORLDS = GameWorlds(hide_private=hide_private, history_actions=history_actions, record_action=record_action,
                         record_options=record_options)
