"""What an evaluation reports: :class:`Results` and its three forms, plus the tournament's table.

- ``Results.to_dict()``: the JSON document with stable keys (docs/guides/evaluation.md),
  written by ``save_json``; NumPy numbers become Python numbers and NaN ``null``.
- ``Results.csv_rows()`` / ``save_csv``: the same numbers in long form, one row
  per (section, agent, other, metric).
- ``Results.table()`` / :func:`format_table`: the same numbers as a text table.
- :func:`tournament_table`: one text table over the games of a tournament, each
  agent's mean and its difference to the rule-based agent.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from trickenv.agents.tables import Table

__all__ = ["Results", "format_table", "tournament_table"]


def _clean(x: Any) -> Any:
    """JSON-safe copy: NumPy scalars to Python numbers, NaN to None, tuples to lists."""
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return _clean(x.tolist())
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if isinstance(x, (np.integer, int)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(x) else float(x)
    return x


@dataclass
class Results:
    """The outcome of :func:`.evaluation.evaluate`: ``to_dict()`` (the JSON), ``save_json``, ``save_csv``,
    ``table()``.

    ``per_deal [D, agents]`` holds each agent's deal means and ``table_data`` the raw
    score :class:`Table` (with ``deal_ids``), for further analysis.
    """

    game: str
    options: dict[str, Any]
    resolved_options: dict[str, Any]
    names: list[str]
    seatings: list[tuple[int, ...]]
    seating_design: str
    deals: int
    deals_requested: int
    seed: int
    chunk: int
    interrupted: bool
    timing: dict[str, Any]
    summary: dict[str, Any]
    table_data: Table | None = None

    @property
    def per_deal(self) -> np.ndarray:
        """Each agent's mean score per deal, ``[deals, agents]``."""
        return self.summary["per_deal"]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (stable keys; see docs/guides/evaluation.md)."""
        return _clean({
            "game": self.game,
            "options": self.options,
            "resolved_options": self.resolved_options,
            "deals": self.deals,
            "deals_requested": self.deals_requested,
            "seed": self.seed,
            "chunk": self.chunk,
            "interrupted": self.interrupted,
            "seating_design": self.seating_design,
            "seatings": [[self.names[a] for a in s] for s in self.seatings],
            "agents": self.summary["agents"],
            "pairs": self.summary["pairs"],
            "ratings": self.summary.get("ratings"),
            "timing": self.timing,
        })

    def save_json(self, path: str) -> None:
        """Write :meth:`to_dict` as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_dict(), f, indent=2)
            f.write("\n")

    def save_records(self, path: str) -> None:
        """Write every deal's record in every seating as a records file (docs/records.md, trickenv.replay):
        the replay of ``trickenv serve`` opens it. Needs a run with ``evaluate(records=True)``."""
        from trickenv.replay import records_document

        rec = None if self.table_data is None else self.table_data.records
        if rec is None:
            raise ValueError("this run kept no records: evaluate(..., records=True) (trickenv eval --records FILE)")
        s = len(self.seatings)
        seats, labels = [], []
        for row in range(len(rec["dealer"])):
            deal, seating = int(self.table_data.deal_ids[row // s]), row % s
            seats.append([self.names[a] for a in self.seatings[seating]])
            labels.append(f"deal {deal} (seed {self.seed}), seating {seating + 1}: " + ", ".join(seats[-1]))
        doc = records_document(self.game, self.options, rec, seats, labels)
        doc.update(agents=list(self.names), seed=self.seed)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
            f.write("\n")

    def csv_rows(self) -> list[dict[str, Any]]:
        """The numbers in long form: ``section, agent, other, metric, value, ci95_lo, ci95_hi, n``."""
        d = self.to_dict()
        rows: list[dict[str, Any]] = []

        def row(section, agent, metric, value, lo=None, hi=None, n=None, other=""):
            rows.append({"section": section, "agent": agent, "other": other, "metric": metric, "value": value,
                         "ci95_lo": lo, "ci95_hi": hi, "n": n})

        for name, a in d["agents"].items():
            row("agent", name, "mean", a["mean"], *a["ci95"], n=a["deals"])
            for p, v in enumerate(a["by_position"]):
                row("agent", name, f"mean_at_position_{p}", v)
            for metric, v in a["rates"].items():
                row("agent", name, metric, v, n=a["rate_counts"][metric])
        for p in d["pairs"]:
            row("pair", p["a"], "diff", p["diff"], *p["ci95"], n=p["deals"], other=p["b"])
        if d["ratings"]:
            for name, r in d["ratings"]["agents"].items():
                for metric in ("mu", "sigma", "ordinal"):
                    row("rating", name, metric, r[metric], n=d["ratings"]["matches"])
        return rows

    def save_csv(self, path: str) -> None:
        """Write :meth:`csv_rows` as CSV (empty cells for missing values)."""
        rows = self.csv_rows()
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["section"])
            w.writeheader()
            w.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)

    def table(self) -> str:
        """The same numbers as the JSON, as text."""
        return format_table(self.to_dict())

    def __str__(self) -> str:
        return self.table()


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(ci: list) -> str:
    return "-" if ci[0] is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _columns(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                              for i, (c, w) in enumerate(zip(r, widths, strict=True)))
    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def format_table(d: dict[str, Any]) -> str:
    """Text table of a results dict (:meth:`Results.to_dict`)."""
    t = d["timing"]
    opts = ", ".join(f"{k}={v!r}" for k, v in d["options"].items()) or "defaults"
    lines = [
        f"{d['game']} ({opts}): {d['deals']} deals x {len(d['seatings'])} seatings, seed {d['seed']}, "
        f"{t['seconds']:.1f} s ({t['deals_per_second']:.1f} deals/s)"
        + (f"  INTERRUPTED after {d['deals']} of {d['deals_requested']} deals" if d["interrupted"] else ""),
        "",
    ]
    names = list(d["agents"])
    rate_names = list(next(iter(d["agents"].values()))["rates"]) if names else []
    header = ["agent", "mean", "95% CI", "sd/deal", *[f"pos{p}" for p in range(len(d["seatings"][0]))]]
    if d["ratings"]:
        header += ["mu", "sigma", "ordinal"]
    rows = []
    for name in names:
        a = d["agents"][name]
        r = [name, _num(a["mean"]), _ci(a["ci95"]), _num(a["sd"]), *[_num(x, 2) for x in a["by_position"]]]
        if d["ratings"]:
            rr = d["ratings"]["agents"][name]
            r += [_num(rr["mu"], 2), _num(rr["sigma"], 2), _num(rr["ordinal"], 2)]
        rows.append(r)
    lines += _columns(header, rows)
    lines.append("(pos0 = dealer, pos1 = left of the dealer, ...: mean score by position)")
    width = max(map(len, names)) if names else 5
    groups: list[list[str]] = []
    for m in rate_names:  # rate columns in groups, each table at most about 100 characters wide
        if not groups or width + sum(len(x) + 2 for x in groups[-1]) + len(m) + 2 > 100:
            groups.append([])
        groups[-1].append(m)
    for group in groups:
        lines.append("")
        lines += _columns(["agent", *group], [[n, *[_num(d["agents"][n]["rates"][m]) for m in group]] for n in names])
    if d["pairs"]:
        lines.append("")
        lines += _columns(["pair (a - b)", "diff", "95% CI (paired over deals)"],
                          [[f"{p['a']} - {p['b']}", _num(p["diff"]), _ci(p["ci95"])] for p in d["pairs"]])
    lines.append("")
    lines.append("time: " + ", ".join(f"{n} {s:.2f} s" for n, s in t["agent_seconds"].items())
                 + f", env {t['env_seconds']:.2f} s, ratings {t['ratings_seconds']:.2f} s")
    return "\n".join(lines)


def tournament_table(results: dict[str, Results]) -> str:
    """One table over the games: each agent's mean deal score with its 95% CI, and its difference to ``rules``."""
    header = ["game", "agent", "mean", "95% CI", "vs rules", "95% CI (paired)", "deals"]
    rows = []
    for game, res in results.items():
        d = res.to_dict()
        pairs = {(p["a"], p["b"]): p for p in d["pairs"]}
        for name, a in d["agents"].items():
            vs = ["", ""]
            if name != "rules" and (name, "rules") in pairs:
                p = pairs[(name, "rules")]
                vs = [_num(p["diff"]), _ci(p["ci95"])]
            elif name != "rules" and ("rules", name) in pairs:
                p = pairs[("rules", name)]
                vs = [_num(-p["diff"]), _ci([-p["ci95"][1], -p["ci95"][0]])]
            rows.append([game, name, _num(a["mean"]), _ci(a["ci95"]), *vs, str(a["deals"])])
    return "\n".join(_columns(header, rows))
