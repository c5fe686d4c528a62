"""Play a benchmark and write its results card; read the bundled agents' cards; rank a card among them."""

from __future__ import annotations

import json
import os
import platform
import re
import time
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

import trickenv
from trickenv.benchmark.sets import BenchmarkSet, Entry, deal_hash, load_deals


def _fits(agent: str, entry: Entry) -> bool:
    """Whether ``agent`` can play ``entry`` (the shipped ``model`` plays only the variants it was trained on; an
    SB3 model only its game and variant)."""
    from trickenv.agents import make_agent

    try:
        make_agent(agent, entry.spec, seed=0)
    except ValueError:
        return False
    return True


def run_benchmark(agent: str, bset: BenchmarkSet, games: Sequence[str] | None = None, progress: bool = True,
                  agent_timeout: float | None = None, rows_dir: Path | None = None,
                  ray: str | bool | None = None) -> dict[str, Any]:
    """The card of ``agent`` (any agent name) on ``bset``: for every entry (of ``games``, default all) and
    reference, ``agent`` against the reference on the first deals of the entry's deal set, every deal in every
    seating; the paired difference with its 95% CI and each side's ms a decision.

    ``rows_dir``: every finished row is kept there, and a row found there (of this agent, version and deal set)
    is not played again; a row's finished chunks are kept there too (an evaluation journal), so a long card
    continues where it stopped, within a row as well. ``ray``: play the chunks of deals as Ray
    tasks (``evaluate``'s ``ray``; the same card, sooner on a machine or cluster with more cores)."""
    from trickenv.agents.evaluation import evaluate

    games = list(games or dict.fromkeys(e.game for e in bset.entries))
    unknown = [g for g in games if g not in {e.game for e in bset.entries}]
    if unknown:
        raise ValueError(f"benchmark {bset.version} has no game {unknown[0]!r}; games: "
                         f"{', '.join(dict.fromkeys(e.game for e in bset.entries))}")
    rows = []
    skipped = []
    start = time.perf_counter()
    dealt = deal_hash(bset)
    for entry in bset.entries:
        if entry.game not in games:
            continue
        if not _fits(agent, entry):
            skipped.append(entry.key)
            continue
        deals, dealers = load_deals(bset, entry)
        for reference, n in bset.references:
            if not _fits(bset.agent(reference), entry):
                continue
            kept = _kept_row(rows_dir, agent, bset, dealt, entry, reference)
            if kept is not None:
                rows.append(kept)
                continue
            chunks = None if rows_dir is None else _row_path(rows_dir, entry.key, reference).with_suffix(".chunks")
            res = evaluate(entry.game, [agent, bset.agent(reference)], deals=n, seed=bset.seed, options=dict(entry.options),
                           chunk=bset.chunk, progress=progress, ratings=False, given_deals=(deals, dealers),
                           agent_timeout=agent_timeout, ray=ray, journal=chunks)
            names = res.names
            pair = res.to_dict()["pairs"][0]
            timing = res.timing
            ms = {k: 1e3 * timing["agent_seconds"][k] / max(1, timing["agent_decisions"][k]) for k in names}
            rows.append({"entry": entry.key, "game": entry.game, "reference": reference, "deals": n,
                         "diff": pair["diff"], "ci95": pair["ci95"], "scale": entry.spec.reward_scale,
                         "ms": {"agent": ms[names[0]], "reference": ms[names[1]]}, **_row_seconds(timing, n)})
            _keep_row(rows_dir, agent, bset, dealt, rows[-1])
    if not rows:
        raise ValueError(f"agent {agent!r} plays none of the variants of benchmark {bset.version} in "
                         f"{', '.join(games)}: {', '.join(skipped)}")
    return {"benchmark": bset.version, "agent": agent, "games": games, "skipped": skipped, "deal_hash": dealt,
            "references": [list(r) for r in bset.references], "rows": rows, "score": score(rows),
            "trickenv": trickenv.__version__, "machine": machine(), "seconds": time.perf_counter() - start,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d")}


def _row_seconds(timing: dict[str, Any], deals: int) -> dict[str, Any]:
    """A row's play time: its chunks' (a row played over several calls adds the time of each); where some chunks
    were kept without a time (by an older trickenv), the timed deals' rate over all ``deals`` (with none timed,
    this call's), marked as such."""
    timed = timing["timed_deals"]
    if timed >= deals:
        return {"seconds": timing["chunk_seconds"]}
    return {"seconds": timing["chunk_seconds"] * deals / timed if timed else timing["play_seconds"],
            "timed_deals": timed}


def reference_play(bset: BenchmarkSet, entry: Entry, reference: str, deals: int = 1) -> str:
    """What ``reference`` plays on ``entry``: the sha256 (16 hex digits) of every deal record of ``reference``
    against ``rules`` on the first ``deals`` deals of the version, every seating, seeded as a card is. A change in
    a reference's play (its tuning, a model file, the engine) changes it: the test freezing a version compares."""
    import hashlib

    from trickenv.agents.evaluation import evaluate

    dealt, dealers = load_deals(bset, entry)
    res = evaluate(entry.game, [bset.agent(reference), "rules"], deals=deals, seed=bset.seed, options=dict(entry.options),
                   chunk=bset.chunk, progress=False, ratings=False, records=True,
                   given_deals=(dealt[:deals], dealers[:deals]))
    records = res.table_data.records
    h = hashlib.sha256()
    for key in sorted(records):
        value = np.ascontiguousarray(records[key])
        h.update(f"{key}{value.dtype.str}{value.shape}".encode())
        h.update(value.tobytes())
    return h.hexdigest()[:16]


def _row_path(rows_dir: Path, entry_key: str, reference: str) -> Path:
    return rows_dir / f"{slug(entry_key)}__{slug(reference)}.json"


def _kept_row(rows_dir: Path | None, agent: str, bset: BenchmarkSet, dealt: str, entry: Entry,
              reference: str) -> dict[str, Any] | None:
    if rows_dir is None:
        return None
    path = _row_path(rows_dir, entry.key, reference)
    if not path.is_file():
        return None
    kept = json.loads(path.read_text(encoding="utf-8"))
    if (kept.get("agent"), kept.get("benchmark"), kept.get("deal_hash")) != (agent, bset.version, dealt):
        raise ValueError(f"{path} is a row of another run ({kept.get('agent')}, {kept.get('benchmark')}): "
                         f"give another --out")
    return kept["row"]


def _keep_row(rows_dir: Path | None, agent: str, bset: BenchmarkSet, dealt: str, row: dict[str, Any]) -> None:
    if rows_dir is None:
        return
    rows_dir.mkdir(parents=True, exist_ok=True)
    path = _row_path(rows_dir, row["entry"], row["reference"])
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"agent": agent, "benchmark": bset.version, "deal_hash": dealt, "row": row}),
                   encoding="utf-8")
    tmp.replace(path)


