"""The benchmark's versions: which deals, which opponents, how many deals against each.

A version is frozen once its cards ship: its deal set (``<version>/deals.npz``, card ids and dealers, drawn once
from ``seed``) and its references (the bundled agents a benchmarked agent plays, with their settings). Changing
either, or the play of a reference agent, makes a new version (``tests/test_benchmark.py`` guards v1 by the
hashes of its deal file and of its references' inputs).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.games import make_spec


@dataclass(frozen=True)
class Entry:
    """One game variant of a benchmark: ``game`` with ``options``."""

    game: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def key(self) -> str:
        """``four_tricks`` or ``four_tricks bidding=True``: the entry's name in files and cards."""
        return " ".join([self.game] + [f"{k}={v}" for k, v in self.options])

    @property
    def spec(self) -> Any:
        return make_spec(self.game, **dict(self.options))


@dataclass(frozen=True)
class BenchmarkSet:
    """A benchmark version: its entries, its references ``(agent name, deals against it)``, the seed of the
    deal set and of the agents, and ``chunk``, the deals a batch of games plays (every chunk starts its agents
    afresh, so the games depend on it; the chunks can run in parallel, ``trickenv benchmark --ray``).
    ``played``: ``(reference, agent name)`` where a reference plays as another name says (a bundled agent whose
    default changed after the version was frozen plays as it did then: :meth:`agent`)."""

    version: str
    entries: tuple[Entry, ...]
    references: tuple[tuple[str, int], ...]
    seed: int
    chunk: int = 25
    played: tuple[tuple[str, str], ...] = ()

    def agent(self, reference: str) -> str:
        """The agent name ``reference`` plays as."""
        return dict(self.played).get(reference, reference)

    @property
    def deals(self) -> int:
        """Deals an entry holds: as many as the reference played longest."""
        return max(n for _, n in self.references)

    def entry(self, key: str) -> Entry:
        for e in self.entries:
            if e.key == key:
                return e
        raise ValueError(f"benchmark {self.version} has no entry {key!r}; entries: {[e.key for e in self.entries]}")


V1 = BenchmarkSet(
    version="v1",
    entries=(
        Entry("four_tricks"), Entry("four_tricks", (("bidding", True),)),
        Entry("farbwechsel"), Entry("farbwechsel", (("num_players", 4), ("partnership", True))),
        Entry("koenigrufen"), Entry("koenigrufen", (("partner_from", "full_hand"),)),
    ),
    # The searching references cost most a deal: fewer deals against them keep a game's run in minutes.
    references=(("rules", 500), ("model", 500), ("pimc", 200), ("search", 50)),
    seed=20261206,
    chunk=25,
    # search took the learned bids by default after v1 was frozen; its reference keeps its own bids
    played=(("search", "search:decisions=own"),),
)
BENCHMARKS = {V1.version: V1}


def benchmark_set(version: str) -> BenchmarkSet:
    if version not in BENCHMARKS:
        raise ValueError(f"unknown benchmark version {version!r}; versions: {', '.join(BENCHMARKS)}")
    return BENCHMARKS[version]


def deal_path(version: str) -> Path:
    """The deal file of ``version`` in the package."""
    return Path(str(resources.files("trickenv.benchmark") / version / "deals.npz"))


def load_deals(bset: BenchmarkSet, entry: Entry) -> tuple[np.ndarray, np.ndarray]:
    """``(deals [D, players, cards], dealers [D])`` of ``entry`` from the version's deal file."""
    with np.load(deal_path(bset.version)) as data:
        return data[f"{entry.key}|deals"].astype(np.int64), data[f"{entry.key}|dealers"].astype(np.int64)


def make_deal_file(bset: BenchmarkSet, path: Path) -> None:
    """Draw the deal set of ``bset`` (once, when a version is made) and write it to ``path``."""
    from trickenv.agents.seatings import make_deals

    arrays = {}
    for entry in bset.entries:
        deals, dealers = make_deals(entry.spec, bset.seed, 0, bset.deals)
        arrays[f"{entry.key}|deals"] = deals.astype(np.int8)
        arrays[f"{entry.key}|dealers"] = dealers.astype(np.int8)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


def deal_hash(bset: BenchmarkSet) -> str:
    """The sha256 of the version's deals and dealers, entry by entry (what its cards were played on)."""
    h = hashlib.sha256()
    for entry in bset.entries:
        deals, dealers = load_deals(bset, entry)
        h.update(entry.key.encode())
        h.update(deals.astype(np.int8).tobytes())
        h.update(dealers.astype(np.int8).tobytes())
    return h.hexdigest()
