"""The duplicate-deal evaluation harness (trickenv.agents.evaluation) and ``trickenv eval``."""

from __future__ import annotations

import csv
import itertools
import json
from collections import Counter

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent, register
from trickenv.agents.evaluation import evaluate
from trickenv.agents.lineup import unique_names
from trickenv.agents.seatings import make_deals, make_seatings
from trickenv.agents.statistics import mean_ci, summarize, t_quantile
from trickenv.agents.tables import Table
from trickenv.cli import main
from trickenv.engine.layout import TO_ACT


class Lowest:
    """Deterministic test agent: the lowest legal action id. With ``stop_at``, call number ``stop_at``
    raises KeyboardInterrupt instead (a simulated Ctrl-C)."""

    name = "lowest"
    needs_state = False

    def __init__(self, spec=None, seed=None, stop_at=None, **kw):
        self.spec = spec
        self.calls = 0
        self.stop_at = stop_at

    def _count(self):
        if self.calls + 1 == self.stop_at:
            raise KeyboardInterrupt
        self.calls += 1

    def act_batch(self, obs, mask):
        self._count()
        return np.argmax(mask, axis=1)


class Highest(Lowest):
    """Deterministic test agent: the highest legal action id."""

    name = "highest"

    def act_batch(self, obs, mask):
        self._count()
        return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)



register("lowest_test", Lowest)

FAST = dict(progress=False, ratings=False)


def numbers(results):
    """The JSON without timing (the numbers a run must repeat)."""
    d = results.to_dict()
    d.pop("timing")
    return d


# ----------------------------------------------------------------------------------------- seatings


def seat_counts(seatings, k):
    n = len(seatings[0])
    counts = np.zeros((n, k), int)
    for s in seatings:
        for seat, a in enumerate(s):
            counts[seat, a] += 1
    return counts


def test_seatings_hand_made_cases():
    A, B, C, D = range(4)
    assert make_seatings(3, 2) == [(A, A, B), (A, B, A), (B, A, A), (A, B, B), (B, B, A), (B, A, B)]
    assert sorted(make_seatings(3, 3)) == sorted(itertools.permutations(range(3)))
    assert make_seatings(4, 2) == [(A, A, B, B), (A, B, B, A), (B, B, A, A), (B, A, A, B)]
    assert make_seatings(4, 4) == [(A, B, C, D), (B, C, D, A), (C, D, A, B), (D, A, B, C)]
    assert len(make_seatings(4, 3)) == 12
    assert make_seatings(3, 1) == [(A, A, A)]
    # partnership: agents sit as teams 0+2 / 1+3; every pair plays both ways
    assert make_seatings(4, 2, partnership=True) == [(A, B, A, B), (B, A, B, A)]
    assert make_seatings(4, 3, partnership=True) == [
        (A, B, A, B), (B, A, B, A), (A, C, A, C), (C, A, C, A), (B, C, B, C), (C, B, C, B)]
    # more agents than seats: every group of seats' worth of agents, distinct agents at each table
    five = make_seatings(4, 5)
    assert len(five) == 5 * 4 and all(len(set(s)) == 4 for s in five)
    assert sorted(make_seatings(3, 4)) == sorted(itertools.permutations(range(4), 3))
    # design "all": every arrangement that seats each agent
    assert len(make_seatings(4, 2, design="all")) == 14
    assert len(make_seatings(4, 3, design="all")) == 36
    assert len(make_seatings(4, 4, design="all")) == 24
    assert make_seatings(3, 2, design="all") != [] and set(make_seatings(3, 2, design="all")) == set(make_seatings(3, 2))
    with pytest.raises(ValueError, match="design"):
        make_seatings(3, 2, design="bogus")


