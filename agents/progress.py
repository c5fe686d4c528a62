"""What an evaluation reports while it plays: :class:`Progress` (the bar) and :class:`Clock` (where the time goes).

Both are filled by the play loop (:func:`trickenv.agents.play_loop.play_chunk`); a Ray task keeps a clock of
its own and the driver adds it to the run's (:mod:`trickenv.agents.ray_chunks`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Progress", "Clock"]


class Progress:
    """A tqdm bar counting finished deals, with the chunk and step in play (does nothing when disabled)."""

    def __init__(self, total: int, chunks: int, desc: str, enabled: bool) -> None:
        self.bar = None
        self.chunks = chunks
        self.label = ""
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - depends on the install
                return
            self.bar = tqdm(total=total, desc=desc, unit="deal", dynamic_ncols=True)

    def chunk(self, index: int) -> None:
        self.label = f"chunk {index + 1}/{self.chunks} step "

    def step(self, t: int) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(self.label + str(t), refresh=False)

    def deals(self, k: int) -> None:
        if self.bar is not None and k > 0:
            self.bar.update(k)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@dataclass
class Clock:
    """Where the time goes: per agent (seconds, decisions) and the env; ``play``: the wall seconds of the chunks
    timed, which hold ``deals`` deals (a journal keeps each chunk's clock, so a resumed run adds the time its
    earlier calls spent)."""

    names: list[str]
    agent_seconds: list[float] = field(default_factory=list)
    agent_decisions: list[int] = field(default_factory=list)
    env: float = 0.0
    play: float = 0.0
    deals: int = 0

    def __post_init__(self) -> None:
        self.agent_seconds = [0.0] * len(self.names)
        self.agent_decisions = [0] * len(self.names)

    def add_agent(self, a: int, seconds: float, decisions: int) -> None:
        self.agent_seconds[a] += seconds
        self.agent_decisions[a] += decisions

    def merge(self, other: "Clock") -> None:
        """Add ``other``'s times (a chunk's clock, of the same agents) to this one."""
        for a in range(len(self.names)):
            self.add_agent(a, other.agent_seconds[a], other.agent_decisions[a])
        self.env += other.env
        self.play += other.play
        self.deals += other.deals

    def to_dict(self) -> dict[str, Any]:
        return {"agent_seconds": self.agent_seconds, "agent_decisions": self.agent_decisions, "env": self.env,
                "play": self.play, "deals": self.deals}

    @staticmethod
    def from_dict(names: list[str], d: dict[str, Any]) -> "Clock":
        clock = Clock(names)
        clock.agent_seconds = [float(x) for x in d["agent_seconds"]]
        clock.agent_decisions = [int(x) for x in d["agent_decisions"]]
        clock.env, clock.play, clock.deals = float(d["env"]), float(d["play"]), int(d["deals"])
        return clock
