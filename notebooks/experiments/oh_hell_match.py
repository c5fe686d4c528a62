"""A trickenv agent against OpenSpiel's C++ ISMCTS in OpenSpiel's own ``oh_hell`` (:mod:`trickenv.openspiel.oh_hell`).

    python notebooks/experiments/oh_hell_match.py --agent search --sims 500 --deals 300 --seed 1 --out oh_hell.jsonl

``oh_hell`` with :data:`trickenv.openspiel.oh_hell.OH_HELL_PARAMETERS` is Four Tricks with ``deck=52 bidding=True
trump=turn_up``. Each deal (OpenSpiel's chance outcomes, drawn from ``seed`` and the deal's number) is played
in the 6 seatings of two agents at three seats (AAB ABA BAA ABB BAB BBA), in OpenSpiel's game: OpenSpiel's
``ISMCTSBot`` (C++, random rollouts, ``--sims`` simulations, its own ``ResampleFromInfostate``) acts on the
OpenSpiel state; the trickenv agent acts on the same position translated to trickenv's engine
(:func:`trickenv.openspiel.oh_hell.to_four_tricks`), and its move is played in OpenSpiel's game. The scores are
OpenSpiel's returns.

The deals repeat with the seed; the games do not quite: OpenSpiel's C++ ``ISMCTSBot`` chose other moves for the
same seed and position in two runs (its ties are broken among candidates gathered from a hash map). So a rerun
gives another sample of the same match, not the same games.

``--out`` keeps one JSON line per finished deal: run the same command again to continue. At the end it prints
the agent's mean score minus ISMCTS's (paired over deals, 95% CI) and each side's ms a decision.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel

from trickenv.openspiel import oh_hell
from trickenv.agents import make_agent
from trickenv.agents.base import act_one
from trickenv.agents.seatings import make_seatings
from trickenv.agents.statistics import mean_ci

UCT_C = 2.0


@dataclass
class Args:
    agent: str = "search"  # the trickenv agent (any agent name)
    sims: int = 500  # ISMCTS simulations a decision
    deals: int = 300
    seed: int = 0
    out: str = "oh_hell.jsonl"  # one line a finished deal; the run continues from it


def ismcts(sims: int, seed: int) -> pyspiel.Bot:
    """OpenSpiel's C++ ISMCTS with one random rollout a leaf, playing its most visited move (as the
    ``ismcts`` agent does in trickenv's games)."""
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.ISMCTSBot(seed, evaluator, UCT_C, sims, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                             False, False)


def deal_state(game: pyspiel.Game, seed: int, deal: int) -> pyspiel.State:
    """The state after chance dealt deal number ``deal`` (the same for every seating)."""
    rng = np.random.default_rng([seed, deal])
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    return state


def play(args: Args, game: pyspiel.Game, four_tricks, deal: int, seating: tuple[int, ...], k: int,
         clock: dict[str, list[float]]) -> list[float]:
    """One deal in one seating (agent 0 = the trickenv agent, 1 = ISMCTS); OpenSpiel's returns."""
    seed = (args.seed * 1_000_003 + deal * 16 + k) % 2**31  # OpenSpiel's seeds are 32-bit ints
    ours = make_agent(args.agent, four_tricks.spec, seed=seed)
    bots = {seat: ismcts(args.sims, seed + seat) for seat, agent in enumerate(seating) if agent == 1}
    state = deal_state(game, args.seed, deal)
    mirror = oh_hell.to_four_tricks(state, four_tricks)
    while not state.is_terminal():
        seat = state.current_player()
        start = time.perf_counter()
        if seating[seat] == 1:
            action = bots[seat].step(state)
            side = "ismcts"
        else:
            observation = {"observation": mirror.seat_observation(seat), "action_mask": mirror.mask[0]}
            action = oh_hell.action_to_oh_hell(act_one(ours, observation, mirror.engine))
            side = args.agent
        clock[side].append(time.perf_counter() - start)
        state.apply_action(action)
        mirror.apply_action(oh_hell.action_to_trickenv(action))
    return list(state.returns())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name, default in vars(Args()).items():
        ap.add_argument(f"--{name}", type=type(default), default=default)
    args = Args(**vars(ap.parse_args(argv)))
    game, four_tricks = oh_hell.load_oh_hell(), oh_hell.load_four_tricks()
    seatings = make_seatings(3, 2)
    out = Path(args.out)
    done = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if done and (done[0]["agent"], done[0]["sims"], done[0]["seed"]) != (args.agent, args.sims, args.seed):
        raise SystemExit(f"{out} holds another run ({done[0]['agent']}, sims {done[0]['sims']}, seed "
                         f"{done[0]['seed']}): give another --out")
    with out.open("a") as f:
        for deal in range(len(done), args.deals):
            clock: dict[str, list[float]] = {args.agent: [], "ismcts": []}
            scores = [play(args, game, four_tricks, deal, s, k, clock) for k, s in enumerate(seatings)]
            row = {"agent": args.agent, "sims": args.sims, "seed": args.seed, "deal": deal, "seatings": seatings,
                   "scores": scores, "seconds": {k: sum(v) for k, v in clock.items()},
                   "decisions": {k: len(v) for k, v in clock.items()}}
            f.write(json.dumps(row) + "\n")
            f.flush()
            done.append(row)
            print(f"deal {deal + 1}/{args.deals}", flush=True)
    report(done, args.agent)
    return 0


def report(rows: list[dict], agent: str) -> dict:
    """The agent's mean minus ISMCTS's, paired over deals, and the ms a decision of each side."""
    diffs = []
    for row in rows:
        s = np.asarray(row["scores"])  # [seating, seat]
        occ = np.asarray(row["seatings"])
        diffs.append(s[occ == 0].mean() - s[occ == 1].mean())
    mean, lo, hi = mean_ci(np.asarray(diffs))
    ms = {side: 1e3 * sum(r["seconds"][side] for r in rows) / max(1, sum(r["decisions"][side] for r in rows))
          for side in (agent, "ismcts")}
    result = {"deals": len(rows), "diff": mean, "ci95": [lo, hi], "ms": ms}
    print(f"{agent} - ismcts:{rows[0]['sims'] if rows else '?'}: {mean:+.3f} [{lo:.3f}, {hi:.3f}] over {len(rows)} "
          f"deals; ms a decision: " + ", ".join(f"{k} {v:.1f}" for k, v in ms.items()))
    return result


if __name__ == "__main__":
    raise SystemExit(main())
