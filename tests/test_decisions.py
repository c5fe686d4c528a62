"""Decisions before the play from learned values (trickenv.agents.decisions, trickenv.training.decisions):
the features see only what the decider knows and respect the suit symmetry, the simulation plays each choice
of the same deal, a run writes a value file that any agent plays with ``decisions=PATH``, and bad input is a
clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.decisions import DecisionValues, LearnedDecisions, save_values
from trickenv.cli import main
from trickenv.games.hand_features import hand_from_suit
from trickenv.vector import VecEnv

pytest.importorskip("torch")
from trickenv.training.decisions import DecisionsConfig, decision_of, run_decisions, simulate  # noqa: E402

VARIANTS = [("koenigrufen", {}, "call"), ("four_tricks", {}, "trump"), ("four_tricks", {"bidding": True}, "trump"),
            ("farbwechsel", {}, "trump"), ("farbwechsel", {"switch_mode": "cycle"}, "trump"),
            ("farbwechsel", {"num_players": 4, "partnership": True}, "trump")]


def first_obs(spec, deals=64, seed=3):
    vec = VecEnv(spec, deals, seed=seed)
    obs, mask, _ = vec.reset()
    return vec, obs, mask


@pytest.mark.parametrize("game,options,name", VARIANTS)
def test_each_variant_names_its_decision_pending_at_the_first_turn(game, options, name):
    spec = trickenv.make_spec(game, **options)
    d = decision_of(spec, name)
    _, obs, mask = first_obs(spec)
    assert mask[:, d.first:d.first + d.count].any(axis=1).all()
    x = d.features(spec, obs)
    assert x.shape[:2] == (len(obs), d.count) and x.dtype == np.float32
    with pytest.raises(ValueError, match=f"has no decision 'deal' to learn; its decisions: .*{name}"):
        decision_of(spec, "deal")
    assert trickenv.make_spec("four_tricks", trump="none").learning.decisions(
        trickenv.make_spec("four_tricks", trump="none")) == ()


def test_hands_alike_but_for_the_suits_names_give_the_same_rows():
    """Renaming the suits of a hand renames its choices and nothing else (the suits are alike); in the fixed
    Farbwechsel (trump moves along the cycle) only a rotation of the suits does."""
    rng = np.random.default_rng(0)
    hand = np.zeros((200, 48), bool)
    for row in hand:
        row[rng.choice(48, 16, replace=False)] = True
    choices = np.broadcast_to(np.arange(4), (200, 4))
    x = hand_from_suit(hand, choices)
    for perm in ([1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 1, 0], [1, 2, 3, 0], [2, 3, 0, 1]):
        renamed = hand.reshape(200, 4, 12)[:, np.argsort(perm)].reshape(200, 48)  # suit s becomes perm[s]
        y = hand_from_suit(renamed, choices)
        assert np.array_equal(y[:, perm], x)
        cyc = hand_from_suit(renamed, choices, sort_others=False)
        same = np.array_equal(cyc[:, perm], hand_from_suit(hand, choices, sort_others=False))
        assert same == (perm in ([1, 2, 3, 0], [2, 3, 0, 1]))  # the rotations of the suits keep the cycle
    assert x[:, 0, :12].sum() == hand[:, :12].sum()  # the chosen suit's holding comes first


def test_the_choice_depends_only_on_what_the_decider_knows(tmp_path):
    """Deals alike in the decider's cards, the other hands dealt anew: the same features, values and choice."""
    spec = trickenv.make_spec("koenigrufen")
    values = tiny_values(spec, "call", tmp_path)
    vec, obs, mask = first_obs(spec, deals=32)
    deals, dealers = (np.array(a) for a in vec.current_deals())
    caller = (dealers + 1) % 4
    rng = np.random.default_rng(1)
    other = deals.copy()
    for g in range(len(deals)):  # shuffle every card the caller does not hold in its first four among the rest
        seats = [p for p in range(4) if p != caller[g]]
        rest = np.concatenate([deals[g, p] for p in seats] + [deals[g, caller[g], 4:]])
        rest = rng.permutation(rest)
        other[g, caller[g], 4:] = rest[:4]
        for i, p in enumerate(seats):
            other[g, p] = rest[4 + 8 * i: 12 + 8 * i]
    vec2 = VecEnv(spec, len(deals), seed=9)
    obs2, mask2, _ = vec2.reset(deals=other, dealers=dealers)
    assert not np.array_equal(other, deals)
    assert np.array_equal(obs2, obs) and np.array_equal(values.choose(obs2, mask2), values.choose(obs, mask))


