"""How much a search setting's choices suffer from the luck of its sampled worlds, and what it costs.

    python notebooks/experiments/search_noise.py          # Four Tricks, the settings of docs/guides/search.md
    python notebooks/experiments/search_noise.py --game farbwechsel --batches 2 --reference 256

A search that samples 64 worlds values each move with the noise of 64 draws: two runs with other worlds often
pick different moves. This experiment measures that noise at positions the rule-based agents reach (``--batches``
batches of 64 decisions with more than one legal card, each at a random point of the deal) against a reference:
the same search with ``--reference`` worlds (512). For each setting it reports

- ``regret``: the reference's value of its best move minus its value of the setting's move, averaged over the
  decisions (deal-score units; 0 would be the reference's own choice);
- ``differs``: how often the setting's move is not the reference's (equal moves, such as adjacent cards of one
  suit, count as different, so this never reaches 0);
- ``time``: the setting's seconds over all decisions, relative to the first setting's (one run).

The yardstick is a bigger search of the same kind (the same playouts and solver), so this measures the noise of
the worlds only, not how good the playouts are. It is the tuning measurement behind Four Tricks' second look
(``refine``): what lowers the regret is what more worlds buy, at that cost. A setting is ``label=k=v,k=v``.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import trickenv
from trickenv.agents import make_agent

GAME = "four_tricks"  # the game whose second look these settings tuned
SETTINGS = [
    "64 worlds=worlds=64",
    "32 worlds=worlds=32",
    "128 worlds=worlds=128",
    "second look, 3 moves in 64 more=refine=3",
    "second look, 2 moves in 128 more=refine=2,refine_worlds=128",
    "second look, 3 moves in 128 more=refine=3,refine_worlds=128",
    "second look, 4 moves in 128 more=refine=4,refine_worlds=128",
]


def parse_setting(text: str) -> tuple[str, dict[str, Any]]:
    """``label=k=v,k=v`` -> (label, kwargs); integer values become ints."""
    label, _, rest = text.partition("=")
    kwargs: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"a setting is label=key=value,key=value; got {text!r}")
        kwargs[key] = int(value) if value.lstrip("-").isdigit() else value
    return label, kwargs


def positions(game: str, batches: int, seed: int):
    """``batches`` (obs, mask, state, rows) of 64 decisions with more than one legal card each, at random points
    of the deals of rule-based self-play (the state is the vec's, valid until the next step)."""
    spec = trickenv.make_spec(game)
    rules = make_agent("rules", spec, seed=1)
    vec = trickenv.make_vec(game, 256, seed=seed)
    obs, mask, _ = vec.reset()
    rng = np.random.default_rng(1)
    plays = spec.num_tricks * spec.num_players
    for _ in range(batches):
        for _ in range(int(rng.integers(plays - 6))):
            obs, mask, *_ = vec.step(rules.act_batch(obs, mask))
        multi = np.flatnonzero(mask[:, :spec.deck].sum(axis=1) > 1)
        rows = np.sort(rng.choice(multi, size=min(64, len(multi)), replace=False))
        yield obs[rows], mask[rows], vec.state, rows


def measure(game: str, settings: list[str], batches: int = 6, reference: int = 512, seed: int = 78,
            rollout: str | None = None, reference_seed: int = 999) -> list[dict[str, Any]]:
    """One row per setting (module docstring); every search uses the game's defaults apart from its setting
    (and ``rollout`` if given). The settings' searches are seeded 65, the reference ``reference_seed``."""
    spec = trickenv.make_spec(game)
    extra = {} if rollout is None else {"rollout": rollout}
    agents = []
    for text in settings:
        label, kwargs = parse_setting(text)
        # One seed for every setting (common random numbers): settings of 64 worlds share their first look, so
        # what differs between them is the setting, not the luck of another draw.
        agents.append((label, make_agent("search", spec, seed=65, **{**extra, **kwargs})))
    big = make_agent("search", spec, seed=reference_seed, worlds=reference, max_games=65536, **extra)
    values: dict[str, list[np.ndarray]] = {label: [] for label, _ in agents}
    spent = dict.fromkeys(values, 0.0)
    truth = []
    for obs, mask, state, rows in positions(game, batches, seed):
        for label, agent in agents:
            t0 = time.perf_counter()
            values[label].append(agent.search_batch(obs, mask, state=state, games=rows)[1])
            spent[label] += time.perf_counter() - t0
        truth.append(big.search_batch(obs, mask, state=state, games=rows)[1])
    ref = np.concatenate(truth)
    keep = ~np.isnan(ref).all(axis=1)
    ref = ref[keep]
    best = np.nanmax(ref, axis=1)
    ref_move = np.nanargmax(np.where(np.isnan(ref), -np.inf, ref), axis=1)
    first = spent[agents[0][0]]
    out = []
    for label, _ in agents:
        v = np.concatenate(values[label])[keep]
        move = np.nanargmax(np.where(np.isnan(v), -np.inf, v), axis=1)
        out.append({"setting": label, "decisions": int(len(v)),
                    "regret": float((best - ref[np.arange(len(v)), move]).mean()),
                    "differs": float((move != ref_move).mean()), "time": spent[label] / first})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=GAME, choices=list(trickenv.GAMES))
    ap.add_argument("--settings", nargs="+", default=SETTINGS, help="label=key=value,... (SearchAgent keywords)")
    ap.add_argument("--batches", type=int, default=6, help="batches of 64 decisions (6)")
    ap.add_argument("--reference", type=int, default=512, help="the reference search's worlds (512)")
    ap.add_argument("--seed", type=int, default=78, help="the self-play's seed (78)")
    ap.add_argument("--rollout", default=None, help="every search's playouts (default: the game's)")
    args = ap.parse_args()
    rows = measure(args.game, args.settings, args.batches, args.reference, args.seed, args.rollout)
    print(f"{args.game}: {rows[0]['decisions']} decisions, against `search` with {args.reference} worlds\n")
    print("| setting | regret | differs | time (first = 1) |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['setting']} | {r['regret']:.3f} | {r['differs']:.0%} | {r['time']:.2f} |")


if __name__ == "__main__":
    main()
