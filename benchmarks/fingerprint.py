"""Refactor check: a fingerprint of what a change must keep byte-identical, to compare two trees.

    python benchmarks/fingerprint.py before.json              # in the old tree (e.g. a git worktree)
    python benchmarks/fingerprint.py after.json               # in the new one
    python benchmarks/fingerprint.py --compare before.json after.json

For every variant of ``trickenv/games/variants.py`` (or ``--games``) it hashes (sha256, dtype and shape
included): random play through the batched env (observations, masks, players, rewards, done,
deal ends and every deal record; then a fixed-deal reset of the deals in play and steps with
``where``), a larger batch, AEC episodes (observations, masks, rewards, infos), and the actions
of the random, rule-based, PIMC (4 worlds) and, for the default options, shipped agents on the
positions of seeded play. Equal hashes mean equal bytes; ``--compare`` lists the fields that differ
and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.games.variants import VARIANTS


class Digest:
    """sha256 over arrays, each with its dtype and shape."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, *arrays: Any) -> None:
        for a in arrays:
            a = np.ascontiguousarray(np.asarray(a))
            self.h.update(str((a.dtype.str, a.shape)).encode())
            self.h.update(a.tobytes())

    def add_record(self, rec: dict[str, np.ndarray]) -> None:
        for key in sorted(rec):
            self.h.update(key.encode())
            self.add(rec[key])

    def hex(self) -> str:
        return self.h.hexdigest()[:16]


def batched(game: str, options: dict, games: int, steps: int, seed: int) -> tuple[str, str]:
    """(outputs, records) of random play, then a fixed-deal reset and steps with ``where``."""
    vec = trickenv.make_vec(game, games, seed=seed, **options)
    agent = make_agent("random", vec.spec, seed=3)
    out, records = Digest(), Digest()
    obs, mask, player = vec.reset()
    out.add(obs, mask, player)
    for _ in range(steps):
        actions = agent.act_batch(obs, mask)
        obs, mask, player, rewards, done = vec.step(actions)
        out.add(actions, obs, mask, player, rewards, done, vec.deal_end)
        if vec.deal_end.any():
            records.add_record(vec.deal_records())
    deals, dealers = vec.current_deals()
    obs, mask, player = vec.reset(deals=deals, dealers=dealers)
    out.add(obs, mask, player)
    where = np.arange(games) % 3 != 0
    for _ in range(steps // 4):
        obs, mask, player, rewards, done = vec.step(agent.act_batch(obs, mask), where=where)
        out.add(obs, mask, player, rewards, done, vec.deal_end)
    return out.hex(), records.hex()


def aec(game: str, options: dict, episodes: int) -> str:
    """AEC episodes with seeded random legal moves: observations, masks, rewards, terminations, infos."""
    env = trickenv.make(game, **options)
    digest = Digest()
    for episode in range(episodes):
        env.reset(seed=100 + episode)
        rng = np.random.default_rng(episode)
        for _ in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, info = env.last()
            digest.add(obs["observation"], obs["action_mask"], np.float64(reward), np.bool_(term))
            for key in sorted(info):
                value = info[key]
                if isinstance(value, dict):
                    digest.add_record(value)
                elif isinstance(value, (list, tuple)):
                    digest.h.update(repr(value).encode())
                else:
                    digest.add(value)
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return digest.hex()


def agent_actions(game: str, options: dict, games: int, seed: int) -> dict[str, str]:
    """Each agent's actions on the positions of play by the rule-based agent (PIMC every fifth step)."""
    vec = trickenv.make_vec(game, games, seed=seed, **options)
    names = ["random", "rules", "pimc"] + (["model"] if not options else [])
    agents = {name: make_agent(name, vec.spec, seed=21, **({"worlds": 4} if name == "pimc" else {}))
              for name in names}
    digests = {name: Digest() for name in names}
    rows = np.arange(games)
    obs, mask, _ = vec.reset()
    for t in range(3 * vec.spec.num_tricks * vec.spec.num_players + 10):
        for name, agent in agents.items():
            if name != "pimc" or t % 5 == 0:
                digests[name].add(np.asarray(act_rows(agent, obs, mask, vec.state, rows)))
        obs, mask, *_ = vec.step(agents["rules"].act_batch(obs, mask))
    return {name: d.hex() for name, d in digests.items()}


def fingerprint(game: str, options: dict, quick: bool = False) -> dict[str, Any]:
    """The hashes of one variant (``quick``: smaller batches and fewer steps)."""
    small, big, steps, episodes, positions = (8, 32, 60, 2, 8) if quick else (64, 256, 400, 6, 48)
    outputs, records = batched(game, options, small, steps, seed=5)
    return {"batched": outputs, "records": records, "large_batch": batched(game, options, big, steps // 2, 9)[0],
            "aec": aec(game, options, episodes), "agents": agent_actions(game, options, positions, seed=11)}


def differences(a: dict, b: dict) -> list[str]:
    """The ``variant: field`` entries whose hashes differ (or that only one side has)."""
    out = []
    for variant in sorted(set(a) | set(b)):
        fa, fb = a.get(variant, {}), b.get(variant, {})
        out += [f"{variant}: {field}" for field in sorted(set(fa) | set(fb)) if fa.get(field) != fb.get(field)]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", help="write the fingerprint here (JSON)")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two fingerprints")
    ap.add_argument("--games", nargs="+", default=None, help="only these games' variants")
    ap.add_argument("--quick", action="store_true", help="small batches and few steps (a smoke test)")
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        diff = differences(a, b)
        print("\n".join(diff) if diff else f"identical: {len(a)} variants")
        return 1 if diff else 0
    if not args.out:
        ap.error("give OUT.json, or --compare A B")
    result = {}
    for game, options in VARIANTS:
        if args.games and game not in args.games:
            continue
        key = game + json.dumps(options, sort_keys=True)
        result[key] = fingerprint(game, options, args.quick)
        print(key, result[key], flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
