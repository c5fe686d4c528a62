"""The decisions before the play as positions a playbook learns from: every choice played out.

The search does not decide the decisions before the first card (King Calling's call, Four Tricks' bids): a
searched world settles how the other hands lie, so it would see a certainty no player has
(docs/guides/decisions.md). Their values come from simulated outcomes instead: each deal played once for each
legal choice by a player (:func:`trickenv.training.decisions.simulate`), the decider's deal score after each
choice being that choice's value on those cards.

:func:`outcome_positions` writes such a simulation as :class:`~trickenv.research.mining.Positions`, the format
of the search's mined positions, so the playbook's tools (:mod:`trickenv.research.playbook`) learn and rank
rules for these decisions as for the card play: a position is a deal's decision, its values the outcomes of the
choices, its move the choice with the best outcome on those cards. One outcome is one sample of what the choice
is worth to the decider (the other hands were dealt at random), so a rule's mean over many deals estimates its
worth, and the rule is still chosen by play. :func:`outcomes_to` does it chunk by chunk into a directory that
``python -m trickenv.research playbook --mined DIR`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.research.mining import Positions, write_chunks

__all__ = ["outcome_positions", "outcomes_to", "outcomes_about", "ABOUT"]

ABOUT = "outcomes.json"  # beside the chunks: what was simulated (the search's mined chunks have none)


def _decision(spec, decision: str):
    """The variant's decision ``decision``, one that a playbook can learn (ValueError naming those there are)."""
    from trickenv.training.decisions import decision_of

    found = decision_of(spec, decision)
    if found.decline:
        raise ValueError(f"{spec.name}'s {decision!r} may be declined, and declining plays a card: its outcomes "
                         f"are not positions of one kind of decision; decisions without it: "
                         f"{', '.join(d.name for d in spec.learning.decisions(spec) if not d.decline) or 'none'}")
    return found


def outcome_positions(spec, decision: str, deals: int, seed: int, player: Any, first_game: int = 0) -> Positions:
    """The decision ``decision`` (a name of ``spec.learning.decisions``) of ``deals`` simulated deals (seed
    ``seed``), every legal choice played out by ``player``: one position per deal where the decider had two or
    more choices, numbered from ``first_game``. A decision that may be declined (King Calling's declarations)
    is not one: its "none" is a card, not a choice of its own (ValueError)."""
    from trickenv.training.decisions import simulate

    found = _decision(spec, decision)
    sim = simulate(spec, found, deals, seed, player)
    legal = sim["legal"][:, :found.count]
    rows = np.flatnonzero(legal.sum(axis=1) > 1)
    moves = slice(found.first, found.first + found.count)
    mask = np.zeros((len(rows), spec.num_actions), bool)
    mask[:, moves] = legal[rows]
    values = np.full((len(rows), spec.num_actions), np.nan, np.float32)
    values[:, moves] = np.where(legal[rows], sim["outcome"][rows, :found.count], np.nan)
    best = found.first + np.nanargmax(values[:, moves], axis=1)
    return Positions(obs=(sim["obs"][rows] != 0).astype(np.int8), mask=mask, action=best.astype(np.int64),
                     values=values, game=first_game + rows.astype(np.int64), seat=sim["seat"][rows])


def outcomes_to(spec, decision: str, out: str | Path, deals: int, seed: int, player: Any, chunk: int = 5000,
                progress: bool = True, player_name: str | None = None) -> Positions:
    """:func:`outcome_positions` of ``deals`` deals into ``out/chunk_K.npz`` (``chunk`` deals each, chunk ``k``
    seeded ``seed * 100_003 + k``), and all of them, with what was simulated in ``out/outcomes.json``. Chunks
    already in ``out`` are kept: the same call continues a stopped run (ValueError if it simulated another)."""
    _decision(spec, decision)  # before anything is written
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    about = {"game": spec.name, "options": json.loads(json.dumps(dict(spec.options))), "decision": decision,
             "deals": deals, "seed": seed, "chunk": chunk,
             "player": player_name or getattr(player, "name", type(player).__name__)}
    meta = out / ABOUT
    if meta.exists():  # more deals continue the same simulation: a chunk's deals depend on the seed and k only
        have = {k: v for k, v in json.loads(meta.read_text(encoding="utf-8")).items() if k != "deals"}
        if have != {k: v for k, v in about.items() if k != "deals"}:
            raise ValueError(f"{out} holds another simulation ({have}); this one is {about}: use another --out")
    meta.write_text(json.dumps(about) + "\n", encoding="utf-8")

    def chunk_positions(k: int, start: int, stop: int) -> Positions:
        return outcome_positions(spec, decision, stop - start, seed * 100_003 + k, player, first_game=start)

    return write_chunks(out, deals, chunk, chunk_positions, progress)


def outcomes_about(directory: str | Path) -> dict[str, Any] | None:
    """What :func:`outcomes_to` simulated into ``directory``; ``None`` for a directory of the search's positions."""
    meta = Path(directory) / ABOUT
    return json.loads(meta.read_text(encoding="utf-8")) if meta.exists() else None
