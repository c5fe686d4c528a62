"""What OpenSpiel's string methods say of a trickenv state: the observation by name, and the play so far."""

from __future__ import annotations

import numpy as np

from trickenv.engine.state import State
from trickenv.games.base import GameSpec


def observation_text(spec: GameSpec, names: list[str], player: int, obs: np.ndarray) -> str:
    """Each block of the observation by name (:mod:`trickenv.decode`'s blocks): cards by their names (a hand, the
    cards of each seat, the card each seat put in the trick, ``-`` for none), other values as numbers.

    Written over a Python list rather than with :func:`trickenv.decode.decode`: a search makes one for every new
    node, and numpy's per-call cost made them most of ISMCTS's time."""
    deck = spec.deck
    values = obs.tolist()
    parts = []
    off = 0
    for b in spec.obs_blocks:
        part = values[off:off + b.size]
        off += b.size
        width = b.shape[-1]
        rows = [part[i:i + width] for i in range(0, len(part), width)]
        if b.kind == "bits" and width == deck:  # cards: a hand, or the cards of each seat
            text = " / ".join(" ".join(names[c] for c, x in enumerate(row) if x) for row in rows)
        elif b.kind == "bits":
            text = ",".join("1" if x else "0" for x in part)
        else:
            if b.axis % len(b.shape) != len(b.shape) - 1:  # one-hot along another axis: read it as the last
                rows = np.moveaxis(np.asarray(part).reshape(b.shape), b.axis, -1).reshape(-1, b.shape[b.axis]).tolist()
            picked = [row.index(1) if 1 in row else -1 for row in rows]
            if b.none_index is not None:
                picked = [-1 if i == b.none_index else i for i in picked]
            if width == deck and b.axis % len(b.shape) == len(b.shape) - 1:  # a card, or none
                text = " ".join(names[i] if i >= 0 else "-" for i in picked)
            else:
                text = ",".join(str(i * b.scale if i >= 0 else i) for i in picked)
        parts.append(f"{b.name}: {text}")
    return f"P{player} | " + " | ".join(parts)


def play_text(engine: State, names: list[str]) -> str:
    """Who played which card in which trick of the one game of ``engine``: ``trick:P<seat>:<card>`` in the order
    of the tricks, each trick's cards by seat."""
    by, trick = engine.played_by[0], engine.played_in[0]
    played = np.flatnonzero(by >= 0)
    order = played[np.lexsort((by[played], trick[played]))]
    return " ".join(f"{trick[c]}:P{by[c]}:{names[c]}" for c in order)
