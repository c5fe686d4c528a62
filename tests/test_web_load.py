"""benchmarks/load_web.py: 50 sessions at once play whole deals with hints through ``trickenv serve`` on
127.0.0.1; every session finishes, no 5xx, nothing in the server's log, and its memory stays level from round
to round (each round's sessions expire before the next)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra")
ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("load_web", ROOT / "benchmarks" / "load_web.py")
load_web = importlib.util.module_from_spec(spec)
sys.modules["load_web"] = load_web  # its dataclasses look their module up
spec.loader.exec_module(load_web)


def test_fifty_sessions_at_once_all_finish_without_errors_and_memory_stays_level():
    result = load_web.run(sessions=50, deals=1, game="koenigrufen", rounds=3, hint_every=3)
    rounds = [r for r in result["rounds"] if not r["warmup"]]
    for r in rounds:
        assert r["sessions"] == r["finished"] == 50 and r["errors"] == 0, r["first_errors"]
        assert r["moves"] >= 50 * 8 and r["hints"] >= 50  # every seat's 8 cards, a hint every third
    assert result["server_tracebacks"] == 0
    level = rounds[0]["rss_mb"]
    assert rounds[-1]["rss_mb"] <= 1.15 * level, [r["rss_mb"] for r in rounds]
    assert "| 1 | 50 | 50 |" in load_web.table(result)
