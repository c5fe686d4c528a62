"""Playing fixed deals with given players in each seat on the batched engine, and the duplicate designs.

:func:`make_deals` draws deals as ``trickenv eval`` does; :func:`play` plays them (one deal per game)
and returns the deal records (docs/records.md); :func:`rotations` and :func:`position_means` are the
rotated design (every hand from every position), :func:`substitution` the one-seat substitution
design; :func:`trick_play` replays the tricks of finished deals from their records."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

import trickenv
from trickenv.agents.base import act_rows
from trickenv.vector import VecEnv


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
