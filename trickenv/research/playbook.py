"""A playbook learned from the search: shallow decision trees over a player's words, read as rules.

The positions a search decided (:mod:`trickenv.research.mining`) are written move by move in the game's readable
features (:class:`trickenv.games.parts.MoveFeatures`): one row per legal move, labelled 1 if the search played
it. :func:`fit_trees` fits one shallow scikit-learn tree per kind of decision and says how much of the search's
choice it explains on held-out positions (:func:`agreement`); :func:`tree_rules` reads each tree's leaves that
the search plays much more (or much less) often than chance as :class:`trickenv.agents.playbook.Rule` s in
words; :func:`rule_values` reads what the search valued following each rule where it applies.

Which rules a playbook keeps is decided by play, on other deals: :func:`candidates` gathers the leaves of many
trees, :class:`ImposedValue` ranks them by what imposing each on a player changes in the search's values,
:func:`measure_rules` imposes the best on that player in play (:func:`trickenv.research.advice_test`),
:func:`choose_rules` keeps the one that held best, and :func:`learn_playbook` does it round after round
(``python -m trickenv.research playbook``); :func:`confirm_rules` measures the rules again on other deals and
drops the ones that do not hold there (``python -m trickenv.research confirm``). :func:`example` finds a position that shows a rule, in words.
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

__all__ = ["MoveTable", "decision_kind", "move_table", "fit_trees", "agreement", "tree_rules", "rule_text",
           "rule_values", "chosen_agreement", "regret", "fit_value_trees", "as_advice", "measure_rules", "choose_rules",
           "ImposedValue", "candidates", "fitting_deals", "learn_playbook", "confirm_rules", "move_name", "example"]


@dataclass
class MoveTable:
    """Every legal move of every position, one row each: ``x`` float32 ``[M, F]`` (the features), ``chosen``
    bool (the search played it), ``position`` (the row of :class:`Positions`), ``action``, ``kind`` (of the
    position: the decision beside its own where it has one); ``features`` the :class:`MoveFeatures` of the
    positions."""

    x: np.ndarray
    chosen: np.ndarray
    position: np.ndarray
    action: np.ndarray
    kind: np.ndarray
    features: MoveFeatures


def decision_kind(features: MoveFeatures) -> np.ndarray:
    """int64 ``[B]``: the kind each position is learned as: the decision beside its own where it has one (King
    Calling's declarations; the search's mined positions leave such moves out of their masks, the simulated
    outcomes of that decision keep them), else its own."""
    return features.kind if features.beside is None else np.where(features.beside >= 0, features.beside, features.kind)


def move_table(spec, pos: Positions, features: MoveFeatures | None = None) -> MoveTable:
    """The :class:`MoveTable` of ``pos`` in ``spec``'s readable features (``GameLearning.move_features``; or
    ``features``, already read from ``pos``)."""
    if spec.learning.move_features is None:
        raise ValueError(f"{spec.name} has no readable move features (GameLearning.move_features)")
    mf = features if features is not None else spec.learning.move_features(spec, pos.obs, pos.mask)
    position, action = np.nonzero(pos.mask)
    kind = decision_kind(mf)[position]
    x = mf.values[position, action]
    for name, words in (mf.kind_words or {}).items():  # a kind's rules speak of its words: the others stay constant
        x[np.ix_(kind == mf.kinds.index(name), [f for f, w in enumerate(mf.names) if w not in words])] = 0.0
    return MoveTable(x, action == pos.action[position], position, action, kind, mf)


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


def regret(pos: Positions, actions: np.ndarray) -> np.ndarray:
    """Per position, the searched value of the search's best move minus that of ``actions`` (another player's
    moves): what the search thinks that player gives away there (0 where it plays a best move)."""
    best = np.nanmax(pos.values, axis=1)
    return (best - pos.values[np.arange(len(pos)), np.asarray(actions)]).astype(np.float64)


def chosen_agreement(pos: Positions, actions: np.ndarray) -> np.ndarray:
    """1.0 where ``actions`` (another player's move at each position) is the search's move, else 0.0."""
    return (np.asarray(actions) == pos.action).astype(np.float64)


def fit_trees(table: MoveTable, train: np.ndarray, depth: int = 3, min_leaf: float = 0.02,
              seed: int = 0, weight: np.ndarray | None = None, max_features: float | None = None) -> dict[str, dict[str, Any]]:
    """One shallow tree per kind of decision, fitted on the positions ``train`` (bool per position), each
    position's moves weighted by ``weight`` (per position; e.g. :func:`regret` of another player's move, so
    that the tree learns where that player goes wrong; default 1). ``max_features``: the share of the
    features each split may choose from, drawn with ``seed`` (default all: the best split).

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
        tree = DecisionTreeClassifier(max_depth=depth, min_weight_fraction_leaf=min_leaf, random_state=seed,
                                      max_features=max_features)
        tree.fit(table.x[fit], table.chosen[fit], sample_weight=None if weight is None else weight[table.position[fit]])
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
               margin: float = 1.0) -> list[tuple[Rule, dict[str, float]]]:
    """The leaves of ``tree`` (fitted for ``kind`` by :func:`fit_trees` or :func:`fit_value_trees`) as rules.

    A classifier's leaf whose moves the search plays at least ``lift`` times as often as the kind's moves overall
    gives a "play" rule, one at most ``1 / lift`` as often an "avoid" rule (rates weighted as the tree was
    fitted). A regressor's leaf whose moves' mean advantage is at least ``margin`` gives a "play" rule, at most
    ``-margin`` an "avoid" rule. Leaves with fewer than ``min_moves`` training moves are left out. Returns
    ``(rule, {"score", "base", "moves"})`` pairs, the strongest first (score: the rate or the mean advantage)."""
    t = tree.tree_
    classifier = hasattr(tree, "classes_")
    if classifier:
        score = t.value[:, 0, 1]  # the weighted share of chosen moves (scikit-learn >= 1.4 keeps fractions)
        base = float(score[0])
        strength = np.abs(np.log(np.maximum(score, 1e-9) / base))
        play, avoid = score >= lift * base, score <= base / lift
    else:
        score = t.value[:, 0, 0]
        base = 0.0
        strength = np.abs(score)
        play, avoid = score >= margin, score <= -margin
    found: list[tuple[Rule, dict[str, float], float]] = []

    def walk(node: int, path: tuple[Condition, ...]) -> None:
        if t.children_left[node] >= 0:
            name = features.names[t.feature[node]]
            walk(t.children_left[node], path + (Condition(name, False, float(t.threshold[node])),))
            walk(t.children_right[node], path + (Condition(name, True, float(t.threshold[node])),))
            return
        moves = float(t.n_node_samples[node])
        if moves < min_moves or not path or not (play[node] or avoid[node]):
            return
        rule = Rule(kind, _merge(path), play=bool(play[node]))
        rule = Rule(kind, rule.conditions, rule.play, rule_text(rule, features))
        found.append((rule, {"score": float(score[node]), "base": base, "moves": moves}, float(strength[node])))

    walk(0, ())
    found.sort(key=lambda r: -r[2])
    return [(rule, stats) for rule, stats, _ in found]


