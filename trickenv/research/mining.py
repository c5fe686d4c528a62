"""Mining a search's decisions: every position a search agent decided in self-play, with what it valued each move.

:func:`mine` plays deals with the searcher in every seat and keeps, at every decision it searched (two or
more moves valued, its move one of them), the seat's observation, the moves it valued, the move played and
the searched value of each (:class:`Positions`). :func:`mine_to` does it chunk by chunk into a directory, so
that a long run continues where it stopped. The playbook (:mod:`trickenv.research.playbook`) fits readable
models to these positions.

The observation is what the seat saw, so anything fitted to it reads only what the seat may know.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.research.deals import make_deals, play

__all__ = ["Positions", "Recorder", "mine", "mine_to", "write_chunks", "load_positions"]


@dataclass
class Positions:
    """Positions decided by a search agent, one row each.

    ``obs`` int8 ``[P, obs_size]`` (the seat's observation), ``mask`` bool ``[P, actions]`` (the legal moves
    the search valued: all of them, but for a decision it leaves to another agent),
    ``action`` int64 ``[P]`` (the move played), ``values`` float32 ``[P, actions]`` (the searched value of each
    legal move, NaN elsewhere), ``game`` and ``seat`` int64 ``[P]`` (the deal, numbered from 0 over the run, and
    the absolute seat).
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    values: np.ndarray
    game: np.ndarray
    seat: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    def take(self, rows: np.ndarray) -> "Positions":
        """The positions ``rows`` (an index or a boolean array)."""
        return Positions(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    def save(self, path: str | Path) -> None:
        np.savez_compressed(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @staticmethod
    def concat(parts: list["Positions"]) -> "Positions":
        if not parts:
            raise ValueError("no positions to concatenate")
        return Positions(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Positions)})


class Recorder:
    """Plays as ``searcher`` (an agent with ``search_batch``: ``search``, ``pimc``) and keeps every position it
    searched (:class:`Positions`). ``offset`` is set by :func:`play` for each chunk of games."""

    needs_state = True

    def __init__(self, searcher: Any) -> None:
        if not hasattr(searcher, "search_batch"):
            raise TypeError(f"searcher must have search_batch (a search agent such as search or pimc), "
                            f"got {type(searcher).__name__}")
        self.searcher = searcher
        self.offset = 0
        self.base = 0  # added to the game numbers: the first deal of this run
        self._parts: list[Positions] = []

    def act_batch(self, obs, mask, state=None, games=None):
        from trickenv.engine.layout import TO_ACT

        if state is None or games is None:
            raise ValueError("Recorder needs the engine state: act_batch(obs, mask, state=..., games=rows)")
        games = np.asarray(games, np.int64)
        out, values = self.searcher.search_batch(obs, mask, state, games)
        # The moves the search valued: a decision it left to another agent (King Calling's declarations, taken
        # by the rule-based agent in the first trick) is not among them, and the cards beside it still are.
        mask = np.asarray(mask, bool) & ~np.isnan(values)
        out = np.asarray(out, np.int64)
        keep = (mask.sum(axis=1) > 1) & mask[np.arange(len(out)), out]
        if keep.any():
            rows = np.flatnonzero(keep)
            self._parts.append(Positions(
                obs=(np.asarray(obs)[rows] != 0).astype(np.int8), mask=mask[rows],
                action=out[rows], values=np.asarray(values, np.float32)[rows],
                game=self.base + self.offset + games[rows], seat=state.s[games[rows], TO_ACT].astype(np.int64)))
        return out

    def positions(self) -> Positions:
        """Everything recorded so far (and clears it)."""
        parts, self._parts = self._parts, []
        if not parts:
            return Positions(np.zeros((0, 0), np.int8), np.zeros((0, 0), bool), np.zeros(0, np.int64),
                             np.zeros((0, 0), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64))
        return Positions.concat(parts)


def mine(spec, deals: np.ndarray, dealers: np.ndarray, searcher: Any, first_game: int = 0) -> Positions:
    """The positions ``searcher`` decides when it plays ``deals`` in every seat (numbered from ``first_game``)."""
    recorder = Recorder(searcher)
    recorder.base = first_game
    play(spec, deals, dealers, [recorder], np.zeros((len(deals), spec.num_players), np.int64))
    return recorder.positions()


def mine_to(spec, out: str | Path, deals: int, seed: int, make_searcher, chunk: int = 20,
            progress: bool = True) -> Positions:
    """Mine ``deals`` deals of seed ``seed`` into ``out/chunk_K.npz`` (``chunk`` deals each) and return them all.

    Chunks already in ``out`` are kept, so the same call continues a stopped run. ``make_searcher(k)`` gives the
    searcher of chunk ``k`` (its seed fixed by ``k``, so a continued run plays as an uninterrupted one).
    """
    all_deals, dealers = make_deals(spec, deals, seed)

    def chunk_positions(k: int, start: int, stop: int) -> Positions:
        return mine(spec, all_deals[start:stop], dealers[start:stop], make_searcher(k), first_game=start)

    return write_chunks(out, deals, chunk, chunk_positions, progress)


def write_chunks(out: str | Path, deals: int, chunk: int, make, progress: bool = True) -> Positions:
    """The positions of ``deals`` deals, ``chunk`` a file: ``out/chunk_K.npz`` = ``make(k, start, stop)`` (the
    deals ``start .. stop``), made only where missing (so the same call continues a stopped run); all of them."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for k, start in enumerate(range(0, deals, chunk)):
        path = out / f"chunk_{k:05d}.npz"
        if path.exists():
            continue
        stop = min(deals, start + chunk)
        pos = make(k, start, stop)
        tmp = out / f"chunk_{k:05d}.tmp.npz"
        pos.save(tmp)
        tmp.replace(path)
        if progress:
            print(f"{out.name}: chunk {k} ({stop}/{deals} deals, {len(pos)} positions)", flush=True)
    return load_positions(out)


def load_positions(directory: str | Path) -> Positions:
    """Every chunk mined into ``directory`` (:func:`mine_to`), in order."""
    paths = sorted(p for p in Path(directory).glob("chunk_*.npz") if ".tmp" not in p.name)
    if not paths:
        raise FileNotFoundError(f"no mined chunks (chunk_*.npz) in {directory}")
    parts = []
    for p in paths:
        with np.load(p) as z:
            parts.append(Positions(**{f.name: z[f.name] for f in fields(Positions)}))
    return Positions.concat(parts)