def test_the_simulation_plays_every_choice_of_the_same_deal():
    """The outcome of choice k is the decider's score when the deal is played with k by the player."""
    spec = trickenv.make_spec("four_tricks")
    d = decision_of(spec, "trump")
    player = make_agent("rules", spec)
    sim = simulate(spec, d, 6, seed=4, player=player, batch=4)
    assert sim["legal"].all() and not np.isnan(sim["outcome"]).any()
    vec = VecEnv(spec, 6, seed=4)
    vec.reset()
    deals, dealers = (np.array(a) for a in vec.current_deals())
    for k in range(4):
        env = VecEnv(spec, 6, seed=0)
        obs, mask, to_act = env.reset(deals=deals, dealers=dealers)
        assert np.array_equal(obs, sim["obs"])
        decider = to_act.copy()
        obs, mask, to_act, _, _ = env.step(np.full(6, d.first + k))
        scores = np.zeros(6)
        while True:
            obs, mask, to_act, _, _ = env.step(player.act_batch(obs, mask))
            if env.deal_end.all():
                rec = env.deal_records()
                scores[rec["game"]] = rec["scores"][np.arange(len(rec["game"])), decider[rec["game"]]]
                break
        assert np.array_equal(scores, sim["outcome"][:, k]), k


def play_out(spec, deals, seed, agent):
    """The first ``deals`` deals of a VecEnv seeded ``seed``, each played once by ``agent`` in every seat: the
    scores [deals, seats], the dealers, and how often each action was taken."""
    vec = VecEnv(spec, deals, seed=seed)
    obs, mask, _ = vec.reset()
    _, dealers = (np.array(a) for a in vec.current_deals())
    scores = np.zeros((deals, spec.num_players))
    taken = np.zeros(spec.num_actions, int)
    live = np.ones(deals, bool)
    while live.any():
        act = np.asarray(agent.act_batch(obs, mask), np.int64)
        taken += np.bincount(act[live], minlength=spec.num_actions)
        obs, mask, _, _, _ = vec.step(act, where=live)
        if vec.deal_end.any():
            rec = vec.deal_records()
            scores[rec["game"]] = rec["scores"]
            live[rec["game"]] = False
    return scores, dealers, taken


def tiny_values(spec, name, tmp_path) -> LearnedDecisions:
    """A value file of random weights (what a fit writes), as the agents read it."""
    d = decision_of(spec, name)
    width = d.features(spec, first_obs(spec, 1)[1]).shape[2]
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(width, 8)), rng.normal(size=8)), (rng.normal(size=(8, 1)), np.zeros(1))]
    path = tmp_path / f"{spec.name}_{name}.npz"
    save_values(path, layers, {"game": spec.name, "options": {k: v for k, v in spec.options.items()
                                                               if k not in ("rounds", "win_at")},
                               "decision": name, "features": width})
    return LearnedDecisions(spec, path)


