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

__all__ = ["playbook_page", "write_playbook_pages", "variant_words"]


def _ci(m: float, lo: float, hi: float, digits: int = 2) -> str:
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ". "


def _stages(about: dict[str, Any]) -> list[dict[str, Any]]:
    """The learning runs behind a playbook, first first: a run that started from another playbook's rules
    (``--start``) keeps that playbook's ``about``."""
    out = []
    while about:
        out.insert(0, about)
        about = about.get("start", {}).get("about", {})
    return out


def _learned_from(about: dict[str, Any]) -> str:
    """One learning run in words: what its positions were and where its rules were chosen."""
    sim = about.get("outcomes")
    if sim:
        source = (f"the {sim['decision']}: {about.get('mined_deals', 0):,} simulated deals, every choice played out by "
                  f"`{sim['player']}` (seed {sim['seed']})")
    else:
        source = (f"{about.get('mined_deals', 0):,} deals of search self-play ({about.get('positions', 0):,} "
                  f"positions)")
    chosen = len(about.get("chosen", []))
    return (f"{source}; rules chosen on {about.get('choosing_deals', 0):,} deals of seed {about.get('choosing_seed')}"
            + (f" ({sum(about['candidates']):,} candidates, {sum(about['passed']):,} passed the values, {chosen} kept)"
               if about.get("candidates") else ""))


def _rule_lines(i: int, rule: dict[str, Any], on: dict[str, dict[str, Any]]) -> list[str]:
    """A rule's heading, its measurements (``on``: its findings by base) and its example."""
    out = [f"### {i + 1}. {rule['text']}", ""]
    if "rules" in on:
        f = on["rules"]
        small = max(abs(x) for x in f["effect_all"]) < 0.05  # a rule that changes few seat-deals: more digits
        out.append(f"- **Added to the rule-based agent with the rules above it:** {_ci(f['estimate'], *f['ci95'])} "
                   f"points for the seat per seat-deal it changes ({f['affected']:.0%} of seat-deals; "
                   f"{_ci(*f['effect_all'], digits=3 if small else 2)} over all), adjusted p {p_text(f['p_adjusted'])}: "
                   f"{f['verdict']}.")
        v = f.get("search_value")
        if v and f.get("search_positions") and f.get("values_from") == "outcomes":
            out.append(f"- **Played out:** where the rule applies, the best outcome of a choice it keeps against the "
                       f"best of a choice it rules out, the same cards, {_ci(*v)} a deal ({f['search_positions']:,} "
                       f"simulated deals; each outcome is one noisy draw, so the side with more choices draws the "
                       f"higher best, which is why this can be below zero for a rule that holds in play).")
        elif v and f.get("search_positions"):
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
        best = (f"played out on these cards, {ex['search']} scored best" if ex.get("source") == "outcomes"
                else f"the search played {ex['search']}")
        out += ["", f"    Trump {ex['trump']}, {ex['tricks']} tricks played. On the table: {table}.",
                f"    Your hand: {ex['hand']}",
                f"    The rule keeps {' '.join(ex['advised'])} and rules out {' '.join(ex['other'])}.",
                f"    The rule-based agent would play {ex['reference']}; {best}.", ""]
    if not on:
        out.append("- Not measured yet on fresh deals (notebooks/playbook.ipynb).")
    out.append("")
    return out


def _section(game: str, variant: str, playbook: dict[str, Any], findings: list[dict[str, Any]],
             level: str = "##") -> list[str]:
    """A playbook's table and rules (``variant``: its findings' variant, "defaults" for the game's own; ``level``:
    "##" for the page's own playbook, which gets a "The rules" heading)."""
    rules = playbook["rules"]
    stages = _stages(playbook.get("about", {}))
    mine = [f for f in findings if f.get("game") == game and f.get("variant", "defaults") == variant]
    head = next((f for f in mine if "share_of_gap" in f), None)
    out = ["| | |", "|---|---|", f"| rules | {len(rules)} |"]
    if head is not None:
        out.append(f"| playbook - rules, head to head | {_ci(head['estimate'], *head['ci95'])} a deal over "
                   f"{head['deals']:,} fresh deals (adjusted p {p_text(head['p_adjusted'])}) |")
        if head.get("search_gap"):
            share = head.get("share_of_gap")
            out.append(f"| search - rules, the same deals | {_ci(*head['search_gap'])} over {head['search_deals']:,} "
                       f"deals" + (f"; the playbook closes {share:.0%} of it |" if share is not None else " |"))
    else:
        out.append("| playbook - rules, head to head | not measured yet (notebooks/playbook.ipynb) |")
    for about in stages:
        out.append(f"| learned from | {_learned_from(about)} |")
    for confirmed in (a["confirmed"] for a in stages if a.get("confirmed")):  # each run's new rules, measured again
        n, dropped = len(confirmed["measured"]), sum(not m["kept"] for m in confirmed["measured"])
        out.append(f"| measured again | {n} rule{'' if n == 1 else 's'} on {confirmed['deals']:,} deals of seed "
                   f"{confirmed['seed']}; " + (f"{dropped} that did not hold there dropped |" if dropped
                                               else "all held there |" if n > 1 else "it held there |"))
    if level == "##":
        out += ["", "Every result of play on this page (head to head, each rule imposed) was measured on deals used "
                "neither to mine the positions nor to choose the rules; the search's own values"
                + (" and the played-out outcomes are" if any(a.get("outcomes") for a in stages) else " are")
                + " read on positions the trees were not fitted to.", "", "## The rules"]
    out.append("")
    for i, rule in enumerate(rules):
        on = {f["base"].split(" ")[0]: f for f in mine if f.get("rule") == i + 1}
        out += _rule_lines(i, rule, on)
    return out