@pytest.mark.parametrize("n,k,partnership,design", [
    (n, k, p, d) for n in (3, 4) for k in range(1, 7) for p in (False, True) for d in ("rotations", "all")
    if not (p and n == 3)
])
def test_every_agent_sits_every_seat_equally_often(n, k, partnership, design):
    seatings = make_seatings(n, k, partnership, design)
    assert len(set(seatings)) == len(seatings), "no seating twice"
    counts = seat_counts(seatings, k)
    assert (counts == counts[0, 0]).all() and counts[0, 0] > 0, counts
    if partnership:
        assert all(s[0] == s[2] and s[1] == s[3] for s in seatings)
        assert all(s[0] != s[1] for s in seatings) or k == 1


@pytest.mark.parametrize("k", [2, 3, 4])
def test_design_all_balances_neighbours(k):
    """With design="all" every ordered pair of agents sits at every seat distance equally often."""
    seatings = make_seatings(4, k, design="all")
    pairs = Counter((s[i], s[(i + d) % 4], d) for s in seatings for i in range(4) for d in (1, 2, 3))
    for d in (1, 2, 3):
        vals = [pairs[(a, b, d)] for a in range(k) for b in range(k) if a != b]
        assert len(set(vals)) == 1, (d, vals)


def test_king_calling_roles_are_balanced():
    """The caller (left of the dealer) and the dealer are held equally often by every agent."""
    r = evaluate("koenigrufen", [Lowest(), Highest(), Lowest()], deals=4, chunk=4, **FAST)
    d = r.to_dict()
    names = ["lowest", "highest", "lowest#2"]
    assert list(d["agents"]) == names and len(d["seatings"]) == 12
    callers = [d["agents"][a]["rate_counts"]["caller_win_rate"] for a in names]
    assert callers == [16, 16, 16]  # 4 deals x 12 seatings = 48 callers, a third each
    # the dealer's position: every agent sits there as often (position 0 of by_position)
    table = r.table_data
    dealer_agent = np.asarray(r.seatings)[:, table.dealers]  # [seating, deal]: the agent in the dealer's seat
    assert sorted(Counter(dealer_agent.ravel().tolist()).values()) == [16, 16, 16]
    assert (table.scores.sum(axis=2) == 0).all(), "payments are zero-sum"


# ----------------------------------------------------------------------------------------- statistics


def test_t_quantiles_and_mean_ci_on_known_values():
    for df, t in [(1, 12.706204736), (2, 4.302652730), (4, 2.776445105), (10, 2.228138852),
                  (30, 2.042272456), (1000, 1.962339081)]:
        assert t_quantile(0.975, df) == pytest.approx(t, abs=1e-8)
    m, lo, hi = mean_ci(np.array([1.0, 2, 3, 4, 5]))
    half = 2.776445105 * np.sqrt(2.5) / np.sqrt(5)  # t(4) * sd / sqrt(n)
    assert m == 3 and lo == pytest.approx(3 - half, abs=1e-8) and hi == pytest.approx(3 + half, abs=1e-8)
    assert mean_ci(np.array([2.0, 2, 2])) == (2.0, 2.0, 2.0)
    m, lo, hi = mean_ci(np.array([7.0]))
    assert m == 7 and np.isnan(lo) and np.isnan(hi)


