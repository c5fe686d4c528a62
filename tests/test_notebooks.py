"""The notebooks in notebooks/ run from top to bottom, at the small budget (TRICKENV_BUDGET=small).

Each notebook is executed in memory with nbclient (the stored outputs, from a full-budget run, are
left alone). A notebook fails the test when any cell raises. Every cell that draws a plot must
also print a sentence with a number in it: the notebooks state their findings from the data, under
the plot, never by hand. Needs the ``notebooks`` extra (part of ``dev``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = ["quickstart", "agents_benchmark", "trump_changes", "four_tricks", "king_calling", "playbook"]


def test_every_notebook_is_tested():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_at_the_small_budget(name, monkeypatch):
    monkeypatch.setenv("TRICKENV_BUDGET", "small")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # The kernel is started as "python" from PATH: make that this interpreter (the venv's).
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    plots = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        if any("image/png" in o.get("data", {}) for o in outputs):
            plots += 1
            text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
            assert any(ch.isdigit() for ch in text), f"{name}.ipynb cell {i}: a plot without a computed sentence"
    if name != "quickstart":
        assert plots > 0


def test_research_helpers():
    """trickenv.research: fixed-deal play, rotations, trick replay and the interval helpers."""
    import numpy as np

    import trickenv
    from trickenv import research
    from trickenv.agents import make_agent

    spec = trickenv.make_spec("farbwechsel", num_players=4, switch_ranks=("Q", "J"))
    deals, dealers = research.make_deals(spec, 50, seed=5)
    all_deals, all_dealers, rot = research.rotations(deals, dealers)
    assert all_deals.shape == (200, 4, 8) and (all_deals[50:100, 0] == deals[:, 1]).all() and (rot[50:100] == 1).all()
    rules = make_agent("rules", spec, seed=0)
    rec = research.play(spec, all_deals, all_dealers, [rules], np.zeros((200, 4), np.int64), chunk=64)
    assert (rec["deal"] == np.sort(all_deals, axis=2)).all() and (rec["dealer"] == all_dealers).all()
    pm = research.position_means(rec["scores"], dealers)
    for p in range(4):  # position p of deal d, rotation r: seat (dealer + p), holding hand (dealer + p + r) % 4
        seat = (dealers + p) % 4
        want = np.mean([rec["scores"][r * 50 + np.arange(50), seat] for r in range(4)], axis=0)
        assert np.allclose(pm[:, p], want)
    tp = research.trick_play(spec, rec)
    assert all((np.sum(tp["winner"] == s, axis=1) == rec["tricks"][:, s]).all() for s in range(4))
    k = rec["trump_changes"] > 0
    assert (tp["winner"][k, rec["change_trick"][k, 0]] == rec["change_winner"][k, 0]).all()
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(400), rng.normal(size=400)])
    coef = research.ols(x, 2 + 3 * x[:, 1] + rng.normal(size=400), np.arange(400) // 2, ["c", "b"])
    assert coef["b"][1] < 3 < coef["b"][2]
    assert research.ratio_ci(np.array([0, 1, 1]), np.array([1, 1, 1]))[1:] == (0.0, 1.0)


def test_advice_tools():
    """trickenv.research: Override plays the base except where the advice applies, advice_test's estimates,
    and the variance decomposition."""
    import numpy as np

    import trickenv
    from trickenv import research
    from trickenv.agents import make_agent

    spec = trickenv.make_spec("four_tricks")
    deals, dealers = research.make_deals(spec, 30, seed=3)
    rules = make_agent("rules", spec, seed=0)
    never = research.advice_test(spec, deals, dealers, rules, lambda obs, mask: np.zeros_like(mask), "never")
    assert not never["diff"].any() and never["affected"][0] == 0 and np.isnan(never["effect"][0])
    cards = spec.deck

    def lowest(obs, mask):  # the lowest card id, where there is a choice of cards
        out = np.zeros_like(mask)
        rows = np.flatnonzero(mask[:, :cards].sum(axis=1) > 1)
        out[rows, mask[rows, :cards].argmax(axis=1)] = True
        return out

    class Checked(research.Override):
        def act_batch(self, obs, mask, state=None, games=None):
            act = super().act_batch(obs, mask, state, games)
            advised = lowest(obs, mask)
            applies = advised.any(axis=1)
            assert advised[applies, act[applies]].all() and mask[np.arange(len(act)), act].all()
            return act

    for base in (rules, make_agent("pimc", spec, seed=1, worlds=2)):  # pimc: the search keeps to the advised moves
        agent = Checked(spec, base, lowest, "lowest")
        r = research.advice_test(spec, deals[:12], dealers[:12], base, lowest, "lowest", advised=agent)
        c = r["counts"]
        assert (c["changed"] == c["applied"] - c["followed"]).all() and c["changed"].sum() > 0
        affected = (c["changed"] > 0).sum()
        assert np.isclose(r["effect"][0], r["diff"].sum() / affected)
        assert np.isclose(r["effect_all"][0], r["diff"].mean())
        assert np.isclose(r["follows"][0], c["followed"].sum() / c["applied"].sum())
    assert r["effect"][0] < 0  # always the lowest card is bad play

    # Farbwechsel, a rule on the View: the dealer declares clubs (0) -> applies to the dealer's declarations only
    fw = trickenv.make_spec("farbwechsel")
    fdeals, fdealers = research.make_deals(fw, 20, seed=4)
    frules = make_agent("rules", fw, seed=0)

    def clubs(v, mask):
        out = np.zeros_like(mask)
        rows = np.flatnonzero(mask[:, 32:36].any(axis=1) & (v.dealer == 0))
        out[rows, 32] = True
        return out

    r = research.advice_test(fw, fdeals, fdealers, frules, clubs, "clubs", view=research.View)
    dealer_seat = np.arange(3)[None, :] == fdealers[:, None]
    assert (r["counts"]["applied"] == dealer_seat).all()  # once per deal, by its dealer
    assert (r["diff"][~dealer_seat] == 0).all()  # elsewhere it never applies, and the rules play as before

    # advice_values: the search's values of following a rule and of its complement are opposite at the same
    # positions; the probe plays the searcher's own moves (the records equal the searcher's self-play).
    def first_card(obs, mask):
        out = np.zeros_like(mask)
        rows = np.flatnonzero(mask[:, :cards].sum(axis=1) > 1)
        out[rows, mask[rows, :cards].argmax(axis=1)] = True
        return out

    def other_cards(obs, mask):
        out = np.zeros_like(mask)
        rows = np.flatnonzero(mask[:, :cards].sum(axis=1) > 1)
        out[rows, :cards] = mask[rows, :cards]
        out[rows, mask[rows, :cards].argmax(axis=1)] = False
        return out

    rules4 = {"first": first_card, "others": other_cards, "everything": lambda obs, mask: mask}
    vals = research.advice_values(spec, deals[:6], dealers[:6], make_agent("search", spec, seed=2, worlds=4), rules4)
    a, b = vals["first"]["raw"], vals["others"]["raw"]
    assert vals["first"]["positions"] > 20 and vals["everything"]["positions"] == 0  # "everything" forbids nothing
    for key in ("game", "seat", "trick"):
        assert (a[key] == b[key]).all()
    assert np.allclose(a["gain"], -b["gain"]) and (a["follows"] + b["follows"] == 1).all()
    assert (a["follows"][a["gain"] > 0] == 1).all() and (a["follows"][a["gain"] < 0] == 0).all()  # it plays its argmax
    assert np.isclose(vals["first"]["value"][0], a["gain"].mean())
    assert sum(v[3] for v in vals["first"]["by_trick"].values()) == len(a["gain"])
    assert vals["first"]["value"][0] < 0  # the lowest card id is rarely the best card
    own = research.play(spec, deals[:6], dealers[:6], [make_agent("search", spec, seed=2, worlds=4)], np.zeros((6, 3), np.int64))
    again = research.advice_values(spec, deals[:6], dealers[:6], make_agent("search", spec, seed=2, worlds=4),
                                   {"first": first_card})
    assert np.array_equal(again["first"]["raw"]["gain"], a["gain"])
    probe = research.ValueProbe(spec, make_agent("search", spec, seed=2, worlds=4), {"first": first_card})
    rec = research.play(spec, deals[:6], dealers[:6], [probe], np.zeros((6, 3), np.int64))
    assert np.array_equal(rec["scores"], own["scores"]) and np.array_equal(rec["played_in"], own["played_in"])
    with pytest.raises(TypeError, match="search_batch"):
        research.ValueProbe(spec, rules, {"first": first_card})

    # trick_play replays the tricks of every game: its winners give each seat's trick count
    for game, options in (("four_tricks", {}), ("four_tricks", {"deck": 52, "trump": "none"}), ("koenigrufen", {})):
        g_spec = trickenv.make_spec(game, **options)
        g_deals, g_dealers = research.make_deals(g_spec, 20, seed=2)
        n = g_spec.num_players
        g_rec = research.play(g_spec, g_deals, g_dealers, [make_agent("rules", g_spec, seed=0)], np.zeros((20, n), np.int64))
        tp = research.trick_play(g_spec, g_rec)
        assert all((np.sum(tp["winner"] == s, axis=1) == g_rec["tricks"][:, s]).all() for s in range(n)), game

    # decompose: scores that are a deal effect plus a player effect have no rest
    y = (np.arange(50)[:, None, None] % 7 + np.zeros((50, 3, 2)) + np.array([0.0, 2.0])[None, None, :])
    shares = research.decompose(y)
    assert np.isclose(shares.sum(), 1) and abs(shares[2]) < 1e-12 and shares[0] > 0 and shares[1] > 0
    est, lo, hi = research.decompose_ci(y + np.random.default_rng(0).normal(0, 0.5, y.shape), reps=50)
    assert (lo <= est + 1e-12).all() and (est <= hi + 1e-12).all()


def test_findings_tools(tmp_path):
    """trickenv.research: p from an interval, Holm and Benjamini-Hochberg, a findings file and its table."""
    import numpy as np
    from scipy.stats import ttest_1samp

    from trickenv import research
    from trickenv.agents.statistics import mean_ci

    x = np.random.default_rng(3).normal(0.2, 1.0, 500)
    m, lo, hi = mean_ci(x)
    assert abs(research.p_from_ci(m, lo, hi, len(x)) - ttest_1samp(x, 0).pvalue) < 1e-9
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert np.allclose(research.adjust_p(p, "holm"), [0.03, 0.06, 0.06, 0.02])  # 3p, max(2p, prev), ..., 4p
    assert np.allclose(research.adjust_p(p, "bh"), [0.02, 0.04, 0.04, 0.02])
    with pytest.raises(ValueError, match="'bh' or 'holm'"):
        research.adjust_p(p, "bonferroni")
    found = [research.finding("a helps", "farbwechsel", "standard, 3 players", "rules", 500, m, lo, hi),
             research.finding("b hurts", "farbwechsel", "standard, 3 players", "rules", 500, -0.001, -0.1, 0.098)]
    path = research.save_findings("demo", found, folder=tmp_path)
    rows = research.load_findings(tmp_path)
    assert path.name == "demo.json" and [r["verdict"] for r in rows] == ["holds", "not shown"]
    assert all(set(research.FINDING_KEYS) <= set(r) for r in rows)
    assert research.p_text(0.0) == "< 1e-15" and research.p_text(0.0123) == "0.012"
    table = research.findings_markdown(tmp_path)
    assert "| demo | a helps | farbwechsel |" in table and table.count("\n| demo |") == 2


def test_docs_findings_is_current():
    """docs/results/findings.md is the table of notebooks/findings/*.json (python -m trickenv.research findings)."""
    from trickenv import research

    doc = NOTEBOOKS.parent / "docs" / "results" / "findings.md"
    assert doc.read_text(encoding="utf-8") == research.findings_markdown(), \
        "docs/results/findings.md is stale: run python -m trickenv.research findings"


def test_findings_cover_every_game_with_strong_players():
    """The stored findings: every game, and at least 20 measured with a strong player (pimc, search, a trained
    model) as the base on 1,000 or more deals, each with its interval and adjusted p."""
    import json

    strong = []
    games = set()
    for path in sorted((NOTEBOOKS / "findings").glob("*.json")):
        for f in json.loads(path.read_text(encoding="utf-8"))["findings"]:
            games.add(f["game"])
            lo, hi = f["ci95"]
            assert lo <= f["estimate"] <= hi and 0 <= f["p_adjusted"] <= 1, f["question"]
            if f["deals"] >= 1000 and any(name in f["base"] for name in ("pimc", "search", "model")):
                strong.append(f)
    assert games == {"farbwechsel", "koenigrufen", "four_tricks"}
    assert len(strong) >= 20, len(strong)
    assert any(f["base"].startswith("search") for f in strong)  # the strongest player is among the bases
