"""The ``search`` agent (PIMC over solved endgames): legal everywhere, repeatable, blind to hidden cards."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.agents import SearchAgent, make_agent
from trickenv.agents.evaluation import evaluate
from trickenv.engine.layout import TO_ACT, TRICK_NO
from trickenv.solver import Solver
from trickenv.agents.search_defaults import search_defaults
from tests.test_sampler import _hide_differently, play_random
from tests.helpers import play_batched_deals
from tests.variants import IDS, VARIANTS

SINGLE = [(g, o) for g, o in VARIANTS if o.get("rounds", 1) == 1 and "win_at" not in o and "target_schedule" not in o]
SINGLE_IDS = [i for (g, o), i in zip(VARIANTS, IDS, strict=True) if (g, o) in SINGLE]


@pytest.mark.parametrize("game,options", SINGLE, ids=SINGLE_IDS)
def test_search_plays_only_legal_actions_in_every_variant(game, options):
    spec = trickenv.make_spec(game, **options)
    agent = SearchAgent(spec, seed=1, worlds=3, solve_tricks=2, rollout="random")
    play_batched_deals(agent, game, options, 8, seed=2)
    assert agent.solver.nodes > 0  # the endgames were solved


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_search_decisions_depend_only_on_what_the_seat_knows(game, options, monkeypatch):
    """A game changed in what the seat cannot know (other hands, set-aside cards, King Calling's hidden
    partner and batches, the generators) gets the same actions and values; the solver is only ever given the
    sampled worlds, never the real game."""
    given = []
    run = Solver._run

    def spy(self, state, games, seats, per_move):
        given.append(state)
        return run(self, state, games, seats, per_move)

    monkeypatch.setattr(Solver, "_run", spy)
    rng = np.random.default_rng(0)
    for seed, steps in ((1, 2), (2, 9), (3, 17), (4, 26)):
        env, _ = play_random(game, options, seed, steps)
        spec, state = env.spec, env.game
        seat = int(state.s[0, TO_ACT])
        other = _hide_differently(spec, state, seat, rng)
        obs = env.observe(env.agent_selection)
        o, m = obs["observation"][None], obs["action_mask"][None].astype(bool)
        results = []
        for st in (state, other):
            agent = SearchAgent(spec, seed=5, worlds=4, solve_tricks=2)
            results.append(agent.search_batch(o, m, state=st, games=np.array([0])))
        assert results[0][0][0] == results[1][0][0]
        np.testing.assert_array_equal(results[0][1], results[1][1])
        assert all(x is not state and x is not other for x in given)


def test_search_repeats_for_a_seed_and_matches_in_the_aec_env():
    env = trickenv.make("koenigrufen").unwrapped
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(12):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    obs = env.observe(env.agent_selection)
    a = SearchAgent(env.spec, seed=3, worlds=8).act(obs, state=env.game)
    b = SearchAgent(env.spec, seed=3, worlds=8).act_batch(
        obs["observation"][None], obs["action_mask"][None].astype(bool), state=env.game, games=np.array([0]))[0]
    assert a == b and obs["action_mask"][a]
    with pytest.raises(ValueError, match="needs the engine state"):
        SearchAgent(env.spec).act(obs)
    with pytest.raises(ValueError, match="solve_tricks must be an integer >= 0"):
        SearchAgent(env.spec, solve_tricks=-1)
    with pytest.raises(ValueError, match="opponents must be one of"):
        SearchAgent(env.spec, opponents="nice")


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_in_the_endgame_the_values_are_the_solved_values_of_the_worlds(game, monkeypatch):
    """Given worlds that are all the real deal, an endgame decision's values are the solver's exact values of the
    real position, and the move played is the best of them."""
    import trickenv.agents.search as search

    monkeypatch.setattr(search, "sample_worlds", lambda spec, state, games, seats, k, seed: state.take(
        np.repeat(np.asarray(games), k)))
    env = trickenv.make(game).unwrapped
    env.reset(seed=7)
    rng = np.random.default_rng(1)
    while env.game.s[0, TRICK_NO] < env.spec.num_tricks - 3:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    obs = env.observe(env.agent_selection)
    legal = obs["action_mask"].astype(bool)
    agent = SearchAgent(env.spec, seed=0, worlds=3, solve_tricks=3)
    actions, values = agent.search_batch(obs["observation"][None], legal[None], state=env.game, games=np.array([0]))
    exact = Solver(env.spec, tiebreak=agent.tiebreak).move_values(env.game, [0], [int(env.game.s[0, TO_ACT])])[0]
    if legal.sum() > 1:
        np.testing.assert_allclose(values[0, legal], exact[legal], atol=1e-9)
    assert exact[actions[0]] == np.nanmax(exact)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_search_beats_random(game):
    res = evaluate(game, [make_agent("search", game, seed=0, worlds=4, rollout="random"), "random"], deals=30,
                   seed=3, progress=False, ratings=False)
    pair = res.to_dict()["pairs"][0]
    assert pair["ci95"][0] > 0, pair


def test_search_on_the_command_line_eval_play_and_tournament(tmp_path, capsys):
    """``search:N`` sets the worlds; ``trickenv eval``, ``trickenv play`` and the tournament take the agent."""
    import io
    import json

    from trickenv.agents.evaluation import tournament
    from trickenv.cli import main
    from trickenv.play import play

    assert make_agent("search:5", "koenigrufen").worlds == 5
    with pytest.raises(ValueError, match="worlds must be int"):
        make_agent("search:many", "koenigrufen")
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("rules:5", "koenigrufen")
    main(["eval", "koenigrufen", "--agents", "search:2,rules", "--deals", "2", "--no-progress", "--no-ratings",
          "--json", str(tmp_path / "out.json")])
    out = json.loads((tmp_path / "out.json").read_text())
    assert list(out["agents"]) == ["search:2", "rules"]
    capsys.readouterr()
    text = io.StringIO()
    result = play("four_tricks", seat=0, opponents="search:2", seed=1, input=["1"] * 40, output=text)
    assert result["deals"] == 1 and "P1 search:2" in text.getvalue()
    res = tournament(["rules", "search:2"], deals=2, games=["farbwechsel"], progress=False)
    assert res["farbwechsel"].to_dict()["pairs"][0]["b"] == "search:2"


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_card_model_weights_read_only_the_seats_observation(game):
    """The shipped card-location model: probabilities per card sum to 1, and the weights of a decision's worlds
    are the same for two games that differ only in what the seat cannot know."""
    from trickenv.agents.card_model import CardModel
    from trickenv.sampler import sample_worlds

    spec = trickenv.make_spec(game)
    model = CardModel(spec)
    rng = np.random.default_rng(0)
    env, _ = play_random(game, {}, 2, 9)
    seat = int(env.game.s[0, TO_ACT])
    other = _hide_differently(spec, env.game, seat, rng)
    obs = env.observe(env.agent_selection)["observation"][None]
    np.testing.assert_allclose(np.exp(model.log_probs(obs)).sum(axis=2), 1.0, rtol=1e-5)
    weights = []
    for st in (env.game, other):
        worlds = sample_worlds(spec, st, np.array([0]), np.array([seat]), 16, seed=3)
        weights.append(model.world_log_weights(st, np.array([0]), worlds, 16))
    np.testing.assert_array_equal(weights[0], weights[1])
    assert np.isfinite(weights[0]).all() and weights[0].std() > 0  # the worlds are told apart
    agent = SearchAgent(spec, seed=1, worlds=6, inference="cards")
    o, m = obs, env.observe(env.agent_selection)["action_mask"][None].astype(bool)
    a = agent.search_batch(o, m, state=env.game, games=np.array([0]))
    b = SearchAgent(spec, seed=1, worlds=6, inference="cards").search_batch(o, m, state=other, games=np.array([0]))
    assert a[0][0] == b[0][0]
    np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="was fitted for"):
        CardModel(trickenv.make_spec(game, rounds=2))
    with pytest.raises(ValueError, match="inference must be one of none, cards"):
        SearchAgent(spec, inference="psychic")


def test_card_model_training_writes_a_model_the_agent_loads(tmp_path):
    from trickenv.agents.card_model import CardModel
    from trickenv.training.card_model import main

    out = tmp_path / "kc_cards.npz"
    main(["koenigrufen", "--samples", "20000", "--epochs", "3", "--out", str(out)])
    model = CardModel(trickenv.make_spec("koenigrufen"), out)
    assert model.meta["samples"] == 20000 and model.meta["cross_entropy"] < model.meta["baseline_cross_entropy"]
    with pytest.raises(FileNotFoundError, match="python -m trickenv.training.card_model"):
        CardModel(trickenv.make_spec("koenigrufen"), tmp_path / "missing.npz")


def test_the_search_agent_leaves_four_tricks_bids_to_the_rule_based_agent():
    """Measured: searched bids lose to the heuristic's (docs/results/strength.md), so with bids ``search`` searches the cards
    only; ``pimc`` keeps the game's default, and an explicit ``search=`` still wins."""
    bids = trickenv.make_spec("four_tricks", bidding=True)
    assert SearchAgent(bids, seed=0, worlds=2).search == "cards"
    assert make_agent("pimc", bids, seed=0).search == search_defaults(bids).decisions == "all"
    assert SearchAgent(bids, seed=0, worlds=2, search="all").search == "all"
    assert SearchAgent(trickenv.make_spec("four_tricks"), seed=0, worlds=2).search == "all"  # the trump choice pays


