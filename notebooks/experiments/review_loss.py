"""What the review says of each agent's own moves: the points a move lost against the search's best, by agent.

    python notebooks/experiments/review_loss.py koenigrufen --deals 10 --seed 71
    python notebooks/experiments/review_loss.py farbwechsel --deals 4 --seed 72

``search``, ``rules`` and ``random`` play ``--deals`` duplicate deals in every seating (``trickenv eval``'s
rotations); every seat of every deal is then reviewed (:func:`trickenv.agents.review.review_record`, a fresh
search with ``--review-seed`` at each decision, from what the seat knew). For each agent: the decisions the review
valued, the mean loss a decision (best − played, in the game's reward units) with its 95% CI over decisions, and
the share of decisions where the move played was the review's best. A review that agrees with the search shows
it losing little: the search's own worlds differ from the review's, so not nothing.
"""

from __future__ import annotations

import argparse

import numpy as np

from trickenv.agents.evaluation import evaluate
from trickenv.agents.review import review_record
from trickenv.agents.statistics import mean_ci


def losses(game: str, deals: int, seed: int, review_seed: int) -> dict[str, list[float]]:
    """Per agent: the review's loss of each of its valued decisions."""
    res = evaluate(game, ["search", "rules", "random"], deals=deals, seed=seed, progress=False, ratings=False,
                   records=True)
    rows = res.table_data.records
    out: dict[str, list[float]] = {name: [] for name in res.names}
    for i in range(len(rows["dealer"])):
        record = {k: v[i] for k, v in rows.items()}
        for seat, agent in enumerate(res.seatings[i % len(res.seatings)]):
            out[res.names[agent]] += [m.loss for m in review_record(game, record, seat, seed=review_seed) if m.valued]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    ap.add_argument("--review-seed", type=int, default=1, help="seed of the review's search")
    args = ap.parse_args()
    print("| agent | decisions | mean loss a decision [95% CI] | the review's best |")
    print("|---|---:|---|---:|")
    for name, xs in losses(args.game, args.deals, args.seed, args.review_seed).items():
        x = np.array(xs)
        m, lo, hi = mean_ci(x)
        print(f"| {name} | {len(x)} | {m:.3f} [{lo:.3f}, {hi:.3f}] | {np.mean(x == 0):.2f} |")


if __name__ == "__main__":
    main()