def test_summary_on_a_hand_made_score_table():
    """Agents A, B in seatings AAB and ABB; 3 deals. Deal means average over seats of both seatings."""
    seatings = [(0, 0, 1), (0, 1, 1)]
    scores = np.array([
        [[1, 2, 3], [4, 5, 6]],     # A: 1, 2, 4 -> 7/3; B: 3, 5, 6 -> 14/3
        [[0, 0, 0], [3, 0, 0]],     # A: 0, 0, 3 -> 1;   B: 0, 0, 0 -> 0
        [[-3, 0, 6], [0, 3, 3]],    # A: -3, 0, 0 -> -1; B: 6, 3, 3 -> 4
    ], float)
    s = summarize(["A", "B"], seatings, Table(scores), ratings=False)
    a_deals, b_deals = np.array([7 / 3, 1, -1]), np.array([14 / 3, 0, 4])
    assert np.allclose(s["per_deal"], np.stack([a_deals, b_deals], axis=1))
    t2 = 4.302652730
    for name, x in (("A", a_deals), ("B", b_deals)):
        half = t2 * x.std(ddof=1) / np.sqrt(3)
        assert s["agents"][name]["mean"] == pytest.approx(x.mean())
        assert s["agents"][name]["ci95"] == pytest.approx([x.mean() - half, x.mean() + half])
        assert s["agents"][name]["seat_occurrences"] == 9
    diff = a_deals - b_deals
    half = t2 * diff.std(ddof=1) / np.sqrt(3)
    (pair,) = s["pairs"]
    assert (pair["a"], pair["b"]) == ("A", "B")
    assert pair["diff"] == pytest.approx(diff.mean()) and pair["ci95"] == pytest.approx(
        [diff.mean() - half, diff.mean() + half])
    # by position with all dealers 0: seat = position; A holds seats 0 (twice), 1 (once)
    assert s["agents"]["A"]["by_position"] == pytest.approx([(1 + 4 + 0 + 3 - 3 + 0) / 6, (2 + 0 + 0) / 3, np.nan],
                                                           nan_ok=True)
    # ratings: ranked matches per deal-seating
    r = summarize(["A", "B"], seatings, Table(scores))["ratings"]
    assert r["matches"] == 6 and r["agents"]["B"]["mu"] > r["agents"]["A"]["mu"]


def test_unique_names():
    assert unique_names(["rules", "random", "rules", "rules"]) == ["rules", "random", "rules#2", "rules#3"]


# ----------------------------------------------------------------------------------------- runs


def test_identical_agents_tie_exactly():
    """Two instances of the same deterministic agent under different names: diff 0, CI [0, 0]."""
    for game, agents in (("four_tricks", [("low_a", Lowest()), ("low_b", Lowest()), Highest()]),
                         ("farbwechsel", [("low_a", Lowest()), ("low_b", Lowest())])):
        d = evaluate(game, agents, deals=12, chunk=6, **FAST).to_dict()
        pair = next(p for p in d["pairs"] if (p["a"], p["b"]) == ("low_a", "low_b"))
        assert pair["diff"] == 0.0 and pair["ci95"] == [0.0, 0.0], pair
        assert d["agents"]["low_a"]["mean"] == d["agents"]["low_b"]["mean"]
        assert d["agents"]["low_a"]["rates"] == d["agents"]["low_b"]["rates"]
    d = evaluate("four_tricks", [Lowest(), Highest()], deals=12, chunk=6, **FAST).to_dict()
    assert d["pairs"][0]["diff"] != 0.0, "different agents do differ"


def test_same_seed_same_numbers():
    a = numbers(evaluate("farbwechsel", ["random", Lowest()], deals=20, seed=3, chunk=8, progress=False))
    b = numbers(evaluate("farbwechsel", ["random", Lowest()], deals=20, seed=3, chunk=8, progress=False))
    c = numbers(evaluate("farbwechsel", ["random", Lowest()], deals=20, seed=4, chunk=8, progress=False))
    assert a == b
    assert a["agents"] != c["agents"]


def test_deals_are_those_of_a_seeded_env():
    spec = trickenv.make_spec("koenigrufen")
    vec = trickenv.make_vec("koenigrufen", 30, seed=9)
    vec.reset()
    deals, dealers = vec.current_deals()
    d, dl = make_deals(spec, 9, 10, 30)
    assert np.array_equal(d, deals[10:30]) and np.array_equal(dl, dealers[10:30])


