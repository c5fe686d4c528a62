"""Agents' speed: the rule-based agents per variant, every agent per game (the playbook where one is
shipped), and the search agents' time per decision.

    python benchmarks/bench_agents.py                      # all tables, all games
    python benchmarks/bench_agents.py --games four_tricks --seconds 2 --tables rules

Every row plays whole deals in the batched env (``make_vec(..., threads=1)``)
with the agent in every seat and times ``agent.act_batch`` and ``vec.step``
together; the agent's share of the time is shown apart. "deals/CPU-s" divides
by this process's CPU time instead of the wall clock: it hardly moves when
other processes share the cores, so compare that column between runs on a busy
machine. The search table times ``pimc``, ``pimc:64`` (64 worlds) and ``search``
decisions asked one at a time (the latency a player waits) and 64 at once (as
``trickenv eval`` asks them), at their default budgets otherwise, each batch at a random
point of the deal; forced moves count as decisions (they are not searched).
Kernels are compiled (or loaded from numba's cache) before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.playbook import shipped_playbook_path
from trickenv.agents.search_defaults import search_defaults
from trickenv.research.timing import ms_per_decision

VARIANTS = {
    "four_tricks": {"default (48, dealer trump)": {}, "deck=52 (turn_up)": {"deck": 52}, "trump=none": {"trump": "none"},
                    "bidding": {"bidding": True}, "target_schedule=default": {"target_schedule": "default"}},
    "farbwechsel": {"3 players": {}, "trump_ten": {"ranking": "trump_ten"}, "Q+J": {"switch_ranks": ("Q", "J")},
                    "cycle": {"switch_mode": "cycle"}, "4 players": {"num_players": 4},
                    "4p partnership": {"num_players": 4, "partnership": True}},
    "koenigrufen": {"default": {}, "full_hand": {"partner_from": "full_hand"}},
}


def self_play(game: str, options: dict, agent_name: str, batch: int, seconds: float,
              **kwargs) -> tuple[float, float, float, float]:
    """(deals/s, deals per CPU second, decisions/s, agent share of the time) with the agent in every seat."""
    vec = trickenv.make_vec(game, batch, seed=0, **options)
    agent = make_agent(agent_name, vec.spec, seed=0, **kwargs)
    rows = np.arange(batch)
    obs, mask, _ = vec.reset()

    def act():
        return act_rows(agent, obs, mask, vec.state, rows)

    # Warm up through the first deal ends. Every deal has the same number of decisions, so
    # deals end in bursts: the clock runs from one burst to a later one, over whole deals.
    while not vec.deal_end.any():
        obs, mask, *_ = vec.step(act())
    deals = steps = 0
    agent_t = total = 0.0
    start, cpu = time.perf_counter(), time.process_time()
    while total < seconds or not vec.deal_end.any():
        t0 = time.perf_counter()
        actions = act()
        t1 = time.perf_counter()
        obs, mask, *_ = vec.step(actions)
        deals += int(vec.deal_end.sum())
        steps += batch
        agent_t += t1 - t0
        total = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return deals / total, deals / cpu, steps / total, agent_t / total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--tables", nargs="+", default=["rules", "agents", "search"],
                    choices=["rules", "agents", "search"])
    ap.add_argument("--seconds", type=float, default=3.0, help="timing budget per row")
    ap.add_argument("--batch", type=int, default=4096, help="games of the rules and random rows")
    args = ap.parse_args()

    if "rules" in args.tables:
        print("| game | variant | batch | deals/s | deals/CPU-s | decisions/s | agent share |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for game in args.games:
            for name, options in VARIANTS[game].items():
                deals, cpu, steps, share = self_play(game, options, "rules", args.batch, args.seconds)
                print(f"| {game} | {name} | {args.batch} | {deals:,.0f} | {cpu:,.0f} | {steps:,.0f} | {share:.0%} |",
                      flush=True)
        print()
    if "agents" in args.tables:
        print("| game | agent | batch | deals/s | deals/CPU-s | decisions/s | agent share |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for game in args.games:
            rows = [("random", args.batch), ("rules", args.batch), ("model", args.batch), ("pimc", 64)]
            try:  # the rule-based agent with the game's learned playbook
                shipped_playbook_path(trickenv.make_spec(game))
                rows.insert(2, ("playbook", args.batch))
            except FileNotFoundError:
                pass
            for name, batch in rows:
                deals, cpu, steps, share = self_play(game, {}, name, batch, args.seconds)
                print(f"| {game} | {name} | {batch} | {deals:,.1f} | {cpu:,.1f} | {steps:,.0f} | {share:.0%} |",
                      flush=True)
        print()
    if "search" in args.tables:
        print("| game | agent | decisions asked at once | ms per decision |")
        print("|---|---|---:|---:|")
        for game in args.games:
            rows = [("pimc", "pimc", {}), ("pimc:64", "pimc:64", {}), ("search", "search", {})]
            spec = trickenv.make_spec(game)
            # The smaller budgets where the game's default spends more (docs/results/strength.md, "What more time buys").
            if search_defaults(spec).refine[0]:
                rows.append(("search without the second look", "search",
                             {"refine": 0, "rollout": search_defaults(spec).rollout}))
            if search_defaults(spec).rollout != "rules":
                rows.append(("search, rule-based playouts", "search", {"rollout": "rules"}))
            for label, agent, kwargs in rows:
                for asked in (1, 64):
                    ms = ms_per_decision(game, agent, args.seconds, asked, **kwargs)
                    print(f"| {game} | {label} | {asked} | {ms:.1f} |", flush=True)

if __name__ == "__main__":
    main()
