"""What the notebooks share: the budget, playing fixed deals on the batched engine, and statistics.

- **Budget.** ``TRICKENV_BUDGET=small`` (CI) makes every notebook play a few
  thousand deals and search with a few worlds; unset (or anything else) is the
  full budget whose results the notebooks in the repository show.
  ``budget(full, small)`` picks the number for the budget in force.
- **Play.** :func:`play` plays given deals (cards and dealer fixed) with a given
  agent in each seat of each game, on the batched engine, one deal per game, and
  returns the deal records (docs/records.md) in game order. :func:`rotations`
  and :func:`substitution` build the two duplicate designs the notebooks use;
  :class:`Override` and :func:`advice_test` measure a piece of advice at the
  decisions where it applies, for any game and base player; :func:`advice_values`
  reads what a search agent values following each rule at, at those decisions
  (:class:`ValueProbe`), many rules in one run.
- **Statistics.** Means with Student-t intervals (``mean_ci`` of
  ``trickenv.agents.statistics``), ratios and least squares with intervals that
  treat the deal as the independent unit (cluster-robust), and the sentence
  helpers that turn an interval into words.
- **Findings as data.** :func:`finding` makes one finding (question, game,
  variant, base players, deals, estimate, 95% CI, p, adjusted p, verdict);
  :func:`save_findings` adjusts the p-values of a notebook's findings together
  (Benjamini-Hochberg by default, or Holm: :func:`adjust_p`) and writes
  ``notebooks/findings/<notebook>.json``; ``python notebooks/research.py
  findings`` writes ``docs/findings.md``, the table of every file
  (:func:`findings_markdown`; a test checks that it is current).
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.statistics import mean_ci, t_quantile
from trickenv.agents.policy import PolicyAgent, load_policy, shipped_model_path
from trickenv.vector import VecEnv

__all__ = [
    "BUDGET", "SMALL", "budget", "repo_root", "make_players", "model_or_note", "make_deals", "play", "rotations",
    "substitution", "Override", "advice_test", "ValueProbe", "advice_values", "values_markdown", "decompose", "decompose_ci", "position_means", "trick_play", "mean_ci", "share_ci", "ratio_ci", "ols", "fmt", "verdict", "View", "Timer",
    "p_from_ci", "adjust_p", "finding", "save_findings", "load_findings", "findings_markdown",
]

BUDGET = os.environ.get("TRICKENV_BUDGET", "full").strip().lower() or "full"
SMALL = BUDGET == "small"


def budget(full: Any, small: Any) -> Any:
    """``small`` under ``TRICKENV_BUDGET=small``, else ``full``."""
    return small if SMALL else full


def repo_root() -> Path:
    """The repository's top folder (the one with pyproject.toml), found upwards from this file."""
    for d in [Path(__file__).resolve().parent, *Path(__file__).resolve().parents]:
        if (d / "pyproject.toml").exists() and (d / "trickenv").is_dir():
            return d
    raise FileNotFoundError("the notebooks expect to sit in the trickenv repository (notebooks/)")