@pytest.mark.parametrize("game,options", [
    ("four_tricks", {}), ("four_tricks", {"bidding": True}), ("farbwechsel", {}),
    ("farbwechsel", {"num_players": 4}), ("farbwechsel", {"num_players": 4, "partnership": True}),
    ("koenigrufen", {}),
])
def test_random_against_lowest_in_every_game(game, options):
    r = evaluate(game, ["random", Lowest()], deals=16, seed=1, options=options, chunk=16, progress=False)
    d = r.to_dict()
    assert d["deals"] == 16 and not d["interrupted"] and d["game"] == game
    assert set(d["agents"]) == {"random", "lowest"} and d["pairs"][0]["a"] == "random"
    spec = trickenv.make_spec(game, **options)
    table = r.table_data
    assert table.scores.shape == (16, len(r.seatings), spec.num_players)
    for name, a in d["agents"].items():
        lo, hi = a["ci95"]
        assert lo <= a["mean"] <= hi
        assert np.isclose(a["mean"], r.per_deal[:, list(d["agents"]).index(name)].mean())
    # the agents' means, weighted by seats held, are the mean score of all seats
    held = np.array([sum(s.count(i) for s in r.seatings) for i in range(2)])
    means = np.array([d["agents"][n]["mean"] for n in ("random", "lowest")])
    assert np.isclose((means * held).sum() / held.sum(), table.scores.mean())
    rates = d["agents"]["lowest"]["rates"]
    if game == "four_tricks":
        assert 0 <= rates["exact_hit_rate"] <= 1
        tricks = np.mean([d["agents"][n]["rates"]["mean_tricks"] for n in ("random", "lowest")])
        assert np.isclose(tricks, 16 / 3)  # both agents hold the same number of seats
    elif game == "farbwechsel":
        assert 0 <= rates["card_points"] <= 120 and rates["trump_changes_caused"] >= 0
    else:
        assert 0 <= rates["caller_win_rate"] <= 1 and 0 <= rates["defender_win_rate"] <= 1
        assert (table.scores.sum(axis=2) == 0).all()
    assert set(d["ratings"]["agents"]) == {"random", "lowest"}
    text = r.table()
    assert f"{d['agents']['lowest']['mean']:.3f}" in text and "random - lowest" in text


def test_search_agents_get_the_state_and_their_rows():
    seen = []

    class Peek(Lowest):
        name = "peek"
        needs_state = True

        def act_batch(self, obs, mask, state=None, games=None):
            assert state is not None and len(games) == len(obs) == len(mask)
            seen.append((games.copy(), state.s[games, TO_ACT].copy()))
            return super().act_batch(obs, mask)

    peek = Peek()
    r = evaluate("four_tricks", [peek, Lowest()], deals=4, chunk=4, **FAST)
    seatings = np.asarray(r.seatings)  # game g of the chunk plays seating g % 6
    assert seen and peek.calls == len(seen)
    for games, seats in seen:
        assert (seatings[games % len(seatings), seats] == 0).all(), "only rows where Peek's seat is to act"
    assert peek.calls <= 49  # one call per step: 1 trump choice + 48 cards per deal, all games together
    decisions = r.timing["agent_decisions"]
    assert decisions["peek"] == sum(len(g) for g, _ in seen)
    assert decisions["peek"] + decisions["lowest"] == 4 * 6 * 49  # deals x seatings x decisions per deal


def test_interrupt_keeps_the_finished_deals(tmp_path):
    # Four Tricks with deterministic agents: every game of a chunk takes 49 steps, each agent is called
    # at each step; chunks of 4 deals. Call 120 of the interrupting agent falls into the third chunk.
    agents = [("stop", Lowest(stop_at=120)), ("low", Lowest())]
    r = evaluate("four_tricks", agents, deals=40, chunk=4, progress=False)
    assert r.interrupted and r.deals == 8 and r.deals_requested == 40
    full = evaluate("four_tricks", [("stop", Lowest()), ("low", Lowest())], deals=8, chunk=4, progress=False)
    a, b = numbers(r), numbers(full)
    for x in (a, b):
        x.pop("interrupted"), x.pop("deals_requested")
    assert a == b  # the kept deals are exactly the first 8, with the same numbers
    r.save_json(tmp_path / "partial.json")
    saved = json.loads((tmp_path / "partial.json").read_text())
    assert saved["interrupted"] is True and saved["deals"] == 8 and saved["deals_requested"] == 40
    assert saved["agents"]["stop"]["deals"] == 8


