"""The numbers of an evaluation, from its score :class:`~trickenv.agents.tables.Table`.

- **Intervals.** :func:`mean_ci`: a mean with its Student-t interval
  (:func:`t_quantile`, :func:`t_cdf`: thin wrappers of SciPy's Student-t).
- **Who sat where.** :func:`occupancy` turns a list of seatings into one-hot
  ``[seating, seat, agent]``; :func:`table_means` gives each agent's mean score
  over its seats at each table (deal x seating).
- **Summary** (:func:`summarize`). Deals are the independent units: an agent's
  *deal mean* is its average score over all its seats in all seatings of that
  deal; its result is the mean of its deal means with a 95 % t-interval over
  deals, its mean by position relative to the dealer, and its rates of the
  game's seat metrics. A pair ``(a, b)`` gets the mean of the per-deal
  differences with a paired t-interval.
- **Ratings** (:func:`rate_matches`): every deal-seating is one ranked match
  (openskill's Plackett-Luce model) of the agents at the table, each ranked by
  its mean score over the seats it holds there.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Sequence

import numpy as np

from trickenv.agents.tables import Table

__all__ = ["t_cdf", "t_quantile", "mean_ci", "occupancy", "table_means", "summarize", "rate_matches", "rating_model"]

# stdtr / stdtrit are the functions scipy.stats.t.cdf / .ppf compute with (the same bits), without
# loading scipy.stats: measured on top of importing the evaluator (about 0.5 s), scipy.stats adds about
# 0.6 s and scipy.special 0.1-0.3 s. Imported on first use, as the CLI and the trainer import the
# evaluator whether they compute an interval or not.


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    from scipy.special import stdtr

    return float(stdtr(df, t))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``t_quantile(0.975, 4)`` = 2.776...)."""
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def mean_ci(x: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the mean of ``x`` and its Student-t confidence interval.

    NaN bounds with fewer than two values; ``[mean, mean]`` when all values are equal.
    """
    x = np.asarray(x, np.float64)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n == 1:
        return m, math.nan, math.nan
    sd = float(x.std(ddof=1))
    if sd == 0.0:
        return m, m, m
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return m, m - half, m + half
def occupancy(seatings: Sequence[Sequence[int]], num_agents: int) -> np.ndarray:
    """One-hot ``[S, n, k]``: seat ``n`` of seating ``S`` holds agent ``k``."""
    s = np.asarray(seatings, np.int64)
    occ = np.zeros(s.shape + (num_agents,))
    occ[np.arange(s.shape[0])[:, None], np.arange(s.shape[1])[None, :], s] = 1.0
    return occ


def table_means(seatings: Sequence[Sequence[int]], table: Table, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """``(means [D, S, k], present [S, k])``: each agent's mean score over its seats at each deal-seating."""
    occ = occupancy(seatings, num_agents)
    held = occ.sum(axis=1)
    sums = np.einsum("dsn,snk->dsk", table.scores, occ)
    return sums / np.where(held > 0, held, 1), held > 0


def summarize(names: Sequence[str], seatings: Sequence[Sequence[int]], table: Table,
              ratings: bool = True) -> dict[str, Any]:
    """Agents (mean, 95 % CI over deals, rates, by position), pairs (paired diff and CI) and ratings.

    An agent's *deal mean* is its score summed over all its seats in all seatings of the
    deal, divided by that number of seats (the same for every deal); ``mean`` and ``ci95``
    are the mean of the deal means and its t-interval over deals. ``per_deal [D, k]``
    holds the deal means.
    """
    k = len(names)
    occ = occupancy(seatings, k)                                        # [S, n, k]
    d, _, n = table.scores.shape
    seats_held = occ.sum(axis=(0, 1))                                   # [k] per deal
    per_deal = np.einsum("dsn,snk->dk", table.scores, occ) / seats_held  # [D, k] deal means
    positions = (np.arange(n)[None, :] - table.dealers[:, None]) % n   # [D, n]: 0 = dealer, 1 = left of dealer
    pos_onehot = (positions[:, :, None] == np.arange(n)).astype(np.float64)  # [D, n, position]
    weights = {m: w.astype(np.float64) for m, (_, w) in table.metrics.items()}
    values = {m: np.where(w, v, 0).astype(np.float64) for m, (v, w) in table.metrics.items()}

    agents: dict[str, Any] = {}
    for a, name in enumerate(names):
        mean, lo, hi = mean_ci(per_deal[:, a])
        sums = np.einsum("dsn,sn,dnp->p", table.scores, occ[:, :, a], pos_onehot)
        counts = np.einsum("sn,dnp->p", occ[:, :, a], pos_onehot)
        rates, rate_counts = {}, {}
        for metric in table.metrics:
            den = float(np.einsum("dsn,sn->", weights[metric], occ[:, :, a]))
            rate_counts[metric] = int(den)
            rates[metric] = float(np.einsum("dsn,sn->", values[metric], occ[:, :, a])) / den if den else math.nan
        agents[name] = {
            "mean": mean, "ci95": [lo, hi],
            "sd": float(per_deal[:, a].std(ddof=1)) if d > 1 else math.nan,
            "deals": d, "seat_occurrences": int(seats_held[a]) * d,
            "by_position": [float(s / c) if c else math.nan for s, c in zip(sums, counts, strict=True)],
            "rates": rates, "rate_counts": rate_counts,
        }
    pairs = []
    for a, b in itertools.combinations(range(k), 2):
        diff, lo, hi = mean_ci(per_deal[:, a] - per_deal[:, b])
        pairs.append({"a": names[a], "b": names[b], "diff": diff, "ci95": [lo, hi], "deals": d})
    out: dict[str, Any] = {"agents": agents, "pairs": pairs, "per_deal": per_deal}
    if ratings:
        out["ratings"] = rate_matches(names, *table_means(seatings, table, k))
    return out


def rate_matches(names: Sequence[str], table_means: np.ndarray, present: np.ndarray) -> dict[str, Any]:
    """openskill Plackett-Luce ratings: one ranked match per deal-seating, in deal then seating order.

    ``table_means [D, S, k]``: each agent's mean score over its seats at that table;
    ``present [S, k]``: the agent sits at that table. Equal scores share a rank.
    """
    model = rating_model()
    ratings = [model.rating() for _ in names]
    tables = [(s, np.flatnonzero(p).tolist()) for s, p in enumerate(present) if p.sum() >= 2]
    matches = 0
    for deal in table_means.tolist():  # plain Python lists: openskill's own work (~0.1 ms a match) dominates
        for s, who in tables:
            scores = [deal[s][a] for a in who]
            ranks = [sum(y > x for y in scores) for x in scores]  # 0 = best; equal scores share a rank
            new = model.rate([[ratings[a]] for a in who], ranks=ranks)
            for a, team in zip(who, new, strict=True):
                ratings[a] = team[0]
            matches += 1
    return {
        "model": "openskill PlackettLuce (mu 25, sigma 25/3); ordinal = mu - 3 sigma",
        "matches": matches,
        "agents": {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}
                   for name, r in zip(names, ratings, strict=True)},
    }


def rating_model() -> Any:
    """openskill's Plackett-Luce model (ImportError with the install hint when openskill is missing)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("ratings need openskill: pip install 'trickenv[eval]' (or pass ratings=False)") from e
    return PlackettLuce()