class Timer:
    """``with Timer("label"):`` prints how long the block took."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __enter__(self) -> "Timer":
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.t0
        print(f"[{self.label}: {self.seconds:.1f} s]")


# ======================================================================= agents

def model_or_note(spec) -> tuple[Any | None, str]:
    """``(agent, "")`` with the shipped trained player for ``spec``, or ``(None, why not)``."""
    path = shipped_model_path(spec.name)
    if not path.exists():
        return None, f"no shipped model for {spec.name} yet ({path.name} is not in trickenv/agents/models/): model skipped"
    try:
        return PolicyAgent(spec), ""
    except ValueError as e:  # trained for other options
        trained = load_policy(path)[1].get("options") or {}
        given = json.loads(json.dumps(dict(spec.options)))  # tuples as lists, as in the file
        diff = ", ".join(f"{k}={given[k]!r}" for k in trained if k in given and given[k] != trained[k])
        return None, f"model skipped for {spec.name} with {diff or e}: the shipped player was trained for other options"


def make_players(spec, names: Sequence[str], seed: int = 0, worlds: int | None = None) -> dict[str, Any]:
    """Agents by name for ``spec``: ``random``, ``rules``, ``pimc`` (``worlds`` worlds) and ``model`` when shipped.

    A ``model`` that is not available is left out with a printed note.
    """
    out: dict[str, Any] = {}
    for i, name in enumerate(names):
        if name == "model":
            agent, note = model_or_note(spec)
            if agent is None:
                print(note)
                continue
            out[name] = agent
        elif name == "pimc":
            out[name] = make_agent("pimc", spec, seed=seed + 101 * i, **({} if worlds is None else {"worlds": worlds}))
        else:
            out[name] = make_agent(name, spec, seed=seed + 101 * i)
    return out


# ======================================================================= playing fixed deals

def make_deals(spec, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(deals [count, n, c], dealers [count])``: the first deals of a seeded batched env (as ``trickenv eval``)."""
    vec = VecEnv(spec, count, seed=seed)
    vec.reset()
    deals, dealers = vec.current_deals()
    return deals.copy(), dealers.astype(np.int64).copy()


def play(spec, deals: np.ndarray, dealers: np.ndarray, agents: Sequence[Any], seat_agents: np.ndarray,
         chunk: int = 4096, threads: int = 1) -> dict[str, np.ndarray]:
    """Play game ``g`` = deal ``deals[g]`` dealt by ``dealers[g]``, seat ``s`` played by ``agents[seat_agents[g, s]]``.

    One deal per game, on the batched engine (``chunk`` games at a time, one numba
    thread). Every agent is called once per engine step with the rows where its
    seat is to act (:func:`trickenv.agents.base.act_rows`: search agents,
    ``needs_state``, with ``state=vec.state, games=rows``). Returns the deal
    records (docs/records.md) as arrays in game order.
    """
    n = spec.num_players
    total = len(deals)
    seat_agents = np.broadcast_to(np.asarray(seat_agents, np.int64), (total, n))
    out: dict[str, np.ndarray] = {}
    envs: dict[int, VecEnv] = {}
    for start in range(0, total, chunk):
        stop = min(total, start + chunk)
        b = stop - start
        if b not in envs:
            envs[b] = VecEnv(spec, b, seed=start, threads=threads)
        vec = envs[b]
        obs, mask, player = vec.reset(deals=deals[start:stop], dealers=dealers[start:stop].astype(np.int64))
        for agent in agents:
            if hasattr(agent, "offset"):  # Override: the game numbers of its per-deal counts
                agent.offset = start
        owners = seat_agents[start:stop]
        rows_all = np.arange(b)
        active = np.ones(b, bool)
        actions = np.zeros(b, np.int64)
        for _ in range(4 * (spec.deck + 16)):
            owner = owners[rows_all, player]
            for a, agent in enumerate(agents):
                rows = np.flatnonzero(active & (owner == a))
                if rows.size == 0:
                    continue
                actions[rows] = act_rows(agent, obs[rows], mask[rows], vec.state, rows)
            obs, mask, player, _, _ = vec.step(actions, where=active)
            if vec.deal_end.any():
                rec = vec.deal_records()
                for key, value in rec.items():
                    if key not in out:
                        out[key] = np.zeros((total,) + value.shape[1:], value.dtype)
                    out[key][start + rec["game"]] = value
                active[rec["game"]] = False
            if not active.any():
                break
        else:
            raise RuntimeError("some deals did not finish")
    out["game"] = np.arange(total)
    return out


