"""Advice tests: what following a piece of advice is worth to a player, where the advice applies.

:class:`Override` plays a base player with the advice imposed; :func:`advice_test` measures its effect
by one-seat substitution on duplicate deals. :class:`ValueProbe` and :func:`advice_values` read what
a search agent values following each rule at, many rules in one run; :func:`values_markdown` tables them.
A rule is ``rule(obs, mask)`` (or ``rule(view(spec, obs), mask)``, e.g. with :class:`View`) returning
the advised moves as a boolean array like ``mask``; it works for every game."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from trickenv.agents.base import act_rows
from trickenv.agents.statistics import mean_ci
from trickenv.research.deals import play, substitution
from trickenv.research.stats import ratio_ci
from trickenv.research.tables import fmt


class Override:
    """Plays like ``base`` except where ``rule`` advises a subset of the legal moves (an advice test).

    ``rule(obs, mask)`` (or ``rule(view(spec, obs), mask)`` with ``view``, e.g. :class:`View`) returns a
    boolean array like ``mask``: the moves the advice allows; a row with none is a position where the advice
    says nothing. Where the base player's move is among the advised ones, the advice is *followed* and
    nothing changes; where it is not, the base player chooses again among the advised moves only (the advice
    decides *whether*, the base player *which*), and the decision is *changed*. A base that answers outside the
    advised moves (one that reads the phase from the full mask) gets the first advised move.

    Counts per game (game numbers of :func:`play`, which sets ``offset`` for each chunk): ``applied``
    (positions where the advice said something), ``followed``, ``changed``; call :meth:`counts` with the
    number of games played. The rule reads only the observation; the engine state reaches only a base
    that needs it (search agents).
    """

    needs_state = True  # to learn the game numbers of its rows (``games``)

    def __init__(self, spec, base: Any, rule, name: str = "advice", view=None) -> None:
        self.spec, self.base, self.rule, self.name, self.view = spec, base, rule, name, view
        self.offset = 0
        self._ids: dict[str, list[np.ndarray]] = {"applied": [], "followed": [], "changed": []}

    def act_batch(self, obs, mask, state=None, games=None):
        act = np.array(act_rows(self.base, obs, mask, state, games), np.int64)
        advised = np.asarray(self.rule(obs if self.view is None else self.view(self.spec, obs), mask), bool)
        advised &= np.asarray(mask, bool)
        applies = advised.any(axis=1)
        follows = applies & advised[np.arange(len(act)), act]
        rows = np.flatnonzero(applies & ~follows)
        if rows.size:
            sub = None if games is None else np.asarray(games)[rows]
            act[rows] = act_rows(self.base, obs[rows], advised[rows], state, sub)
            # A base that reads the phase from the full mask (the rule-based King Calling call) may answer
            # outside the advised moves: it then gets the first advised one.
            off = ~advised[rows, np.clip(act[rows], 0, advised.shape[1] - 1)] | (act[rows] < 0)
            act[rows[off]] = advised[rows[off]].argmax(axis=1)
        ids = self.offset + (np.arange(len(act)) if games is None else np.asarray(games))
        for key, hit in (("applied", applies), ("followed", follows), ("changed", applies & ~follows)):
            self._ids[key].append(ids[hit])
        return act

    def counts(self, games: int) -> dict[str, np.ndarray]:
        """``{"applied", "followed", "changed"}``: decisions per game ``0 .. games-1`` (and clears them)."""
        out = {key: np.bincount(np.concatenate(v) if v else np.zeros(0, np.int64), minlength=games)[:games]
               for key, v in self._ids.items()}
        self._ids = {key: [] for key in self._ids}
        return out


def advice_test(spec, deals: np.ndarray, dealers: np.ndarray, base: Any, rule, name: str = "advice",
                view=None, base_records: dict[str, np.ndarray] | None = None,
                advised: Any = None) -> dict[str, Any]:
    """What following ``rule`` is worth to the player ``base`` at the decisions where it applies.

    One-seat substitution on duplicate deals (:func:`substitution`): every deal is played with ``base`` in
    every seat, and once per seat with :class:`Override` (``base`` + the advice) in that seat. Returns

    - ``effect``: the change of the seat's score per *affected* seat-deal (one where the advice changed at
      least one of the seat's decisions), ``(mean, lo, hi)``: the sum of the score changes over every seat and
      deal divided by the number of affected seat-deals, the deal the unit of the interval. Where the advice
      changed nothing the Override played as ``base`` does, so those seat-deals add only noise, and dividing by
      the affected ones gives the effect where it bites without selecting on how the game went (dealer-only
      advice is so measured on the dealer's deals only);
    - ``effect_all``: the mean change over every seat-deal, ``(mean, lo, hi)``;
    - ``affected``: the share of seat-deals affected; ``follows``: the share of the decisions where the
      advice applied at which ``base`` already chose an advised move, ``(share, lo, hi)``;
    - ``diff [D, n]``, ``counts`` (:meth:`Override.counts`, ``[D, n]`` each), ``deals``, ``base_records``.

    ``advised``: an Override to use (else one is made from ``base``, ``rule``, ``view``).
    """
    d, n = len(deals), spec.num_players
    agent = advised if advised is not None else Override(spec, base, rule, name, view)
    agent.counts(0)
    res = substitution(spec, deals, dealers, base, {name: agent}, base_records=base_records)
    counts = {k: v.reshape(n, d).T for k, v in agent.counts(n * d).items()}  # game s*D + i: seat s, deal i
    diff = res[name] - res["base"]
    affected = counts["changed"] > 0
    out = {"diff": diff, "counts": counts, "deals": d, "base_records": res["records"]["base"]}
    out["effect"] = (ratio_ci(diff.sum(axis=1), affected.sum(axis=1), rate=False) if affected.any()
                     else (math.nan, math.nan, math.nan))
    out["effect_all"] = mean_ci(diff.mean(axis=1))
    out["affected"] = ratio_ci(affected.sum(axis=1), np.full(d, n), rate=True)
    applied = counts["applied"].sum(axis=1)
    out["follows"] = (ratio_ci(counts["followed"].sum(axis=1), applied, rate=True) if applied.any()
                      else (math.nan, math.nan, math.nan))
    return out


class ValueProbe:
    """Plays as ``searcher`` and reads, at every decision, what the search values following each rule at.

    ``searcher``: an agent with ``search_batch`` (``search``, ``pimc``), which returns the searched mean value of
    every legal action (the seat's deal score over the sampled worlds, plus the game's tie-break). ``rules``:
    ``{name: rule}``, each ``rule(obs, mask)`` (or ``rule(view(spec, obs), mask)``) as for :class:`Override`. A
    rule *applies* where it allows some legal moves and forbids others, and every legal move was searched
    (forced moves and the decisions a search leaves to the rule-based agent carry no values). There the probe
    records the value of the best advised move minus the best other one (above 0: the search would rather
    follow the advice), whether the searcher's own move is an advised one, the seat and the tricks completed.
    The searcher's moves are played, so one run over the deals measures every rule at once.
    """

    needs_state = True

    def __init__(self, spec, searcher: Any, rules: dict[str, Any], view=None) -> None:
        if not hasattr(searcher, "search_batch"):
            raise TypeError(f"searcher must have search_batch (a search agent such as search or pimc), "
                            f"got {type(searcher).__name__}")
        self.spec, self.searcher, self.rules, self.view = spec, searcher, dict(rules), view
        self.offset = 0  # set by play() for each chunk: game numbers of the rows
        self._seen: dict[str, list[np.ndarray]] = {name: [] for name in self.rules}

    def act_batch(self, obs, mask, state=None, games=None):
        from trickenv.engine.layout import TO_ACT, TRICK_NO

        if state is None or games is None:
            raise ValueError("ValueProbe needs the engine state: act_batch(obs, mask, state=..., games=rows)")
        games = np.asarray(games, np.int64)
        out, values = self.searcher.search_batch(obs, mask, state, games)
        mask = np.asarray(mask, bool)
        searched = ~(mask & np.isnan(values)).any(axis=1) & (mask.sum(axis=1) > 1)
        seen = obs if self.view is None else self.view(self.spec, obs)
        ids = self.offset + games
        seat = state.s[games, TO_ACT].astype(np.int64)
        trick = state.s[games, TRICK_NO].astype(np.int64)
        for name, rule in self.rules.items():
            advised = np.asarray(rule(seen, mask), bool) & mask
            other = mask & ~advised
            rows = np.flatnonzero(searched & advised.any(axis=1) & other.any(axis=1))
            if rows.size == 0:
                continue
            v = values[rows].astype(np.float64)
            gain = np.where(advised[rows], v, -np.inf).max(axis=1) - np.where(other[rows], v, -np.inf).max(axis=1)
            follows = advised[rows, out[rows]].astype(np.float64)
            self._seen[name].append(np.stack([ids[rows], seat[rows], trick[rows], gain, follows], axis=1))
        return out

    def positions(self, name: str) -> dict[str, np.ndarray]:
        """Every position where rule ``name`` applied: ``game``, ``seat``, ``trick`` (tricks completed),
        ``gain`` (best advised minus best other value) and ``follows`` (0/1), one entry per position."""
        rows = np.concatenate(self._seen[name]) if self._seen[name] else np.zeros((0, 5))
        return {"game": rows[:, 0].astype(np.int64), "seat": rows[:, 1].astype(np.int64),
                "trick": rows[:, 2].astype(np.int64), "gain": rows[:, 3], "follows": rows[:, 4]}


def advice_values(spec, deals: np.ndarray, dealers: np.ndarray, searcher: Any, rules: dict[str, Any],
                  view=None, by: str = "trick") -> dict[str, dict[str, Any]]:
    """What ``searcher`` (a search agent) values following each rule at, where the rule applies (:class:`ValueProbe`).

    The deals are played with ``searcher`` in every seat; at every position where a rule applies the searched
    value of its best advised move minus that of the best other move is read. Per rule:

    - ``value``: the mean of that difference per position, ``(mean, lo, hi)``, the deal the unit of the
      interval (positions of one deal are not independent); above 0 the search prefers following the advice;
    - ``follows``: the share of those positions where the searcher played an advised move, ``(share, lo, hi)``;
    - ``prefers``: the share of positions where the best advised move is valued higher than every other one;
    - ``positions`` (count), ``deals_with`` (deals with at least one), ``by_trick`` (``{tricks completed:
      (mean, lo, hi, positions)}``, ``by="trick"``), ``raw`` (:meth:`ValueProbe.positions`).

    The values are the search's own estimates over its sampled worlds, not outcomes: they say what the search
    thinks the advice is worth where it applies, a reading one advice test per rule (:func:`advice_test`)
    would need a substitution run for. ``deals`` plays the deals once, whatever the number of rules.
    """
    d, n = len(deals), spec.num_players
    probe = ValueProbe(spec, searcher, rules, view)
    play(spec, deals, dealers, [probe], np.zeros((d, n), np.int64))
    out: dict[str, dict[str, Any]] = {}
    nan3 = (math.nan, math.nan, math.nan)
    for name in probe.rules:
        pos = probe.positions(name)
        count = np.bincount(pos["game"], minlength=d).astype(np.float64)
        res: dict[str, Any] = {"positions": int(len(pos["gain"])), "deals_with": int((count > 0).sum()), "raw": pos}
        if len(pos["gain"]):
            res["value"] = ratio_ci(np.bincount(pos["game"], pos["gain"], minlength=d), count, rate=False)
            res["follows"] = ratio_ci(np.bincount(pos["game"], pos["follows"], minlength=d), count, rate=True)
            res["prefers"] = ratio_ci(np.bincount(pos["game"], (pos["gain"] > 0).astype(np.float64), minlength=d),
                                      count, rate=True)
        else:
            res["value"] = res["follows"] = res["prefers"] = nan3
        if by == "trick":
            res["by_trick"] = {}
            for t in np.unique(pos["trick"]):
                sel = pos["trick"] == t
                c = np.bincount(pos["game"][sel], minlength=d).astype(np.float64)
                g = np.bincount(pos["game"][sel], pos["gain"][sel], minlength=d)
                res["by_trick"][int(t)] = (*ratio_ci(g, c, rate=False), int(sel.sum()))
        out[name] = res
    return out


def values_markdown(values: dict[str, dict[str, Any]], digits: int = 2, player: str = "search") -> str:
    """A markdown table of :func:`advice_values`' results: positions, how often ``player`` follows, the value."""
    rows = [f"| {name} | {r['positions']:,} | {fmt(*r['follows'], 0, pct=True)} | {fmt(*r['value'], digits)} | "
            f"{fmt(*r['prefers'], 0, pct=True)} |" for name, r in values.items()]
    return (f"| advice | positions where it applies | {player} follows | searched value of following (per position) "
            f"| positions where following is valued best |\n|---|---:|---:|---:|---:|\n" + "\n".join(rows))