def test_a_run_writes_values_that_any_agent_plays(tmp_path, capsys):
    out = tmp_path / "run"
    cfg = DecisionsConfig(game="four_tricks", decision="trump", out=str(out), deals=300, holdout=100, chunk=100,
                          epochs=1, hidden=8, seed=2)
    report = run_decisions(cfg, log=lambda *_: None)
    path = out / "four_tricks_trump.npz"
    assert path.is_file() and json.loads((out / "report.json").read_text()) == report
    assert set(report["by_deals"]) == {"50", "100", "200"} and report["held_out"]["deals"] == 100
    lo, hi = report["held_out"]["ci95"]
    assert lo <= report["held_out"]["gain"] <= hi
    # Continued: the kept chunks are read, not simulated again; other settings are refused.
    stamps = {p: p.stat().st_mtime_ns for p in out.glob("chunk_*.npz")}
    assert len(stamps) == 3
    run_decisions(DecisionsConfig(**{**cfg.__dict__, "resume": True, "epochs": 2}), log=lambda *_: None)
    assert {p: p.stat().st_mtime_ns for p in out.glob("chunk_*.npz")} == stamps
    with pytest.raises(ValueError, match="it differs in deals"):
        run_decisions(DecisionsConfig(**{**cfg.__dict__, "resume": True, "deals": 400}))
    with pytest.raises(ValueError, match="is not empty: continue its run with --resume"):
        run_decisions(cfg)
    # The agent with the values: the learned choice at the trump, the rules player's moves elsewhere.
    spec = trickenv.make_spec("four_tricks")
    agent = make_agent(f"rules:decisions={path}", spec, seed=1)
    plain = make_agent("rules", spec, seed=1)
    vec, obs, mask = first_obs(spec, deals=50)
    values = DecisionValues.load(spec, path).values(obs)
    assert np.array_equal(agent.act_batch(obs, mask), spec.deck + values.argmax(axis=1))
    obs, mask, _, _, _ = vec.step(plain.act_batch(obs, mask))
    assert np.array_equal(agent.act_batch(obs, mask), plain.act_batch(obs, mask))
    one = {"observation": obs[0], "action_mask": mask[0]}
    assert agent.act(one) == plain.act(one)
    assert type(make_agent("rules:decisions=own", spec)) is type(plain)
    # The command line: the same run, and its errors in one line.
    main(["eval", "four_tricks", "--agents", f"rules:decisions={path},rules", "--deals", "4", "--seed", "1",
          "--no-progress", "--no-ratings"])
    assert f"rules:decisions={path}" in capsys.readouterr().out


