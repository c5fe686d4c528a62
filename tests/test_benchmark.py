"""The frozen benchmark (trickenv.benchmark, ``trickenv benchmark``): v1 guarded, a card played on a small set,
its files, its place among other cards, a stopped card continuing, and the command's one-line errors."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from trickenv.benchmark import card as card_module
from trickenv.benchmark import sets
from trickenv.benchmark.sets import V1, BenchmarkSet, Entry
from trickenv.cli import main

V1_DEALS = "5df83dfb165b5d7351261089d3caf2eeeb1d8e1f38b10b5dd3007b4a3604d0a1"
# card.reference_play of every reference on every variant it fits (the deal records of its first deal against
# rules): what the references of v1 play. Both King Calling entries deal the same cards, and the partner's
# source changes nothing in that deal for rules and search.
V1_REFERENCES = {
    ("four_tricks", "rules"): "275ce3086c347b59", ("four_tricks", "model"): "208bad78a8dfdfed",
    ("four_tricks", "pimc"): "22cdb3acc7af5661", ("four_tricks", "search"): "bddb8b30d96fc7d6",
    ("four_tricks bidding=True", "rules"): "34476cfeda10924a", ("four_tricks bidding=True", "pimc"): "6d8117b7063c3bbd",
    ("four_tricks bidding=True", "search"): "5501399d81e2f4f3",
    ("farbwechsel", "rules"): "66c438b7f16a532a", ("farbwechsel", "model"): "c105841a1af4bb51",
    ("farbwechsel", "pimc"): "161531e94ce2c8cc", ("farbwechsel", "search"): "d6ef7e2d5d55a838",
    ("farbwechsel num_players=4 partnership=True", "rules"): "7d68131a04d7e85a",
    ("farbwechsel num_players=4 partnership=True", "pimc"): "f1c4eba571dde167",
    ("farbwechsel num_players=4 partnership=True", "search"): "e37c2e3a59958245",
    ("koenigrufen", "rules"): "e25091025dfab827", ("koenigrufen", "model"): "0c213dad823d72df",
    ("koenigrufen", "pimc"): "d77a77bd47c7340c", ("koenigrufen", "search"): "30ca051d11229805",
    ("koenigrufen partner_from=full_hand", "rules"): "e25091025dfab827",
    ("koenigrufen partner_from=full_hand", "pimc"): "3d09a44edacbdc61",
    ("koenigrufen partner_from=full_hand", "search"): "30ca051d11229805",
}


def test_v1_is_frozen():
    """Its deals (the file shipped in the package), references, deal counts and seed. A change here is a new
    version, with new cards."""
    assert sets.deal_hash(V1) == V1_DEALS
    assert V1.references == (("rules", 500), ("model", 500), ("pimc", 200), ("search", 50))
    assert [e.key for e in V1.entries] == [
        "four_tricks", "four_tricks bidding=True", "farbwechsel", "farbwechsel num_players=4 partnership=True",
        "koenigrufen", "koenigrufen partner_from=full_hand"]
    assert V1.seed == 20261206 and V1.deals == 500 and V1.chunk == 25
    # search bids by the learned values since; v1's search reference keeps its own bids
    assert V1.played == (("search", "search:decisions=own"),) and V1.agent("search") == "search:decisions=own"
    deals, dealers = sets.load_deals(V1, V1.entries[1])
    assert deals.shape == (500, 3, 16) and dealers.shape == (500,)
    for e in V1.entries:  # each deal deals every card once (the undealt rest aside)
        deals, _ = sets.load_deals(V1, e)
        assert all(len(set(d.ravel())) == d.size for d in deals[:50])


def test_v1_references_play_as_frozen():
    """A reference that plays otherwise (retuned, a new model file, an engine change) fails here: that is a new
    version with new cards, not v1."""
    got = {(e.key, ref): card_module.reference_play(V1, e, ref)
           for e in V1.entries for ref, _ in V1.references if card_module._fits(ref, e)}
    assert got == V1_REFERENCES


def test_benchmark_rules_reproduces_the_shipped_rules_card(tmp_path):
    """``trickenv benchmark rules`` gives the shipped card's numbers exactly (King Calling, its two variants and
    four references: the cheapest game to replay)."""
    main(["benchmark", "rules", "--games", "koenigrufen", "--out", str(tmp_path), "--no-progress"])
    played = json.loads((tmp_path / "rules.json").read_text())
    shipped = card_module.bundled_cards("v1")["rules"]

    def numbers(rows):
        return [(r["entry"], r["reference"], r["deals"], r["diff"], r["ci95"]) for r in rows
                if r["game"] == "koenigrufen"]

    assert len(numbers(shipped["rows"])) == 7 and numbers(played["rows"]) == numbers(shipped["rows"])


@pytest.fixture()
def small(tmp_path, monkeypatch):
    """A tiny version ``t`` (two games, two references, a few deals) with its deal file in tmp_path."""
    bset = BenchmarkSet("t", (Entry("koenigrufen"), Entry("four_tricks", (("bidding", True),))),
                        (("rules", 3), ("random", 2)), seed=5)
    path = tmp_path / "t" / "deals.npz"
    sets.make_deal_file(bset, path)
    monkeypatch.setattr(sets, "deal_path", lambda version: path)
    monkeypatch.setitem(sets.BENCHMARKS, "t", bset)
    return bset


def test_a_card_on_a_small_set(small, tmp_path):
    card = card_module.run_benchmark("random", small, progress=False)
    assert card["benchmark"] == "t" and card["agent"] == "random" and card["games"] == ["koenigrufen", "four_tricks"]
    assert [(r["entry"], r["reference"], r["deals"]) for r in card["rows"]] == [
        ("koenigrufen", "rules", 3), ("koenigrufen", "random", 2),
        ("four_tricks bidding=True", "rules", 3), ("four_tricks bidding=True", "random", 2)]
    for r in card["rows"]:
        assert np.isfinite(r["diff"]) and len(r["ci95"]) == 2 and r["ms"]["agent"] >= 0
    assert card["score"] == pytest.approx(np.mean([r["diff"] * r["scale"] for r in card["rows"]]))
    again = card_module.run_benchmark("random", small, progress=False)
    assert [r["diff"] for r in again["rows"]] == [r["diff"] for r in card["rows"]]  # the same games again
    def shifted(name, by, rows=None):
        return dict(card, agent=name, rows=[dict(r, diff=r["diff"] + by) for r in (rows or card["rows"])])

    better, worse = shifted("better", 1.0), shifted("worse", -1.0)
    assert card_module.place(card, {"better": better, "worse": worse}) == 2
    # compared on the rows both have: a card of one game only ranks by that game
    one_game = shifted("kc-only", 0.5, [r for r in card["rows"] if r["game"] == "koenigrufen"])
    assert card_module.place(card, {"kc-only": one_game}) == 2
    js, md = card_module.write_card(card, tmp_path / "out", {"better": better})
    assert json.loads(js.read_text())["rows"] == card["rows"]
    text = md.read_text()
    assert "| koenigrufen | rules | 3 |" in text and "place 2 among 2" in text


def test_a_stopped_card_continues_from_its_rows(small, tmp_path, monkeypatch):
    rows = tmp_path / "rows"
    first = card_module.run_benchmark("random", small, games=["koenigrufen"], progress=False, rows_dir=rows)
    assert len(list(rows.glob("*.json"))) == 2
    played = []
    from trickenv.agents import evaluation

    real = evaluation.evaluate
    monkeypatch.setattr(evaluation, "evaluate", lambda *a, **k: played.append(a) or real(*a, **k))
    second = card_module.run_benchmark("random", small, games=["koenigrufen"], progress=False, rows_dir=rows)
    assert played == [] and second["rows"] == first["rows"]
    with pytest.raises(ValueError, match="a row of another run"):
        card_module.run_benchmark("rules", small, games=["koenigrufen"], progress=False, rows_dir=rows)
    assert len(list(rows.glob("*.chunks/chunk_*.npz"))) == 2  # within a row too: its chunks (a journal each)


def test_a_row_played_over_several_calls_adds_their_times(small, tmp_path):
    """A row's time is its chunks' time, whichever call played them; a chunk kept without a clock (an older
    trickenv's) leaves the row's time as the rate of the timed deals, and the card says which rows."""
    bset = dataclasses.replace(small, chunk=2)  # rules: 3 deals in 2 chunks; random: 2 deals in 1
    rows = tmp_path / "rows"
    run = dict(games=["koenigrufen"], progress=False, rows_dir=rows)
    first = card_module.run_benchmark("random", bset, **run)
    assert len(list(rows.glob("*.chunks/chunk_*.clock.json"))) == 3
    assert all(r["seconds"] > 0 and "timed_deals" not in r for r in first["rows"])

    def again() -> dict:
        for row in rows.glob("*.json"):
            row.unlink()  # every row again, from the chunks kept
        return card_module.run_benchmark("random", bset, **run)

    kept = again()  # nothing played: the time is the chunks'
    assert [(r["seconds"], r["ms"]) for r in kept["rows"]] == [(r["seconds"], r["ms"]) for r in first["rows"]]
    for clock in rows.glob("*.chunks/chunk_*.clock.json"):
        clock.unlink()
    (rows / "koenigrufen__rules.chunks" / "chunk_00000.npz").unlink()  # played again, timed; chunk 1 is not
    mixed = again()
    assert [r["diff"] for r in mixed["rows"]] == [r["diff"] for r in first["rows"]]
    rules = next(r for r in mixed["rows"] if r["reference"] == "rules")
    assert rules["timed_deals"] == 2 and rules["seconds"] > 0
    assert "koenigrufen − rules (2 of 3 deals)" in card_module.card_markdown(mixed)


def test_a_journal_keeps_a_run_of_given_deals_by_their_hash(tmp_path):
    from trickenv.agents.evaluation import evaluate, resume_evaluation
    from trickenv.agents.journal import JournalError
    from trickenv.agents.seatings import make_deals

    spec = Entry("koenigrufen").spec
    deals, dealers = make_deals(spec, 3, 0, 6)
    run = dict(deals=6, seed=1, chunk=2, progress=False, ratings=False)
    whole = evaluate("koenigrufen", ["rules", "random"], given_deals=(deals, dealers), **run)
    path = tmp_path / "j"
    evaluate("koenigrufen", ["rules", "random"], given_deals=(deals[:4], dealers[:4]), **{**run, "deals": 4},
             journal=tmp_path / "other")
    again = evaluate("koenigrufen", ["rules", "random"], given_deals=(deals, dealers), journal=path, **run)
    assert len(list(path.glob("chunk_*.npz"))) == 3
    (path / "chunk_00001.npz").unlink()  # a run cut short: the same call plays the missing chunk only
    resumed = evaluate("koenigrufen", ["rules", "random"], given_deals=(deals, dealers), journal=path, **run)
    assert resumed.to_dict()["pairs"] == again.to_dict()["pairs"] == whole.to_dict()["pairs"]
    other = deals.copy()
    other[[0, 1]] = other[[1, 0]]
    with pytest.raises(JournalError, match="given_deals"):
        evaluate("koenigrufen", ["rules", "random"], given_deals=(other, dealers), journal=path, **run)
    with pytest.raises(JournalError, match="a run of given deals"):
        resume_evaluation(path)


def test_an_agent_that_fits_some_variants_plays_those(small):
    card = card_module.run_benchmark("model", small, progress=False)  # the shipped player: default variants only
    assert card["skipped"] == ["four_tricks bidding=True"] and {r["entry"] for r in card["rows"]} == {"koenigrufen"}
    with pytest.raises(ValueError, match="plays none of the variants"):
        card_module.run_benchmark("model", small, games=["four_tricks"], progress=False)


def test_the_command_writes_the_card_and_refuses_bad_input_in_one_line(small, tmp_path, capsys):
    main(["benchmark", "random", "--version", "t", "--games", "koenigrufen", "--out", str(tmp_path / "c"),
          "--no-progress"])
    out = capsys.readouterr().out
    assert "| koenigrufen | rules | 3 |" in out and (tmp_path / "c" / "random.json").is_file()
    for argv, message in [
        (["benchmark", "random", "--version", "v9"], "unknown benchmark version 'v9'"),
        (["benchmark", "random", "--version", "t", "--games", "farbwechsel"], "has no game 'farbwechsel'"),
        (["benchmark", "nosuch_agent_t", "--version", "t"], "unknown agent"),
        (["benchmark", "random", "deck=52"], "takes no game options"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert message in str(stop.value.code) and "\n" not in str(stop.value.code)


def test_the_leaderboard_page_is_what_the_cards_make():
    from trickenv.benchmark.__main__ import PAGE

    assert PAGE.read_text(encoding="utf-8") == card_module.leaderboard_markdown("v1"), (
        "docs/results/leaderboard.md is stale: python -m trickenv.benchmark leaderboard")


def test_the_command_passes_ray_to_the_card(small, tmp_path, monkeypatch):
    """``--ray`` reaches ``evaluate`` (whose chunks on Ray give the same results: tests/ray_cluster_cases.py)."""
    from trickenv.cli import parse

    assert parse(["benchmark", "random", "--ray"])[0].ray == "local"
    seen = []
    from trickenv.agents import evaluation

    real = evaluation.evaluate
    monkeypatch.setattr(evaluation, "evaluate", lambda *a, **k: seen.append(k["ray"]) or real(*a, **{**k, "ray": None}))
    main(["benchmark", "random", "--version", "t", "--games", "koenigrufen", "--ray", "10.0.0.9:6379", "--no-progress"])
    assert seen and set(seen) == {"10.0.0.9:6379"}