def fit_value_trees(table: MoveTable, pos: Positions, train: np.ndarray, reference: np.ndarray, depth: int = 3,
                    min_leaf: float = 0.02, seed: int = 0, max_features: float | None = None) -> dict[str, dict[str, Any]]:
    """One shallow regression tree per kind: each legal move's searched value minus that of ``reference`` (another
    player's move at each position, e.g. the rule-based agent's), fitted on the positions ``train``. A leaf of
    high mean holds moves the search values above that player's choice. Per kind: ``tree``, ``depth``,
    ``leaves``. ``seed``, ``max_features``: as for :func:`fit_trees`."""
    from sklearn.tree import DecisionTreeRegressor

    ref = pos.values[np.arange(len(pos)), np.asarray(reference)]
    target = pos.values[table.position, table.action] - ref[table.position]
    out: dict[str, dict[str, Any]] = {}
    for k, name in enumerate(table.features.kinds):
        fit = (table.kind == k) & train[table.position]
        if fit.sum() < 2:
            continue
        tree = DecisionTreeRegressor(max_depth=depth, min_weight_fraction_leaf=min_leaf, random_state=seed,
                                     max_features=max_features)
        tree.fit(table.x[fit], target[fit])
        out[name] = {"tree": tree, "depth": int(tree.get_depth()), "leaves": int(tree.get_n_leaves())}
    return out


