"""What each move was worth (trickenv.agents.review, ``trickenv review``): the hint is the search's own values,
it reads only what the seat knows, and a review values each decision of a record as the hint would then."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import SearchAgent
from trickenv.agents.evaluation import evaluate
from trickenv.agents.review import move_values, review_record, review_records
from trickenv.cli import main
from trickenv.engine.layout import TO_ACT
from trickenv.replay import load_records
from tests.test_sampler import _hide_differently, play_random

GAMES = [("farbwechsel", {}), ("koenigrufen", {}), ("four_tricks", {}), ("four_tricks", {"bidding": True}),
         ("farbwechsel", {"num_players": 4, "partnership": True})]
SMALL = {"worlds": 8}  # a cheap search: the properties hold for any budget


def _hint_inputs(env):
    obs = env.observe(env.agent_selection)
    return obs["observation"], obs["action_mask"]


@pytest.mark.parametrize("game,options", GAMES)
def test_a_hint_is_the_search_agents_own_values(game, options):
    for seed, steps in ((1, 3), (2, 11), (3, 20)):
        env, _ = play_random(game, options, seed, steps)
        o, m = _hint_inputs(env)
        hint = move_values(env.spec, env.game, 0, o, m, seed=7, **SMALL)
        agent = SearchAgent(env.spec, seed=7, **SMALL)
        action, values = agent.search_batch(o[None], m[None].astype(bool), env.game, np.array([0]))
        legal = np.flatnonzero(m)
        np.testing.assert_array_equal(hint.actions, legal)
        np.testing.assert_array_equal(hint.values, values[0, legal].astype(np.float64))
        assert hint.best == int(action[0])
        if hint.searched:
            assert hint.best == int(legal[np.nanargmax(hint.values)])
            assert np.isfinite(hint.spread).all() and (hint.spread >= 0).all()
        else:
            assert np.isnan(hint.spread).all()


@pytest.mark.parametrize("game,options", GAMES)
def test_a_hint_reads_only_what_the_seat_knows(game, options):
    """The same hint (values and spread) in a game changed in what the seat cannot know."""
    rng = np.random.default_rng(0)
    searched = 0
    for seed, steps in ((1, 2), (2, 9), (3, 17), (4, 26)):
        env, _ = play_random(game, options, seed, steps)
        seat = int(env.game.s[0, TO_ACT])
        other = _hide_differently(env.spec, env.game, seat, rng)
        o, m = _hint_inputs(env)
        a, b = (move_values(env.spec, st, 0, o, m, seed=5, **SMALL) for st in (env.game, other))
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.spread, b.spread)
        assert a.best == b.best
        searched += a.searched
    assert searched  # the test saw values, not only forced moves


def _records(game, agents, deals, seed, options=None):
    res = evaluate(game, agents, deals=deals, seed=seed, options=options, progress=False, ratings=False,
                   records=True)
    rows = res.table_data.records
    return res, [{k: v[i] for k, v in rows.items()} for i in range(len(rows["dealer"]))]


def test_a_review_values_each_decision_of_the_seat_as_a_hint_would_then():
    res, records = _records("koenigrufen", ["rules", "random"], 1, 4)
    rec = records[0]
    spec = trickenv.make_spec("koenigrufen")
    moves = review_record("koenigrufen", rec, 2, seed=3, **SMALL)
    env = trickenv.make("koenigrufen").unwrapped
    env.reset(options={"deal": rec["deal"], "dealer": int(rec["dealer"])})
    from trickenv.replay import record_actions

    actions, seats = record_actions("koenigrufen", rec), []
    for a in actions:
        seats.append(int(env.game.s[0, TO_ACT]))
        env.step(a)
    assert [m.step for m in moves] == [k for k, s in enumerate(seats) if s == 2]
    for m in moves:
        env.reset(options={"deal": rec["deal"], "dealer": int(rec["dealer"])})
        for a in actions[:m.step]:
            env.step(a)
        o, mask = _hint_inputs(env)
        again = move_values(spec, env.game, 0, o, mask, seed=3, **SMALL)
        np.testing.assert_array_equal(m.hint.values, again.values)
        assert m.played == actions[m.step] and m.seat == 2
        if m.valued:
            assert m.loss >= 0 and m.loss == pytest.approx(np.nanmax(m.hint.values) - m.hint.value(m.played))
    assert sum(m.valued for m in moves) >= 4


def test_a_review_marks_the_moves_that_changed_trump():
    _, records = _records("farbwechsel", ["rules", "rules"], 6, 2)
    rec = next(r for r in records if int(r["trump_changes"]) > 0)
    seat, trick = int(rec["change_seat"][0]), int(rec["change_trick"][0])
    moves = review_record("farbwechsel", rec, seat, **SMALL)
    marked = [m for m in moves if m.trump_change]
    assert marked and marked[0].trick == trick and "->" in marked[0].trump_change
    assert all(m.trump_change is None for m in moves if m.trick != trick)


def test_the_search_loses_little_by_its_own_review_and_random_much():
    """A deal played by ``search``: most of its moves are the review's best; ``random`` loses more a move."""
    res, records = _records("koenigrufen", ["search", "random"], 2, 9)
    losses = {0: [], 1: []}
    for seating, rec in zip(res.seatings * 2, records, strict=True):
        for seat, agent in enumerate(seating):
            losses[agent] += [m.loss for m in review_record("koenigrufen", rec, seat, seed=1) if m.valued]
    search, rand = np.array(losses[0]), np.array(losses[1])
    assert len(search) >= 20 and len(rand) >= 20
    assert np.mean(search == 0) >= 0.5 and search.mean() < rand.mean()


def test_review_on_the_command_line(tmp_path, capsys):
    res, _ = _records("koenigrufen", ["rules", "random"], 1, 4)
    path = tmp_path / "rec.json"
    res.save_records(str(path))
    main(["review", str(path), "--seat", "1", "--deal", "0", "--worlds", "8", "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    assert "P1 (" in out and "trick  1" in out and "lost" in out
    doc = json.loads((tmp_path / "r.json").read_text())
    rs = load_records(json.loads(path.read_text()))
    reviewed = review_records(rs, 0, 1, worlds=8)
    assert doc["game"] == "koenigrufen" and [m["played"] for m in doc["deals"][0]["moves"]] == [m.played for m in reviewed]
    last = len(rs.records) - 1
    for argv, message in [(["review", str(path), "--seat", "9"], "seat must be 0..3"),
                          (["review", str(path), "--seat", "0", "--deal", str(last + 1)], f"deal must be 0..{last}"),
                          (["review", str(tmp_path / "none.json"), "--seat", "0"], "No such file"),
                          (["review", str(path), "--seat", "0", "deck=52"], "reads the game and its options")]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert message in str(stop.value.code) and "\n" not in str(stop.value.code)