def score(rows: list[dict[str, Any]]) -> float:
    """One number a card: the mean over its rows of (agent - reference) a deal, in each game's reward scale
    (``GameSpec.reward_scale``), so that the games weigh alike."""
    return sum(r["diff"] * r["scale"] for r in rows) / len(rows) if rows else float("nan")


def machine() -> dict[str, Any]:
    return {"system": platform.system(), "machine": platform.machine(), "processor": platform.processor(),
            "cpus": os.cpu_count(), "python": platform.python_version()}


def bundled_cards(version: str) -> dict[str, dict[str, Any]]:
    """The cards shipped with the package for ``version``: ``{agent: card}``."""
    folder = resources.files("trickenv.benchmark") / version / "cards"
    out = {}
    for item in sorted(folder.iterdir(), key=lambda p: p.name) if folder.is_dir() else []:
        if item.name.endswith(".json"):
            card = json.loads(item.read_text(encoding="utf-8"))
            out[card["agent"]] = card
    return out


def _row_scores(card: dict[str, Any]) -> dict[tuple[str, str], float]:
    return {(r["entry"], r["reference"]): r["diff"] * r["scale"] for r in card["rows"]}


def place(card: dict[str, Any], others: dict[str, dict[str, Any]]) -> int:
    """1 + how many of ``others`` score higher than ``card`` on the rows (game variant, reference) both have."""
    mine = _row_scores(card)
    better = 0
    for name, other in others.items():
        theirs = _row_scores(other)
        common = mine.keys() & theirs.keys()
        if name == card["agent"] or not common:
            continue
        better += sum(theirs[k] for k in common) > sum(mine[k] for k in common)
    return 1 + better


