"""From deal records to score tables: what the play loop of :mod:`trickenv.agents.evaluation` collects.

- :class:`Chunk`: the games of one chunk of an evaluation (``deals x
  seatings``, game ``g`` = deal ``g // S`` in seating ``g % S``) and the deal
  records collected as the games finish. It lives outside the play loop, so a
  KeyboardInterrupt in the middle of a chunk loses nothing.
- :func:`seat_metrics`: the game-specific facts per seat of finished deals
  (Four Tricks exact hits, Farbwechsel card points and trump changes caused,
  King Calling roles and wins).
- :class:`Table`: what a set of finished deals leaves, ``scores [deal, seating,
  seat]`` and the seat metrics, in deal order: the input of
  :func:`trickenv.agents.statistics.summarize`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from trickenv.games.base import GameSpec

__all__ = ["Table", "Chunk", "seat_metrics"]


@dataclass
class Table:
    """What a set of finished deals leaves, in deal order: the input of :func:`.statistics.summarize`.

    ``scores [D, S, n]`` (deal, seating, seat); ``metrics``: name -> ``(value [D, S, n], weight [D, S, n] bool)``
    where weight says which seats the metric counts for (e.g. only the caller); ``dealers [D]``;
    ``deal_ids [D]``: the deals' indices in the run (an interrupted chunk may keep some of its deals).
    ``metrics``, ``dealers`` and ``deal_ids`` may be left out (``Table(scores)``): no rates, dealer 0.
    ``records``: the deal records (docs/records.md), one row per deal and seating (``D x S`` rows, deal-major),
    when the run keeps them (``evaluate(records=True)``), else None.
    """

    scores: np.ndarray
    metrics: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    dealers: np.ndarray | None = None
    deal_ids: np.ndarray | None = None
    records: dict[str, np.ndarray] | None = None

    def __post_init__(self) -> None:
        self.scores = np.asarray(self.scores, np.float64)
        if self.dealers is None:
            self.dealers = np.zeros(len(self.scores), np.int64)
        if self.deal_ids is None:
            self.deal_ids = np.arange(len(self.scores))

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` (npz; written to a temporary name and renamed, so a kill leaves no half file)."""
        path = Path(path)
        arrays = {"scores": self.scores, "dealers": self.dealers, "deal_ids": self.deal_ids}
        for name, (value, weight) in self.metrics.items():
            arrays[f"metric.value.{name}"] = value
            arrays[f"metric.weight.{name}"] = weight
        for key, value in (self.records or {}).items():
            arrays[f"record.{key}"] = value
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.replace(path)

    @staticmethod
    def load(path: str | Path) -> "Table":
        """A table written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as f:
            metrics = {k[len("metric.value."):]: (f[k], f["metric.weight." + k[len("metric.value."):]])
                       for k in f.files if k.startswith("metric.value.")}
            records = {k[len("record."):]: f[k] for k in f.files if k.startswith("record.")}
            return Table(f["scores"], metrics, f["dealers"], f["deal_ids"], records or None)

    @staticmethod
    def concat(parts: list["Table"], num_seatings: int, num_players: int) -> "Table":
        """One table of the parts, in order (an empty table of the right shape if there are none)."""
        parts = [p for p in parts if len(p.scores)]
        if not parts:
            return Table(np.zeros((0, num_seatings, num_players)), {}, np.zeros(0, np.int64))
        metrics = {name: (np.concatenate([p.metrics[name][0] for p in parts]),
                          np.concatenate([p.metrics[name][1] for p in parts])) for name in parts[0].metrics}
        records = None
        if all(p.records is not None for p in parts):
            records = {key: np.concatenate([p.records[key] for p in parts]) for key in parts[0].records}
        return Table(np.concatenate([p.scores for p in parts]), metrics, np.concatenate([p.dealers for p in parts]),
                     np.concatenate([p.deal_ids for p in parts]), records)


class Chunk:
    """The games of one chunk (``deals x seatings``) and the records collected so far.

    Kept outside the play loop (:func:`.play_loop.play_chunk`) so that a KeyboardInterrupt in the
    middle of the chunk loses nothing: :meth:`table` returns the deals whose seatings have all finished.
    """

    def __init__(self, spec: GameSpec, seatings: np.ndarray, deals: np.ndarray, dealers: np.ndarray,
                 first_deal: int = 0) -> None:
        self.spec = spec
        self.first_deal = first_deal
        self.num_deals = len(deals)
        self.num_seatings = len(seatings)
        b = self.num_deals * self.num_seatings
        # game g = deal g // S in seating g % S
        self.deals = np.repeat(deals, self.num_seatings, axis=0)
        self.dealers = np.repeat(dealers, self.num_seatings).astype(np.int64)
        self.seat_agent = np.tile(seatings, (self.num_deals, 1))  # [B, n] agent index per seat
        self.finished = np.zeros(b, bool)
        self.records: dict[str, np.ndarray] = {}

    def store(self, rec: dict[str, np.ndarray]) -> None:
        """Keep the records of finished games (a ``deal_records()`` dict)."""
        games = rec["game"]
        for key, value in rec.items():
            if key not in self.records:
                self.records[key] = np.zeros((len(self.finished),) + value.shape[1:], value.dtype)
            self.records[key][games] = value
        self.finished[games] = True

    def deals_done(self) -> np.ndarray:
        """Bool per deal: all its seatings have finished."""
        return self.finished.reshape(self.num_deals, self.num_seatings).all(axis=1)

    def table(self, records: bool = False) -> Table:
        """The table of the finished deals (all of them once the chunk is over), with their records if asked."""
        done = self.deals_done()
        games = (np.flatnonzero(done)[:, None] * self.num_seatings + np.arange(self.num_seatings)).ravel()
        d, s, n = int(done.sum()), self.num_seatings, self.spec.num_players
        if d == 0:
            return Table(np.zeros((0, s, n)), {}, np.zeros(0, np.int64))
        rec = {key: value[games] for key, value in self.records.items()}
        metrics = {name: (np.asarray(v).reshape(d, s, n), np.asarray(w).reshape(d, s, n))
                   for name, (v, w) in seat_metrics(self.spec, rec).items()}
        scores = rec["scores"].reshape(d, s, n).astype(np.float64)
        return Table(scores, metrics, rec["dealer"].reshape(d, s)[:, 0].astype(np.int64),
                     self.first_deal + np.flatnonzero(done), rec if records else None)


def seat_metrics(spec: GameSpec, rec: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Game-specific facts per seat of finished deals: name -> ``(value [G, n], weight [G, n] bool)``.

    An agent's rate is the mean of ``value`` over its seat-occurrences where ``weight`` is True. The game
    says which facts (``GameSpec.seat_metrics``).
    """
    return spec.seat_metrics(spec, rec)