def test_a_journal_continues_a_killed_run_to_the_uninterrupted_results(tmp_path, monkeypatch, capsys):
    """Every finished chunk is on disk at once; the same call again plays only what is missing (here nothing
    twice) and gives the results of a run never stopped, records included; another run's folder is refused and
    left as it was."""
    from trickenv.agents import evaluation

    kw = dict(deals=20, seed=11, chunk=4, progress=False, ratings=False, records=True)
    full = evaluate("farbwechsel", ["rules", "random"], **kw)
    played = []
    original = evaluation.play_chunk

    def play(vec, chunk, *args):
        played.append(chunk.first_deal)
        if len(played) == 3:  # killed in the third chunk
            raise KeyboardInterrupt
        return original(vec, chunk, *args)

    monkeypatch.setattr(evaluation, "play_chunk", play)
    first = evaluate("farbwechsel", ["rules", "random"], journal=tmp_path / "j", **kw)
    assert first.interrupted and first.deals == 8
    assert sorted(p.name for p in (tmp_path / "j").iterdir()) == [
        "chunk_00000.clock.json", "chunk_00000.npz", "chunk_00001.clock.json", "chunk_00001.npz", "run.json"]
    again = evaluate("farbwechsel", ["rules", "random"], journal=tmp_path / "j", **kw)
    assert played == [0, 4, 8, 8, 12, 16]  # the two kept chunks are read, not played again
    assert not again.interrupted and numbers(again) == numbers(full)
    # The time of the kept chunks is added: every decision of the run is counted once, as in the run never stopped.
    assert again.timing["agent_decisions"] == full.timing["agent_decisions"]
    assert again.timing["timed_deals"] == full.timing["timed_deals"] == 20
    assert again.timing["chunk_seconds"] > 0
    assert np.array_equal(again.table_data.scores, full.table_data.scores)
    for key, value in full.table_data.records.items():
        assert np.array_equal(again.table_data.records[key], value), key
    before = {p.name: p.read_bytes() for p in (tmp_path / "j").iterdir()}
    with pytest.raises(ValueError, match=r"holds another run; it differs in agents: \['rules', 'random'\] there, "
                                         r"\['rules', 'pimc'\] here; seed: 11 there, 12 here"):
        evaluate("farbwechsel", ["rules", "pimc"], journal=tmp_path / "j", **{**kw, "seed": 12})
    assert {p.name: p.read_bytes() for p in (tmp_path / "j").iterdir()} == before
    with pytest.raises(ValueError, match="needs a fixed seed"):
        evaluate("farbwechsel", ["rules", "random"], journal=tmp_path / "k", **{**kw, "seed": None})
    with pytest.raises(ValueError, match="as names or Recipes"):
        evaluate("farbwechsel", [("low", Lowest()), "random"], journal=tmp_path / "k", **kw)
    assert not (tmp_path / "k").exists()
    monkeypatch.setattr(evaluation, "play_chunk", original)
    # The command line: the same command continues; another run's folder is a message, not a traceback.
    args = ["eval", "farbwechsel", "--agents", "rules,random", "--deals", "8", "--chunk", "4", "--seed", "11",
            "--no-ratings", "--no-progress", "--journal", str(tmp_path / "cli")]
    main(args)
    assert len(list((tmp_path / "cli").glob("chunk_*.npz"))) == 2
    def table(out: str) -> list[str]:  # the results, without the timing lines
        return [line for line in out.splitlines() if "deals/s" not in line and "ratings" not in line]

    out1 = table(capsys.readouterr().out)
    main(args)
    assert table(capsys.readouterr().out) == out1 and any("rules" in line for line in out1)
    with pytest.raises(SystemExit, match="trickenv eval: journal .* holds another run; it differs in deals: 8 there, "
                                         "12 here"):
        main([*args[:4], "--deals", "12", *args[6:]])