def slug(agent: str) -> str:
    """A file name for an agent name (``sb3:runs/a.zip`` -> ``sb3_runs_a.zip``)."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", agent).strip("_") or "agent"


def card_markdown(card: dict[str, Any], others: dict[str, dict[str, Any]] | None = None) -> str:
    """The card as Markdown: one row a game variant and reference."""
    lines = [f"# {card['agent']}: trickenv benchmark {card['benchmark']}", ""]
    if others is not None:
        lines += [f"Score {card['score']:+.4f} (the mean of agent − reference in reward units); place "
                  f"{place(card, others)} among {1 + len([c for n, c in others.items() if n != card['agent']])} "
                  f"with the bundled agents.", ""]
    lines += ["| game | reference | deals | agent − reference | 95% CI | agent ms | reference ms |",
              "|---|---|---:|---:|---|---:|---:|"]
    for r in card["rows"]:
        lo, hi = r["ci95"]
        lines.append(f"| {r['entry']} | {r['reference']} | {r['deals']} | {r['diff']:+.3f} | [{lo:.3f}, {hi:.3f}] | "
                     f"{r['ms']['agent']:.2f} | {r['ms']['reference']:.2f} |")
    m = card["machine"]
    per_game = ", ".join(f"{g} {s:.0f} s" for g, s in game_seconds(card).items())
    scaled = [f"{r['entry']} − {r['reference']} ({r['timed_deals']} of {r['deals']} deals)"
              for r in card["rows"] if "timed_deals" in r]
    lines += ["", f"Play time a game (all its rows): {per_game}."
              + (f" Rows whose time is the rate of their timed deals (chunks kept by an older trickenv carry no "
                 f"time): {'; '.join(scaled)}." if scaled else ""), "",
              f"trickenv {card['trickenv']}, {card['date']}, {m['system']} {m['machine']}, {m['cpus']} CPUs, "
              f"Python {m['python']}; {card['seconds']:.0f} s in the last call; deal set sha256 "
              f"{card['deal_hash'][:16]}."]
    return "\n".join(lines) + "\n"


def game_seconds(card: dict[str, Any]) -> dict[str, float]:
    """Seconds of play a game (the sum of its rows, both agents and the engine; compiling aside)."""
    out: dict[str, float] = {}
    for r in card["rows"]:
        out[r["game"]] = out.get(r["game"], 0.0) + r["seconds"]
    return out


def write_card(card: dict[str, Any], out: Path, others: dict[str, dict[str, Any]] | None = None) -> tuple[Path, Path]:
    """``out/<agent>.json`` and ``out/<agent>.md``."""
    out.mkdir(parents=True, exist_ok=True)
    name = slug(card["agent"])
    js, md = out / f"{name}.json", out / f"{name}.md"
    js.write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    md.write_text(card_markdown(card, others), encoding="utf-8")
    return js, md


def leaderboard_markdown(version: str) -> str:
    """The results page of ``version``: the bundled agents' cards side by side (docs/results/leaderboard.md)."""
    cards = bundled_cards(version)
    lines = [f"# Leaderboard: benchmark {version}", "",
             "The bundled agents' cards, as `trickenv benchmark AGENT` writes them ([the benchmark]"
             "(../guides/benchmark.md)); the page is generated from the cards in the package "
             "(`python -m trickenv.benchmark leaderboard`).", ""]
    if not cards:
        return "\n".join(lines + [f"No card of {version} ships yet.", ""])
    ranked = sorted(cards.values(), key=lambda c: place(c, cards))
    lines += ["| place | agent | score | games |", "|---:|---|---:|---|"]
    for c in ranked:
        lines.append(f"| {place(c, cards)} | `{c['agent']}` | {c['score']:+.4f} | "
                     f"{', '.join(c['games'])}{' (skipped: ' + ', '.join(c['skipped']) + ')' if c.get('skipped') else ''} |")
    lines += ["", "The score is the mean, over a card's rows, of the agent's mean deal score minus the reference's, "
              "in each game's reward units; places compare two cards on the rows both have.", ""]
    entries = list(dict.fromkeys(r["entry"] for c in ranked for r in c["rows"]))
    references = list(dict.fromkeys(r["reference"] for c in ranked for r in c["rows"]))
    for entry in entries:
        lines += [f"## {entry}", "", "| agent | " + " | ".join(f"− {ref}" for ref in references) + " | ms a decision |",
                  "|---|" + "---:|" * (len(references) + 1)]
        for c in ranked:
            rows = {r["reference"]: r for r in c["rows"] if r["entry"] == entry}
            if not rows:
                continue
            cells = [f"{rows[ref]['diff']:+.3f} [{rows[ref]['ci95'][0]:.3f}, {rows[ref]['ci95'][1]:.3f}]"
                     if ref in rows else "" for ref in references]
            ms = sum(r["ms"]["agent"] for r in rows.values()) / len(rows)
            lines.append(f"| `{c['agent']}` | " + " | ".join(cells) + f" | {ms:.2f} |")
        lines.append("")
    games = list(dict.fromkeys(r["game"] for c in ranked for r in c["rows"]))
    lines += ["## Time a game", "", "Seconds of play for a game's rows of the card (all its variants and references; "
              "most of it is the searching references' time).", "",
              "| agent | " + " | ".join(games) + " |", "|---|" + "---:|" * len(games)]
    for c in ranked:
        secs = game_seconds(c)
        lines.append(f"| `{c['agent']}` | " + " | ".join(f"{secs[g]:.0f}" if g in secs else "" for g in games) + " |")
    lines.append("")
    machines = {f"{c['machine']['system']} {c['machine']['machine']}, {c['machine']['cpus']} CPUs" for c in ranked}
    lines += [f"Played on {', '.join(sorted(machines))}; trickenv {', '.join(sorted({c['trickenv'] for c in ranked}))}.",
              ""]
    return "\n".join(lines)
