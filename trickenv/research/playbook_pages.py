"""The "How to play X well" pages (docs/playbook/<game>.md), written from the shipped playbooks
(``trickenv/agents/playbooks/<game>.json``) and the playbook notebook's findings (``notebooks/findings/playbook.json``).

``python -m trickenv.research findings`` writes them with the findings page, so that a page never says more than
the data behind it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trickenv.research.findings import load_findings
from trickenv.research.repo import repo_root
from trickenv.research.tables import p_text

__all__ = ["playbook_page", "write_playbook_pages"]


def _ci(m: float, lo: float, hi: float, digits: int = 2) -> str:
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ". "


def playbook_page(game: str, playbook: dict[str, Any] | None, findings: list[dict[str, Any]]) -> str:
    """The page of ``game`` from its playbook file's contents (None: none shipped) and the playbook findings."""
    from trickenv.games import make_spec

    title = make_spec(game).text.title or game
    out = [f"# How to play {title} well", ""]
    if playbook is None:
        out += [f"No playbook for {title} yet: none of the rules learned from the search has measured better in "
                "play so far. The [playbooks page](index.md) says how they are learned.", ""]
        return "\n".join(out)
    rules = playbook["rules"]
    about = playbook.get("about", {})
    mine = [f for f in findings if f.get("game") == game]
    head = next((f for f in mine if "share_of_gap" in f), None)
    out += [f"{len(rules)} rule{'' if len(rules) == 1 else 's'} learned from the `search` agent, each kept only "
            f"where imposing it measured better "
            f"in play. The `playbook` agent plays them (the rule-based agent with the rules imposed): "
            f"`trickenv play {game} --opponents playbook`.", "", "| | |", "|---|---|",
            f"| rules | {len(rules)} |"]
    if head is not None:
        out.append(f"| playbook - rules, head to head | {_ci(head['estimate'], *head['ci95'])} a deal over "
                   f"{head['deals']:,} fresh deals (adjusted p {p_text(head['p_adjusted'])}) |")
        if head.get("search_gap"):
            share = head.get("share_of_gap")
            out.append(f"| search - rules, the same deals | {_ci(*head['search_gap'])} over {head['search_deals']:,} "
                       f"deals" + (f"; the playbook closes {share:.0%} of it |" if share is not None else " |"))
    else:
        out.append("| playbook - rules, head to head | not measured yet (notebooks/playbook.ipynb) |")
    if about:
        out.append(f"| learned from | {about.get('mined_deals', 0):,} deals of search self-play "
                   f"({about.get('positions', 0):,} positions); rules chosen on {about.get('choosing_deals', 0):,} "
                   f"deals of seed {about.get('choosing_seed')} |")
    out += ["", "Every result of play on this page (head to head, each rule imposed) was measured on deals used "
            "neither to mine the search's positions nor to choose the rules; the search's own values are read on "
            "the mined positions the trees were not fitted to.", "", "## The rules", ""]
    for i, rule in enumerate(rules):
        out += [f"### {i + 1}. {rule['text']}", ""]
        on = {f["base"].split(" ")[0]: f for f in mine if f.get("rule") == i + 1}
        if "rules" in on:
            f = on["rules"]
            out.append(f"- **Added to the rule-based agent with the rules above it:** {_ci(f['estimate'], *f['ci95'])} "
                       f"points for the seat per seat-deal it changes ({f['affected']:.0%} of seat-deals; {_ci(*f['effect_all'])} "
                       f"over all), adjusted p {p_text(f['p_adjusted'])}: {f['verdict']}.")
            v = f.get("search_value")
            if v and f.get("search_positions"):
                out.append(f"- **The search's own values** where the rule applies: its best move the rule keeps "
                           f"against its best move the rule rules out, {_ci(*v)} a position "
                           f"({f['search_positions']:,} positions; the rule changes the rule-based agent's own "
                           f"choice, which is why this can be below zero for a rule that holds in play).")
        if "pimc" in on:
            f = on["pimc"]
            out.append(f"- **Imposed on `pimc`:** {_ci(f['estimate'], *f['ci95'])} per seat-deal it changes over "
                       f"{f['deals']:,} deals, adjusted p {p_text(f['p_adjusted'])}: {f['verdict']}.")
        ex = next((f.get("example") for f in on.values() if f.get("example")), None)
        if ex:
            table = ", ".join(ex["table"]) if ex["table"] else "nothing yet (you lead)"
            out += ["", f"    Trump {ex['trump']}, {ex['tricks']} tricks played. On the table: {table}.",
                    f"    Your hand: {ex['hand']}",
                    f"    The rule keeps {' '.join(ex['advised'])} and rules out {' '.join(ex['other'])}.",
                    f"    The rule-based agent would play {ex['reference']}; the search played {ex['search']}.", ""]
        if not on:
            out.append("- Not measured yet on fresh deals (notebooks/playbook.ipynb).")
        out.append("")
    seeds = []
    if about.get("mined"):
        seeds.append(f"the search's positions in `{about['mined']}`" + (f" (seed {head['mined_seed']})"
                                                                         if head and "mined_seed" in head else ""))
    if about.get("choosing_seed") is not None:
        seeds.append(f"the rules chosen on seed {about['choosing_seed']}")
    if head and "seed" in head:
        seeds.append(f"every number above measured on seed {head['seed']}")
    out += ["## How it was found", "",
            "The method and the commands: [Playbooks](index.md). " + (_sentence("; ".join(seeds)) if seeds else "")
            + "The measurements: `notebooks/playbook.ipynb`, its findings in `notebooks/findings/playbook.json` "
            "and on the [findings page](../results/findings.md).", ""]
    return "\n".join(out)


def write_playbook_pages(root: Path | None = None) -> list[Path]:
    """Write docs/playbook/<game>.md for every game; returns the paths."""
    root = repo_root() if root is None else Path(root)
    findings = [f for f in load_findings(root / "notebooks" / "findings") if "playbook" in f.get("question", "")]
    paths = []
    from trickenv.games import GAMES

    for game in GAMES:
        file = root / "agents" / "playbooks" / f"{game}.json"
        playbook = json.loads(file.read_text(encoding="utf-8")) if file.exists() else None
        path = root / "docs" / "playbook" / f"{game}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(playbook_page(game, playbook, findings), encoding="utf-8")
        paths.append(path)
    return paths
