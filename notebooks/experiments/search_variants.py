"""The search agent's strength and cost in every deal variant: search - pimc, search - rules, ms a decision.

    python notebooks/experiments/search_variants.py --out results/search_variants.jsonl   # every variant
    python notebooks/experiments/search_variants.py --out r.jsonl --games koenigrufen --deals 50   # a quick look
    python notebooks/experiments/search_variants.py --out r.jsonl --table   # print what r.jsonl has

Each row is two duplicate evaluations (:func:`trickenv.agents.evaluation.evaluate`,
the same games as ``trickenv eval GAME --agents search,pimc --deals N --seed S OPTIONS``): search
against pimc and search against rules, as the mean paired difference a deal with its
95% CI, plus the search agent's milliseconds a decision asked 64 at once
(:func:`trickenv.research.timing.ms_per_decision`, as ``benchmarks/bench_agents.py`` times it).
Every finished measurement is appended to ``--out`` at once (one JSON object a line), and a run with the same ``--out``
skips what is there, so an interrupted run continues where it stopped; ``--table``
prints the markdown table of docs/results/strength.md (Every variant) from the file.

Only deal-level options are variants here: ``rounds``, ``win_at`` and
``target_schedule`` repeat deals of these variants (``evaluate`` plays single deals).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from trickenv.agents.evaluation import evaluate
from trickenv.research.timing import ms_per_decision

# (game, label, options, deals factor): every deal-level variant of trickenv/games/variants.py, plus Four Tricks'
# other fixed target. King Calling's margins are a tenth of a stake: twice the deals for a usable interval.
VARIANTS = [
    ("four_tricks", "default (48 cards, dealer's trump)", {}, 1),
    ("four_tricks", "deck=52 (turned-up trump)", {"deck": 52}, 1),
    ("four_tricks", "trump=none", {"trump": "none"}, 1),
    ("four_tricks", "deck=52, trump=dealer", {"deck": 52, "trump": "dealer"}, 1),
    ("four_tricks", "bidding", {"bidding": True}, 1),
    ("four_tricks", "target=2", {"target": 2}, 1),
    ("farbwechsel", "default (3 players)", {}, 1),
    ("farbwechsel", "ranking=natural", {"ranking": "natural"}, 1),
    ("farbwechsel", "ranking=trump_ten", {"ranking": "trump_ten"}, 1),
    ("farbwechsel", "switch_ranks=Q,J", {"switch_ranks": ("Q", "J")}, 1),
    ("farbwechsel", "switch_mode=cycle", {"switch_mode": "cycle"}, 1),
    ("farbwechsel", "4 players", {"num_players": 4}, 1),
    ("farbwechsel", "4 players, partnership", {"num_players": 4, "partnership": True}, 1),
    ("koenigrufen", "default (partner from the second batch)", {}, 2),
    ("koenigrufen", "partner_from=full_hand", {"partner_from": "full_hand"}, 2),
]
OPPONENTS = ("pimc", "rules")


def key(game: str, label: str, what: str) -> str:
    return f"{game} | {label} | {what}"


def load(path: Path) -> dict[str, dict]:
    """The measurements already in ``path`` by key (an absent file: none)."""
    if not path.exists():
        return {}
    return {row["key"]: row for row in map(json.loads, path.read_text().splitlines()) if row}


def measure(game: str, options: dict, what: str, deals: int, seed: int, seconds: float) -> dict:
    """One measurement: ``what`` is an opponent's name (a duplicate evaluation) or ``"ms"``."""
    t0 = time.perf_counter()
    if what == "ms":
        return {"ms_search": ms_per_decision(game, "search", seconds, 64, options),
                "ms_pimc": ms_per_decision(game, "pimc", seconds, 64, options)}
    pair = evaluate(game, ["search", what], deals=deals, seed=seed, options=options, progress=False,
                    ratings=False).to_dict()["pairs"][0]
    return {"diff": pair["diff"], "ci95": pair["ci95"], "deals": pair["deals"], "seed": seed,
            "seconds": round(time.perf_counter() - t0, 1)}


def table(done: dict[str, dict]) -> str:
    """The markdown table of every variant ``done`` has a row for (missing cells: blank)."""
    lines = ["| game | variant | search - pimc | search - rules | deals | ms a decision (search / pimc, 64 asked) |",
             "|---|---|---:|---:|---:|---:|"]
    for game, label, *_ in VARIANTS:
        cells = []
        deals = set()
        for what in OPPONENTS:
            row = done.get(key(game, label, what))
            if row is None:
                cells.append("")
                continue
            lo, hi = row["ci95"]
            places = 3 if hi - lo < 1 else 2  # King Calling's and Four Tricks' margins are fractions
            cells.append(f"{row['diff']:+.{places}f} [{lo:.{places}f}, {hi:.{places}f}]")
            deals.add(str(row["deals"]))
        ms = done.get(key(game, label, "ms"))
        cost = f"{ms['ms_search']:.1f} / {ms['ms_pimc']:.1f}" if ms else ""
        if any(cells) or ms:
            lines.append(f"| {game} | {label} | {cells[0]} | {cells[1]} | {' / '.join(sorted(deals))} | {cost} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="JSON lines file: measurements so far (resumed)")
    ap.add_argument("--games", nargs="+", default=None, help="only these games' variants")
    ap.add_argument("--deals", type=int, default=100, help="deals an evaluation (times the variant's factor)")
    ap.add_argument("--seed", type=int, default=2026, help="seed of the deals (the agents were tuned on 1000)")
    ap.add_argument("--seconds", type=float, default=20.0, help="timing budget of each ms measurement")
    ap.add_argument("--measure", nargs="+", default=[*OPPONENTS, "ms"], choices=[*OPPONENTS, "ms"],
                    help="which measurements (time the ms on an otherwise idle machine)")
    ap.add_argument("--table", action="store_true", help="only print the table of what --out holds")
    args = ap.parse_args()
    done = load(args.out)
    if not args.table:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        for game, label, options, factor in VARIANTS:
            if args.games and game not in args.games:
                continue
            deals = args.deals * factor
            for what in args.measure:
                k = key(game, label, what)
                if k in done and (what == "ms" or (done[k]["deals"], done[k]["seed"]) == (deals, args.seed)):
                    continue
                row = {"key": k, **measure(game, options, what, deals, args.seed, args.seconds)}
                done[k] = row
                with args.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(k, {n: v for n, v in row.items() if n != "key"}, flush=True)
    print(table(done))


if __name__ == "__main__":
    main()
