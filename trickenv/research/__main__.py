"""``python -m trickenv.research``: the research tools' long jobs.

- ``findings``: write docs/results/findings.md from notebooks/findings/*.json.
- ``mine GAME [name=value ...] --deals N --seed S --out DIR``: record the search's decisions in self-play
  (:func:`trickenv.research.mining.mine_to`), chunk by chunk; the same command continues a stopped run.
"""

from __future__ import annotations

import argparse
import sys

from trickenv.research.findings import findings_markdown, load_findings
from trickenv.research.repo import repo_root


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m trickenv.research", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("findings", help="write docs/results/findings.md from notebooks/findings/*.json")
    p = sub.add_parser("mine", help="record the search's decisions in self-play (resumable)")
    p.add_argument("game")
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--deals", type=int, required=True, help="deals to play (the searcher in every seat)")
    p.add_argument("--seed", type=int, required=True, help="seed of the deals; chunk k's searcher has seed + k")
    p.add_argument("--out", required=True, help="directory of the chunks (chunk_K.npz)")
    p.add_argument("--chunk", type=int, default=20, help="deals per chunk (default 20)")
    p.add_argument("--agent", default="search", help="the searcher: search or pimc, with keywords (default search)")
    args = ap.parse_args(argv)
    if args.cmd == "findings":
        (repo_root() / "docs" / "results" / "findings.md").write_text(findings_markdown(), encoding="utf-8")
        print(f"docs/results/findings.md: {len(load_findings())} findings")
        return
    import trickenv
    from trickenv.agents import make_agent
    from trickenv.games.option_text import parse_value
    from trickenv.research.mining import mine_to

    bad = [x for x in args.options if "=" not in x]
    if bad:
        ap.error(f"game options look like name=value, got {' '.join(bad)}")
    spec = trickenv.make_spec(args.game, **{k: parse_value(v) for k, v in (x.split("=", 1) for x in args.options)})

    def searcher(k: int):
        return make_agent(args.agent, spec, seed=args.seed + k)

    pos = mine_to(spec, args.out, args.deals, args.seed, searcher, chunk=args.chunk)
    print(f"{args.out}: {len(pos)} positions from {args.deals} deals")


if __name__ == "__main__":
    main(sys.argv[1:])
