"""A playbook learned from the search: shallow decision trees over a player's words, read as rules.

The positions a search decided (:mod:`trickenv.research.mining`) are written move by move in the game's readable
features (:class:`trickenv.games.parts.MoveFeatures`): one row per legal move, labelled 1 if the search played
it. :func:`fit_trees` fits one shallow scikit-learn tree per kind of decision and says how much of the search's
choice it explains on held-out positions (:func:`agreement`); :func:`tree_rules` reads each tree's leaves that
the search plays much more (or much less) often than chance as :class:`trickenv.agents.playbook.Rule` s in
words; :func:`rule_values` reads what the search valued following each rule where it applies.

Which rules a playbook keeps is decided by play (:func:`trickenv.research.advice_test`), on other deals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from trickenv.agents.playbook import Condition, Rule
from trickenv.agents.statistics import mean_ci
from trickenv.games.parts import MoveFeatures
from trickenv.research.mining import Positions
from trickenv.research.stats import ratio_ci

__all__ = ["MoveTable", "move_table", "fit_trees", "agreement", "tree_rules", "rule_text", "rule_values",
           "chosen_agreement"]


@dataclass
class MoveTable:
    """Every legal move of every position, one row each: ``x`` float32 ``[M, F]`` (the features), ``chosen``
    bool (the search played it), ``position`` (the row of :class:`Positions`), ``action``, ``kind`` (of the
    position); ``features`` the :class:`MoveFeatures` of the positions."""

    x: np.ndarray
    chosen: np.ndarray
    position: np.ndarray
    action: np.ndarray
    kind: np.ndarray
    features: MoveFeatures


def move_table(spec, pos: Positions) -> MoveTable:
    """The :class:`MoveTable` of ``pos`` in ``spec``'s readable features (``GameLearning.move_features``)."""
    if spec.learning.move_features is None:
        raise ValueError(f"{spec.name} has no readable move features (GameLearning.move_features)")
    mf = spec.learning.move_features(spec, pos.obs, pos.mask)
    position, action = np.nonzero(pos.mask)
    return MoveTable(mf.values[position, action], action == pos.action[position], position, action,
                     mf.kind[position], mf)


def agreement(scores: np.ndarray, chosen: np.ndarray, position: np.ndarray, positions: int) -> np.ndarray:
    """Per position, the chance that picking a best-scored move (ties broken at random) picks the chosen one:
    float ``[positions]`` (NaN for positions without rows). ``scores``, ``chosen``, ``position``: per move."""
    best = np.full(positions, -np.inf)
    np.maximum.at(best, position, scores)
    top = scores >= best[position] - 1e-12
    n_top = np.bincount(position, top, minlength=positions)
    hit = np.bincount(position, top & chosen, minlength=positions)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_top > 0, hit / n_top, np.nan)


def chosen_agreement(pos: Positions, actions: np.ndarray) -> np.ndarray:
    """1.0 where ``actions`` (another player's move at each position) is the search's move, else 0.0."""
    return (np.asarray(actions) == pos.action).astype(np.float64)


def fit_trees(table: MoveTable, train: np.ndarray, depth: int = 3, min_leaf: float = 0.02,
              seed: int = 0) -> dict[str, dict[str, Any]]:
    """One shallow tree per kind of decision, fitted on the positions ``train`` (bool per position).

    Per kind: ``tree`` (a fitted ``DecisionTreeClassifier``, leaves of at least ``min_leaf`` of the kind's
    training moves), ``depth``, ``leaves``, and ``agreement`` on the held-out positions of that kind
    (:func:`agreement`, ``(mean, lo, hi)`` over positions) beside ``chance`` (picking a legal move at random)
    and ``positions`` (held-out count)."""
    from sklearn.tree import DecisionTreeClassifier

    out: dict[str, dict[str, Any]] = {}
    n = len(train)
    for k, name in enumerate(table.features.kinds):
        rows = table.kind == k
        fit = rows & train[table.position]
        test = rows & ~train[table.position]
        if not fit.any() or table.chosen[fit].all() or not table.chosen[fit].any():
            continue
        tree = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=min_leaf, random_state=seed)
        tree.fit(table.x[fit], table.chosen[fit])
        res: dict[str, Any] = {"tree": tree, "depth": int(tree.get_depth()), "leaves": int(tree.get_n_leaves())}
        if test.any():
            scores = tree.predict_proba(table.x[test])[:, 1]
            agree = agreement(scores, table.chosen[test], table.position[test], n)
            chance = agreement(np.zeros(test.sum()), table.chosen[test], table.position[test], n)
            held = ~np.isnan(agree)
            res["agreement"] = mean_ci(agree[held])
            res["chance"] = mean_ci(chance[held])
            res["positions"] = int(held.sum())
        out[name] = res
    return out