def _bounds(conditions: Sequence[Condition]) -> dict[str, list[float]]:
    """Per feature, in the order first named, its tightest ``[above, at most]`` thresholds (a tree path may split
    one feature twice); ``-inf`` / ``inf`` where a side is not bounded."""
    out: dict[str, list[float]] = {}
    for c in conditions:
        low, high = out.setdefault(c.feature, [-math.inf, math.inf])
        out[c.feature] = [max(low, c.threshold), high] if c.above else [low, min(high, c.threshold)]
    return out


def _merge(path: Sequence[Condition]) -> tuple[Condition, ...]:
    """The conditions of a tree path, one per feature and side (:func:`_bounds`)."""
    return tuple(Condition(f, above, t) for f, (low, high) in _bounds(path).items()
                 for above, t in ((True, low), (False, high)) if math.isfinite(t))


def _phrases(conditions: Sequence[Condition], words: dict[str, tuple[str, ...]]) -> list[str]:
    """One phrase per feature: "is"/"is not" for a fact that is 0 or 1, else "at least", "at most", "exactly" or
    "from a to b" for a count (the features are whole numbers: ``> t`` is ``>= floor(t) + 1``)."""
    out = []
    for f, (low, high) in _bounds(conditions).items():
        w = words[f]
        least, most = math.floor(low) + 1 if math.isfinite(low) else None, math.floor(high) if math.isfinite(high) else None
        if len(w) == 2:  # a fact that is 0 or 1: > 0.5 is "is"
            out.append(w[0] if least is not None else w[1])
        elif least is not None and most is not None:
            out.append(f"{w[0]} exactly {least}" if least == most else f"{w[0]} from {least} to {most}")
        else:
            out.append(f"{w[0]} at least {least}" if least is not None else f"{w[0]} at most {most}")
    return out


def rule_text(rule: Rule, features: MoveFeatures) -> str:
    """The rule in words: "When <kind>: play a move where ... and ..." (or "avoid a move where")."""
    parts = _phrases(rule.conditions, features.words)
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
        with np.errstate(invalid="ignore"):  # rows where the rule does not apply: -inf - -inf, never read
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


