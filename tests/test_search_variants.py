"""notebooks/experiments/search_variants.py: one real measurement, the resumed run and its table."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("search_variants", ROOT / "notebooks" / "experiments" / "search_variants.py")
search_variants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(search_variants)


def test_a_measurement_is_the_duplicate_evaluation_of_search_against_the_opponent():
    row = search_variants.measure("koenigrufen", {"partner_from": "full_hand"}, "rules", 2, 5, 1.0)
    assert row["deals"] == 2 and row["seed"] == 5
    lo, hi = row["ci95"]
    assert lo <= row["diff"] <= hi


def test_a_run_appends_each_measurement_and_a_second_run_resumes(tmp_path, monkeypatch, capsys):
    calls = []

    def fake(game, options, what, deals, seed, seconds):
        calls.append((game, what, deals))
        if what == "ms":
            return {"ms_search": 4.0, "ms_pimc": 0.25}
        return {"diff": 0.1, "ci95": [0.0, 0.2], "deals": deals, "seed": seed, "seconds": 1.0}

    monkeypatch.setattr(search_variants, "measure", fake)
    out = tmp_path / "rows.jsonl"
    argv = ["search_variants.py", "--out", str(out), "--games", "koenigrufen", "--deals", "3"]
    monkeypatch.setattr(sys, "argv", argv)
    search_variants.main()
    # Two King Calling variants x (pimc, rules, ms); King Calling plays twice the deals.
    assert sorted(calls) == sorted((g, w, 6) for g in ["koenigrufen"] * 2 for w in ("pimc", "rules", "ms"))
    assert len(out.read_text().splitlines()) == 6
    calls.clear()
    search_variants.main()  # everything is there: nothing measured again
    assert calls == []
    monkeypatch.setattr(sys, "argv", argv[:-1] + ["4"])
    capsys.readouterr()
    search_variants.main()  # other deals: the evaluations again, not the timing
    assert sorted(w for _, w, _ in calls) == ["pimc", "pimc", "rules", "rules"]
    table = capsys.readouterr().out.splitlines()
    rows = [line for line in table if line.startswith("| koenigrufen")]
    assert len(rows) == 2 and all("+0.100 [0.000, 0.200]" in r and "| 8 |" in r and "4.0 / 0.2" in r for r in rows)
    assert all(json.loads(line)["key"].startswith("koenigrufen |") for line in out.read_text().splitlines())
