"""The decisions before the play as positions a playbook learns from: every choice played out.

The search does not decide the decisions before the first card (King Calling's call, Four Tricks' bids): a
searched world settles how the other hands lie, so it would see a certainty no player has
(docs/guides/decisions.md). Their values come from simulated outcomes instead: each deal played once for each
legal choice by a player (:func:`trickenv.training.decisions.simulate`), the decider's deal score after each
choice being that choice's value on those cards.

:func:`outcome_positions` writes such a simulation as :class:`~trickenv.research.mining.Positions`, the format
of the search's mined positions, so the playbook's tools (:mod:`trickenv.research.playbook`) learn and rank
rules for these decisions as for the card play: a position is a deal's decision, its values the outcomes of the
choices, its move the choice with the best outcome on those cards (the player's own where it ties for the best).
One outcome is one sample of what the choice is worth to the decider (the other hands were dealt at random), so
a rule's mean over many deals estimates its worth, and the rule is still chosen by play. :func:`outcomes_to` does
it chunk by chunk into a directory that ``python -m trickenv.research playbook --mined DIR`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.research.mining import Positions, write_chunks

__all__ = ["outcome_positions", "outcomes_to", "outcomes_about", "ABOUT"]

ABOUT = "outcomes.json"  # beside the chunks: what was simulated (the search's mined chunks have none)


def outcome_positions(spec, decision: str, deals: int, seed: int, player: Any, first_game: int = 0) -> Positions:
    """The decision ``decision`` (a name of ``spec.learning.decisions``) of ``deals`` simulated deals (seed
    ``seed``), every legal choice played out by ``player``: one position per deal where the decider had two or
    more choices, numbered from ``first_game``. Where the decision may be declined (King Calling's declarations),
    declining is the move ``player`` made instead (a card), with the outcome of declining: the position's legal
    moves are the choices and that one move."""
    from trickenv.training.decisions import decision_of, simulate

    found = decision_of(spec, decision)
    sim = simulate(spec, found, deals, seed, player)
    legal = sim["legal"][:, :found.count]
    moves = slice(found.first, found.first + found.count)
    every = np.zeros((deals, spec.num_actions), bool)
    every[:, moves] = legal
    values = np.full((deals, spec.num_actions), np.nan, np.float32)
    values[:, moves] = np.where(legal, sim["outcome"][:, :found.count], np.nan)
    if found.decline:  # declining: the player's own move instead, valued by the outcome of the copy that made it
        rows = np.flatnonzero(sim["legal"][:, found.count] & (sim["declined"] >= 0))
        every[rows, sim["declined"][rows]] = True
        values[rows, sim["declined"][rows]] = sim["outcome"][rows, found.count]
    rows = np.flatnonzero(every.sum(axis=1) > 1)
    # The move: the best outcome; where choices tie (a choice often changes nothing on the cards), the player's
    # own choice, so that a tie is not read as a reason to choose otherwise.
    choice = sim["own"][rows]  # -1 never here: the decision came up in every row
    declined = sim["declined"][rows] if found.decline else np.full(len(rows), -1)
    own = np.where(choice < found.count, found.first + choice, declined)
    top = values[rows] >= np.nanmax(values[rows], axis=1, keepdims=True)
    keep = (own >= 0) & top[np.arange(len(rows)), np.maximum(own, 0)]
    best = np.where(keep, own, top.argmax(axis=1))
    return Positions(obs=(sim["obs"][rows] != 0).astype(np.int8), mask=every[rows], action=best.astype(np.int64),
                     values=values[rows], game=first_game + rows.astype(np.int64), seat=sim["seat"][rows])


def outcomes_to(spec, decision: str, out: str | Path, deals: int, seed: int, player: Any, chunk: int = 5000,
                progress: bool = True, player_name: str | None = None) -> Positions:
    """:func:`outcome_positions` of ``deals`` deals into ``out/chunk_K.npz`` (``chunk`` deals each, chunk ``k``
    seeded ``seed * 100_003 + k``), and all of them, with what was simulated in ``out/outcomes.json``. Chunks
    already in ``out`` are kept: the same call continues a stopped run (ValueError if it simulated another)."""
    from trickenv.training.decisions import decision_of

    decision_of(spec, decision)  # an unknown decision fails before anything is written
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
