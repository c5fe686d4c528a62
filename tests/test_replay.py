"""Deal records played back on the engine (trickenv/replay.py): every variant, every form of record, broken ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.evaluation import evaluate
from trickenv.cli import main
from trickenv.replay import load_json, load_records, record_actions, records_document
from trickenv.table_replay import replay_frames

from .variants import IDS, VARIANTS


def played_records(game: str, options: dict, games: int = 6, seed: int = 5, agent: str = "rules") -> dict:
    """Records of ``games`` finished deals (later deals of a match too), played by ``agent`` in every seat."""
    vec = trickenv.make_vec(game, games, seed=seed, **options)
    player = make_agent(agent, vec.spec, seed=1)
    obs, mask, _ = vec.reset()
    parts = []
    for _ in range(2000):
        obs, mask, _, _, _ = vec.step(act_rows(player, obs, mask, vec.state, np.arange(games)))
        if vec.deal_end.any():
            parts.append(vec.deal_records())
        if sum(len(p["game"]) for p in parts) >= 2 * games:
            break
    rec = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return {k: v[-games:] for k, v in rec.items()}  # the last ones: deals after the first of a match


def replay_env_record(game: str, options: dict, rec: dict, actions: list[int]) -> dict:
    """Play ``actions`` from the record's deal on a fresh AEC env; the record it writes."""
    from trickenv.replay import play_options

    spec = trickenv.make_spec(game, **options)
    env = trickenv.make(game, illegal_action="raise", **play_options(spec, rec, options)).unwrapped
    env.reset(options={"deal": rec["deal"], "dealer": int(rec["dealer"])})
    for a in actions:
        agent = env.agent_selection
        env.step(a)
    return env.infos[agent]


@pytest.mark.parametrize("game, options", VARIANTS, ids=IDS)
def test_every_record_replays_to_itself_in_every_variant(game, options):
    rec = played_records(game, options)
    n = trickenv.make_spec(game, **options).num_players
    names = [[f"agent{p}" for p in range(n)]] * len(rec["dealer"])
    doc = json.loads(json.dumps(records_document(game, options, rec, names)))  # through JSON, as a file
    records = load_records(doc)
    assert len(records.records) == len(rec["dealer"]) and records.seats[0] == names[0]
    for i in range(len(records.records)):
        frames = replay_frames(records, i)  # raises unless the replayed record equals the file's
        row = {k: v[i] for k, v in rec.items()}
        actions = record_actions(game, row, options)
        assert len(frames) == len(actions) + 1
        again = replay_env_record(game, options, row, actions)
        for key in ("deal", "played_by", "played_in", "trick_trump", "scores", "tricks", "points"):
            assert np.array_equal(np.asarray(again[key]), row[key]), key
        assert frames[0]["step"] == 0 and frames[-1]["finished"]
        assert all(len(f["hands"]) == n for f in frames)
        # every hand face up: at the start the seats hold the whole deal (King Calling: its first batch)
        first = sorted(c["card"] for h in frames[0]["hands"] for c in h)
        assert set(first) <= set(int(c) for c in row["deal"].ravel())
        assert sum(len(h) for h in frames[-1]["hands"]) == 0
        assert frames[-1]["scores"][-1] == row["scores"].tolist()


def test_the_other_forms_of_records_open_too():
    rec = played_records("koenigrufen", {}, games=3)
    columns = {k: v.tolist() for k, v in rec.items()}  # vec.deal_records() as JSON
    assert len(load_records(json.loads(json.dumps(columns)), "koenigrufen").records) == 3
    one = {k: v[1].tolist() for k, v in rec.items() if k != "game"}  # an AEC info as JSON
    records = load_records(one, "koenigrufen")
    assert records.seats == [["P0", "P1", "P2", "P3"]]
    assert len(replay_frames(records, 0)) > 30
    assert len(load_records([one, one], "koenigrufen").records) == 2
    assert load_records({"game": "koenigrufen", "record": one}).game == "koenigrufen"


