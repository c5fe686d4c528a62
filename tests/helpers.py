"""Shared test utilities: random play, invariants."""

from __future__ import annotations

import numpy as np



def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean mask."""
    r = rng.random(mask.shape) * mask
    return r.argmax(axis=1)


def play_aec(env, rng: np.random.Generator, seed=None, options=None, check=None) -> tuple[dict, dict]:
    """Play one episode of an AEC env with random legal actions.

    Returns the summed rewards per agent and the final infos per agent."""
    env.reset(seed=seed, options=options)
    total = {a: 0.0 for a in env.possible_agents}
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            final[agent] = info
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, "empty mask while a player is to act"
        if check is not None:
            check(env)
        env.step(int(rng.choice(legal)))
    return total, final


def finish_randomly(env, rng: np.random.Generator) -> None:
    """Play random legal actions until the episode ends (infos of the last deal stay readable)."""
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def conservation_ok(state, g: int, n: int, deck: int) -> bool:
    """Each card in exactly one place: a hand, played (trick or taken), or undealt/stock."""
    count = np.zeros(deck, int)
    for seat in range(4):
        h = int(state.hands[g, seat])
        for c in range(deck):
            count[c] += (h >> c) & 1
    count += state.played_by[g] >= 0
    for k in range(state.aux.shape[1]):
        a = int(state.aux[g, k])
        for c in range(deck):
            count[c] += (a >> c) & 1
    return bool((count == 1).all())


def plain(info: dict) -> dict:
    """An infos dict (or deal record) with NumPy values turned into Python lists and scalars."""
    return {k: v.tolist() if hasattr(v, "tolist") else v for k, v in info.items()}


def info_of(env, agent: str = "player_0") -> dict:
    """``env.infos[agent]`` as plain Python values (for readable comparisons in tests)."""
    return plain(env.infos[agent])


def play_batched_deals(agent, game: str, options: dict, n: int, seed: int) -> None:
    """``agent`` plays every seat of ``n`` batched deals to their end; every action it takes must be legal."""
    import trickenv

    v = trickenv.make_vec(game, n, seed=seed, **options)
    obs, mask, _ = v.reset()
    finished = np.zeros(n, bool)
    while not finished.all():
        rows = np.flatnonzero(~finished)
        acts = np.zeros(n, np.int64)
        acts[rows] = agent.act_batch(obs[rows], mask[rows], state=v.state, games=rows)
        assert mask[rows, acts[rows]].all()
        obs, mask, _, _, _ = v.step(acts, where=~finished)
        finished |= v.deal_end
