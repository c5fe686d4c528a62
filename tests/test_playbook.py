"""The playbook (trickenv.research.mining, trickenv.research.playbook, trickenv.agents.playbook): the readable move
features agree with the decoded observation, rules narrow the moves only where they apply, the playbook agent
reads only what its seat knows and plays as the rule-based agent when it has no rule, mining continues a stopped
run with the same positions, and a tree fitted to a known choice finds it and says it in words."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.playbook import Condition, PlaybookAgent, Rule, load_playbook, save_playbook
from trickenv.games.parts import MoveFeatures
from trickenv.vector import VecEnv

FW = trickenv.make_spec("farbwechsel")


def positions(spec, games=48, seed=5, agent="random"):
    """Observations and masks of every decision of ``games`` deals played by ``agent`` in every seat."""
    vec = VecEnv(spec, games, seed=seed)
    obs, mask, _ = vec.reset()
    player = make_agent(agent, spec, seed=seed)
    live = np.ones(games, bool)
    seen_obs, seen_mask = [], []
    while live.any():
        seen_obs.append(obs[live].copy())
        seen_mask.append(mask[live].copy())
        act = np.asarray(player.act_batch(obs, mask), np.int64)
        obs, mask, _, _, _ = vec.step(act, where=live)
        if vec.deal_end.any():
            live[vec.deal_records()["game"]] = False
    return np.concatenate(seen_obs), np.concatenate(seen_mask)


def test_farbwechsel_move_features_match_the_decoded_observation():
    """Each feature, recomputed row by row from ``trickenv.decode`` (another reading of the same blocks)."""
    obs, mask = positions(FW)
    mf = FW.learning.move_features(FW, obs, mask)
    view = trickenv.decode(FW, obs)
    names = {n: i for i, n in enumerate(mf.names)}
    assert mf.values.shape == (len(obs), FW.num_actions, len(mf.names))
    assert np.isnan(mf.values[~mask]).all() and not np.isnan(mf.values[mask]).any()
    points = np.array([0, 0, 0, 10, 2, 3, 4, 11])
    kinds_seen = set()
    for i in range(0, len(obs), 7):
        hand = np.flatnonzero(view["hand"][i])
        trump = int(view["trump"][i])
        on_table = int((view["trick"][i] >= 0).sum())
        done = int((view["trick_trump"][i] >= 0).sum())
        if mask[i, 32:].any():
            kind = "declaring the first trump"
        elif on_table == 0:
            kind = "leading"
        else:
            led = int(view["trick"][i][view["leader"][i]]) // 8
            kind = "following suit" if any(c // 8 == led for c in np.flatnonzero(mask[i, :32])) else "unable to follow suit"
        assert mf.kinds[mf.kind[i]] == kind
        kinds_seen.add(kind)
        past = [int(t) for t in view["trick_trump"][i] if t >= 0] + ([trump] if trump >= 0 else [])
        changes = sum(a != b for a, b in zip(past, past[1:], strict=False))
        for a in np.flatnonzero(mask[i]):
            row = mf.values[i, a]
            s = a // 8 if a < 32 else a - 32
            assert row[names["trick"]] == done and row[names["on_table"]] == on_table
            assert row[names["changes"]] == changes
            assert row[names["suit_len"]] == sum(c // 8 == s for c in hand)
            assert row[names["suit_points"]] == sum(points[c % 8] for c in hand if c // 8 == s)
            assert row[names["my_points"]] == view["points"][i][0]
            if a < 32:
                assert row[names["is_trump"]] == (s == trump)
                assert row[names["points"]] == points[a % 8]
                assert row[names["is_switch"]] == (a % 8 == 5 and s != trump)
    assert kinds_seen == set(mf.kinds)


@pytest.mark.parametrize("game,options", [("koenigrufen", {}), ("four_tricks", {}), ("four_tricks", {"bidding": True}),
                                          ("farbwechsel", {"num_players": 4, "partnership": True})])
def test_every_game_says_its_moves_in_words(game, options):
    """The shared words agree with the decoded observation in every game, each game's own words are spot-checked
    (Four Tricks: the tricks still needed; King Calling: who wins the trick, from a side as the seat knows it),
    and every kind of decision occurs."""
    spec = trickenv.make_spec(game, **options)
    obs, mask = positions(spec, games=24, seed=4, agent="rules")
    mf = spec.learning.move_features(spec, obs, mask)
    view = trickenv.decode(spec, obs)
    col = {n: i for i, n in enumerate(mf.names)}
    assert set(mf.names) <= set(mf.words) and not np.isnan(mf.values[mask]).any()
    ranks = spec.deck // 4
    for i in range(0, len(obs), 5):
        cards = np.flatnonzero(mask[i, :spec.deck])
        for a in cards:
            row = mf.values[i, a]
            assert row[col["suit_len"]] == sum(c // ranks == a // ranks for c in np.flatnonzero(view["hand"][i]))
            assert row[col["is_trump"]] == (a // ranks == view["trump"][i])
            assert row[col["on_table"]] == (view["trick"][i] >= 0).sum()
            assert row[col["trick"]] == view["tricks"][i].sum()
        if game == "four_tricks" and cards.size:
            target = view["target"][i] if view["target"][i] >= 0 else view["bids"][i][0]
            assert mf.values[i, cards[0], col["need"]] == target - view["tricks"][i][0]
    if game == "koenigrufen":
        # The caller once the partner is public: the trick is won by its side exactly when the caller or the
        # partner holds the best card on the table.
        checked = 0
        for i in np.flatnonzero((view["caller"] == 0) & (view["sides"] >= 0) & (view["sides"] < 4)):
            table = view["trick"][i]
            if (table < 0).all() or not mask[i, :32].any():
                continue
            led = table[view["leader"][i]] // 8
            trump = view["trump"][i]
            key = [(c // 8 == trump, c // 8 == led, spec.tab[1, c]) if c >= 0 else (False, False, -1) for c in table]
            best = max(range(4), key=lambda r: key[r])
            ours = best in (0, view["sides"][i])
            a = np.flatnonzero(mask[i, :32])[0]
            assert mf.values[i, a, col["side_wins"]] == ours and mf.values[i, a, col["opponent_wins"]] == (not ours)
            checked += 1
        assert checked > 5
    seen = set(np.unique(mf.kind)) | (set(np.unique(mf.beside)) - {-1} if mf.beside is not None else set())
    assert seen == set(range(len(mf.kinds))) or (game, options) == ("four_tricks", {})


def tiny_features() -> MoveFeatures:
    """Two positions of kind "lead" and one of kind "other", three moves each, one feature ``x``."""
    values = np.array([[[0.0], [1.0], [2.0]], [[1.0], [1.0], [np.nan]], [[0.0], [5.0], [5.0]]], np.float32)
    return MoveFeatures(("lead", "other"), np.array([0, 0, 1]), ("x",), values, {"x": ("x",)})


def test_a_rule_narrows_the_moves_only_where_it_applies():
    mf = tiny_features()
    legal = ~np.isnan(mf.values[:, :, 0])
    play = Rule("lead", (Condition("x", True, 0.5),))
    # row 0: moves 1, 2 meet it and 0 does not; row 1: every legal move meets it (no choice: it does not apply);
    # row 2: another kind.
    assert play.advised(mf, legal).tolist() == [[False, True, True], [False] * 3, [False] * 3]
    avoid = Rule("lead", (Condition("x", True, 0.5),), play=False)
    assert avoid.advised(mf, legal).tolist() == [[True, False, False], [False] * 3, [False] * 3]
    both = Rule("lead", (Condition("x", True, 0.5), Condition("x", False, 1.5)))
    assert both.advised(mf, legal)[0].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="not one of the game's kinds"):
        Rule("bid", ()).advised(mf, legal)


def test_playbook_without_rules_plays_as_the_rules_agent_and_reads_only_the_observation():
    obs, mask = positions(FW, games=32, seed=9)
    plain = PlaybookAgent(FW, seed=1, rules=[])
    assert not plain.needs_state  # act_batch(obs, mask): the seat's observation and legal moves, nothing hidden
    assert np.array_equal(plain.act_batch(obs, mask), make_agent("rules", FW, seed=1).act_batch(obs, mask))
    trumps = PlaybookAgent(FW, seed=1, rules=[Rule("leading", (Condition("is_trump", True, 0.5),))])
    act = trumps.act_batch(obs, mask)
    mf = FW.learning.move_features(FW, obs, mask)
    col = mf.names.index("is_trump")
    lead = mf.kind == mf.kinds.index("leading")
    choice = lead & np.nanmax(np.nan_to_num(mf.values[:, :32, col], nan=-1), axis=1).astype(bool)
    choice &= (np.nan_to_num(mf.values[:, :32, col], nan=1) == 0).any(axis=1)
    assert choice.sum() > 20
    assert (mf.values[np.flatnonzero(choice), act[choice], col] == 1).all(), "a lead with a trump to lead led none"
    assert mask[np.arange(len(act)), act].all()


def test_playbook_files_round_trip_and_bad_ones_are_clear_errors(tmp_path):
    rules = [Rule("unable to follow suit", (Condition("points", False, 0.5), Condition("is_switch", False, 0.5)), True, "t")]
    save_playbook(tmp_path / "fw.json", FW, rules, about={"seed": 1})
    assert load_playbook(tmp_path / "fw.json", FW) == rules
    agent = make_agent(f"playbook:{tmp_path / 'fw.json'}", FW, seed=0)
    assert agent.rules == rules
    with pytest.raises(ValueError, match="learned for other options: num_players=3"):
        load_playbook(tmp_path / "fw.json", trickenv.make_spec("farbwechsel", num_players=4))
    with pytest.raises(ValueError, match="is for 'farbwechsel', not 'koenigrufen'"):
        load_playbook(tmp_path / "fw.json", trickenv.make_spec("koenigrufen"))
    with pytest.raises(FileNotFoundError, match="no playbook at"):
        load_playbook(tmp_path / "none.json", FW)
    data = json.loads((tmp_path / "fw.json").read_text())
    data["rules"][0]["conditions"][0]["feature"] = "luck"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="features farbwechsel does not have: luck; its features: ahead"):
        PlaybookAgent(FW, path=tmp_path / "bad.json")


def test_mining_continues_a_stopped_run_with_the_same_positions(tmp_path):
    from trickenv.research.mining import load_positions, mine_to

    def searcher(k):
        return make_agent("pimc:4", FW, seed=100 + k)

    whole = mine_to(FW, tmp_path / "a", 3, 11, searcher, chunk=1, progress=False)
    assert len(np.unique(whole.game)) == 3 and (whole.mask.sum(axis=1) > 1).all()
    legal = whole.mask
    assert not np.isnan(whole.values[legal]).any() and np.isnan(whole.values[~legal]).all()
    assert whole.mask[np.arange(len(whole)), whole.action].all()
    (tmp_path / "a" / "chunk_00001.npz").unlink()
    again = mine_to(FW, tmp_path / "a", 3, 11, searcher, chunk=1, progress=False)
    for name in ("obs", "mask", "action", "values", "game", "seat"):
        assert np.array_equal(getattr(whole, name), getattr(again, name), equal_nan=name == "values"), name
    assert len(load_positions(tmp_path / "a")) == len(whole)


def test_a_tree_fitted_to_a_known_choice_finds_it_and_says_it():
    """Label as "chosen" the legal card with the most points (the lowest id on a tie): the tree for leads must
    agree with it far above chance, and its strongest rule must speak of the card's points."""
    pytest.importorskip("sklearn")
    from trickenv.research.mining import Positions
    from trickenv.research.playbook import agreement, fit_trees, move_table, tree_rules

    obs, mask = positions(FW, games=96, seed=2)
    keep = mask.sum(axis=1) > 1
    obs, mask = obs[keep], mask[keep]
    pts = np.where(mask[:, :32], FW.tab[2, :32][None, :], -1)
    action = pts.argmax(axis=1)
    action = np.where(mask[:, 32:].any(axis=1), 32 + mask[:, 32:].argmax(axis=1), action)
    pos = Positions(obs.astype(np.int8), mask, action, np.zeros(mask.shape, np.float32),
                    np.arange(len(obs)) // 20, np.zeros(len(obs), np.int64))
    table = move_table(FW, pos)
    train = pos.game % 2 == 0
    fitted = fit_trees(table, train, depth=3, min_leaf=0.01)
    lead = fitted["leading"]
    assert lead["depth"] <= 3
    assert lead["agreement"][0] > lead["chance"][0] + 0.3
    rules = tree_rules(lead["tree"], table.features, "leading", min_moves=5)
    assert rules and "its card points" in rules[0][0].text and rules[0][0].text.startswith("When leading")
    # agreement() by hand: position 0 has two moves tied best, one chosen; position 1 its best move unchosen.
    got = agreement(np.array([1.0, 1.0, 0.0, 0.2, 0.9]), np.array([True, False, False, True, False]),
                    np.array([0, 0, 0, 1, 1]), 2)
    assert got.tolist() == [0.5, 0.0]


def test_imposed_value_counts_the_move_the_player_would_really_make():
    """Give every move the value of its card points: a rule "play a trump when leading" imposed on the
    rule-based agent changes its move exactly where the agent would lead a non-trump and holds a trump, its
    moves are the playbook agent's with that rule, and its value is the mean points gained per seat and deal."""
    pytest.importorskip("sklearn")
    from trickenv.research.mining import Positions
    from trickenv.research.playbook import ImposedValue

    obs, mask = positions(FW, games=40, seed=4)
    keep = mask.sum(axis=1) > 1
    obs, mask = obs[keep], mask[keep]
    values = np.where(mask, np.concatenate([FW.tab[2, :32], np.zeros(FW.num_actions - 32)])[None, :], np.nan)
    game = np.arange(len(obs)) // 12
    pos = Positions(obs.astype(np.int8), mask, mask.argmax(axis=1), values.astype(np.float32), game,
                    np.zeros(len(obs), np.int64))
    player = PlaybookAgent(FW, seed=1, rules=[])
    imposed = ImposedValue(FW, pos, player)
    assert np.array_equal(imposed.reference, player.act_batch(obs, mask))
    rule = Rule("leading", (Condition("is_trump", True, 0.5),))
    everywhere = np.ones(len(pos), bool)
    moves = imposed.moves(rule, everywhere)
    assert np.array_equal(moves, PlaybookAgent(FW, seed=1, rules=[rule]).act_batch(obs, mask))
    changed = moves != imposed.reference
    assert changed.sum() > 5
    gain = values[np.arange(len(pos)), moves] - values[np.arange(len(pos)), imposed.reference]
    per_deal = np.bincount(game, gain) / FW.num_players
    mean, lo, hi = imposed.value(rule, everywhere)
    assert mean == pytest.approx(per_deal.mean()) and lo <= mean <= hi
    half = game % 2 == 0  # only the positions asked about count, over their deals
    assert imposed.value(rule, half)[0] == pytest.approx(per_deal[::2].mean())
    never = Rule("leading", (Condition("trick", True, 99.0),))
    assert imposed.value(never, everywhere)[:2] == (0.0, 0.0)


def test_the_playbook_agent_keeps_no_view_of_its_base_agents_buffer():
    """Four Tricks' rule-based agent reuses the array it returns; the playbook agent's moves (and so
    ImposedValue's reference) must not change when it plays again."""
    ft = trickenv.make_spec("four_tricks")
    obs, mask = positions(ft, games=16, seed=6)
    player = PlaybookAgent(ft, seed=0, rules=[])
    first = player.act_batch(obs, mask)
    kept = first.copy()
    player.act_batch(obs[::-1], mask[::-1])
    assert np.array_equal(first, kept)


def test_the_checking_deals_take_every_turn_of_a_decision_asked_in_turn():
    """One deal in four checks the trees, whatever the deal's number modulo the turns a simulation branches at
    (King Calling's declarations: 4)."""
    from trickenv.research.playbook import fitting_deals

    game = np.arange(40_000)
    fit = fitting_deals(game)
    assert abs(fit.mean() - 0.75) < 0.01
    for turns in (2, 3, 4, 8):
        for t in range(turns):
            assert abs(fit[game % turns == t].mean() - 0.75) < 0.03, (turns, t)
    assert (fitting_deals(game[:100]) == fit[:100]).all(), "a deal's part depends on its number alone"


def test_learning_a_playbook_keeps_only_rules_that_held_in_play():
    """Two rounds of learn_playbook on 200 of the committed mined Farbwechsel deals: the candidates, the ones the
    search's values pass (intervals above 0 on both halves), the best of them tried in play, and the kept ones
    held there."""
    pytest.importorskip("sklearn")
    from trickenv.research.deals import make_deals
    from trickenv.research.mining import load_positions
    from trickenv.research.playbook import learn_playbook
    from trickenv.research.repo import repo_root

    pos = load_positions(repo_root() / "docs" / "data" / "mined" / "farbwechsel_7101")
    pos = pos.take(pos.game < 200)
    deals, dealers = make_deals(FW, 500, 77)
    said = []
    report = learn_playbook(FW, pos, deals, dealers, rounds=2, tries=3, subsets=0, log=said.append)
    assert said[0].startswith("round 1: ")
    first = report["rounds"][0]
    assert first["candidates"] > 100 and first["passed"] and len(first["measured"]) == 3
    for _, fit, held in first["passed"]:
        assert fit[1] > 0 and held[1] > 0
    assert [f for _, f, _ in first["passed"]] == sorted((f for _, f, _ in first["passed"]), key=lambda f: -f[0])
    assert [m["rule"] for m in first["measured"]] == [r for r, _, _ in first["passed"][:3]]
    assert report["rules"], "nothing held in play"
    for rnd in report["rounds"]:
        for m in rnd["measured"]:
            if m["rule"] in rnd["chosen"]:
                assert m["effect"][0] > 0 and m["p_adjusted"] < 0.05
    assert report["rules"] == [r for rnd in report["rounds"] for r in rnd["chosen"]]


def test_the_playbook_command_writes_a_playbook_that_plays(tmp_path, capsys):
    """``python -m trickenv.research playbook`` on 200 mined deals: the file loads, says how it was chosen, and
    its agent plays."""
    import shutil

    from trickenv.research.__main__ import main
    from trickenv.research.repo import repo_root

    mined = tmp_path / "mined"
    mined.mkdir()
    for path in sorted((repo_root() / "docs" / "data" / "mined" / "farbwechsel_7101").glob("chunk_*.npz"))[:20]:
        shutil.copy(path, mined / path.name)
    main(["playbook", "farbwechsel", "--mined", str(mined), "--seed", "77", "--deals", "300", "--rounds", "1",
          "--tries", "2", "--out", str(tmp_path / "fw.json")])
    about = json.loads((tmp_path / "fw.json").read_text())["about"]
    assert about["mined_deals"] == 200 and about["choosing_seed"] == 77 and about["tries"] == 2
    assert about["rounds"] == 1 and about["tried"] == [2] and about["passed"][0] >= 2
    rules = load_playbook(tmp_path / "fw.json", FW)
    assert len(rules) == len(about["chosen"]) == 1 and about["chosen"][0]["text"] == rules[0].text
    assert "fw.json: 1 rule\n" in capsys.readouterr().out
    obs, mask = positions(FW, games=8, seed=3)
    act = make_agent(f"playbook:{tmp_path / 'fw.json'}", FW, seed=0).act_batch(obs, mask)
    assert mask[np.arange(len(act)), act].all()


def test_rules_are_kept_only_where_they_held():
    from trickenv.research.playbook import choose_rules

    def m(effect, lo, hi, p, overall):
        return {"rule": Rule("leading", (), text=f"{effect}"), "effect": (effect, lo, hi), "p": p,
                "effect_all": (overall, 0.0, 0.0)}

    measured = [m(2.0, 1.0, 3.0, 1e-6, 0.5), m(-2.0, -3.0, -1.0, 1e-6, -0.5), m(0.5, -0.1, 1.1, 0.2, 0.1),
                m(1.0, 0.2, 1.8, 0.01, 0.9)]
    kept = choose_rules(measured)
    assert [k["rule"].text for k in kept] == ["1.0", "2.0"]  # above 0 and significant, largest overall first
    assert all("p_adjusted" in x for x in measured) and measured[2]["p_adjusted"] >= 0.2
    assert [k["rule"].text for k in choose_rules(measured, most=1)] == ["1.0"]


def test_confirming_drops_a_rule_that_does_not_hold_and_keeps_one_that_does(tmp_path, capsys):
    """``confirm`` on a playbook of the shipped Farbwechsel rule 1, its opposite (play what it avoids: worse in
    play) and rule 1 again (it no longer applies once kept, so it changes nothing): only the first stays."""
    from trickenv.research.__main__ import main
    from trickenv.research.repo import repo_root

    good = load_playbook(repo_root() / "agents" / "playbooks" / "farbwechsel.json", FW)[0]
    bad = Rule(good.kind, good.conditions, not good.play, "the opposite")
    save_playbook(tmp_path / "three.json", FW, [good, bad, good], about={"choosing_seed": 1})
    main(["confirm", "farbwechsel", "--playbook", str(tmp_path / "three.json"), "--seed", "5", "--deals", "300",
          "--out", str(tmp_path / "kept.json")])
    assert load_playbook(tmp_path / "kept.json", FW) == [good]
    data = json.loads((tmp_path / "kept.json").read_text())["about"]
    assert data["choosing_seed"] == 1, "what the playbook said of itself stays"
    measured = data["confirmed"]["measured"]
    assert [m["kept"] for m in measured] == [True, False, False] and data["confirmed"]["seed"] == 5
    assert measured[0]["effect"][1] > 0 > measured[1]["effect"][2]
    out = capsys.readouterr().out
    assert "dropped" in out and "1 of 3 rules" in out
    with pytest.raises(SystemExit, match="--first must be from 0 to 3"):
        main(["confirm", "farbwechsel", "--playbook", str(tmp_path / "three.json"), "--seed", "5", "--first", "4",
              "--out", str(tmp_path / "x.json")])


def test_shipped_playbooks_load_and_apply():
    """Every shipped playbook is the one ``playbook`` plays in its variant, and each of its rules applies somewhere
    in rule-based play (a rule that never applies would be dead weight)."""
    from trickenv.agents.playbook import PLAYBOOKS, shipped_playbook_path

    files = sorted(PLAYBOOKS.glob("*.json"))
    assert files, "no playbook shipped"
    for path in files:
        data = json.loads(path.read_text())
        spec = trickenv.make_spec(data["game"], **data["options"])
        assert shipped_playbook_path(spec) == path
        if path.stem == data["game"]:
            assert data["options"] == json.loads(json.dumps(dict(trickenv.make_spec(data["game"]).options)))
        agent = make_agent("playbook", spec, seed=0)
        assert 1 <= len(agent.rules) <= 12
        obs, mask = positions(spec, games=400, seed=12, agent="rules")
        mf = spec.learning.move_features(spec, obs, mask)
        for rule in agent.rules:
            assert rule.advised(mf, mask).any(), f"{path.name}: {rule.text} never applies"
    with pytest.raises(ValueError, match="learned for other options"):
        make_agent("playbook", trickenv.make_spec("farbwechsel", num_players=4))
    # Four Tricks ships two: the variant asked for is played, and one without a playbook names those with one.
    ft = make_agent("playbook", trickenv.make_spec("four_tricks", bidding=True), seed=0)
    assert ft.rules and all(r.kind in ("bidding", "choosing trump") for r in ft.rules)
    with pytest.raises(FileNotFoundError, match=r"no shipped playbook for four_tricks.*bidding=True.*default options"):
        make_agent("playbook", trickenv.make_spec("four_tricks", target=5))


def test_the_playbook_pages_say_what_the_data_says(tmp_path):
    from trickenv.research.playbook_pages import playbook_page

    # Made-up figures: the page must say whatever the data says.
    rule = Rule("leading", (Condition("is_trump", True, 0.5),), True, "When leading: play a move where it is trump.")
    book = {"game": "farbwechsel", "rules": [rule.to_dict()], "about": {"mined_deals": 60, "positions": 1405,
                                                                         "choosing_deals": 300, "choosing_seed": 9}}
    example = {"trump": "hearts", "tricks": 2, "table": [], "hand": "♥ A 7  ♣ K", "advised": ["A♥", "7♥"],
               "other": ["K♣"], "reference": "K♣", "search": "A♥"}
    findings = [
        {"question": "farbwechsel playbook rule 1: x", "game": "farbwechsel", "base": "rules", "deals": 2000,
         "estimate": 3.5, "ci95": [2.5, 4.5], "p_adjusted": 1e-5, "verdict": "holds", "rule": 1, "affected": 0.25,
         "effect_all": [0.9, 0.6, 1.2], "search_value": [1.5, 1.0, 2.0], "search_positions": 321, "example": example},
        {"question": "farbwechsel: the playbook beats ...", "game": "farbwechsel", "base": "rules", "deals": 2000,
         "estimate": 5.0, "ci95": [4.2, 5.8], "p_adjusted": 1e-9, "verdict": "holds", "search_gap": [15.0, 12.0, 18.0],
         "search_deals": 300, "share_of_gap": 1 / 3},
    ]
    page = playbook_page("farbwechsel", book, findings)
    for said in ("# How to play Farbwechsel well", "When leading: play a move where it is trump.",
                 "+5.00 [+4.20, +5.80]", "closes 33%", "+3.50 [+2.50, +4.50]", "(25% of seat-deals", "321 positions",
                 "The rule keeps A♥ 7♥ and rules out K♣", "would play K♣; the search played A♥"):
        assert said in page, said
    assert "No playbook for King Calling (Königrufen) yet" in playbook_page("koenigrufen", None, findings)


def test_a_card_rule_leaves_king_callings_declarations_alone():
    """In the first trick a seat may declare beside playing a card: a rule of the card play narrows the cards
    and keeps the declarations allowed."""
    kc = trickenv.make_spec("koenigrufen")
    obs, mask = positions(kc, games=64, seed=6, agent="rules")
    declare = mask[:, 64:70].any(axis=1) & (mask[:, :32].sum(axis=1) > 1)
    assert declare.sum() > 10
    mf = kc.learning.move_features(kc, obs, mask)
    rule = Rule(mf.kinds[mf.kind[np.flatnonzero(declare)[0]]], (Condition("is_trump", True, 0.5),))
    advised = rule.advised(mf, mask)
    hit = declare & advised.any(axis=1)
    assert hit.any()
    assert (advised[hit][:, 64:70] == mask[hit][:, 64:70]).all(), "a card rule took a declaration away"
    assert (advised[hit][:, :32] <= mask[hit][:, :32]).all() and (advised[hit][:, :32].sum(axis=1)
                                                                   < mask[hit][:, :32].sum(axis=1)).all()


def test_a_declaring_rule_weighs_the_declarations_against_the_cards():
    """A rule of King Calling's "declaring" applies in the first trick beside the card play's kind: "declare a
    marriage" keeps the legal marriages alone, "avoid declaring" keeps every card and drops the declarations, and
    neither touches a position where nothing may be declared."""
    kc = trickenv.make_spec("koenigrufen")
    obs, mask = positions(kc, games=64, seed=6, agent="rules")
    mf = kc.learning.move_features(kc, obs, mask)
    declaring = mask[:, 64:70].any(axis=1)
    assert ((mf.beside == mf.kinds.index("declaring")) == declaring).all()
    marriage = Rule("declaring", (Condition("marriage", True, 0.5),))
    advised = marriage.advised(mf, mask)
    hit = advised.any(axis=1)
    assert hit.any() and (hit == (declaring & mask[:, 64:68].any(axis=1))).all()
    assert (advised[hit] == (mask[hit] & (np.arange(kc.num_actions) // 4 == 16))).all(), "the marriages alone"
    quiet = Rule("declaring", (Condition("marriage", True, 0.5),), play=False)
    advised = quiet.advised(mf, mask)
    hit = advised.any(axis=1)
    assert (hit == (declaring & mask[:, 64:68].any(axis=1))).all()
    assert (advised[hit][:, :32] == mask[hit][:, :32]).all() and not advised[hit][:, 64:68].any()
    # In the playbook agent, a declaring rule narrows the moves and the rule-based agent plays among them: it
    # declares the marriages it may (rules_koenigrufen), unless told to avoid them.
    assert (make_agent("rules", kc, seed=0).act_batch(obs[hit], mask[hit]) >= 64).any()
    acts = PlaybookAgent(kc, seed=0, rules=[quiet]).act_batch(obs, mask)
    assert not ((acts[hit] >= 64) & (acts[hit] < 68)).any()


def test_the_playbook_pages_are_current(tmp_path):
    """docs/playbook/<game>.md are what the shipped playbooks and the findings give
    (python -m trickenv.research findings writes them)."""
    import shutil

    from trickenv.research.playbook_pages import write_playbook_pages
    from trickenv.research.repo import repo_root

    root = repo_root()
    for part in ("agents/playbooks", "notebooks/findings"):
        if (root / part).exists():
            shutil.copytree(root / part, tmp_path / part)
    for path in write_playbook_pages(tmp_path):
        shipped = root / "docs" / "playbook" / path.name
        assert shipped.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), \
            f"docs/playbook/{path.name} is stale: run python -m trickenv.research findings"
