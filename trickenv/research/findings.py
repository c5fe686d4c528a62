"""Findings as data: one finding per question (:func:`finding`), a notebook's findings adjusted together and
written to ``notebooks/findings/<notebook>.json`` (:func:`save_findings`), read back (:func:`load_findings`)
and turned into ``docs/results/findings.md`` (:func:`findings_markdown`; ``python -m trickenv.research findings``
writes it, and a test checks that it is current)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trickenv.research.repo import repo_root
from trickenv.research.stats import adjust_p, p_from_ci
from trickenv.research.tables import p_text


FINDING_KEYS = ("question", "game", "variant", "base", "deals", "estimate", "ci95", "p", "p_adjusted", "verdict")


def finding(question: str, game: str, variant: str, base: str, deals: int, m: float, lo: float, hi: float,
            **extra: Any) -> dict[str, Any]:
    """One finding: a paired estimate with its 95% CI over ``deals`` deals and its p (adjusted by save_findings)."""
    return {"question": question, "game": game, "variant": variant, "base": base, "deals": int(deals),
            "estimate": float(m), "ci95": [float(lo), float(hi)], "p": p_from_ci(m, lo, hi, int(deals)), **extra}


def save_findings(notebook: str, findings: list[dict[str, Any]], method: str = "bh",
                  folder: Path | None = None) -> Path:
    """Adjust the findings' p-values together, give each its verdict and write ``<folder>/<notebook>.json``.

    Verdict: ``holds`` (adjusted p < 0.05, estimate above 0), ``fails`` (adjusted p < 0.05, below 0), else
    ``not shown``."""
    folder = repo_root() / "notebooks" / "findings" if folder is None else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    adjusted = adjust_p([f["p"] for f in findings], method)
    out = []
    for f, q in zip(findings, adjusted, strict=True):
        word = "not shown" if q >= 0.05 else ("holds" if f["estimate"] > 0 else "fails")
        out.append({**f, "p_adjusted": float(q), "adjustment": method, "verdict": word})
    path = folder / f"{notebook}.json"
    path.write_text(json.dumps({"notebook": notebook, "findings": out}, indent=1) + "\n", encoding="utf-8")
    return path


def load_findings(folder: Path | None = None) -> list[dict[str, Any]]:
    """Every finding of ``notebooks/findings/*.json``, each with its ``notebook``, in file order."""
    folder = repo_root() / "notebooks" / "findings" if folder is None else Path(folder)
    out = []
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        out += [{"notebook": doc["notebook"], **f} for f in doc["findings"]]
    return out


def findings_markdown(folder: Path | None = None) -> str:
    """``docs/results/findings.md``: one table row per finding, generated (``python -m trickenv.research findings``)."""
    rows = load_findings(folder)
    lines = ["# Findings", "",
             "Generated from `notebooks/findings/*.json` by `python -m trickenv.research findings`; do not edit.",
             "Each row is a paired estimate over duplicate deals (the deal is the unit) with its 95% CI; p is",
             "two-sided, adjusted within its notebook (`adjustment`: Benjamini-Hochberg `bh` or Holm). Verdict:",
             "*holds* or *fails* when the adjusted p is below 0.05, else *not shown*. `base` names the players the",
             "effect is measured against: a verdict holds for that base only.", "",
             "| notebook | question | game | variant | base | deals | estimate [95% CI] | p | adjusted p | verdict |",
             "|---|---|---|---|---|---:|---|---:|---:|---|"]
    for f in rows:
        lo, hi = f["ci95"]
        lines.append(f"| {f['notebook']} | {f['question']} | {f['game']} | {f['variant']} | {f['base']} | "
                     f"{f['deals']:,} | {f['estimate']:.3g} [{lo:.3g}, {hi:.3g}] | {p_text(f['p'])} | "
                     f"{p_text(f['p_adjusted'])} | {f['verdict']} |")
    if not rows:
        lines.append("| (none yet) | | | | | | | | | |")
    return "\n".join(lines) + "\n"
