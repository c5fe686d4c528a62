"""benchmarks/bench_peers.py: one real measurement of trickenv and every peer on a tiny budget, and its docs table."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_peers", ROOT / "benchmarks" / "bench_peers.py")
bench = importlib.util.module_from_spec(spec)
sys.modules["bench_peers"] = bench  # its dataclass looks its module up there
spec.loader.exec_module(bench)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    pytest.importorskip("pyspiel", reason="the bench extra (pip install -e '.[bench]'); dev installs it")
    return bench.main(["--seconds", "0.02", "--repeats", "1", "--batch", "64",
                       "--json", str(tmp_path_factory.mktemp("peers") / "peers.json")])


def test_every_row_is_measured(result):
    assert [r["label"] for r in result["trickenv"]] == [label for label, _, _ in bench.TRICKENV]
    assert all(r["batched"] > 0 and r["aec"] > 0 for r in result["trickenv"])
    libraries = {r["library"] for r in result["peers"]}
    assert libraries == {"OpenSpiel", "RLCard", "PettingZoo"}
    missing = [(r["library"], r["game"], r["why"]) for r in result["peers"] if r["rate"] is None]
    assert not missing, missing  # dev installs the bench extra: every peer runs
    games = {r["game"].split(" ")[0] for r in result["peers"] if r["library"] == "OpenSpiel"}
    assert {"oh_hell", "hearts", "skat"} <= games


def test_the_table_gives_a_ratio_for_every_peer(result):
    text = bench.table(result)
    rows = [line for line in text.splitlines() if line.startswith("| OpenSpiel") or line.startswith("| RLCard")
            or line.startswith("| PettingZoo")]
    assert len(rows) == len(result["peers"])
    for line in rows:
        ratios = re.findall(r"\| ([0-9.]+)x ", line + " ")
        assert len(ratios) == 2 and all(float(x) > 0 for x in ratios), line
    assert result["machine"] in text
    # oh_hell is compared with its Four Tricks shape, the other peers with trickenv's slowest game
    oh_hell_52 = next(r for r in result["peers"] if "52 cards" in r["game"])
    assert bench.compared_with(result, oh_hell_52)["options"] == {"deck": 52, "bidding": True}
    slowest = min((r for r in result["trickenv"] if r["label"] in bench.DEFAULT_GAMES), key=lambda r: r["batched"])
    hearts = next(r for r in result["peers"] if r["game"] == "hearts")
    assert bench.compared_with(result, hearts) is slowest


def test_the_policy_is_subtracted(monkeypatch):
    """The policy's CPU time is taken out of the loop's, and only it: on a clock that only the policy and the
    loop's own work advance (a real clock would make this a timing test, which a loaded machine breaks)."""
    import types

    now = [0.0]
    monkeypatch.setattr(bench, "time", types.SimpleNamespace(process_time=lambda: now[0]))

    class Ticking(bench.Policy):
        def __call__(self, x):
            now[0] += 1e-3  # every policy call costs a millisecond
            return super().__call__(x)

    legal = [1, 2, 3]
    for work in (0.0, 0.05):  # the loop's own CPU time a game, besides its 200 policy calls
        policy = Ticking(list)

        def play_one(p, work=work):
            for _ in range(200):
                p(legal)
            now[0] += work
            return 200

        cpu, decisions = bench.timed_games(play_one, policy, 0.5)
        games = decisions // 200
        assert decisions >= 200 and decisions % 200 == 0
        assert cpu == pytest.approx(games * work, abs=1e-9), (cpu, games, work)


def test_write_docs_rewrites_only_its_block(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text(f"# Performance\n\nbefore\n{bench.BEGIN}\nold table\n{bench.END}\nafter\n", encoding="utf-8")
    bench.write_docs("| new | table |", doc)
    assert doc.read_text(encoding="utf-8") == (f"# Performance\n\nbefore\n{bench.BEGIN}\n| new | table |\n"
                                               f"{bench.END}\nafter\n")
    doc.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bench_peers"):
        bench.write_docs("x", doc)
    assert bench.BEGIN in (ROOT / "docs" / "results" / "speed.md").read_text(encoding="utf-8")


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--seconds", "0"])
    assert "--seconds must be > 0" in capsys.readouterr().err