def rotations(deals: np.ndarray, dealers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every deal once per rotation of the hands round the table, the dealer's seat fixed.

    Returns ``(deals, dealers, rot)`` for ``n * D`` games, rotation-major: in game
    ``r * D + d`` seat ``s`` holds the hand that seat ``(s + r) % n`` holds in deal
    ``d``, so over the ``n`` rotations every hand is played once from every
    position relative to the dealer.
    """
    n = deals.shape[1]
    all_deals = np.concatenate([np.roll(deals, -r, axis=1) for r in range(n)])
    return all_deals, np.tile(dealers, n), np.repeat(np.arange(n), len(deals))


def position_means(scores: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """``[D, n]`` mean score per position relative to the dealer (0 = dealer, 1 = left of the dealer, ...).

    ``scores [n * D, n]`` are the seat scores of the :func:`rotations` games; each
    position's mean is over the ``n`` rotations, so every hand of the deal counts once.
    """
    d = len(dealers)
    n = scores.shape[1]
    s = scores.reshape(n, d, n).astype(np.float64)  # rotation, deal, seat
    seat = (dealers[:, None] + np.arange(n)[None, :]) % n  # [D, position] -> seat
    return s[:, np.arange(d)[:, None], seat].mean(axis=0)


def substitution(spec, deals: np.ndarray, dealers: np.ndarray, base: Any, others: dict[str, Any],
                 base_records: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """One-seat substitution on duplicate deals: does a different player in one seat change that seat's score?

    Each deal is played with ``base`` in every seat, and, for each agent ``X`` of
    ``others`` and each seat ``s``, with ``X`` in seat ``s`` and ``base`` in the
    others. Returns ``{"base": scores [D, n], X: scores [D, n] (seat s's score when
    X sat in seat s), "records": {X: records}}``. ``base_records`` reuses a base run.
    """
    d, n = len(deals), spec.num_players
    if base_records is None:
        base_records = play(spec, deals, dealers, [base], np.zeros((d, n), np.int64))
    out: dict[str, Any] = {"base": base_records["scores"].astype(np.float64), "records": {"base": base_records}}
    for name, agent in others.items():
        seat_agents = np.zeros((n * d, n), np.int64)
        seat_agents[np.arange(n * d), np.repeat(np.arange(n), d)] = 1  # game s*D + i: agent 1 in seat s
        rec = play(spec, np.tile(deals, (n, 1, 1)), np.tile(dealers, n), [base, agent], seat_agents)
        sc = rec["scores"].reshape(n, d, n).astype(np.float64)
        out[name] = np.stack([sc[s, :, s] for s in range(n)], axis=1)
        out["records"][name] = rec
    return out


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


def decompose(y: np.ndarray) -> np.ndarray:
    """Scores ``y [D, n, k]`` (deal, seat, player k in that seat) -> the shares of their variance explained by
    the cards (the deal and seat), by the player, and by the rest (interaction and noise)."""
    h = y.reshape(-1, y.shape[2]).astype(np.float64)
    grand = h.mean()
    total = ((h - grand) ** 2).mean()
    cards = ((h.mean(axis=1) - grand) ** 2).mean()
    skill = ((h.mean(axis=0) - grand) ** 2).mean()
    return np.array([cards, skill, total - cards - skill]) / total


def decompose_ci(y: np.ndarray, reps: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`decompose` with 95% percentile intervals from resampling the deals (``reps`` bootstrap samples)."""
    rng = np.random.default_rng(seed)
    boot = np.array([decompose(y[rng.integers(0, len(y), len(y))]) for _ in range(reps)])
    return decompose(y), np.percentile(boot, 2.5, axis=0), np.percentile(boot, 97.5, axis=0)


# ======================================================================= statistics

def ratio_ci(num: np.ndarray, den: np.ndarray, level: float = 0.95,
             rate: bool | None = None) -> tuple[float, float, float]:
    """``sum(num) / sum(den)`` with an interval that treats each entry (a deal) as one independent unit.

    ``rate``: keep the interval inside [0, 1] (a share of counts); ``None`` decides from the data (every
    ``0 <= num <= den``), ``False`` for a ratio of values that are not counts (e.g. score differences)."""
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    g = len(num)
    r = num.sum() / den.sum()
    if g < 2:
        return r, math.nan, math.nan
    se = math.sqrt(g / (g - 1) * ((num - r * den) ** 2).sum()) / den.sum()
    q = t_quantile(0.5 + level / 2, g - 1)
    lo, hi = r - q * se, r + q * se
    if rate or (rate is None and (num >= 0).all() and (num <= den).all()):  # a rate: inside [0, 1]
        lo, hi = max(lo, 0.0), min(hi, 1.0)
    return r, lo, hi


def share_ci(x: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of values in [0, 1] (e.g. per-deal shares) with its t-interval kept inside [0, 1]."""
    m, lo, hi = mean_ci(np.asarray(x, np.float64), level)
    return m, max(lo, 0.0), min(hi, 1.0)


def ols(x: np.ndarray, y: np.ndarray, clusters: np.ndarray, names: Sequence[str],
        level: float = 0.95) -> dict[str, tuple[float, float, float]]:
    """Least squares ``y ~ x`` (x includes the constant if wanted): ``{name: (coef, lo, hi)}``.

    Intervals from the cluster-robust (sandwich) variance with the clusters (deals)
    as the independent units and a t quantile with clusters - 1 degrees of freedom.
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    e = y - x @ beta
    _, cl = np.unique(clusters, return_inverse=True)
    g = cl.max() + 1
    u = np.stack([np.bincount(cl, weights=x[:, k] * e, minlength=g) for k in range(x.shape[1])], axis=1)
    bread = np.linalg.inv(x.T @ x)
    nobs, k = x.shape
    v = bread @ (u.T @ u) @ bread * (g / (g - 1)) * ((nobs - 1) / (nobs - k))
    se = np.sqrt(np.diag(v))
    q = t_quantile(0.5 + level / 2, int(g) - 1)
    return {name: (float(b), float(b - q * s), float(b + q * s)) for name, b, s in zip(names, beta, se)}


def fmt(m: float, lo: float, hi: float, digits: int = 1, pct: bool = False) -> str:
    """``"12.3 [11.8, 12.9]"`` (``pct``: values times 100 with a % sign)."""
    if pct:
        return f"{100 * m:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def verdict(lo: float, hi: float, good: str = "helps", bad: str = "hurts", none: str = "no effect measured") -> str:
    """The word for an interval of a difference: above 0, below 0, or containing 0."""
    if lo > 0:
        return good
    if hi < 0:
        return bad
    return none


# ======================================================================= reading Farbwechsel observations

class View:
    """The parts of a batch of Farbwechsel observations that the advice players read (relative seats, 0 = me).

    Reads the blocks through ``spec.obs_offsets`` (docs/observations/farbwechsel.md);
    ``trickenv.decode`` gives the same arrays (and more) at a higher cost per call.
    """

    def __init__(self, spec, obs: np.ndarray) -> None:
        off = spec.obs_offsets
        n, t = spec.num_players, spec.num_tricks
        b = obs.shape[0]

        def block(name):
            o, size = off[name]
            return obs[:, o:o + size]

        def onehot(name):
            x = block(name)
            return np.where(x.any(axis=1), x.argmax(axis=1), -1)

        self.n, self.tricks = n, t
        self.hand = block("hand") != 0  # [B, 32]
        trick = block("trick").reshape(b, n, 32) != 0
        self.trick = np.where(trick.any(axis=2), trick.argmax(axis=2), -1)  # [B, n] card per relative seat, -1
        self.played = (block("played").reshape(b, n, 32) != 0).any(axis=1)  # [B, 32] played by anyone
        trump = onehot("trump")
        self.trump = np.where(trump == 4, -1, trump)  # -1 before the dealer declares
        tt = block("trick_trump").reshape(b, t, 4)
        self.trick_trump = np.where(tt.any(axis=2), tt.argmax(axis=2), -1)  # [B, T]
        self.done = (self.trick_trump >= 0).sum(axis=1)  # completed tricks = index of the trick in play
        self.dealer = onehot("dealer")  # relative seat of the dealer (0: I deal)
        self.leader = onehot("leader")  # relative seat that leads the trick in play
        self.unseen = ~self.hand & ~self.played
        rows = np.arange(b)
        self.led = np.where(self.leader >= 0, self.trick[rows, np.maximum(self.leader, 0)], -1)  # card led, -1
        self.on_table = (self.trick >= 0).sum(axis=1)


def trick_play(spec, rec: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Replay the tricks of finished deals of any game from their records.

    Returns ``cards [G, T, n]`` (the cards of each trick in play order), ``seats
    [G, T, n]`` (who played them), ``leader [G, T]`` and ``winner [G, T]``. The
    records keep who played each card in which trick and the trump of every
    trick; the order inside a trick follows from the leader (left of the dealer,
    then the last trick's winner), and the winner from the ranking.
    """
    sets = trickenv.card_sets(spec)
    suit = sets["suit"].astype(np.int64)
    strength = sets["strength"].astype(np.int64)
    trump_strength = sets["trump_strength"].astype(np.int64)
    n, t_count = spec.num_players, spec.num_tricks
    g_count = len(rec["dealer"])
    by_seat = np.full((g_count, t_count, n), -1, np.int64)  # card of trick t played by seat s
    g, c = np.nonzero(rec["played_in"] >= 0)
    by_seat[g, rec["played_in"][g, c], rec["played_by"][g, c]] = c
    rows = np.arange(g_count)[:, None]
    leader = np.zeros((g_count, t_count), np.int64)
    winner = np.zeros((g_count, t_count), np.int64)
    cards = np.zeros((g_count, t_count, n), np.int64)
    seats = np.zeros((g_count, t_count, n), np.int64)
    lead = (rec["dealer"].astype(np.int64) + 1) % n
    for t in range(t_count):
        order = (lead[:, None] + np.arange(n)[None, :]) % n
        cc = by_seat[rows, t, order]
        trump = rec["trick_trump"][:, t].astype(np.int64)[:, None]
        led = suit[cc[:, :1]]
        key = np.where(suit[cc] == trump, 100 + trump_strength[cc], np.where(suit[cc] == led, strength[cc], -1))
        win = order[np.arange(g_count), key.argmax(axis=1)]
        leader[:, t], winner[:, t], cards[:, t], seats[:, t] = lead, win, cc, order
        lead = win
    return {"cards": cards, "seats": seats, "leader": leader, "winner": winner}


# ======================================================================= findings as data

FINDING_KEYS = ("question", "game", "variant", "base", "deals", "estimate", "ci95", "p", "p_adjusted", "verdict")


def p_from_ci(m: float, lo: float, hi: float, deals: int, level: float = 0.95) -> float:
    """Two-sided p-value of "no difference" for a mean whose Student-t interval over ``deals`` deals is [lo, hi]."""
    from trickenv.agents.statistics import t_cdf

    q = t_quantile(0.5 + level / 2, deals - 1)
    se = (hi - lo) / (2 * q)
    if not se > 0:
        return 0.0 if m != 0 else 1.0
    return float(2 * (1 - t_cdf(abs(m) / se, deals - 1)))


def adjust_p(p: Sequence[float], method: str = "bh") -> np.ndarray:
    """p-values adjusted for testing them together: ``"bh"`` (Benjamini-Hochberg, the false discovery rate; scipy)
    or ``"holm"`` (Holm's step-down, the family-wise error rate)."""
    p = np.asarray(p, np.float64)
    if p.size == 0:
        return p
    if method == "bh":
        from scipy.stats import false_discovery_control

        return false_discovery_control(p, method="bh")
    if method == "holm":
        order = np.argsort(p)
        m = len(p)
        stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return out
    raise ValueError(f"method must be 'bh' or 'holm', got {method!r}")


def finding(question: str, game: str, variant: str, base: str, deals: int, m: float, lo: float, hi: float,
            **extra: Any) -> dict[str, Any]:
    """One finding: a paired estimate with its 95% CI over ``deals`` deals and its p (adjusted by save_findings)."""
    return {"question": question, "game": game, "variant": variant, "base": base, "deals": int(deals),
            "estimate": float(m), "ci95": [float(lo), float(hi)], "p": p_from_ci(m, lo, hi, int(deals)), **extra}


def save_findings(notebook: str, findings: list[dict[str, Any]], method: str = "bh",
                  folder: Path | None = None) -> Path:
    """Adjust the findings' p-values together, give each its verdict and write ``<folder>/<notebook>.json``.

    Verdict: ``holds`` (adjusted p < 0.05, estimate above 0), ``fails`` (adjusted p < 0.05, below 0), else
    ``not shown``."""
    folder = repo_root() / "notebooks" / "findings" if folder is None else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    adjusted = adjust_p([f["p"] for f in findings], method)
    out = []
    for f, q in zip(findings, adjusted):
        word = "not shown" if q >= 0.05 else ("holds" if f["estimate"] > 0 else "fails")
        out.append({**f, "p_adjusted": float(q), "adjustment": method, "verdict": word})
    path = folder / f"{notebook}.json"
    path.write_text(json.dumps({"notebook": notebook, "findings": out}, indent=1) + "\n", encoding="utf-8")
    return path


def load_findings(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every finding of ``notebooks/findings/*.json``, each with its ``notebook``, in file order."""
    folder = repo_root() / "notebooks" / "findings" if folder is None else Path(folder)
    out = []
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out += [{"notebook": doc["notebook"], **f} for f in doc["findings"]]
    return out


def p_text(p: float) -> str:
    """A p-value for a table: two digits, or ``< 1e-15`` where it is below what a double resolves near 1."""
    return "< 1e-15" if p < 1e-15 else f"{p:.2g}"


def findings_markdown(folder: Path | None = None) -> str:
    """``docs/findings.md``: one table row per finding, generated (``python notebooks/research.py findings``)."""
    rows = load_findings(folder)
    lines = ["# Findings", "",
             "Generated from `notebooks/findings/*.json` by `python notebooks/research.py findings`; do not edit.",
             "Each row is a paired estimate over duplicate deals (the deal is the unit) with its 95% CI; p is",
             "two-sided, adjusted within its notebook (`adjustment`: Benjamini-Hochberg `bh` or Holm). Verdict:",
             "*holds* or *fails* when the adjusted p is below 0.05, else *not shown*. `base` names the players the",
             "effect is measured against: a verdict holds for that base only.", "",
             "| notebook | question | game | variant | base | deals | estimate [95% CI] | p | adjusted p | verdict |",
             "|---|---|---|---|---|---:|---|---:|---:|---|"]
    for f in rows:
        lo, hi = f["ci95"]
        lines.append(f"| {f['notebook']} | {f['question']} | {f['game']} | {f['variant']} | {f['base']} | "
                     f"{f['deals']:,} | {f['estimate']:.3g} [{lo:.3g}, {hi:.3g}] | {p_text(f['p'])} | "
                     f"{p_text(f['p_adjusted'])} | {f['verdict']} |")
    if not rows:
        lines.append("| (none yet) | | | | | | | | | |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["findings"]:
        raise SystemExit("usage: python notebooks/research.py findings   (writes docs/findings.md)")
    (repo_root() / "docs" / "findings.md").write_text(findings_markdown(), encoding="utf-8")
    print(f"docs/findings.md: {len(load_findings())} findings")
