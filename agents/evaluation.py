"""Duplicate-deal evaluation of agents: ``evaluate(game, agents, deals=N, seed=S) -> Results``.

How a run works, top to bottom (the sections of this module follow it):

1. **Seatings.** A *seating* says which agent sits in which seat. Every deal is
   played once in each seating of a fixed list (:func:`make_seatings`), so luck
   of the cards cancels: each agent gets every hand in every seat as often as
   every other agent. For the seatings of each game see :func:`make_seatings`
   and docs/agents.md.
2. **Deals.** Deal ``i`` is game ``i``'s first deal of ``make_vec(game, N,
   seed=S, **options).reset()`` (cards and dealer), read with
   ``current_deals()``; the same seed repeats the run exactly. The deals are
   made chunk by chunk with the same generator states (:func:`make_deals`).
3. **Play.** A chunk of ``K`` deals becomes one batched env of ``K x seatings``
   games, reset with the repeated deals and dealers. At every step each agent
   gets one ``act_batch`` call with the rows whose seat to act is its own
   (search agents, ``needs_state=True``, also get ``state=vec.state,
   games=rows``). A game is finished when its first deal ends
   (``vec.deal_end``): its record (``vec.deal_records()``) is kept and it is
   left out of later steps with ``where=``. One deal per game is evaluated, so
   the match options ``rounds`` (other than 1), ``win_at`` and
   ``target_schedule`` are refused with a ValueError.
4. **Tables.** Each deal leaves a score table ``[seatings, seats]`` and a few
   per-seat facts (:func:`seat_metrics`: Four Tricks exact hits, Farbwechsel
   card points and trump changes caused, King Calling roles and wins).
5. **Statistics** (:func:`summarize`). Deals are the independent units: an
   agent's *deal mean* is its average score over all its seats in all seatings
   of that deal; its result is the mean of its deal means with a 95 % Student-t
   interval over deals. A pair ``(a, b)`` gets the mean of the per-deal
   differences with a paired t-interval. Ratings: every deal-seating is one
   ranked match (openskill's Plackett-Luce model) of the agents at the table,
   each ranked by its mean score over the seats it holds there.
6. **Results** (:class:`Results`): a JSON dict with stable keys, a CSV in long
   form and a text table of the same numbers.

Ctrl-C (KeyboardInterrupt) stops the run between or inside chunks: the deals
whose seatings have all finished are kept, and the results say
``interrupted: true`` with the number of deals.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Sequence

import numpy as np

import trickenv
from trickenv.engine.kernels import seed_states
from trickenv.games.base import GameSpec
from trickenv.vector import VecEnv

__all__ = [
    "Results", "evaluate", "make_seatings", "make_deals", "seat_metrics", "summarize", "mean_ci", "t_quantile",
    "unique_names", "format_table",
]

# ======================================================================= 1. seatings

# One base pattern per line, agents as indices 0..k-1; every pattern is played in all rotations.
# Three seats: every arrangement up to rotation (so with 2 or 3 agents *all* distinct arrangements).
# Four seats: the smallest sets in which every agent holds every seat equally often.
BASE_PATTERNS: dict[tuple[int, int], list[tuple[int, ...]]] = {
    (3, 1): [(0, 0, 0)],
    (3, 2): [(0, 0, 1), (0, 1, 1)],                      # AAB, ABB and their rotations: 6
    (3, 3): [(0, 1, 2), (0, 2, 1)],                      # ABC, ACB and their rotations: the 6 permutations
    (4, 1): [(0, 0, 0, 0)],
    (4, 2): [(0, 0, 1, 1)],                              # AABB, ABBA, BBAA, BAAB
    (4, 3): [(0, 0, 1, 2), (1, 1, 2, 0), (2, 2, 0, 1)],  # AABC, BBCA, CCAB and their rotations: 12
    (4, 4): [(0, 1, 2, 3)],                              # ABCD, BCDA, CDAB, DABC
}
DESIGNS = ("rotations", "all")


def rotations(pattern: Sequence[int]) -> list[tuple[int, ...]]:
    """``pattern`` and its rotations (seat ``s`` of rotation ``r`` holds ``pattern[(s + r) % n]``), no repeats."""
    n = len(pattern)
    out: list[tuple[int, ...]] = []
    for r in range(n):
        seating = tuple(pattern[(s + r) % n] for s in range(n))
        if seating not in out:
            out.append(seating)
    return out


def make_seatings(num_players: int, num_agents: int, partnership: bool = False,
                  design: str = "rotations") -> list[tuple[int, ...]]:
    """The seatings every deal is played in: tuples ``seating[seat] = agent index``.

    - ``design="rotations"`` (default): the rotations of :data:`BASE_PATTERNS`.
      Three seats: every distinct arrangement (2 agents: AAB ABA BAA ABB BAB BBA;
      3 agents: the 6 permutations). Four seats: 2 agents the 4 rotations of
      AABB, 3 agents the rotations of AABC, BBCA and CCAB (12), 4 agents the 4
      rotations of ABCD. Each agent holds each seat equally often; with the
      dealer fixed per deal it also holds each position relative to the dealer
      (King Calling: dealer, caller, ...) equally often.
    - ``design="all"``: every arrangement that seats each agent at least once
      (4 seats, 2 agents: 14; 3 agents: 36; 4 agents: 24), so also every
      neighbour relation is balanced; the same as "rotations" for 3 seats.
    - More agents than seats: the union, over every set of ``num_players``
      agents (in agent order), of that set's seatings. Every agent meets every
      other and holds each seat equally often.
    - ``partnership`` (Farbwechsel, teams 0+2 and 1+3): agents sit as teams.
      Every pair of agents ``a < b`` plays ABAB and BABA (one agent: AAAA).
    """
    n, k = num_players, num_agents
    if design not in DESIGNS:
        raise ValueError(f"seating design must be one of {list(DESIGNS)}, got {design!r}")
    if k < 1:
        raise ValueError("evaluate needs at least one agent")
    if partnership:
        if n != 4:
            raise ValueError("partnership seatings need 4 seats")
        if k == 1:
            return [(0, 0, 0, 0)]
        return [s for a, b in itertools.combinations(range(k), 2) for s in ((a, b, a, b), (b, a, b, a))]
    if k > n:
        out: list[tuple[int, ...]] = []
        for group in itertools.combinations(range(k), n):
            out += [tuple(group[i] for i in seating) for seating in make_seatings(n, n, design=design)]
        return out
    if design == "all":
        return [s for s in itertools.product(range(k), repeat=n) if len(set(s)) == k]
    if (n, k) not in BASE_PATTERNS:
        raise ValueError(f"no seating design for {n} seats and {k} agents")
    return [s for pattern in BASE_PATTERNS[(n, k)] for s in rotations(pattern)]


# ======================================================================= 2. deals

MATCH_OPTIONS = ("win_at", "target_schedule")


def check_options(options: dict[str, Any]) -> None:
    """Refuse the match options: evaluation plays one deal per game and would ignore them."""
    rounds = options.get("rounds")
    if rounds is not None and rounds != 1:
        raise ValueError(f"evaluate plays single deals (each deal in every seating): rounds={rounds!r} is not "
                         "supported; leave rounds out (or rounds=1) and raise the number of deals instead")
    for name in MATCH_OPTIONS:
        if options.get(name) is not None:
            hint = " (use target=T for a fixed target)" if name == "target_schedule" else ""
            raise ValueError(f"evaluate plays single deals: the match option {name} is not supported{hint}")


def make_deals(spec: GameSpec, seed: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """``(deals [stop-start, players, cards], dealers)``: deals ``start..stop-1`` of the run.

    Deal ``i`` is exactly game ``i``'s first deal of ``make_vec(game, N, seed=seed).reset()``
    (any ``N > i``): game ``i`` of a seeded env starts from ``seed_states(seed, N)[i]``,
    so a small env with the generator states ``start..stop-1`` makes the same deals.
    """
    vec = VecEnv(spec, stop - start, seed=None)
    vec.state.rng[:] = seed_states(seed, stop - start, offset=start)
    vec.reset()
    deals, dealers = vec.current_deals()
    return deals.copy(), dealers.copy()


# ======================================================================= 3. play

@dataclass
class Table:
    """What a set of finished deals leaves, in deal order: the input of :func:`summarize`.

    ``scores [D, S, n]`` (deal, seating, seat); ``metrics``: name -> ``(value [D, S, n], weight [D, S, n] bool)``
    where weight says which seats the metric counts for (e.g. only the caller); ``dealers [D]``;
    ``deal_ids [D]``: the deals' indices in the run (an interrupted chunk may keep some of its deals).
    ``metrics``, ``dealers`` and ``deal_ids`` may be left out (``Table(scores)``): no rates, dealer 0.
    """

    scores: np.ndarray
    metrics: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    dealers: np.ndarray | None = None
    deal_ids: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.scores = np.asarray(self.scores, np.float64)
        if self.dealers is None:
            self.dealers = np.zeros(len(self.scores), np.int64)
        if self.deal_ids is None:
            self.deal_ids = np.arange(len(self.scores))

    @staticmethod
    def concat(parts: list["Table"], num_seatings: int, num_players: int) -> "Table":
        """One table of the parts, in order (an empty table of the right shape if there are none)."""
        parts = [p for p in parts if len(p.scores)]
        if not parts:
            return Table(np.zeros((0, num_seatings, num_players)), {}, np.zeros(0, np.int64))
        metrics = {name: (np.concatenate([p.metrics[name][0] for p in parts]),
                          np.concatenate([p.metrics[name][1] for p in parts])) for name in parts[0].metrics}
        return Table(np.concatenate([p.scores for p in parts]), metrics, np.concatenate([p.dealers for p in parts]),
                     np.concatenate([p.deal_ids for p in parts]))


class Chunk:
    """The games of one chunk (``deals x seatings``) and the records collected so far.

    Kept outside :func:`play_chunk` so that a KeyboardInterrupt in the middle of the chunk
    loses nothing: :meth:`table` returns the deals whose seatings have all finished.
    """

    def __init__(self, spec: GameSpec, seatings: np.ndarray, deals: np.ndarray, dealers: np.ndarray,
                 first_deal: int = 0) -> None:
        self.spec = spec
        self.first_deal = first_deal
        self.num_deals = len(deals)
        self.num_seatings = len(seatings)
        b = self.num_deals * self.num_seatings
        # game g = deal g // S in seating g % S
        self.deals = np.repeat(deals, self.num_seatings, axis=0)
        self.dealers = np.repeat(dealers, self.num_seatings).astype(np.int64)
        self.seat_agent = np.tile(seatings, (self.num_deals, 1))  # [B, n] agent index per seat
        self.finished = np.zeros(b, bool)
        self.records: dict[str, np.ndarray] = {}

    def store(self, rec: dict[str, np.ndarray]) -> None:
        """Keep the records of finished games (a ``deal_records()`` dict)."""
        games = rec["game"]
        for key, value in rec.items():
            if key not in self.records:
                self.records[key] = np.zeros((len(self.finished),) + value.shape[1:], value.dtype)
            self.records[key][games] = value
        self.finished[games] = True

    def deals_done(self) -> np.ndarray:
        """Bool per deal: all its seatings have finished."""
        return self.finished.reshape(self.num_deals, self.num_seatings).all(axis=1)

    def table(self) -> Table:
        """The table of the finished deals (all of them once the chunk is over)."""
        done = self.deals_done()
        games = (np.flatnonzero(done)[:, None] * self.num_seatings + np.arange(self.num_seatings)).ravel()
        d, s, n = int(done.sum()), self.num_seatings, self.spec.num_players
        if d == 0:
            return Table(np.zeros((0, s, n)), {}, np.zeros(0, np.int64))
        rec = {key: value[games] for key, value in self.records.items()}
        metrics = {name: (np.asarray(v).reshape(d, s, n), np.asarray(w).reshape(d, s, n))
                   for name, (v, w) in seat_metrics(self.spec, rec).items()}
        scores = rec["scores"].reshape(d, s, n).astype(np.float64)
        return Table(scores, metrics, rec["dealer"].reshape(d, s)[:, 0].astype(np.int64),
                     self.first_deal + np.flatnonzero(done))


def play_chunk(vec: VecEnv, chunk: Chunk, agents: list[Any], clock: "Clock", progress: "Progress") -> None:
    """Play every game of ``chunk`` in ``vec`` until its first deal ends, storing the records in ``chunk``.

    One ``act_batch`` call per agent per step with the rows where its seat is to act.
    """
    b = vec.num_envs
    rows_all = np.arange(b)
    obs, mask, player = vec.reset(deals=chunk.deals, dealers=chunk.dealers)
    active = np.ones(b, bool)
    actions = np.zeros(b, np.int64)
    deals_done = 0
    max_steps = 4 * (vec.spec.deck + 16)  # far above any deal's number of decisions
    for step in range(max_steps):
        owner = chunk.seat_agent[rows_all, player]
        for a, agent in enumerate(agents):
            rows = np.flatnonzero(active & (owner == a))
            if rows.size == 0:
                continue
            t0 = time.perf_counter()
            if getattr(agent, "needs_state", False):
                act = agent.act_batch(obs[rows], mask[rows], state=vec.state, games=rows)
            else:
                act = agent.act_batch(obs[rows], mask[rows])
            clock.add_agent(a, time.perf_counter() - t0, rows.size)
            actions[rows] = check_actions(act, mask, rows, clock.names[a])
        t0 = time.perf_counter()
        obs, mask, player, _, _ = vec.step(actions, where=active)
        if vec.deal_end.any():
            rec = vec.deal_records()
            chunk.store(rec)
            active[rec["game"]] = False
            now = int(chunk.deals_done().sum())
            progress.deals(now - deals_done)
            deals_done = now
        clock.env += time.perf_counter() - t0
        progress.step(step + 1)
        if not active.any():
            return
    raise RuntimeError(f"{int(active.sum())} games did not finish their deal in {max_steps} steps")


def check_actions(act: Any, mask: np.ndarray, rows: np.ndarray, name: str) -> np.ndarray:
    """``act`` as int64 if it holds one legal action per row, else ValueError naming the agent."""
    act = np.asarray(act)
    if act.shape != rows.shape or act.dtype.kind not in "iu":
        raise ValueError(f"agent {name} returned {act.dtype} {act.shape} from act_batch; expected "
                         f"{rows.size} integer actions")
    act = act.astype(np.int64)
    ok = (act >= 0) & (act < mask.shape[1])
    ok[ok] = mask[rows[ok], act[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"agent {name} chose illegal action {int(act[i])} in game {int(rows[i])}; legal: "
                         f"{np.flatnonzero(mask[rows[i]]).tolist()}")
    return act


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
    """Where the time goes: per agent (seconds, decisions) and the env."""

    names: list[str]
    agent_seconds: list[float] = field(default_factory=list)
    agent_decisions: list[int] = field(default_factory=list)
    env: float = 0.0

    def __post_init__(self) -> None:
        self.agent_seconds = [0.0] * len(self.names)
        self.agent_decisions = [0] * len(self.names)

    def add_agent(self, a: int, seconds: float, decisions: int) -> None:
        self.agent_seconds[a] += seconds
        self.agent_decisions[a] += decisions


# ======================================================================= 4. per-seat facts of a deal

def seat_metrics(spec: GameSpec, rec: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Game-specific facts per seat of finished deals: name -> ``(value [G, n], weight [G, n] bool)``.

    An agent's rate is the mean of ``value`` over its seat-occurrences where ``weight`` is True.
    """
    n = spec.num_players
    seats = np.arange(n)[None, :]
    every = np.ones((len(rec["scores"]), n), bool)
    if spec.name == "four_tricks":
        goal = np.where(rec["target"][:, None] >= 0, rec["target"][:, None], rec["bids"])
        out = {"exact_hit_rate": (rec["tricks"] == goal, every), "mean_tricks": (rec["tricks"], every)}
        if spec.options.get("bidding"):
            out["mean_bid"] = (rec["bids"], every)
        return out
    if spec.name == "farbwechsel":
        j = np.arange(rec["change_seat"].shape[1])[None, :]
        counted = (j < rec["trump_changes"][:, None])[:, :, None]
        caused = ((rec["change_seat"][:, :, None] == seats[:, None, :]) & counted).sum(axis=1)
        return {"card_points": (rec["points"], every), "trump_changes_caused": (caused, every)}
    if spec.name == "koenigrufen":
        caller = rec["caller"][:, None]
        partner = rec["partner"][:, None]
        calling = rec["calling_side"]
        wins = rec["calling_wins"][:, None]
        is_caller = seats == caller
        is_partner = (seats == partner) & ~is_caller
        won = np.where(calling, wins, ~wins)
        declared = seats == rec["big_declared_by"][:, None]
        alone = rec["alone_kind"][:, None]
        scores = rec["scores"]
        return {
            "win_rate": (won, every),
            "caller_win_rate": (won, is_caller),
            "partner_win_rate": (won, is_partner),
            "defender_win_rate": (won, ~calling),
            "caller_score": (scores, is_caller),
            "partner_score": (scores, is_partner),
            "defender_score": (scores, ~calling),
            "partner_share": (is_partner, every),
            "alone_on_purpose_rate": (np.broadcast_to(alone == 1, every.shape), is_caller),
            "alone_by_chance_rate": (np.broadcast_to(alone == 2, every.shape), is_caller),
            "declaration_rate": (declared, every),
            "declaration_win_rate": (won, declared),
            "marriages_declared": (rec["marriages"].sum(axis=2), every),
        }
    return {}