def playbook_page(game: str, playbook: dict[str, Any] | None, findings: list[dict[str, Any]],
                  variants: dict[str, dict[str, Any]] | None = None) -> str:
    """The page of ``game`` from its playbook file's contents (None: none shipped), the playbooks of its other
    variants (``variants``: by the variant's options in words, e.g. ``bidding=True``) and the playbook findings."""
    from trickenv.games import make_spec

    title = make_spec(game).text.title or game
    out = [f"# How to play {title} well", ""]
    if playbook is None:
        out += [f"No playbook for {title} yet: none of the rules learned from the search has measured better in "
                "play so far. The [playbooks page](index.md) says how they are learned.", ""]
        return "\n".join(out)
    rules = playbook["rules"]
    played_out = any(a.get("outcomes") for data in [playbook, *(variants or {}).values()]
                     for a in _stages(data.get("about", {})))
    out += [f"{len(rules)} rule{'' if len(rules) == 1 else 's'} learned from the `search` agent"
            + (" (the decisions before the play from their simulated outcomes)" if played_out else "")
            + ", each kept only where imposing it measured better "
            f"in play. The `playbook` agent plays them (the rule-based agent with the rules imposed): "
            f"`trickenv play {game} --opponents playbook`.", ""]
    out += _section(game, "defaults", playbook, findings)
    for variant, data in (variants or {}).items():
        out += [f"## With {variant}", "",
                f"A playbook of its own (`trickenv eval {game} {variant} --agents playbook,rules`): "
                f"{len(data['rules'])} rule{'' if len(data['rules']) == 1 else 's'}.", ""]
        out += _section(game, variant, data, findings, level="###")
    seeds = []
    for variant, data in {"": playbook, **(variants or {})}.items():
        for about in _stages(data.get("about", {})):
            if about.get("mined"):
                seeds.append(f"the positions in `{about['mined']}`")
            if about.get("choosing_seed") is not None:
                seeds.append(f"rules chosen on seed {about['choosing_seed']}" + (f" ({variant})" if variant else ""))
        head = next((f for f in findings if f.get("game") == game and "share_of_gap" in f
                     and f.get("variant", "defaults") == (variant or "defaults")), None)
        if head and "seed" in head:
            seeds.append(f"the numbers measured on seed {head['seed']}" + (f" ({variant})" if variant else ""))
    out += ["## How it was found", "",
            "The method and the commands: [Playbooks](index.md). "
            + (_sentence("; ".join(dict.fromkeys(seeds))) if seeds else "")
            + "The measurements: `notebooks/playbook.ipynb`, its findings in `notebooks/findings/playbook.json` "
            "and on the [findings page](../results/findings.md).", ""]
    return "\n".join(out)


def variant_words(game: str, options: dict[str, Any]) -> str:
    """A variant's options that differ from the game's defaults, as ``name=value`` words (the findings'
    ``variant``; "defaults" where none differs)."""
    from trickenv.games import make_spec

    def normal(**given: Any) -> dict[str, Any]:
        return json.loads(json.dumps(dict(make_spec(game, **given).options)))

    default = normal()
    words = {k: v for k, v in options.items() if default.get(k) != v}
    for k in list(words):  # leave out what the others imply (Four Tricks' target with bidding=True)
        rest = {n: v for n, v in words.items() if n != k}
        try:
            if normal(**rest) == normal(**words):
                words = rest
        except ValueError:
            pass
    return " ".join(f"{k}={v}" for k, v in words.items()) or "defaults"


def write_playbook_pages(root: Path | None = None) -> list[Path]:
    """Write docs/playbook/<game>.md for every game; returns the paths."""
    root = repo_root() if root is None else Path(root)
    findings = [f for f in load_findings(root / "notebooks" / "findings") if "playbook" in f.get("question", "")]
    paths = []
    from trickenv.games import GAMES

    for game in GAMES:
        file = root / "agents" / "playbooks" / f"{game}.json"
        playbook = json.loads(file.read_text(encoding="utf-8")) if file.exists() else None
        variants = {}
        for other in sorted((root / "agents" / "playbooks").glob(f"{game}-*.json")):
            data = json.loads(other.read_text(encoding="utf-8"))
            variants[variant_words(game, data["options"])] = data
        path = root / "docs" / "playbook" / f"{game}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(playbook_page(game, playbook, findings, variants), encoding="utf-8")
        paths.append(path)
    return paths
