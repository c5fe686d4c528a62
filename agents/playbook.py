"""The playbook player: the rule-based agent with a game's playbook imposed where its rules apply.

A playbook is a short ordered list of :class:`Rule` s in a player's words (the game's
:class:`trickenv.games.parts.MoveFeatures`): "when leading, play a card that changes trump and ...". Each rule
says, at one kind of decision, which moves to play (or to avoid); where it applies (some legal moves match and
some do not) the allowed moves narrow to those, rule after rule, and the rule-based agent chooses among what
is left. No search and no network: a decision costs the features and a few comparisons.

The shipped playbooks (``trickenv/agents/playbooks/<game>.json``, and ``<game>-<words>.json`` for a variant
learned on its own) were learned from the search, the decisions before the play from their simulated outcomes,
and kept rule by rule only where imposing the rule measured better (docs/playbook/index.md);
``make_agent("playbook", spec)`` plays the one of the spec's variant, ``playbook:PATH`` another file.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from trickenv.agents.base import BatchAgent, act_rows
from trickenv.games.base import GameSpec
from trickenv.games.parts import MoveFeatures

__all__ = ["Condition", "Rule", "PlaybookAgent", "shipped_playbook_path", "load_playbook", "save_playbook"]

PLAYBOOKS = Path(__file__).resolve().parent / "playbooks"


@dataclass(frozen=True)
class Condition:
    """``feature`` (a name of the game's :class:`MoveFeatures`) ``> threshold`` if ``above``, else ``<= threshold``."""

    feature: str
    above: bool
    threshold: float

    def holds(self, features: MoveFeatures) -> np.ndarray:
        """bool ``[B, actions]``: the moves for which the condition holds (False for illegal moves)."""
        x = features.values[:, :, features.names.index(self.feature)]
        with np.errstate(invalid="ignore"):
            return (x > self.threshold) if self.above else (x <= self.threshold)


@dataclass(frozen=True)
class Rule:
    """At decisions of kind ``kind``, play a move meeting every condition (``play``), or avoid one (not ``play``).

    The rule *applies* where some allowed moves meet the conditions and some do not; there it narrows the
    allowed moves to the ones it advises (moves outside the kind's ``scope``, e.g. a declaration beside the
    cards, stay allowed). A rule of a kind that stands beside the position's own (``MoveFeatures.beside``: King
    Calling's declaring) weighs every legal move there: to declare, or to play a card. ``text`` says it in
    words."""

    kind: str
    conditions: tuple[Condition, ...]
    play: bool = True
    text: str = ""

    def advised(self, features: MoveFeatures, allowed: np.ndarray) -> np.ndarray:
        """bool ``[B, actions]``: the allowed moves the rule advises; a row of False where it does not apply."""
        allowed = np.asarray(allowed, bool)
        if self.kind not in features.kinds:
            raise ValueError(f"the rule's kind {self.kind!r} is not one of the game's kinds {features.kinds}")
        k = features.kinds.index(self.kind)
        own = features.kind == k
        scope = allowed if features.scope is None else allowed & features.scope
        if features.beside is not None:  # a decision beside the position's own weighs every legal move
            scope = np.where((features.beside == k)[:, None], allowed, scope)
            own |= features.beside == k
        meet = scope & own[:, None]
        for c in self.conditions:
            meet &= c.holds(features)
        advised = (meet if self.play else scope & ~meet) | (allowed & ~scope)  # moves out of scope stay allowed
        applies = meet.any(axis=1) & (scope & ~meet).any(axis=1)
        return advised & applies[:, None]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "Rule":
        return Rule(d["kind"], tuple(Condition(**c) for c in d["conditions"]), bool(d.get("play", True)),
                    d.get("text", ""))


def _options(spec: GameSpec) -> dict[str, Any]:
    return json.loads(json.dumps(dict(spec.options)))


def shipped_playbook_path(spec: GameSpec) -> Path:
    """The shipped playbook of ``spec``'s variant: ``playbooks/<game>.json`` for the game's default options, or a
    ``playbooks/<game>-<words>.json`` learned for the variant's options (FileNotFoundError naming the variants
    that have one)."""
    given = _options(spec)
    found = {}
    for path in sorted(PLAYBOOKS.glob(f"{spec.name}*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("game") == spec.name:
            found[path] = data.get("options", {})
            if data.get("options") == given:
                return path
    default = PLAYBOOKS / f"{spec.name}.json"
    if default.exists() and len(found) == 1:
        return default  # load_playbook names the options that differ
    have = "; ".join(" ".join(f"{k}={v}" for k, v in o.items() if v != found.get(default, {}).get(k))
                     or "the default options" for o in found.values())
    raise FileNotFoundError(f"no shipped playbook for {spec.name} with these options"
                            + (f" (shipped for: {have})" if found else " (none shipped for the game)"))


def save_playbook(path: str | Path, spec: GameSpec, rules: Sequence[Rule], about: dict[str, Any] | None = None) -> None:
    """Write ``rules`` for ``spec``'s game and options as JSON (``about``: anything to keep beside them)."""
    data = {"game": spec.name, "options": _options(spec),
            "rules": [r.to_dict() for r in rules], "about": about or {}}
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def load_playbook(path: str | Path, spec: GameSpec) -> list[Rule]:
    """The rules of a playbook file, checked against ``spec`` (its game, options and feature names)."""
    path = Path(path)
    if not path.exists():
        have = sorted(p.stem for p in PLAYBOOKS.glob("*.json"))
        raise FileNotFoundError(f"no playbook at {path} (shipped playbooks: {', '.join(have) or 'none'})")
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("game") != spec.name:
        raise ValueError(f"the playbook {path.name} is for {data.get('game')!r}, not {spec.name!r}")
    given = _options(spec)
    diff = {k: v for k, v in data.get("options", {}).items() if given.get(k) != v}
    if diff:
        raise ValueError(f"the playbook {path.name} was learned for other options: "
                         + ", ".join(f"{k}={v!r} (here {given.get(k)!r})" for k, v in diff.items()))
    rules = [Rule.from_dict(r) for r in data["rules"]]
    return rules


class PlaybookAgent(BatchAgent):
    """The rule-based agent (``base``) with ``rules`` (a playbook file, a list of :class:`Rule`, or the game's
    shipped playbook) narrowing its moves where they apply."""

    name = "playbook"

    def __init__(self, spec: GameSpec, seed: int | None = None, path: str | Path | None = None,
                 rules: Sequence[Rule] | None = None, base: Any = None) -> None:
        from trickenv.agents.rules import rules_agent

        if spec.learning.move_features is None:
            raise ValueError(f"{spec.name} has no readable move features (GameLearning.move_features): no playbook")
        super().__init__(spec)
        self.rules = list(rules) if rules is not None else load_playbook(path or shipped_playbook_path(spec), spec)
        names = set(spec.learning.move_features(spec, np.zeros((1, spec.obs_size), np.int8),
                                                np.ones((1, spec.num_actions), bool)).names)
        unknown = sorted({c.feature for r in self.rules for c in r.conditions} - names)
        if unknown:
            raise ValueError(f"the playbook names features {spec.name} does not have: {', '.join(unknown)}; "
                             f"its features: {', '.join(sorted(names))}")
        self.base = base if base is not None else rules_agent(spec, seed=seed)

    def allowed(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The moves the playbook leaves the base agent: ``mask`` narrowed by each rule that applies, in order."""
        allowed = np.asarray(mask, bool).copy()
        if not self.rules:
            return allowed
        features = self.spec.learning.move_features(self.spec, obs, allowed)
        for rule in self.rules:
            advised = rule.advised(features, allowed)
            rows = advised.any(axis=1)
            allowed[rows] = advised[rows]
        return allowed

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs)
        return self.choose(obs, self.allowed(obs, mask))

    def choose(self, obs: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """The base agent's move among the ``allowed`` moves (:meth:`allowed`, or any narrower mask)."""
        allowed = np.asarray(allowed, bool)
        act = np.array(act_rows(self.base, np.asarray(obs), allowed), np.int64)  # a copy: a base may reuse its buffer
        # A base that reads the phase from the full mask may answer outside the allowed moves: the first allowed.
        off = (act < 0) | ~allowed[np.arange(len(act)), np.clip(act, 0, allowed.shape[1] - 1)]
        act[off] = allowed[off].argmax(axis=1)
        return act
