"""Who sits where, and which cards: the duplicate design of an evaluation (:mod:`trickenv.agents.evaluation`).

- A **seating** says which agent sits in which seat (``seating[seat] = agent
  index``). Every deal is played once in each seating of a fixed list, so the
  luck of the cards cancels: each agent gets every hand in every seat as often
  as every other agent. :func:`make_seatings` builds the list from the base
  patterns (:data:`BASE_PATTERNS`) and their :func:`rotations`;
  :func:`seating_plan` also takes an explicit list.
- The **deals**: deal ``i`` of a run is game ``i``'s first deal of
  ``make_vec(game, N, seed=S, **options).reset()`` (cards and dealer);
  :func:`make_deals` makes any range of them with the same generator states, so
  the same seed repeats the run exactly, chunk by chunk.
- Evaluation plays one deal per game, so :func:`check_options` refuses the match
  options (``rounds`` other than 1, ``win_at``, ``target_schedule``).
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from trickenv.engine.kernels import seed_states
from trickenv.games.base import GameSpec
from trickenv.vector import VecEnv

__all__ = ["BASE_PATTERNS", "DESIGNS", "MATCH_OPTIONS", "rotations", "make_seatings", "seating_plan",
           "check_options", "make_deals", "deals_of"]

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


def seating_plan(seatings: str | Sequence[Sequence[int]], spec: GameSpec,
                 num_agents: int) -> tuple[str, list[tuple[int, ...]]]:
    """``(design, seatings)`` of a run: a design name for :func:`make_seatings`, or an explicit list
    (design ``"custom"``) checked to seat every agent with valid indices."""
    n = spec.num_players
    if isinstance(seatings, str):
        return seatings, make_seatings(n, num_agents, bool(spec.options.get("partnership", False)), seatings)
    plan = [tuple(int(a) for a in s) for s in seatings]
    if not plan or any(len(s) != n or min(s) < 0 or max(s) >= num_agents for s in plan):
        raise ValueError(f"each seating must list {n} agent indices 0..{num_agents - 1}")
    if len({a for s in plan for a in s}) != num_agents:
        raise ValueError("every agent must sit in at least one seating")
    return "custom", plan


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


def deals_of(spec: GameSpec, seed: int, start: int, stop: int,
             given: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Deals ``start..stop-1`` of a run: of ``given`` (deals, dealers) if it has them, else :func:`make_deals`."""
    if given is None:
        return make_deals(spec, seed, start, stop)
    return given[0][start:stop].copy(), given[1][start:stop].copy()


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