# ======================================================================= 5. statistics

def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=None)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile (p > 0.5) of Student's t with ``df`` degrees of freedom, by bisection of the cdf."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


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
            "by_position": [float(s / c) if c else math.nan for s, c in zip(sums, counts)],
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
    model = _openskill_model()
    ratings = [model.rating() for _ in names]
    tables = [(s, np.flatnonzero(p).tolist()) for s, p in enumerate(present) if p.sum() >= 2]
    matches = 0
    for deal in table_means.tolist():  # plain Python lists: openskill's own work (~0.1 ms a match) dominates
        for s, who in tables:
            scores = [deal[s][a] for a in who]
            ranks = [sum(y > x for y in scores) for x in scores]  # 0 = best; equal scores share a rank
            new = model.rate([[ratings[a]] for a in who], ranks=ranks)
            for a, team in zip(who, new):
                ratings[a] = team[0]
            matches += 1
    return {
        "model": "openskill PlackettLuce (mu 25, sigma 25/3); ordinal = mu - 3 sigma",
        "matches": matches,
        "agents": {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in zip(names, ratings)},
    }


def _openskill_model():
    try:
        from openskill.models import PlackettLuce
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("ratings need openskill: pip install 'trickenv[eval]' (or pass ratings=False)") from e
    return PlackettLuce()