def test_a_journal_refuses_to_continue_with_another_network(tmp_path):
    """The players a run reads are part of it: a player file changed since the journal began is refused."""
    from trickenv.agents.policy import load_card_head, load_policy, save_policy, shipped_model_path

    weights, meta = load_policy(shipped_model_path("four_tricks"))
    head = load_card_head(shipped_model_path("four_tricks"))  # the shipped player's per-card head (None without)
    save_policy(tmp_path / "p.npz", weights, meta, head)
    kw = dict(deals=2, seed=1, chunk=2, progress=False, ratings=False, journal=tmp_path / "j")
    evaluate("four_tricks", [f"model:{tmp_path / 'p.npz'}", "rules"], **kw)
    evaluate("four_tricks", [f"model:{tmp_path / 'p.npz'}", "rules"], **kw)  # unchanged: continues (nothing left)
    save_policy(tmp_path / "p.npz", [(w * 0.5, b) for w, b in weights], meta, head)
    with pytest.raises(ValueError, match="it differs in player_files"):
        evaluate("four_tricks", [f"model:{tmp_path / 'p.npz'}", "rules"], **kw)


def test_a_journal_is_resumed_from_its_folder_alone(tmp_path):
    """resume_evaluation(DIR) repeats the call that began the journal (Recipes, options, seatings included)."""
    from trickenv.agents.evaluation import resume_evaluation
    from trickenv.agents.lineup import Recipe

    agents = [Recipe("pimc2", "pimc", 5, (("worlds", 2),)), "rules", "random"]
    kw = dict(deals=6, seed=2, chunk=3, options={"num_players": 4}, seatings="all", progress=False, ratings=False)
    full = evaluate("farbwechsel", agents, **kw)
    evaluate("farbwechsel", agents, deals=6, seed=2, chunk=3, options={"num_players": 4}, seatings="all",
             progress=False, ratings=False, journal=tmp_path / "j")
    (tmp_path / "j" / "chunk_00001.npz").unlink()  # as if killed in the second chunk
    again = resume_evaluation(tmp_path / "j", progress=False, ratings=False)
    assert numbers(again) == numbers(full) and (tmp_path / "j" / "chunk_00001.npz").exists()
    with pytest.raises(ValueError, match="no evaluation journal at"):
        resume_evaluation(tmp_path / "nothing")


def test_a_journal_is_read_back_so_far_without_playing(tmp_path, capsys):
    """read_journal(DIR) and `trickenv journal DIR`: the results of the chunks written so far, whichever are
    missing (Ray finishes them out of order), nothing played or written; a folder without a run or a chunk is
    an error that names it."""
    from trickenv.agents.evaluation import JournalError, read_journal

    kw = dict(deals=6, seed=3, chunk=2, **FAST)
    spec = trickenv.make_spec("four_tricks")
    given = make_deals(spec, 40, 0, 6)  # a fixed deal set, as the benchmark's runs play: read back too
    full = evaluate("four_tricks", ["rules", "random"], given_deals=given, journal=tmp_path / "j", **kw)
    assert numbers(read_journal(tmp_path / "j")) == numbers(full)
    (tmp_path / "j" / "chunk_00001.npz").unlink()  # the middle chunk still under way
    before = {p.name: p.read_bytes() for p in (tmp_path / "j").iterdir()}
    part = read_journal(tmp_path / "j")
    assert part.interrupted and (part.deals, part.deals_requested) == (4, 6)
    assert np.array_equal(part.table_data.scores, full.table_data.scores[[0, 1, 4, 5]])
    diff = full.per_deal[[0, 1, 4, 5], 0] - full.per_deal[[0, 1, 4, 5], 1]  # the statistics of exactly those deals
    pair = part.to_dict()["pairs"][0]
    assert pair["deals"] == 4 and pair["diff"] == pytest.approx(diff.mean())
    assert pair["ci95"] == pytest.approx(list(mean_ci(diff)[1:]))
    assert part.timing["timed_deals"] == 4 and part.timing["play_seconds"] > 0
    assert {p.name: p.read_bytes() for p in (tmp_path / "j").iterdir()} == before
    main(["journal", str(tmp_path / "j"), "--json", str(tmp_path / "so_far.json")])
    out = capsys.readouterr().out
    assert "so far: 4 finished deals of 6" in out and "rules - random" in out
    assert json.loads((tmp_path / "so_far.json").read_text())["deals"] == 4
    for k in (0, 2):
        (tmp_path / "j" / f"chunk_{k:05d}.npz").unlink()
    with pytest.raises(JournalError, match="holds no finished chunk yet"):
        read_journal(tmp_path / "j")
    with pytest.raises(SystemExit, match="trickenv journal: no evaluation journal at .*nothing"):
        main(["journal", str(tmp_path / "nothing")])
    assert not (tmp_path / "nothing").exists()