def tree_rules(tree: Any, features: MoveFeatures, kind: str, lift: float = 1.5, min_moves: int = 50,
               x: np.ndarray | None = None) -> list[tuple[Rule, dict[str, float]]]:
    """The leaves of ``tree`` (fitted by :func:`fit_trees` for ``kind``) as rules: a leaf whose moves the search
    plays at least ``lift`` times as often as the kind's moves overall gives a "play" rule, one at most
    ``1 / lift`` as often an "avoid" rule. Leaves with fewer than ``min_moves`` training moves are left out.
    Returns ``(rule, {"rate", "base", "moves"})`` pairs, the strongest first."""
    t = tree.tree_
    counts = t.value[:, 0, :] * t.weighted_n_node_samples[:, None] if t.value.max() <= 1.0 else t.value[:, 0, :]
    base = counts[0, 1] / counts[0].sum()
    found: list[tuple[Rule, dict[str, float]]] = []

    def walk(node: int, path: tuple[Condition, ...]) -> None:
        if t.children_left[node] < 0:
            moves = counts[node].sum()
            rate = counts[node, 1] / moves
            if moves < min_moves or not path:
                return
            if rate >= lift * base or rate <= base / lift:
                conds = _merge(path)
                rule = Rule(kind, conds, play=bool(rate >= lift * base))
                rule = Rule(kind, conds, rule.play, rule_text(rule, features))
                found.append((rule, {"rate": float(rate), "base": float(base), "moves": float(moves)}))
            return
        name = features.names[t.feature[node]]
        walk(t.children_left[node], path + (Condition(name, False, float(t.threshold[node])),))
        walk(t.children_right[node], path + (Condition(name, True, float(t.threshold[node])),))

    walk(0, ())
    found.sort(key=lambda r: -abs(math.log(max(r[1]["rate"], 1e-9) / r[1]["base"])))
    return found


def _merge(path: Sequence[Condition]) -> tuple[Condition, ...]:
    """The tightest bound per feature and side (a path may split one feature twice)."""
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    order: list[str] = []
    for c in path:
        if c.feature not in order:
            order.append(c.feature)
        if c.above:
            low[c.feature] = max(low.get(c.feature, -math.inf), c.threshold)
        else:
            high[c.feature] = min(high.get(c.feature, math.inf), c.threshold)
    out = []
    for f in order:
        if f in low:
            out.append(Condition(f, True, low[f]))
        if f in high:
            out.append(Condition(f, False, high[f]))
    return tuple(out)


def _phrase(c: Condition, words: dict[str, tuple[str, ...]]) -> str:
    w = words[c.feature]
    if len(w) == 2:  # a fact that is 0 or 1: > 0.5 is "is"
        return w[0] if c.above else w[1]
    k = math.floor(c.threshold)
    return f"{w[0]} at least {k + 1}" if c.above else f"{w[0]} at most {k}"


def rule_text(rule: Rule, features: MoveFeatures) -> str:
    """The rule in words: "When <kind>: play a move where ... and ..." (or "avoid a move where")."""
    parts = [_phrase(c, features.words) for c in rule.conditions]
    said = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] if parts else "any move"
    return f"When {rule.kind}: {'play' if rule.play else 'avoid'} a move where {said}."


def rule_values(table: MoveTable, pos: Positions, rules: Sequence[Rule], rows: np.ndarray) -> dict[str, dict[str, Any]]:
    """What the search valued following each rule at the positions ``rows`` (bool per position) where it applies:
    ``value`` (best advised move's searched value minus the best other's, mean over positions with the deal as
    unit, ``(mean, lo, hi)``), ``follows`` (share where the search played an advised move), ``positions``."""
    out: dict[str, dict[str, Any]] = {}
    mask = pos.mask & rows[:, None]
    games, inverse = np.unique(pos.game, return_inverse=True)
    for rule in rules:
        advised = rule.advised(table.features, mask)
        applies = advised.any(axis=1)
        other = mask & ~advised & applies[:, None]
        v = pos.values.astype(np.float64)
        gain = np.where(advised, v, -np.inf).max(axis=1) - np.where(other, v, -np.inf).max(axis=1)
        follows = advised[np.arange(len(pos)), pos.action]
        at = np.flatnonzero(applies)
        count = np.bincount(inverse[at], minlength=len(games)).astype(np.float64)
        res: dict[str, Any] = {"positions": int(at.size)}
        if at.size:
            res["value"] = ratio_ci(np.bincount(inverse[at], gain[at], minlength=len(games)), count, rate=False)
            res["follows"] = ratio_ci(np.bincount(inverse[at], follows[at], minlength=len(games)), count, rate=True)
        else:
            res["value"] = res["follows"] = (math.nan, math.nan, math.nan)
        out[rule.text or repr(rule)] = res
    return out
