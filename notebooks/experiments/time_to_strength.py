"""Time to strength of an expert-iteration run: each round's student against rules and pimc, by wall minutes.

    python notebooks/experiments/time_to_strength.py runs/four_tricks --deals 300 --seed 909 --png docs/training/ft_time.png [--ray]

An expert-iteration run (``trickenv train GAME --expert search``) keeps the student each
round started from (``DIR/expert/student_I.npz``: student 0 is the warm start) and ends
with ``DIR/player.npz``; ``DIR/eval.csv`` has the run's clock at each round's end. This
plays every one of them against the rule-based agent and against ``pimc`` (duplicate
``evaluate``, the same games as ``trickenv eval GAME --agents model:PATH,B --deals N
--seed S``), writes ``DIR/time_to_strength.csv`` (minutes, player, both differences with
their 95% CIs) and draws it (:func:`trickenv.training.plot_time_to_strength`). Each
evaluation is appended as it finishes, and a rerun skips the players already there.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from trickenv.agents.evaluation import evaluate

FIELDS = ["minutes", "player", "diff", "ci_lo", "ci_hi", "pimc_diff", "pimc_ci_lo", "pimc_ci_hi", "deals"]


def players(run: Path) -> list[tuple[float, Path]]:
    """(minutes of training, player file) of every round of the run, the warm start first."""
    config = json.loads((run / "config.json").read_text())
    with (run / "eval.csv").open() as f:
        minutes = [float(r["minutes"]) for r in csv.DictReader(f)]
    rounds = int(config["expert_iterations"])
    if len(minutes) < rounds:
        raise SystemExit(f"{run}: {len(minutes)} evaluations in eval.csv, the run has {rounds} rounds: not finished")
    first = json.loads((run / "checkpoint" / "state.json").read_text())["expert"]["stats"][0]
    start = max(0.0, minutes[0] - (first["label_seconds"] + first["fit_seconds"]) / 60)  # the warm start's end
    out = [(start, run / "expert" / "student_0.npz")]
    out += [(minutes[i - 1], run / "expert" / f"student_{i}.npz") for i in range(1, rounds)]
    last = run / "expert" / f"student_{rounds}.npz"  # the last fit (runs before it was kept: player.npz)
    if int(config["steps"]) > 0:  # PPO followed expert iteration: its player is the last point
        if not last.exists():
            raise SystemExit(f"{run}: PPO followed expert iteration but {last} (the player before PPO) is missing")
        out += [(minutes[rounds - 1], last), (minutes[-1], run / "player.npz")]
    else:
        out.append((minutes[rounds - 1], last if last.exists() else run / "player.npz"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="the run folder of `trickenv train ... --expert ...`")
    ap.add_argument("--deals", type=int, default=300, help="duplicate deals per evaluation")
    ap.add_argument("--seed", type=int, default=909, help="seed of the deals (not one the run chose anything by)")
    ap.add_argument("--png", type=Path, default=None, help="where to draw it (default DIR/time_to_strength.png)")
    ap.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                    help="play the deals as Ray tasks (without ADDRESS: a Ray instance on this machine); the same games")
    args = ap.parse_args()
    config = json.loads((args.run / "config.json").read_text())
    game, options = config["game"], config["options"]
    out = args.run / "time_to_strength.csv"
    done = set()
    if out.exists():
        with out.open() as f:
            done = {r["player"] for r in csv.DictReader(f)}
    for minutes, path in players(args.run):
        if path.name in done:
            continue
        row = {"minutes": minutes, "player": path.name, "deals": args.deals}
        for prefix, opponent in (("", "rules"), ("pimc_", "pimc")):
            pair = evaluate(game, [f"model:{path}", opponent], deals=args.deals, seed=args.seed, options=options,
                            progress=False, ratings=False, ray=args.ray).to_dict()["pairs"][0]
            row.update({f"{prefix}diff": pair["diff"], f"{prefix}ci_lo": pair["ci95"][0],
                        f"{prefix}ci_hi": pair["ci95"][1]})
        new = not out.exists()
        with out.open("a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=FIELDS)
            if new:
                writer.writeheader()
            writer.writerow(row)
        print(f"{minutes:6.1f} min {path.name}: - rules {row['diff']:+.3f}, - pimc {row['pimc_diff']:+.3f}", flush=True)
    from trickenv.training import plot_time_to_strength

    title = f"{game}: expert iteration" + (" (last point: after PPO)" if int(config["steps"]) > 0 else "")
    plot_time_to_strength(out, args.png or args.run / "time_to_strength.png", title=title)


if __name__ == "__main__":
    main()