def test_trump_changes_are_marked_in_the_frames():
    rec = played_records("farbwechsel", {}, games=12, seed=9)
    k = int(np.flatnonzero(rec["trump_changes"] > 0)[0])
    records = load_records(records_document("farbwechsel", {}, rec, [["a", "b", "c"]] * 12))
    frames = replay_frames(records, k)
    marked = [f for f in frames if f["trump_change"]]
    assert len(marked) == int(rec["trump_changes"][k])
    assert all(any("TRUMP CHANGES" in line for line in f["lines"]) for f in marked)
    assert not any(any("TRUMP CHANGES" in line for line in f["lines"]) for f in frames if not f["trump_change"])


def broken(rec: dict, **change) -> dict:
    row = {k: np.asarray(v).tolist() for k, v in rec.items() if k != "game"}
    row.update(change)
    return row


def test_broken_records_are_refused_with_what_is_wrong():
    rec = {k: v[0] for k, v in played_records("farbwechsel", {}, games=2).items()}
    good = broken(rec)
    cases = [
        ({k: v for k, v in good.items() if k != "played_by"}, "has no 'played_by'"),
        (broken(rec, deal=[[0, 1], [2, 3], [4, 5]]), "has shape"),
        (broken(rec, dealer=7), "dealer 7 is not a seat"),
        (broken(rec, played_in=[20] * 32), "values must be -1 or 0..9"),
        (broken(rec, scores=[1, 2, 3]), "does not replay: its 'scores'"),
        (broken(rec, first_trump=(int(rec["first_trump"]) + 1) % 4), "does not replay|not legal"),
        (broken(rec, dealer="x"), "must hold integers"),
        ([1, 2], "record 0 is a int"),
        ("text", "expected a deal record"),
    ]
    # a card of P0 said to be played by P1: P0 has no card for that trick (or P1 one it does not hold)
    moved = np.asarray(rec["played_by"]).copy()
    moved[int(np.flatnonzero(moved == 0)[0])] = 1
    cases.append((broken(rec, played_by=moved.tolist()), "names 0 cards of P0|names 2 cards|still holds"))
    for data, message in cases:
        with pytest.raises(ValueError, match=message):
            records = load_records(data, "farbwechsel")
            replay_frames(records, 0)
    with pytest.raises(ValueError, match="do not say their game"):
        load_records(good)
    with pytest.raises(ValueError, match="holds 'farbwechsel' records, not 'koenigrufen'"):
        load_records({"game": "farbwechsel", "record": good}, "koenigrufen")
    with pytest.raises(ValueError, match="not a JSON file"):
        load_json("{broken", "farbwechsel")
    with pytest.raises(IndexError, match="out of range"):
        replay_frames(load_records(good, "farbwechsel"), 3)


def test_eval_writes_a_records_file_that_replays(tmp_path, capsys):
    path = tmp_path / "records.json"
    main(["eval", "farbwechsel", "--agents", "rules,random", "--deals", "4", "--seed", "3", "--records", str(path),
          "--no-progress", "--no-ratings"])
    doc = json.loads(path.read_text())
    assert doc["format"] == "trickenv-records" and doc["game"] == "farbwechsel" and doc["agents"] == ["rules", "random"]
    records = load_records(doc)
    results = evaluate("farbwechsel", ["rules", "random"], deals=4, seed=3, progress=False, ratings=False)
    seatings = len(results.seatings)
    assert len(records.records) == 4 * seatings
    # row r = deal r // S in seating r % S: its scores are the evaluation's table
    table = results.table_data.scores.reshape(-1, 3)
    assert np.array_equal(np.array([r["scores"] for r in records.records]), table)
    assert records.seats[1] == [results.names[a] for a in results.seatings[1]]
    for i in range(len(records.records)):
        replay_frames(records, i)
    with pytest.raises(ValueError, match="kept no records"):
        results.save_records(str(tmp_path / "none.json"))