def test_four_tricks_search_plays_out_with_the_shipped_player_where_it_fits():
    """SearchDefaults.rollout: Four Tricks' default playouts are its shipped player's (measured stronger,
    docs/how-it-was-found/search.md); a variant the player does not fit, and the other games, keep the rule-based agent's; an
    explicit ``rollout=`` wins."""
    from trickenv.agents.policy import PolicyAgent

    default = SearchAgent(trickenv.make_spec("four_tricks"), seed=0, worlds=2)
    # The player the search was measured with (SearchDefaults.playouts), not whichever is shipped now.
    assert isinstance(default.policy, PolicyAgent) and default.policy.path.name == "four_tricks_rollout.npz"
    assert default.refine == 3  # the second look comes with those playouts
    asked = SearchAgent(trickenv.make_spec("four_tricks"), seed=0, worlds=2, rollout="model")
    assert asked.policy.path.name == "four_tricks.npz" and asked.refine == 0
    assert SearchAgent(trickenv.make_spec("four_tricks", deck=52), seed=0, worlds=2).rollout_name == "rules"
    assert SearchAgent(trickenv.make_spec("four_tricks"), seed=0, worlds=2, rollout="rules").rollout_name == "rules"
    for game in ("farbwechsel", "koenigrufen"):
        agent = SearchAgent(trickenv.make_spec(game), seed=0, worlds=2)
        assert agent.rollout_name == "rules" and not isinstance(agent.policy, PolicyAgent)