def test_interrupt_keeps_the_finished_deals_of_the_chunk_in_play():
    """King Calling deals take different numbers of steps: stop when some deals of a chunk are over."""
    full = evaluate("koenigrufen", [("high", Highest()), ("low", Lowest())], deals=8, chunk=4, **FAST)
    for limit in range(40, 120):
        r = evaluate("koenigrufen", [("high", Highest(stop_at=limit)), ("low", Lowest())], deals=8, chunk=4, **FAST)
        if r.deals % 4:
            break
    else:
        pytest.fail("no stop left a chunk half finished")
    ids = r.table_data.deal_ids
    assert r.interrupted and 4 < r.deals < 8 and len(ids) == r.deals and list(ids[:4]) == [0, 1, 2, 3]
    assert np.array_equal(r.table_data.scores, full.table_data.scores[ids])
    assert np.array_equal(r.per_deal, full.per_deal[ids])


def test_interrupt_in_the_first_chunk_returns_empty_results():
    r = evaluate("four_tricks", [Lowest(stop_at=3), Lowest()], deals=8, chunk=4, progress=False)
    d = r.to_dict()
    assert r.interrupted and d["deals"] == 0 and d["agents"]["lowest"]["mean"] is None
    assert "INTERRUPTED" in r.table()


def test_match_options_and_bad_agents_are_refused():
    for opts in ({"rounds": 3}, {"win_at": 20}, {"target_schedule": "default"}):
        with pytest.raises(ValueError, match="single deals"):
            evaluate("four_tricks", ["random"], deals=2, options=opts, **FAST)
    evaluate("four_tricks", ["random", "random"], deals=1, options={"rounds": 1}, **FAST)

    class Cheat(Lowest):
        def act_batch(self, obs, mask):
            return np.full(len(mask), 9999)

    custom = evaluate("four_tricks", [Lowest(), Highest()], deals=2, seatings=[(0, 1, 1), (1, 0, 0)], **FAST)
    assert custom.to_dict()["seatings"] == [["lowest", "highest", "highest"], ["highest", "lowest", "lowest"]]
    with pytest.raises(ValueError, match="every agent"):
        evaluate("four_tricks", [Lowest(), Highest()], deals=2, seatings=[(0, 0, 0)], **FAST)
    with pytest.raises(ValueError, match=r"agent cheat chose out-of-range \(actions are 0\.\.\d+\) action 9999 at deal 0, seat \d"):
        evaluate("farbwechsel", [("cheat", Cheat()), "random"], deals=2, **FAST)


# ----------------------------------------------------------------------------------------- CLI and files