# ======================================================================= 6. results

def _clean(x: Any) -> Any:
    """JSON-safe copy: NumPy scalars to Python numbers, NaN to None, tuples to lists."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist())
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(x) else float(x)
    return x


@dataclass
class Results:
    """The outcome of :func:`evaluate`: ``to_dict()`` (the JSON), ``save_json``, ``save_csv``, ``table()``.

    ``per_deal [D, agents]`` holds each agent's deal means and ``table_data`` the raw
    score :class:`Table` (with ``deal_ids``), for further analysis.
    """

    game: str
    options: dict[str, Any]
    resolved_options: dict[str, Any]
    names: list[str]
    seatings: list[tuple[int, ...]]
    seating_design: str
    deals: int
    deals_requested: int
    seed: int
    chunk: int
    interrupted: bool
    timing: dict[str, Any]
    summary: dict[str, Any]
    table_data: Table | None = None

    @property
    def per_deal(self) -> np.ndarray:
        """Each agent's mean score per deal, ``[deals, agents]``."""
        return self.summary["per_deal"]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (stable keys; see docs/agents.md)."""
        return _clean({
            "game": self.game,
            "options": self.options,
            "resolved_options": self.resolved_options,
            "deals": self.deals,
            "deals_requested": self.deals_requested,
            "seed": self.seed,
            "chunk": self.chunk,
            "interrupted": self.interrupted,
            "seating_design": self.seating_design,
            "seatings": [[self.names[a] for a in s] for s in self.seatings],
            "agents": self.summary["agents"],
            "pairs": self.summary["pairs"],
            "ratings": self.summary.get("ratings"),
            "timing": self.timing,
        })

    def save_json(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def csv_rows(self) -> list[dict[str, Any]]:
        """The numbers in long form: ``section, agent, other, metric, value, ci95_lo, ci95_hi, n``."""
        d = self.to_dict()
        rows: list[dict[str, Any]] = []

        def row(section, agent, metric, value, lo=None, hi=None, n=None, other=""):
            rows.append({"section": section, "agent": agent, "other": other, "metric": metric, "value": value,
                         "ci95_lo": lo, "ci95_hi": hi, "n": n})

        for name, a in d["agents"].items():
            row("agent", name, "mean", a["mean"], *a["ci95"], n=a["deals"])
            for p, v in enumerate(a["by_position"]):
                row("agent", name, f"mean_at_position_{p}", v)
            for metric, v in a["rates"].items():
                row("agent", name, metric, v, n=a["rate_counts"][metric])
        for p in d["pairs"]:
            row("pair", p["a"], "diff", p["diff"], *p["ci95"], n=p["deals"], other=p["b"])
        if d["ratings"]:
            for name, r in d["ratings"]["agents"].items():
                for metric in ("mu", "sigma", "ordinal"):
                    row("rating", name, metric, r[metric], n=d["ratings"]["matches"])
        return rows

    def save_csv(self, path: str) -> None:
        """Write :meth:`csv_rows` as CSV (empty cells for missing values)."""
        rows = self.csv_rows()
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["section"])
            w.writeheader()
            w.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)

    def table(self) -> str:
        """The same numbers as the JSON, as text."""
        return format_table(self.to_dict())

    def __str__(self) -> str:
        return self.table()


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(ci: list) -> str:
    return "-" if ci[0] is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _columns(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def format_table(d: dict[str, Any]) -> str:
    """Text table of a results dict (:meth:`Results.to_dict`)."""
    t = d["timing"]
    opts = ", ".join(f"{k}={v!r}" for k, v in d["options"].items()) or "defaults"
    lines = [
        f"{d['game']} ({opts}): {d['deals']} deals x {len(d['seatings'])} seatings, seed {d['seed']}, "
        f"{t['seconds']:.1f} s ({t['deals_per_second']:.1f} deals/s)"
        + (f"  INTERRUPTED after {d['deals']} of {d['deals_requested']} deals" if d["interrupted"] else ""),
        "",
    ]
    names = list(d["agents"])
    rate_names = list(next(iter(d["agents"].values()))["rates"]) if names else []
    header = ["agent", "mean", "95% CI", "sd/deal", *[f"pos{p}" for p in range(len(d["seatings"][0]))]]
    if d["ratings"]:
        header += ["mu", "sigma", "ordinal"]
    rows = []
    for name in names:
        a = d["agents"][name]
        r = [name, _num(a["mean"]), _ci(a["ci95"]), _num(a["sd"]), *[_num(x, 2) for x in a["by_position"]]]
        if d["ratings"]:
            rr = d["ratings"]["agents"][name]
            r += [_num(rr["mu"], 2), _num(rr["sigma"], 2), _num(rr["ordinal"], 2)]
        rows.append(r)
    lines += _columns(header, rows)
    lines.append("(pos0 = dealer, pos1 = left of the dealer, ...: mean score by position)")
    width = max(map(len, names)) if names else 5
    groups: list[list[str]] = []
    for m in rate_names:  # rate columns in groups, each table at most about 100 characters wide
        if not groups or width + sum(len(x) + 2 for x in groups[-1]) + len(m) + 2 > 100:
            groups.append([])
        groups[-1].append(m)
    for group in groups:
        lines.append("")
        lines += _columns(["agent", *group], [[n, *[_num(d["agents"][n]["rates"][m]) for m in group]] for n in names])
    if d["pairs"]:
        lines.append("")
        lines += _columns(["pair (a - b)", "diff", "95% CI (paired over deals)"],
                          [[f"{p['a']} - {p['b']}", _num(p["diff"]), _ci(p["ci95"])] for p in d["pairs"]])
    lines.append("")
    lines.append("time: " + ", ".join(f"{n} {s:.2f} s" for n, s in t["agent_seconds"].items())
                 + f", env {t['env_seconds']:.2f} s, ratings {t['ratings_seconds']:.2f} s")
    return "\n".join(lines)


# ======================================================================= 7. evaluate

def unique_names(names: Iterable[str]) -> list[str]:
    """``["rules", "random", "rules"]`` -> ``["rules", "random", "rules#2"]``."""
    out: list[str] = []
    for name in names:
        new, i = name, 1
        while new in out:
            i += 1
            new = f"{name}#{i}"
        out.append(new)
    return out


def agent_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th agent of a run with ``seed`` (distinct per agent, repeatable)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint32)[0])


def build_agents(entries: Sequence[Any], spec: GameSpec, seed: int) -> tuple[list[str], list[Any]]:
    """Names (made unique) and agents from names (``make_agent``), agent objects or ``(name, agent)`` pairs."""
    from trickenv.agents import make_agent

    names, agents = [], []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            names.append(entry)
            agents.append(make_agent(entry, spec, seed=agent_seed(seed, i)))
        elif isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            names.append(entry[0])
            agents.append(entry[1])
        else:
            names.append(str(getattr(entry, "name", type(entry).__name__)))
            agents.append(entry)
        if not callable(getattr(agents[-1], "act_batch", None)):
            raise ValueError(f"agent {names[-1]!r} has no act_batch method")
    return unique_names(names), agents


def evaluate(
    game: str,
    agents: Sequence[Any],
    deals: int = 1000,
    seed: int | None = 0,
    options: dict[str, Any] | None = None,
    chunk: int = 256,
    progress: bool = True,
    seatings: str | Sequence[Sequence[int]] = "rotations",
    ratings: bool = True,
    threads: int = 1,
) -> Results:
    """Play ``deals`` duplicate deals of ``game`` between ``agents`` and return the :class:`Results`.

    ``agents``: names for :func:`trickenv.agents.make_agent` (``"random"``, ``"rules"``,
    ``"model:PATH"``, ...; agent ``i`` gets a seed derived from ``seed`` and ``i``), agent
    objects or ``(name, agent)`` pairs; repeated names become ``name#2``, ... ``options``:
    game options (``rounds``/``win_at``/``target_schedule`` raise ValueError). ``chunk``: deals
    per batched env (``chunk x seatings`` games). ``seatings``: ``"rotations"``, ``"all"``
    (:func:`make_seatings`) or an explicit list of seatings (agent index per seat).
    ``seed=None`` draws a seed and reports it, so the run can be repeated.
    A KeyboardInterrupt ends the run early with the deals finished so far
    (``interrupted=True``).
    """
    t_start = time.perf_counter()
    options = dict(options or {})
    check_options(options)
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a positive integer, got {deals!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    if ratings:
        _openskill_model()  # fail now, not after the run
    spec = trickenv.make_spec(game, **options)
    names, players = build_agents(agents, spec, seed)
    n = spec.num_players
    if isinstance(seatings, str):
        design = seatings
        plan = make_seatings(n, len(players), bool(spec.options.get("partnership", False)), design)
    else:
        design = "custom"
        plan = [tuple(int(a) for a in s) for s in seatings]
        if not plan or any(len(s) != n or min(s) < 0 or max(s) >= len(players) for s in plan):
            raise ValueError(f"each seating must list {n} agent indices 0..{len(players) - 1}")
        if len({a for s in plan for a in s}) != len(players):
            raise ValueError("every agent must sit in at least one seating")
    plan_arr = np.asarray(plan, np.int64)

    clock = Clock(names)
    parts: list[Table] = []
    envs: dict[int, VecEnv] = {}
    interrupted = False
    bar = Progress(deals, -(-deals // chunk), f"{game} eval", progress)
    try:
        for start in range(0, deals, chunk):
            stop = min(start + chunk, deals)
            current: Chunk | None = None
            try:
                deal_arr, dealers = make_deals(spec, seed, start, stop)
                current = Chunk(spec, plan_arr, deal_arr, dealers, first_deal=start)
                b = (stop - start) * len(plan)
                if b not in envs:
                    envs[b] = VecEnv(spec, b, seed=seed, threads=threads)
                bar.chunk(start // chunk)
                play_chunk(envs[b], current, players, clock, bar)
            except KeyboardInterrupt:
                interrupted = True
            if current is not None:
                parts.append(current.table())
            if interrupted:
                break
    finally:
        bar.close()

    table = Table.concat(parts, len(plan), n)
    t_play = time.perf_counter() - t_start
    summary = summarize(names, plan, table, ratings=False)
    t0 = time.perf_counter()
    if ratings:
        try:
            summary["ratings"] = rate_matches(names, *table_means(plan, table, len(names)))
        except KeyboardInterrupt:  # a second Ctrl-C while rating: results without ratings
            interrupted = True
            summary["ratings"] = None
    t_ratings = time.perf_counter() - t0
    played = len(table.scores)
    seconds = time.perf_counter() - t_start
    timing = {
        "seconds": seconds,
        "play_seconds": t_play,
        "ratings_seconds": t_ratings,
        "env_seconds": clock.env,
        "deals_per_second": played / t_play if t_play > 0 else math.nan,
        "games_per_second": played * len(plan) / t_play if t_play > 0 else math.nan,
        "agent_seconds": dict(zip(names, clock.agent_seconds)),
        "agent_decisions": dict(zip(names, clock.agent_decisions)),
    }
    return Results(
        game=game, options=options, resolved_options=dict(spec.options), names=names, seatings=plan,
        seating_design=design, deals=played, deals_requested=int(deals), seed=int(seed), chunk=int(chunk),
        interrupted=interrupted, timing=timing, summary=summary, table_data=table,
    )


TOURNAMENT_GAMES = ("four_tricks", "farbwechsel", "koenigrufen")


def tournament_agents(spec: GameSpec, names: Sequence[str], pimc_worlds: int, seed: int) -> list[tuple[str, Any]]:
    """The named agents for one game; ``pimc`` with ``pimc_worlds`` worlds, ``model`` skipped (with a note)
    where the game has no shipped player."""
    from trickenv.agents import PIMCAgent, make_agent
    from trickenv.agents.policy import shipped_model_path

    out: list[tuple[str, Any]] = []
    for i, name in enumerate(names):
        if name == "model" and not shipped_model_path(spec.name).exists():
            print(f"{spec.name}: no shipped model, playing without it")
            continue
        if name == "pimc":
            out.append((name, PIMCAgent(spec, seed=seed + 1000 * (i + 1), worlds=pimc_worlds)))
        else:
            out.append((name, make_agent(name, spec, seed=seed + 1000 * (i + 1))))
    return out


def tournament(agents: Sequence[str] = ("random", "rules", "pimc", "model"), deals: int = 100, seed: int = 0,
               games: Sequence[str] = TOURNAMENT_GAMES, pimc_worlds: int = 8, progress: bool = True) -> dict[str, Results]:
    """A duplicate tournament of ``agents`` in each of ``games`` (default variants): ``{game: Results}``."""
    out: dict[str, Results] = {}
    for game in games:
        spec = trickenv.make_spec(game)
        players = tournament_agents(spec, agents, pimc_worlds, seed)
        out[game] = evaluate(game, players, deals=deals, seed=seed, progress=progress, ratings=False)
        if out[game].interrupted:
            break
    return out


def tournament_table(results: dict[str, Results]) -> str:
    """One table over the games: each agent's mean deal score with its 95% CI, and its difference to ``rules``."""
    header = ["game", "agent", "mean", "95% CI", "vs rules", "95% CI (paired)", "deals"]
    rows = []
    for game, res in results.items():
        d = res.to_dict()
        pairs = {(p["a"], p["b"]): p for p in d["pairs"]}
        for name, a in d["agents"].items():
            vs = ["", ""]
            if name != "rules" and (name, "rules") in pairs:
                p = pairs[(name, "rules")]
                vs = [_num(p["diff"]), _ci(p["ci95"])]
            elif name != "rules" and ("rules", name) in pairs:
                p = pairs[("rules", name)]
                vs = [_num(-p["diff"]), _ci([-p["ci95"][1], -p["ci95"][0]])]
            rows.append([game, name, _num(a["mean"]), _ci(a["ci95"]), *vs, str(a["deals"])])
    return "\n".join(_columns(header, rows))