def test_four_tricks_search_takes_a_second_look_with_its_default_playouts():
    """SearchDefaults.refine comes with the playouts it was measured with: Four Tricks' default search
    takes its second look (3 moves in twice its worlds more: 64 + 128); other playouts, other variants and
    the other games take none unless asked; explicit values win."""
    spec = trickenv.make_spec("four_tricks")
    assert search_defaults(spec).refine == (3, 2.0)
    default = SearchAgent(spec, seed=0)
    assert (default.worlds, default.refine, default.refine_worlds) == (64, 3, 128)
    assert (make_agent("search:5", spec).refine, make_agent("search:5", spec).refine_worlds) == (3, 10)
    assert SearchAgent(spec, seed=0, worlds=2, rollout="rules").refine == 0
    assert SearchAgent(spec, seed=0, worlds=2, rollout="model").refine == 0  # asked for: no game default
    assert SearchAgent(trickenv.make_spec("four_tricks", deck=52), seed=0, worlds=2).refine == 0
    assert (SearchAgent(spec, seed=0, worlds=2, refine=0).refine, SearchAgent(spec, seed=0, worlds=2, refine=2,
                                                                               ).refine_worlds) == (0, 2)
    assert SearchAgent(spec, seed=0, worlds=2, refine_worlds=5).refine_worlds == 5
    for game in ("farbwechsel", "koenigrufen"):
        assert SearchAgent(trickenv.make_spec(game), seed=0, worlds=2).refine == 0