def test_cli_writes_json_and_csv_with_stable_keys(tmp_path, capsys):
    out_json, out_csv = tmp_path / "r.json", tmp_path / "r.csv"
    main(["eval", "four_tricks", "trump=none", "--agents", "lowest_test,random,lowest_test", "--deals", "6",
          "--seed", "2", "--chunk", "4", "--json", str(out_json), "--no-progress", "--csv", str(out_csv)])
    text = capsys.readouterr().out
    d = json.loads(out_json.read_text())
    for key in ("game", "options", "deals", "seed", "seatings", "agents", "pairs", "ratings", "timing",
                "interrupted"):
        assert key in d
    assert d["game"] == "four_tricks" and d["options"] == {"trump": "none"} and d["deals"] == 6 and d["seed"] == 2
    assert list(d["agents"]) == ["lowest_test", "random", "lowest_test#2"]
    for a in d["agents"].values():
        assert isinstance(a["mean"], float) and len(a["ci95"]) == 2 and "exact_hit_rate" in a["rates"]
    assert [(p["a"], p["b"]) for p in d["pairs"]] == [
        ("lowest_test", "random"), ("lowest_test", "lowest_test#2"), ("random", "lowest_test#2")]
    assert all(set(p) >= {"a", "b", "diff", "ci95"} for p in d["pairs"])
    assert d["pairs"][1]["ci95"][0] <= d["pairs"][1]["diff"] <= d["pairs"][1]["ci95"][1]
    assert len(d["seatings"]) == 6 and d["interrupted"] is False
    assert f"{d['agents']['random']['mean']:.3f}" in text
    rows = list(csv.DictReader(out_csv.open()))
    mean_row = next(r for r in rows if r["section"] == "agent" and r["agent"] == "random" and r["metric"] == "mean")
    assert float(mean_row["value"]) == d["agents"]["random"]["mean"]
    assert float(mean_row["ci95_lo"]) == d["agents"]["random"]["ci95"][0]
    assert any(r["section"] == "pair" and r["other"] == "random" for r in rows)
    with pytest.raises(SystemExit, match="single deals"):
        main(["eval", "four_tricks", "--agents", "random", "rounds=2"])
    with pytest.raises(SystemExit, match="unknown agent"):
        main(["eval", "four_tricks", "--agents", "random,nobody"])


def test_tournament_command_prints_one_table_over_the_games(tmp_path, capsys):
    main(["tournament", "--games", "four_tricks,koenigrufen", "--agents", "random,rules,pimc", "--deals", "3",
          "--pimc-worlds", "2", "--no-progress", "--json", str(tmp_path / "t.json")])
    out = capsys.readouterr().out
    lines = [x.split() for x in out.splitlines()]
    rows = {(x[0], x[1]) for x in lines if x and x[0] in ("four_tricks", "koenigrufen")}
    assert rows == {(g, a) for g in ("four_tricks", "koenigrufen") for a in ("random", "rules", "pimc")}
    d = json.loads((tmp_path / "t.json").read_text())
    assert set(d) == {"four_tricks", "koenigrufen"} and d["four_tricks"]["deals"] == 3
    random_row = next(x for x in lines if x[:2] == ["four_tricks", "random"])
    pair = next(p for p in d["four_tricks"]["pairs"] if {p["a"], p["b"]} == {"random", "rules"})
    sign = 1 if pair["a"] == "random" else -1
    assert float(random_row[5]) == pytest.approx(sign * pair["diff"], abs=1e-3)  # "vs rules" column
    with pytest.raises(SystemExit, match="unknown game 'chess'"):
        main(["tournament", "--games", "chess"])
    with pytest.raises(SystemExit, match="takes no game options"):
        main(["tournament", "deck=52"])


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_rule_based_agents_read_any_observation_array(game):
    """Float, strided or read-only observations give the same actions as the engine's int8 rows."""
    vec = trickenv.make_vec(game, 64, seed=9)
    agent = make_agent("rules", vec.spec, seed=1)
    obs, mask, _ = vec.reset()
    for _ in range(7):
        obs, mask, _, _, _ = vec.step(agent.act_batch(obs, mask).copy())
    want = agent.act_batch(obs, mask).copy()
    assert mask[np.arange(64), want].all()
    wide = np.zeros((64, obs.shape[1] * 2), np.float32)
    wide[:, ::2] = obs  # a strided float view of the same values
    assert np.array_equal(agent.act_batch(wide[:, ::2], mask.astype(np.int8)), want)
    assert np.array_equal(agent.act_batch(obs[::-1], mask[::-1]), want[::-1])
