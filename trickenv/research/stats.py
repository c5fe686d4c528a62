"""Statistics with the deal as the independent unit: means, shares and ratios with intervals, least squares
with cluster-robust intervals, the variance decomposition into cards, player and rest, p-values from
intervals and their adjustment for testing many together (Benjamini-Hochberg or Holm)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from trickenv.agents.statistics import mean_ci, t_quantile


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
    return {name: (float(b), float(b - q * s), float(b + q * s)) for name, b, s in zip(names, beta, se, strict=True)}


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
