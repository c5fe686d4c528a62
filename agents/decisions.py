"""Decisions before the play taken from learned values: King Calling's call, the dealer's trump, the bids.

A game names these decisions (:class:`trickenv.games.parts.Decision`: the actions, and the features of each
choice from what the seat to act knows). A **value file** holds a small network that gives every choice its
value for the decider, learned from simulated outcomes (``trickenv decisions``,
:mod:`trickenv.training.decisions`): the decider's deal score when the deal is played out after that choice,
less the mean over the choices of the same deal. Playing one costs a forward pass over the choices.

Any agent takes its decisions from them with the keyword ``decisions``:
``make_agent("search:decisions=learned", spec)`` (the value files shipped for the variant,
``agents/models/decisions/``), ``decisions=DIR`` (the value files in a folder that are for the variant) or
``decisions=PATH`` (one file); ``decisions=own`` keeps the agent's own decisions. The agent decides
everything else, as before. Where the variant has no value file, ``decisions=learned`` is an error that names the variants that
have one.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from trickenv.agents.base import BatchAgent, act_rows
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.games.parts import Decision

__all__ = ["DecisionValues", "LearnedDecisions", "learned_decisions", "with_learned_decisions", "shipped_value_files", "save_values",
           "variant_options"]


def shipped_value_files() -> list[Path]:
    """The value files shipped with the package (``agents/models/decisions/*.npz``)."""
    folder = Path(str(resources.files("trickenv.agents") / "models" / "decisions"))
    return sorted(folder.glob("*.npz")) if folder.is_dir() else []


def variant_options(spec: GameSpec) -> dict[str, Any]:
    """The options that make a variant, as a value file records them (a match's length plays no part)."""
    return {k: v for k, v in spec.options.items() if k not in ("rounds", "win_at")}


def save_values(path: str | Path, weights: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any]) -> None:
    """Write a value file: the network's layers ``[(W [in, out], b [out]), ...]`` (ReLU between them, one
    output) and ``meta`` (JSON-able; ``game``, ``options``, ``decision`` and ``features`` are required)."""
    missing = [k for k in ("game", "options", "decision", "features") if k not in meta]
    if missing:
        raise ValueError(f"a value file's meta needs {', '.join(missing)}")
    arrays = {}
    for i, (w, b) in enumerate(weights):
        arrays[f"W{i}"] = np.asarray(w, np.float32)
        arrays[f"b{i}"] = np.asarray(b, np.float32)
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def _load(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no value file at {path}")
    with np.load(path, allow_pickle=False) as f:
        if "meta" not in f.files or "W0" not in f.files:
            raise ValueError(f"{path} is not a value file (trickenv decisions writes them)")
        meta = json.loads(str(f["meta"]))
        layers = []
        while f"W{len(layers)}" in f.files:
            i = len(layers)
            layers.append((f[f"W{i}"].astype(np.float32), f[f"b{i}"].astype(np.float32)))
    return layers, meta


class DecisionValues:
    """A value network for one decision of ``spec``'s variant: :meth:`values` of every choice.
    :meth:`load` reads a value file; ``layers`` and ``meta`` as :func:`save_values` writes them."""

    def __init__(self, spec: GameSpec, layers: list[tuple[np.ndarray, np.ndarray]], meta: dict[str, Any],
                 path: Path | None = None) -> None:
        self.layers, self.meta, self.spec = layers, meta, spec
        self.path = path or Path("values")
        want = {"game": spec.name, "options": variant_options(spec)}
        have = {"game": meta["game"], "options": meta["options"]}
        if have != want:
            raise ValueError(f"{self.path.name} holds values for {have['game']} {have['options']}, not for "
                             f"{want['game']} {want['options']}")
        found = {d.name: d for d in (spec.learning.decisions(spec) if spec.learning.decisions else ())}
        if meta["decision"] not in found:
            raise ValueError(f"{self.path.name}: {spec.name} {want['options']} has no decision "
                             f"{meta['decision']!r}; its decisions: {', '.join(found) or 'none'}")
        self.decision: Decision = found[meta["decision"]]
        if layers[0][0].shape[0] != meta["features"]:
            raise ValueError(f"{self.path.name}: the network reads {layers[0][0].shape[0]} features, "
                             f"its meta says {meta['features']}")

    @classmethod
    def load(cls, spec: GameSpec, path: str | Path) -> "DecisionValues":
        layers, meta = _load(path)
        return cls(spec, layers, meta, Path(path))

    def values(self, obs: np.ndarray) -> np.ndarray:
        """float32 [B, choices]: each choice's value for the seat to act in ``obs`` (illegal choices included;
        the last is "none" where the decision may be declined)."""
        x = self.decision.features(self.spec, obs)
        b, k, f = x.shape
        if f != self.meta["features"]:
            raise ValueError(f"{self.path.name} was learned from {self.meta['features']} features a choice; "
                             f"{self.spec.name} gives {f} now")
        h = x.reshape(b * k, f)
        for i, (w, bias) in enumerate(self.layers):
            h = h @ w + bias
            if i < len(self.layers) - 1:
                np.maximum(h, 0.0, out=h)
        return h.reshape(b, k)


class LearnedDecisions:
    """The decisions of ``spec``'s variant that have a value file: :meth:`choose` takes them.

    ``source``: ``"learned"`` (the files shipped for the variant), a folder (the value files in it that are for
    the variant) or the path of one value file; ValueError where none is for the variant. ``names``: only these
    decisions (a ValueError names any that has no value file there)."""

    def __init__(self, spec: GameSpec, source: str | Path = "learned", names: tuple[str, ...] | None = None) -> None:
        folder = str(source) == "learned" or Path(source).is_dir()
        if folder:
            paths = shipped_value_files() if str(source) == "learned" else sorted(Path(source).glob("*.npz"))
            tables = []
            for path in paths:
                try:
                    tables.append(DecisionValues.load(spec, path))
                except ValueError:
                    continue  # another game's or variant's
            if not tables:
                where = "shipped" if str(source) == "learned" else f"in {source}"
                have = sorted({f"{meta['game']} {meta['options']}" for meta in (_load(p)[1] for p in paths)})
                raise ValueError(f"no decision values {where} are for {spec.name} {variant_options(spec)}; "
                                 f"they are for: {'; '.join(have) or 'none'}")
        else:
            tables = [DecisionValues.load(spec, source)]
        if names is not None:
            missing = [n for n in names if n not in {t.decision.name for t in tables}]
            if missing:
                raise ValueError(f"no value file for the decision {missing[0]!r} of {spec.name} "
                                 f"{variant_options(spec)} in {source}; it has: "
                                 f"{', '.join(t.decision.name for t in tables)}")
            tables = [t for t in tables if t.decision.name in names]
        self.tables = tables
        self.files = [t.path for t in tables]

    def choose(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """int64 [B]: the legal choice with the highest value where one of the decisions is pending, else -1."""
        return self.decide(obs, mask)[0]

    def decide(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(choice [B], mask [B, A])``: :meth:`choose`'s choice, and the mask the agent then acts on: where a
        decision that may be declined was declined (its "none" valued highest), without the decision's
        actions."""
        mask = np.asarray(mask, bool)
        out = np.full(len(mask), -1, np.int64)
        done = np.zeros(len(mask), bool)
        rest = mask
        for t in self.tables:
            d = t.decision
            legal = mask[:, d.first:d.first + d.count]
            rows = np.flatnonzero(legal.any(axis=1) & ~done)
            if not rows.size:
                continue
            done[rows] = True
            allowed = legal[rows]
            if d.decline:  # "none" where another action is left to take
                others = mask[rows].sum(axis=1) > legal[rows].sum(axis=1)
                allowed = np.concatenate([allowed, others[:, None]], axis=1)
            best = np.where(allowed, t.values(np.asarray(obs)[rows]), -np.inf).argmax(axis=1)
            take = best < d.count
            out[rows[take]] = d.first + best[take]
            if not take.all():
                rest = rest.copy() if rest is mask else rest
                rest[rows[~take], d.first:d.first + d.count] = False
        return out, rest


class WithLearnedDecisions(BatchAgent):
    """``agent`` with its decisions before the play taken from learned values (:class:`LearnedDecisions`)."""

    def __init__(self, agent: Any, learned: LearnedDecisions) -> None:
        super().__init__(agent.spec)
        self.agent = agent
        self.learned = learned
        self.name = getattr(agent, "name", "agent")
        self.needs_state = bool(getattr(agent, "needs_state", False))

    def act(self, observation: dict[str, np.ndarray], state: State | None = None, game: int = 0) -> int:
        obs = np.asarray(observation["observation"], np.int8)[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        if not mask.any():
            raise ValueError("action_mask has no legal action")
        chosen, rest = self.learned.decide(obs, mask)
        if chosen[0] >= 0:
            return int(chosen[0])
        if rest is not mask:  # declined: the agent acts without the decision's actions
            observation = {**observation, "action_mask": rest[0].astype(np.int8)}
        if self.needs_state:
            return int(self.agent.act(observation, state=state))
        return int(self.agent.act(observation))

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: State | None = None,
                  games: np.ndarray | None = None) -> np.ndarray:
        out, mask = self.learned.decide(obs, mask)
        rest = np.flatnonzero(out < 0)
        if rest.size == len(out):
            return np.array(act_rows(self.agent, obs, mask, state, games), np.int64)
        if rest.size:
            sub = None if games is None else np.asarray(games)[rest]
            out[rest] = act_rows(self.agent, np.asarray(obs)[rest], mask[rest], state, sub)
        return out

    def __getattr__(self, name: str) -> Any:  # the agent's own attributes (analyse, seed, ...) stay reachable
        if name == "agent":
            raise AttributeError(name)
        return getattr(self.agent, name)


def default_value_files(agent: str, spec: GameSpec) -> list[Path]:
    """The shipped value files the agent called ``agent`` reads by default in ``spec``'s variant (an agent class's
    ``default_decisions``; none for an agent without one)."""
    from trickenv.agents.base import AGENTS, parse_agent_name

    default = getattr(AGENTS.get(parse_agent_name(agent)[0]), "default_decisions", None)
    names = default(spec) if default is not None else ()
    learned = _shipped_default(spec, names)
    return learned.files if learned is not None else []


def _shipped_default(spec: GameSpec, names: tuple[str, ...]) -> LearnedDecisions | None:
    """The shipped values of the decisions ``names`` (an agent's default) where files for the variant ship;
    None where none do (the agent decides for itself there: its default names no variant)."""
    if not names:
        return None
    try:
        return LearnedDecisions(spec, "learned", names=names)
    except ValueError:  # no shipped file is for this variant
        return None


def learned_decisions(spec: GameSpec, source: str | Path, default: tuple[str, ...] = ()) -> LearnedDecisions | None:
    """What an agent's keyword ``decisions`` asks for: None (``source`` None with no ``default``, or ``"own"``: the
    agent decides), else the :class:`LearnedDecisions` of ``source`` (None: the shipped values of the decisions
    named in ``default``, the agent's default for the variant)."""
    if source is None:
        return _shipped_default(spec, default)
    return None if str(source) == "own" else LearnedDecisions(spec, source)


def with_learned_decisions(agent: Any, spec: GameSpec, source: str | Path) -> Any:
    """``agent`` taking the decisions before the play from learned values (``source``: ``"learned"``, a folder or
    a value file's path); ``source`` ``"own"`` leaves it as it is (its own decisions, whatever its default)."""
    if str(source) == "own":
        return agent
    return WithLearnedDecisions(agent, LearnedDecisions(spec, source))
