"""The opponent league of self-play training: random, rule-based and frozen snapshots of the learner.

The pool is ``[random, rules, snapshot_0 (oldest), ..., snapshot_k (latest)]``.
At every new deal each opponent seat (the learner's partner included, in
King Calling and partnership Farbwechsel) gets a pool member drawn by the
schedule below; every member plays all the rows where it acts with one
``act_batch`` call per engine step (``trickenv.single_seat.SeatEnv``).

Schedule (probabilities per opponent seat; renormalised over the members that
exist, so before the first snapshot rules and random share everything):

- ``rules``  0.45: the strongest fixed opponent, the one the player must beat;
- ``latest`` 0.30: the newest snapshot (self-play against the current level);
- ``older``  0.20: the older snapshots, uniformly (keeps strategies it beat);
- ``random`` 0.05: keeps the player punishing weak play.

Snapshots are plain NumPy players (:class:`trickenv.agents.policy.PolicyAgent`),
so an opponent costs a few matrix products per step, not a torch call.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.policy import PolicyAgent, load_card_head, load_policy, save_policy
from trickenv.engine.state import State
from trickenv.games.base import GameSpec


@dataclass
class Schedule:
    """Probability of each kind of pool member for an opponent seat (see the module docstring)."""

    rules: float = 0.45
    latest: float = 0.30
    older: float = 0.20
    random: float = 0.05

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValueError(f"schedule: {name} must be a finite number >= 0, got {value!r}")
        if self.rules + self.random <= 0:
            raise ValueError("schedule: rules + random must be > 0 (before the first snapshot they are the pool)")


def parse_schedule(text: str) -> dict[str, float]:
    """The schedule of ``--schedule random=0.2,rules=0.3``: the defaults with the named shares replaced."""
    out = asdict(Schedule())
    for part in text.split(","):
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in out:
            raise ValueError(f"schedule: {part!r} is not NAME=SHARE with NAME one of {', '.join(out)}")
        try:
            out[name] = float(value)
        except ValueError:
            raise ValueError(f"schedule: the share of {name} must be a number, got {value!r}") from None
    Schedule(**out)  # checks the values
    return out


class TimedAgent:
    """Wraps an agent and adds up the seconds spent in its ``act_batch`` (the opponents' share).

    It needs the engine state when the wrapped agent does, and hands it on the same way
    (:func:`trickenv.agents.base.act_rows`): the agent is called exactly as without the wrapper.
    """

    def __init__(self, agent: Any, clock: list[float]) -> None:
        self.agent, self.clock = agent, clock
        self.needs_state = getattr(agent, "needs_state", False)
        self.name = getattr(agent, "name", "agent")

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: State | None = None,
                  games: np.ndarray | None = None) -> np.ndarray:
        """The wrapped agent's actions, timed."""
        t0 = time.perf_counter()
        out = act_rows(self.agent, obs, mask, state, games)
        self.clock[0] += time.perf_counter() - t0
        return out


class League:
    """The pool and its schedule; snapshots keep the newest ``keep``."""

    def __init__(self, spec: GameSpec, schedule: Schedule | None = None, keep: int = 4, seed: int = 0) -> None:
        self.spec = spec
        self.schedule = schedule or Schedule()
        self.keep = keep
        self.seed = seed
        # (step, MLP weights, meta, the per-card head's arrays or None) per snapshot
        self.snapshots: list[tuple[int, list[tuple[np.ndarray, np.ndarray]], dict[str, Any],
                                   dict[str, np.ndarray] | None]] = []
        self.clock = [0.0]  # seconds the opponents spent choosing moves
        self._fixed = [TimedAgent(make_agent("random", spec, seed=seed + 1), self.clock),
                       TimedAgent(make_agent("rules", spec, seed=seed + 2), self.clock)]
        self._members: list[TimedAgent] = []
        self._probs = np.zeros(0)
        self._rebuild()

    def add_snapshot(self, step: int, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                     card_head: dict[str, np.ndarray] | None = None) -> None:
        """Freeze the learner's current weights (and its per-card head's) as a new pool member (dropping the oldest
        beyond ``keep``)."""
        frozen = [(np.array(w, np.float32), np.array(b, np.float32)) for w, b in weights]
        head = None if card_head is None else {k: np.array(v, np.float32) for k, v in card_head.items()}
        self.snapshots.append((int(step), frozen, dict(meta), head))
        self.snapshots = self.snapshots[-self.keep:]
        self._rebuild()

    def _rebuild(self) -> None:
        snaps = [TimedAgent(PolicyAgent.from_weights(self.spec, w, meta, card_head=head), self.clock)
                 for _, w, meta, head in self.snapshots]
        self._members = self._fixed + snaps
        s = self.schedule
        p = [s.random, s.rules]
        if snaps:
            older = len(snaps) - 1
            p += [s.older / older] * older if older else []
            p += [s.latest + (0.0 if older else s.older)]
        p = np.array(p, np.float64)
        self._probs = p / p.sum()

    @property
    def members(self) -> list[TimedAgent]:
        """The pool in sampler order: random, rules, snapshots oldest first."""
        return list(self._members)

    @property
    def probabilities(self) -> np.ndarray:
        """The schedule's probability of each pool member."""
        return self._probs.copy()

    def sampler(self, *, rng: np.random.Generator, games: np.ndarray, seats: np.ndarray, num_players: int,
                pool_size: int) -> np.ndarray:
        """``SeatEnv`` sampler: a pool member for every seat of every new deal, by the schedule."""
        if pool_size != len(self._probs):
            raise ValueError(f"the SeatEnv's pool ({pool_size}) is not this league's ({len(self._probs)})")
        return rng.choice(pool_size, size=(len(games), num_players), p=self._probs)

    def save(self, path: Path) -> None:
        """Write the snapshots to a folder (one player file each)."""
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("snapshot_*.npz"):
            old.unlink()
        for step, weights, meta, head in self.snapshots:
            save_policy(path / f"snapshot_{step:012d}.npz", weights, {**meta, "snapshot_step": step}, head)

    def load(self, path: Path) -> None:
        """Read the snapshots written by :meth:`save`."""
        self.snapshots = []
        for f in sorted(path.glob("snapshot_*.npz")):
            weights, meta = load_policy(f)
            self.snapshots.append((int(meta["snapshot_step"]), weights, meta, load_card_head(f)))
        self._rebuild()