def test_bad_input_is_one_clear_message(tmp_path):
    spec = trickenv.make_spec("four_tricks")
    for argv, message in [
        (["decisions", "four_tricks", "call", "--out", str(tmp_path / "a")], "has no decision 'call' to learn; "
                                                                              "its decisions: trump"),
        (["decisions", "four_tricks", "trump"], "needs --out DIR"),
        (["decisions", "four_tricks", "trump", "trump=none", "--out", str(tmp_path / "b")], "its decisions: none"),
        (["decisions", "four_tricks", "trump", "--out", str(tmp_path / "c"), "--player", "search"],
         "needs the engine state"),
        (["decisions", "four_tricks", "trump", "--out", str(tmp_path / "d"), "--deals", "10", "--holdout", "10"],
         "must be below --deals"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert message in str(stop.value.code) and "\n" not in str(stop.value.code), argv
    values = tiny_values(spec, "trump", tmp_path)
    with pytest.raises(ValueError, match=r"holds values for four_tricks .* not for four_tricks .*'bidding': True"):
        DecisionValues.load(trickenv.make_spec("four_tricks", bidding=True), values.files[0])
    with pytest.raises(ValueError, match="is not a value file"):
        np.savez(tmp_path / "x.npz", a=np.zeros(1))
        LearnedDecisions(spec, tmp_path / "x.npz")
    with pytest.raises(ValueError, match="no value file at"):
        make_agent(f"rules:decisions={tmp_path / 'none.npz'}", spec)
    with pytest.raises(ValueError, match="gives 'decisions', and so does the caller"):
        make_agent("rules:decisions=learned", spec, decisions="learned")


def test_the_shipped_values_play_their_variants_and_journals_know_them(tmp_path):
    from trickenv.agents.decisions import shipped_value_files
    from trickenv.agents.journal import player_files

    for options, names in (({}, ["four_tricks_trump.npz"]),
                           ({"bidding": True}, ["four_tricks_bidding_bid.npz", "four_tricks_bidding_trump.npz"])):
        spec = trickenv.make_spec("four_tricks", **options)
        agent = make_agent("rules:decisions=learned", spec)
        assert [p.name for p in agent.learned.files] == names
        _, obs, mask = first_obs(spec, deals=40)
        act = agent.act_batch(obs, mask)
        assert mask[np.arange(40), act].all() and (act >= spec.deck).all()
    kc = trickenv.make_spec("koenigrufen")
    assert [p.name for p in make_agent("rules:decisions=learned", kc).learned.files] == ["koenigrufen_declaration.npz"]
    with pytest.raises(ValueError, match=r"no decision values shipped are for farbwechsel .*; they are for: "
                                         r"four_tricks .*; koenigrufen"):
        make_agent("search:decisions=learned", trickenv.make_spec("farbwechsel"))
    shipped = player_files(["search:decisions=learned", "rules"])
    assert {f"decisions/{p.name}" for p in shipped_value_files()} <= set(shipped)
    assert not any(k.startswith("decisions/") for k in player_files(["search", "rules"]))
    own = tmp_path / "v.npz"
    own.write_bytes(shipped_value_files()[0].read_bytes())
    assert str(own) in player_files([f"rules:decisions={own}", "rules"])


def test_a_decision_of_every_seat_is_learned_at_each_turn():
    """Four Tricks' bid: deal i branches at the (i mod 3)-th bid, whose bidder has seen that many bids; the
    dealer may not bid what makes the bids add up to the tricks, so that choice has no outcome."""
    spec = trickenv.make_spec("four_tricks", bidding=True)
    d = decision_of(spec, "bid")
    assert d.turns == 3 and d.count == 17
    sim = simulate(spec, d, 6, seed=8, player=make_agent("rules", spec), batch=2)
    off, size = spec.obs_offsets["bids"]
    bids_seen = (sim["obs"][:, off:off + size].reshape(6, 3, 17) != 0).any(axis=2).sum(axis=1)
    assert bids_seen.tolist() == [0, 1, 2, 0, 1, 2]
    nan = np.isnan(sim["outcome"])
    assert np.array_equal(nan, ~sim["legal"])
    assert nan.sum(axis=1).tolist() == [0, 0, 1, 0, 0, 1]


def test_a_folder_of_values_gives_those_of_the_variant(tmp_path):
    ft = tiny_values(trickenv.make_spec("four_tricks"), "trump", tmp_path)
    kc = tiny_values(trickenv.make_spec("koenigrufen"), "call", tmp_path)
    assert LearnedDecisions(trickenv.make_spec("koenigrufen"), tmp_path).files == kc.files
    assert LearnedDecisions(trickenv.make_spec("four_tricks"), tmp_path).files == ft.files
    with pytest.raises(ValueError, match=rf"no decision values in {tmp_path} are for farbwechsel"):
        LearnedDecisions(trickenv.make_spec("farbwechsel"), tmp_path)


def test_search_bids_by_the_learned_values_by_default_where_its_tuning_says_so(tmp_path):
    """search in Four Tricks with bids: the shipped bid values make its bids (made by name or by its class);
    ``decisions=own`` gives back its own (the rule-based bids); the dealer's trump stays its own; pimc and the
    variant without bids take no learned decision by default. A journal hashes the default's value file."""
    from trickenv.agents import SearchAgent
    from trickenv.agents.journal import player_files

    spec = trickenv.make_spec("four_tricks", bidding=True)
    bids = LearnedDecisions(spec, "learned", names=("bid",))
    rules = make_agent("rules", spec)
    vec = VecEnv(spec, 24, seed=11)
    obs, mask, _ = vec.reset()
    games = np.arange(24)
    seen = 0
    for _ in range(4):  # the dealer's trump, then the three bids
        learned = bids.choose(obs, mask)
        by_name = make_agent("search:worlds=2", spec, seed=0).act_batch(obs, mask, state=vec.state, games=games)
        by_class = SearchAgent(spec, seed=0, worlds=2).act_batch(obs, mask, state=vec.state, games=games)
        own = make_agent("search:worlds=2:decisions=own", spec, seed=0).act_batch(obs, mask, state=vec.state,
                                                                                   games=games)
        assert np.array_equal(by_name, by_class)
        pending = learned >= 0
        assert np.array_equal(by_name[pending], learned[pending])
        assert np.array_equal(by_name[~pending], own[~pending])  # the trump: the rule-based agent's
        assert np.array_equal(own, rules.act_batch(obs, mask))
        seen += pending.sum()
        obs, mask, *_ = vec.step(by_name)
    assert seen == 3 * 24 and (bids.choose(obs, mask) < 0).all()
    assert make_agent("pimc", spec).learned is None
    assert make_agent("search", trickenv.make_spec("four_tricks")).learned is None
    default = player_files(["search", "rules"], spec)
    assert "decisions/four_tricks_bidding_bid.npz" in default
    assert not any(k.startswith("decisions/") for k in player_files(["search:decisions=own", "pimc"], spec))
    with pytest.raises(ValueError, match="no value file at"):
        SearchAgent(spec, decisions=str(tmp_path / "none.npz"))


def test_king_calling_declarations_may_be_declined(tmp_path):
    """The declarations' choices are the four marriages, the hundred, all tricks and "none" (play a card). In the
    simulation the player's own choice is the deal as it plays it; values that rate "none" highest make an agent
    play a card where it would declare, values that rate a marriage highest make it declare every marriage it
    may; and the features see the suits from the trump, so a deal with its suits renamed gives the same rows."""
    spec = trickenv.make_spec("koenigrufen")
    d = decision_of(spec, "declaration")
    assert d.decline and d.choices == 7 and d.turns == 4
    player = make_agent("rules", spec, seed=1)
    sim = simulate(spec, d, 48, seed=3, player=player, batch=16)
    came = sim["legal"].any(axis=1)
    assert came.mean() > 0.5 and sim["legal"][came, 6].all() and (sim["own"][came] >= 0).all()
    assert np.isnan(sim["outcome"][~sim["legal"]]).all() and not np.isnan(sim["outcome"][sim["legal"]]).any()
    scores, dealers, _ = play_out(spec, 48, 3, player)  # the player alone: the deal as its own choice plays it
    off, _ = spec.obs_offsets["dealer"]
    decider = (dealers - sim["obs"][:, off:off + 4].argmax(axis=1)) % 4
    rows = np.flatnonzero(came)
    assert np.array_equal(sim["outcome"][rows, sim["own"][rows]], scores[rows, decider[rows]])

    def values_preferring(slots):  # each choice's value: its place in slots from the end (the others: 0)
        width = d.features(spec, first_obs(spec, 1)[1]).shape[2]
        w = np.zeros((width, 1))
        w[width - 7 + np.array(slots), 0] = np.arange(len(slots), 0, -1)
        path = tmp_path / f"prefer_{'_'.join(map(str, slots))}.npz"
        save_values(path, [(w, np.zeros(1))], {"game": "koenigrufen", "options": {"partner_from": "first_batch"},
                                               "decision": "declaration", "features": width})
        return path

    def declared(agent):
        return play_out(spec, 64, 5, agent)[2][d.first:d.first + d.count]

    assert declared(make_agent("rules", spec, seed=0)).sum() > 0
    assert declared(make_agent(f"rules:decisions={values_preferring([6])}", spec, seed=0)).sum() == 0
    marry = declared(make_agent(f"rules:decisions={values_preferring([0, 1, 2, 3, 6])}", spec, seed=0))
    assert marry[:4].sum() > declared(make_agent("rules", spec, seed=0))[:4].sum() and marry[4:].sum() == 0

    perm = np.array([2, 0, 3, 1])  # suit s becomes perm[s] in every block with suits
    renamed = sim["obs"][rows].copy()
    for name, shape in (("hand", (4, 8)), ("trick", (4, 4, 8)), ("called", (4, 8)), ("trump", (4,)),
                        ("marriages", (4, 4))):
        off, _ = spec.obs_offsets[name]
        size = int(np.prod(shape))
        block = sim["obs"][rows, off:off + size].reshape((len(rows),) + shape)
        axis = 1 if name in ("hand", "called", "trump") else 2
        out = np.empty_like(block)
        np.moveaxis(out, axis, 1)[:, perm] = np.moveaxis(block, axis, 1)
        renamed[:, off:off + size] = out.reshape(len(rows), size)
    x = d.features(spec, sim["obs"][rows])
    y = d.features(spec, renamed)
    off, _ = spec.obs_offsets["hand"]
    held = sim["obs"][rows, off:off + 32].reshape(len(rows), 4, 8)
    key = held.sum(axis=2) * 256 + held @ (2 ** np.arange(8))
    distinct = np.array([len(set(k)) == 4 for k in key])  # equal holdings keep their order by the suits' names
    assert distinct.sum() > 5
    assert np.array_equal(y[distinct][:, list(perm) + [4, 5, 6]], x[distinct])


def test_search_decides_for_itself_where_no_shipped_values_fit_its_variant():
    """search bids by the shipped values with bidding=True, but they ship for the 48-card deck only: in the
    52-card variant with a turned-up trump (OpenSpiel's oh_hell) it makes its own decisions."""
    oh_hell = trickenv.make_spec("four_tricks", deck=52, bidding=True, trump="turn_up")
    assert make_agent("search", oh_hell).learned is None
    assert make_agent("search", trickenv.make_spec("four_tricks", bidding=True)).learned is not None