def _mid_deal(game, seed, steps):
    vec = trickenv.make_vec(game, 16, seed=seed)
    obs, mask, _ = vec.reset()
    rules = make_agent("rules", game, seed=seed)
    for _ in range(steps):
        obs, mask, *_ = vec.step(rules.act_batch(obs, mask))
    return vec, obs, mask


@pytest.mark.parametrize("game,steps", [("four_tricks", 7), ("farbwechsel", 4), ("koenigrufen", 40)])
def test_the_second_look_revalues_only_the_best_actions(game, steps):
    """``refine=k``: the first look's values are kept for all but the k best actions of each decision; those
    k are the mean over both looks' worlds, and the played action is the best of the values returned."""
    vec, obs, mask = _mid_deal(game, 3, steps)
    rows = np.arange(vec.num_envs)
    kw = dict(seed=4, worlds=4, solve_tricks=2, rollout="rules")
    _, first = SearchAgent(vec.spec, **kw).search_batch(obs, mask, state=vec.state, games=rows)
    agent = SearchAgent(vec.spec, refine=2, refine_worlds=8, **kw)
    actions, values = agent.search_batch(obs, mask, state=vec.state, games=rows)
    searched = ~np.isnan(first).all(axis=1)
    assert searched.sum() >= 4
    for i in np.flatnonzero(searched):
        legal = np.flatnonzero(~np.isnan(first[i]))
        order = legal[np.argsort(-first[i, legal], kind="stable")]
        top, rest = order[:2], order[2:]
        np.testing.assert_array_equal(values[i, rest], first[i, rest])
        assert values[i, actions[i]] == values[i, legal].max()  # (float32 values: a tie may hide a float64 order)
        # Each value is a mean of playout/solver scores: a weighted mean of a 4-world and an 8-world mean.
        assert np.all(np.isfinite(values[i, top]))
    assert not np.array_equal(np.nan_to_num(values), np.nan_to_num(first))  # the second look moved some value
    again = SearchAgent(vec.spec, refine=2, refine_worlds=8, **kw).search_batch(obs, mask, state=vec.state, games=rows)
    np.testing.assert_array_equal(again[1], values)
    np.testing.assert_array_equal(again[0], actions)


def test_the_second_look_with_the_same_worlds_is_the_first_look_of_twice_as_many():
    """With the second look's worlds equal to the first's, a refined value is exactly the mean over both looks:
    checked by giving the second look the first look's worlds (the value must then not move)."""
    vec, obs, mask = _mid_deal("four_tricks", 5, 10)
    rows = np.arange(vec.num_envs)
    kw = dict(seed=6, worlds=4, solve_tricks=2, rollout="rules")
    _, first = SearchAgent(vec.spec, **kw).search_batch(obs, mask, state=vec.state, games=rows)
    agent = SearchAgent(vec.spec, refine=3, **kw)
    draw = agent._worlds
    agent._worlds = lambda state, games, seats, look=0: draw(state, games, seats)  # both looks: the same worlds
    _, values = agent.search_batch(obs, mask, state=vec.state, games=rows)
    np.testing.assert_allclose(values, first, rtol=1e-6)


@pytest.mark.parametrize("bad,match", [({"refine": -1}, "refine must be an integer >= 0"),
                                       ({"refine": 1.5}, "refine must be an integer >= 0"),
                                       ({"refine": 2, "refine_worlds": 0}, "refine_worlds must be a positive integer")])
def test_a_bad_second_look_is_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        SearchAgent(trickenv.make_spec("koenigrufen"), seed=0, worlds=2, **bad)