def as_advice(spec, rule: Rule):
    """``rule`` as advice (``advice(obs, mask) -> advised moves``) for :func:`trickenv.research.advice_test`."""
    def advice(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return rule.advised(spec.learning.move_features(spec, obs, mask), mask)

    return advice


def measure_rules(spec, rules: Sequence[Rule], deals: np.ndarray, dealers: np.ndarray, base: Any,
                  base_records: dict[str, np.ndarray] | None = None) -> list[dict[str, Any]]:
    """Each rule imposed on ``base`` (:func:`trickenv.research.advice_test`, one-seat substitution on the
    duplicate ``deals``): per rule ``rule``, ``effect`` (per affected seat-deal), ``effect_all`` (per seat-deal),
    ``affected``, ``follows`` (each ``(mean, lo, hi)``) and ``p`` (two-sided, of ``effect``)."""
    from trickenv.research.advice import advice_test
    from trickenv.research.stats import p_from_ci

    out = []
    for rule in rules:
        res = advice_test(spec, deals, dealers, base, as_advice(spec, rule), name="rule", base_records=base_records)
        base_records = res["base_records"] if base_records is None else base_records  # base plays each deal once
        m, lo, hi = res["effect"]
        p = p_from_ci(m, lo, hi, len(deals)) if np.isfinite(m) else 1.0
        out.append({"rule": rule, "effect": res["effect"], "effect_all": res["effect_all"],
                    "affected": res["affected"], "follows": res["follows"], "p": float(p)})
    return out


def choose_rules(measured: Sequence[dict[str, Any]], most: int = 12, alpha: float = 0.05) -> list[dict[str, Any]]:
    """The rules that held: effect above 0 with the Benjamini-Hochberg adjusted p (over all ``measured``) below
    ``alpha``, the largest effect over all seat-deals first, at most ``most``. Each entry gains ``p_adjusted``."""
    from trickenv.research.stats import adjust_p

    adjusted = adjust_p([m["p"] for m in measured]) if measured else np.zeros(0)
    for m, p in zip(measured, adjusted, strict=True):
        m["p_adjusted"] = float(p)
    kept = [m for m in measured if m["effect"][0] > 0 and m["p_adjusted"] < alpha]
    return sorted(kept, key=lambda m: -m["effect_all"][0])[:most]


class ImposedValue:
    """What imposing a rule on ``player`` (a :class:`trickenv.agents.playbook.PlaybookAgent`) is worth at the
    search's positions ``pos``, read from the search's own values: where the rule applies, the player picks among
    the moves it advises (:meth:`PlaybookAgent.choose`), and the searched value of that move minus the value of
    the player's own move is what the rule changes. Unlike the value of the best advised move, this counts the
    move the player would really make, so it foretells the effect in play (which is still what decides)."""

    def __init__(self, spec, pos: Positions, player: Any, features: MoveFeatures | None = None) -> None:
        self.spec, self.pos, self.player = spec, pos, player
        self.features = features if features is not None else spec.learning.move_features(spec, pos.obs, pos.mask)
        self.allowed = player.allowed(pos.obs, pos.mask)
        self.reference = np.asarray(player.choose(pos.obs, self.allowed))
        rows = np.arange(len(pos))
        self._values = pos.values.astype(np.float64)
        self._base = self._values[rows, self.reference]
        self._games, self._deal = np.unique(pos.game, return_inverse=True)

    def moves(self, rule: Rule, rows: np.ndarray) -> np.ndarray:
        """The player's move with ``rule`` imposed (after its own rules), at every position (``rows``, bool: where
        to play it; elsewhere its move without the rule)."""
        advised = rule.advised(self.features, self.allowed)
        at = np.flatnonzero(advised.any(axis=1) & rows)
        act = self.reference.copy()
        if at.size:
            act[at] = self.player.choose(self.pos.obs[at], advised[at])
        return act

    def value(self, rule: Rule, rows: np.ndarray) -> tuple[float, float, float]:
        """The change of the searched value per seat and deal over the deals of the positions ``rows`` (bool),
        ``(mean, lo, hi)`` with the deal as the unit."""
        rows = np.asarray(rows, bool)
        act = self.moves(rule, rows)
        gain = np.where(rows, self._values[np.arange(len(act)), act] - self._base, 0.0)
        deals = np.unique(self._deal[rows])
        per_deal = np.bincount(self._deal, gain, minlength=len(self._games))[deals] / self.spec.num_players
        return mean_ci(per_deal)


def candidates(spec, pos: Positions, train: np.ndarray, reference: np.ndarray, depths: Sequence[int] = (2, 3, 4),
               min_leaves: Sequence[float] = (0.005, 0.01, 0.02), subsets: int = 4, min_moves: int = 30,
               features: MoveFeatures | None = None) -> list[dict[str, Any]]:
    """Candidate rules: the leaves of many shallow trees over the search's positions ``train`` (bool per
    position), one tree per kind of decision and setting. Three readings: what the search plays
    (:func:`fit_trees`), the same where ``reference`` (another player's moves, e.g. the rule-based agent's) gives
    value away (weighted by :func:`regret`), and which moves it values above ``reference``'s
    (:func:`fit_value_trees`); each at every depth of ``depths`` and leaf size of ``min_leaves``, with all
    features and with ``subsets`` random halves of them at each split (a tree that may not take the best split
    finds rules the best splits hide). Each candidate once, by its text: ``rule`` and ``source``."""
    table = move_table(spec, pos, features)
    reference = np.asarray(reference)
    weight = regret(pos, reference)
    seen: dict[str, dict[str, Any]] = {}
    settings = [(None, 0)] + [(0.5, k) for k in range(1, subsets + 1)]
    for depth in depths:
        for min_leaf in min_leaves:
            for share, seed in settings:
                how = f"depth {depth}, leaves of {min_leaf:g}" + (f", feature subset {seed}" if share else "")
                trees = {"plays": fit_trees(table, train, depth, min_leaf, seed, max_features=share),
                         "plays where the reference loses": fit_trees(table, train, depth, min_leaf, seed, weight,
                                                                      share),
                         "values above the reference": fit_value_trees(table, pos, train, reference, depth,
                                                                       min_leaf, seed, share)}
                for source, fitted in trees.items():
                    for kind, res in fitted.items():
                        for rule, _ in tree_rules(res["tree"], table.features, kind, min_moves=min_moves):
                            seen.setdefault(rule.text, {"rule": rule, "source": f"{source} ({how})"})
    return list(seen.values())


def fitting_deals(game: np.ndarray, holdout: int = 4) -> np.ndarray:
    """bool per position: its deal fits the trees; the others (one deal in ``holdout``, spread by a hash of the
    deal's number) check them. Not ``game % holdout``: simulated outcomes branch at turn ``game % turns``
    (King Calling's declarations: 4 turns), so that would keep one turn apart."""
    mixed = (np.asarray(game, np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)
    return mixed % np.uint64(holdout) != 0


def learn_playbook(spec, pos: Positions, deals: np.ndarray, dealers: np.ndarray, rounds: int = 12, most: int = 12,
                   holdout: int = 4, tries: int = 16, alpha: float = 0.05, subsets: int = 4, seed: int = 0,
                   start: Sequence[Rule] = (), log: Any = print, on_round: Any = None) -> dict[str, Any]:
    """Learn a playbook from the search's positions ``pos``, choosing its rules by play on ``deals``.

    Each round: the player so far (the rule-based agent with the rules kept so far, :class:`PlaybookAgent`) is the
    reference; :func:`candidates` come from the positions of the deals :func:`fitting_deals` gives (all but one
    in ``holdout``); those whose :class:`ImposedValue` has its interval above 0 both on those positions and on
    the others are ranked by it,
    the best ``tries`` are imposed on the player in play one at a time (:func:`measure_rules`), and the best
    that held (:func:`choose_rules`) joins the playbook, up to ``most`` rules (one a round, so that each is
    measured against the player the earlier ones made). Returns ``rules`` and, per round, ``candidates`` (how
    many), ``passed`` (``(rule, imposed on the fitting positions, imposed on the others)``), ``measured`` and
    ``chosen``. ``seed``: the rule-based agent's (its ties), so that the same call learns the same playbook. The
    deals that choose are not the deals a claim about the playbook may rest on: measure it again on others.
    ``start``: rules the playbook begins with (another kind of decision's, learned before); ``rules`` has them
    first, and ``most`` counts them. ``on_round(report)``: called after every round (e.g. to save the rules so
    far)."""
    from trickenv.agents.playbook import PlaybookAgent

    train = fitting_deals(pos.game, holdout)
    features = spec.learning.move_features(spec, pos.obs, pos.mask)
    kept: list[Rule] = list(start)
    report: dict[str, Any] = {"rules": kept, "rounds": []}
    base = None
    for r in range(rounds):
        if len(kept) >= most:
            break
        player = PlaybookAgent(spec, seed=seed, rules=list(kept), base=base)
        base = player.base
        imposed = ImposedValue(spec, pos, player, features)
        found = candidates(spec, pos, train, imposed.reference, subsets=subsets, features=features)
        known = {rule.text for rule in kept}
        passed = []
        for c in found:
            if c["rule"].text in known:
                continue
            fit = imposed.value(c["rule"], train)
            if fit[1] > 0:
                held = imposed.value(c["rule"], ~train)
                if held[1] > 0:
                    passed.append((c["rule"], fit, held))
        passed.sort(key=lambda x: -x[1][0])
        measured = measure_rules(spec, [x[0] for x in passed[:tries]], deals, dealers, player)
        chosen = choose_rules(measured, most=1, alpha=alpha)
        kept.extend(m["rule"] for m in chosen)
        report["rounds"].append({"candidates": len(found), "passed": passed, "measured": measured,
                                 "chosen": [m["rule"] for m in chosen]})
        log(f"round {r + 1}: {len(found)} candidates, {len(passed)} pass the values, "
            f"{len(measured)} tried in play, {len(chosen)} kept ({len(kept)} in all)")
        if on_round is not None:
            on_round(report)
        if not chosen:
            break
    return report


def confirm_rules(spec, rules: Sequence[Rule], deals: np.ndarray, dealers: np.ndarray, first: int = 0,
                  alpha: float = 0.05, seed: int = 0) -> dict[str, Any]:
    """Measure the rules ``rules[first:]`` again in play on other ``deals``, each imposed on the rule-based agent
    (its ``seed``) with the rules kept before it (:func:`measure_rules`), and drop the ones that do not hold: a
    rule stays if its effect is above 0 with the Benjamini-Hochberg adjusted p (over the rules measured) below
    ``alpha``. The rules before ``first`` stay as they are. A rule whose interval is not above 0 leaves the
    player the later rules are measured on at once. Returns ``rules`` (the kept, in order) and ``measured`` (per
    rule measured: :func:`measure_rules`'s entry with ``p_adjusted`` and ``kept``)."""
    from trickenv.agents.playbook import PlaybookAgent
    from trickenv.research.stats import adjust_p

    kept, measured = list(rules[:first]), []
    for rule in rules[first:]:
        m = measure_rules(spec, [rule], deals, dealers, PlaybookAgent(spec, seed=seed, rules=list(kept)))[0]
        measured.append(m)
        if m["effect"][1] > 0:
            kept.append(rule)
    for m, p in zip(measured, adjust_p([m["p"] for m in measured]) if measured else [], strict=True):
        m["p_adjusted"] = float(p)
        m["kept"] = bool(m["effect"][0] > 0 and p < alpha and m["rule"] in kept)
    drop = {id(m["rule"]) for m in measured if not m["kept"]}
    return {"rules": [r for r in kept if id(r) not in drop], "measured": measured}


def move_name(spec, action: int) -> str:
    """A move in words: a card as ``Q♥``, another move as the game says it (``trump hearts``, ``bid 3``)."""
    from trickenv.cards import card_symbol

    return card_symbol(int(action), spec.deck) if action < spec.deck else spec.text.describe_action(spec, int(action))


def example(spec, pos: Positions, rule: Rule, reference: np.ndarray, rows: np.ndarray | None = None) -> dict[str, Any] | None:
    """A position of ``pos`` (among ``rows``, bool; default all) where ``rule`` applies and ``reference`` (another
    player's move at each position) breaks it, in words: ``hand``, ``table`` (the cards played to the trick, in
    order), ``trump``, ``tricks`` (already played), ``advised`` and ``other`` (the legal moves the rule keeps
    and the ones it rules out), ``reference`` (the move that breaks it) and ``search`` (the search's move and its
    value over the reference's). The first such position with the largest gap in the search's values; ``None``
    where the rule never applies with the reference breaking it."""
    from trickenv.cards import SUIT_NAMES
    from trickenv.decode import decode
    from trickenv.games.table_text import hand_text

    rows = np.ones(len(pos), bool) if rows is None else np.asarray(rows, bool)
    mask = pos.mask & rows[:, None]
    features = spec.learning.move_features(spec, pos.obs, mask)
    advised = rule.advised(features, mask)
    reference = np.asarray(reference)
    at = np.flatnonzero(advised.any(axis=1) & ~advised[np.arange(len(pos)), reference])
    if at.size == 0:
        return None
    gain = np.nanmax(np.where(advised[at], pos.values[at], np.nan), axis=1) - pos.values[at, reference[at]]
    i = int(at[np.argmax(gain)])
    view = decode(spec, pos.obs[i])
    hand_bits = sum(1 << int(c) for c in np.flatnonzero(view["hand"]))
    n = spec.num_players
    leader = int(view["leader"]) if "leader" in view else 0
    table = [int(view["trick"][(leader + k) % n]) for k in range(n)]
    trump = int(view["trump"]) if "trump" in view else -1
    return {
        "hand": hand_text(hand_bits, spec.deck), "table": [move_name(spec, c) for c in table if c >= 0],
        "trump": SUIT_NAMES[trump] if trump >= 0 else "none yet",
        "tricks": int(features.values[i, np.flatnonzero(pos.mask[i])[0], features.names.index("trick")]),
        "advised": [move_name(spec, a) for a in np.flatnonzero(advised[i])],
        "other": [move_name(spec, a) for a in np.flatnonzero(pos.mask[i] & ~advised[i])],
        "reference": move_name(spec, reference[i]), "search": move_name(spec, pos.action[i]),
        "search_gain": float(gain.max()),
    }
