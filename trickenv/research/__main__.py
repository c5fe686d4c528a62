"""``python -m trickenv.research``: the research tools' long jobs.

- ``findings``: write docs/results/findings.md from notebooks/findings/*.json, and the playbook pages
  (docs/playbook/<game>.md) from them and the shipped playbooks.
- ``mine GAME [name=value ...] --deals N --seed S --out DIR``: record the search's decisions in self-play
  (:func:`trickenv.research.mining.mine_to`), chunk by chunk; the same command continues a stopped run.
- ``outcomes GAME DECISION [name=value ...] --deals N --seed S --out DIR``: a decision before the play (the
  search does not decide it) with every choice played out, as positions (:func:`trickenv.research.outcomes.outcomes_to`),
  chunk by chunk; the same command continues a stopped run.
- ``playbook GAME [name=value ...] --mined DIR --seed S --deals N --out FILE``: learn a playbook from the mined
  positions (or the outcomes), its rules chosen by play on N deals of seed S
  (:func:`trickenv.research.playbook.learn_playbook`); ``--start FILE`` adds to the rules of a playbook.
- ``confirm GAME [name=value ...] --playbook FILE --seed S --deals N --out FILE``: measure a playbook's rules
  again on N other deals and drop the ones that do not hold (:func:`trickenv.research.playbook.confirm_rules`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trickenv.research.findings import findings_markdown, load_findings
from trickenv.research.repo import repo_root


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m trickenv.research", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("findings", help="write docs/results/findings.md and docs/playbook/<game>.md from the findings")
    p = sub.add_parser("mine", help="record the search's decisions in self-play (resumable)")
    p.add_argument("game")
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--deals", type=int, required=True, help="deals to play (the searcher in every seat)")
    p.add_argument("--seed", type=int, required=True, help="seed of the deals; chunk k's searcher has seed + k")
    p.add_argument("--out", required=True, help="directory of the chunks (chunk_K.npz)")
    p.add_argument("--chunk", type=int, default=20, help="deals per chunk (default 20)")
    p.add_argument("--agent", default="search", help="the searcher: search or pimc, with keywords (default search)")
    p = sub.add_parser("outcomes", help="a decision before the play, every choice played out, as positions (resumable)")
    p.add_argument("game")
    p.add_argument("decision", help="the decision (trickenv decisions lists them): call, declaration (King Calling), "
                                    "trump, bid")
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--deals", type=int, required=True, help="deals to simulate (each played once per legal choice)")
    p.add_argument("--seed", type=int, required=True, help="seed of the deals; chunk k's are seeded seed * 100003 + k")
    p.add_argument("--out", required=True, help="directory of the chunks (chunk_K.npz)")
    p.add_argument("--chunk", type=int, default=5000, help="deals per chunk (default 5000)")
    p.add_argument("--player", default="playbook", help="who makes every other move (default playbook: the shipped "
                                                         "one; playbook:PATH another)")
    p = sub.add_parser("playbook", help="learn a playbook from mined positions, its rules chosen by play")
    p.add_argument("game")
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--mined", required=True, help="the directory of mined chunks (python -m trickenv.research mine)")
    p.add_argument("--seed", type=int, required=True, help="seed of the deals that choose the rules (not the mining's)")
    p.add_argument("--deals", type=int, default=2000, help="deals that choose the rules (default 2000)")
    p.add_argument("--rounds", type=int, default=12, help="rounds of candidates, each against the playbook so far "
                                                          "(one rule joins a round)")
    p.add_argument("--most", type=int, default=12, help="the most rules the playbook keeps (default 12)")
    p.add_argument("--tries", type=int, default=16, help="candidates tried in play each round, the best by the "
                                                         "search's values first (default 16)")
    p.add_argument("--start", help="a playbook file whose rules the new ones join (default none)")
    p.add_argument("--out", required=True, help="the playbook file to write (JSON)")
    p = sub.add_parser("confirm", help="measure a playbook's rules again on other deals, drop those that do not hold")
    p.add_argument("game")
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--playbook", required=True, help="the playbook file (JSON)")
    p.add_argument("--seed", type=int, required=True, help="seed of the deals (neither the mining's nor the choosing's)")
    p.add_argument("--deals", type=int, default=4000, help="deals (default 4000)")
    p.add_argument("--first", type=int, default=0, help="the rules before this one stay as they are (default 0)")
    p.add_argument("--out", required=True, help="the playbook file to write (JSON)")
    args = ap.parse_args(argv)
    if args.cmd == "findings":
        from trickenv.research.playbook_pages import write_playbook_pages

        (repo_root() / "docs" / "results" / "findings.md").write_text(findings_markdown(), encoding="utf-8")
        print(f"docs/results/findings.md: {len(load_findings())} findings")
        for path in write_playbook_pages():
            print(f"{path.relative_to(repo_root())}: written")
        return
    import trickenv
    from trickenv.agents import make_agent
    from trickenv.games.option_text import parse_value
    from trickenv.research.mining import mine_to

    bad = [x for x in args.options if "=" not in x]
    if bad:
        ap.error(f"game options look like name=value, got {' '.join(bad)}")
    spec = trickenv.make_spec(args.game, **{k: parse_value(v) for k, v in (x.split("=", 1) for x in args.options)})
    if args.cmd == "playbook":
        learn(spec, args)
        return
    if args.cmd == "confirm":
        confirm(spec, args)
        return
    if args.cmd == "outcomes":
        from trickenv.research.outcomes import outcomes_to

        if min(args.deals, args.chunk) < 1:
            ap.error(f"--deals and --chunk must be positive, got {args.deals} and {args.chunk}")
        try:
            pos = outcomes_to(spec, args.decision, args.out, args.deals, args.seed,
                              make_agent(args.player, spec, seed=0), chunk=args.chunk, player_name=args.player)
        except ValueError as e:
            ap.error(str(e))
        print(f"{args.out}: {len(pos)} positions from {args.deals} deals")
        return

    def searcher(k: int):
        return make_agent(args.agent, spec, seed=args.seed + k)

    pos = mine_to(spec, args.out, args.deals, args.seed, searcher, chunk=args.chunk)
    print(f"{args.out}: {len(pos)} positions from {args.deals} deals")


def learn(spec, args: argparse.Namespace) -> None:
    """``playbook``: learn the rules, writing them with how they were chosen after every round (a stopped run
    leaves the rounds it finished; ``--start`` that file to go on)."""
    from trickenv.agents.playbook import load_playbook
    from trickenv.research.deals import make_deals
    from trickenv.research.mining import load_positions
    from trickenv.research.playbook import learn_playbook

    pos = load_positions(args.mined)
    deals, dealers = make_deals(spec, args.deals, args.seed)
    start = load_playbook(args.start, spec) if args.start else []
    report = learn_playbook(spec, pos, deals, dealers, rounds=args.rounds, most=args.most, tries=args.tries,
                            start=start, on_round=lambda rep: _write_playbook(spec, args, pos, rep, len(start)))
    n = len(report["rules"])
    print(f"{args.out}: {n} rule{'' if n == 1 else 's'}")
    for rule in report["rules"]:
        print("  " + rule.text)


def _write_playbook(spec, args: argparse.Namespace, pos, report: dict, started: int) -> None:
    """The playbook file of ``learn`` so far: the rules and, in ``about``, how each round chose."""
    from trickenv.agents.playbook import save_playbook
    from trickenv.research.outcomes import outcomes_about

    chosen = []
    for r, rnd in enumerate(report["rounds"]):
        for m in rnd["measured"]:
            if m["rule"] in rnd["chosen"]:
                imposed = next((fit, held) for rule, fit, held in rnd["passed"] if rule == m["rule"])
                chosen.append({"round": r + 1, "text": m["rule"].text, "imposed": imposed, "effect_all": m["effect_all"],
                               "effect": m["effect"], "affected": m["affected"], "p_adjusted": m["p_adjusted"]})
    about = {"mined": str(args.mined), "positions": len(pos), "mined_deals": int(len(set(pos.game.tolist()))),
             "choosing_seed": args.seed, "choosing_deals": args.deals, "tries": args.tries,
             "rounds": len(report["rounds"]),
             "candidates": [r["candidates"] for r in report["rounds"]],
             "passed": [len(r["passed"]) for r in report["rounds"]],
             "tried": [len(r["measured"]) for r in report["rounds"]], "chosen": chosen}
    simulated = outcomes_about(args.mined)
    if simulated is not None:
        about["outcomes"] = simulated
    if args.start:
        about["start"] = {"path": str(args.start), "rules": started,
                          "about": json.loads(Path(args.start).read_text(encoding="utf-8")).get("about", {})}
    save_playbook(args.out, spec, report["rules"], about=about)


def confirm(spec, args: argparse.Namespace) -> None:
    """``confirm``: measure the rules again, write the ones that held with what was measured."""
    from trickenv.agents.playbook import load_playbook, save_playbook
    from trickenv.research.deals import make_deals
    from trickenv.research.playbook import confirm_rules

    rules = load_playbook(args.playbook, spec)
    if not 0 <= args.first <= len(rules):
        raise SystemExit(f"--first must be from 0 to {len(rules)} (the playbook's rules), got {args.first}")
    deals, dealers = make_deals(spec, args.deals, args.seed)
    res = confirm_rules(spec, rules, deals, dealers, first=args.first)
    about = json.loads(Path(args.playbook).read_text(encoding="utf-8")).get("about", {})
    about["confirmed"] = {"seed": args.seed, "deals": args.deals, "first": args.first, "measured": [
        {"text": m["rule"].text, "effect": m["effect"], "effect_all": m["effect_all"], "affected": m["affected"],
         "p_adjusted": m["p_adjusted"], "kept": m["kept"]} for m in res["measured"]]}
    save_playbook(args.out, spec, res["rules"], about=about)
    for m in res["measured"]:
        lo, hi = m["effect"][1], m["effect"][2]
        print(f"{'kept   ' if m['kept'] else 'dropped'} {m['effect'][0]:+.2f} [{lo:+.2f}, {hi:+.2f}] per affected "
              f"seat-deal, adjusted p {m['p_adjusted']:.3g}: {m['rule'].text}")
    print(f"{args.out}: {len(res['rules'])} of {len(rules)} rules")


if __name__ == "__main__":
    main(sys.argv[1:])
