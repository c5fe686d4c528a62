"""Policy-based inference (trickenv.agents.inference): the replayed history, its likelihood, the worlds it picks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import trickenv
from trickenv.agents import SearchAgent, make_agent
from trickenv.agents import inference as inf
from trickenv.engine.layout import TO_ACT
from trickenv.games.parts import GameWorlds
from trickenv.sampler import sample_worlds
from tests.test_sampler import _hide_differently, play_random
from tests.variants import IDS, VARIANTS

# Single deals of the games that can replay their history from what a seat knows.
REPLAYABLE = [(g, o, i) for (g, o), i in zip(VARIANTS, IDS, strict=True)
              if trickenv.make_spec(g, **o).worlds.history_actions is not None
              and o.get("rounds", 1) == 1 and "win_at" not in o and "target_schedule" not in o]
EPS = 0.3


def _shipped_player_fits(spec) -> bool:
    try:
        make_agent("model", spec)
    except ValueError:
        return False
    return True


def _self_play(spec, policy, games, steps, seed):
    """``policy`` plays every seat of ``games`` batched deals for ``steps`` decisions (the deals must not end);
    returns the env and, per step, the seat to act, the number of its legal moves and whether the game leaves
    that decision unweighed (``GameWorlds.unweighed``)."""
    vec = trickenv.vector.VecEnv(spec, games, seed=seed)
    obs, mask, player = vec.reset()
    history = []
    unweighed = spec.worlds.unweighed or (lambda spec, state, rows: np.zeros(len(rows), np.bool_))
    for _ in range(steps):
        history.append((vec.state.s[:, TO_ACT].copy(), mask.sum(axis=1),
                        unweighed(spec, vec.state, np.arange(games))))
        obs, mask, player, _, done, *_ = vec.step(policy.act_batch(obs, mask))
        assert not done.any()
    return vec, history


@pytest.mark.parametrize("game,options", [(g, o) for g, o, _ in REPLAYABLE], ids=[i for *_, i in REPLAYABLE])
def test_the_true_deal_is_as_likely_as_a_policy_that_made_every_move(game, options):
    """In rule-based self-play, replaying the real deal under the rule-based agent agrees at every decision of
    the other seats: the log-likelihood is the sum of log(1 - eps + eps / n) over their unforced decisions
    (but those the game leaves unweighed: King Calling's call); worlds sampled from the voids alone are on
    average far less likely."""
    spec = trickenv.make_spec(game, **options)
    rules = make_agent("rules", spec)
    steps = spec.num_players * (spec.num_tricks // 2) + 1
    vec, history = _self_play(spec, rules, 8, steps, seed=3)
    games = np.arange(8)
    seats = vec.state.s[:, TO_ACT].astype(np.int64)
    expected = np.zeros(8)
    for actor, legal, unweighed in history:
        ask = (actor != seats) & (legal > 1) & ~unweighed
        expected[ask] += np.log(1 - EPS + EPS / legal[ask])
    true = vec.state.take(games)
    got = inf.history_log_likelihood(spec, vec.state, games, seats, true, 1, rules, EPS)[:, 0]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert (expected < 0).all()  # the test is not empty
    worlds = sample_worlds(spec, vec.state, games, seats, 16, seed=9)
    sampled = inf.history_log_likelihood(spec, vec.state, games, seats, worlds, 16, rules, EPS)
    assert (sampled <= 0).all()
    assert (sampled.mean(axis=1) < expected).all()  # the moves tell something about the cards


def test_a_network_policy_scores_a_move_by_its_probability():
    """Farbwechsel after the dealer's declaration: the next seat's world likelihood is
    (1 - eps) p(declared suit) + eps / 4, p the network's softmax over the dealer's legal declarations."""
    spec = trickenv.make_spec("farbwechsel")
    model = make_agent("model", spec)
    vec = trickenv.vector.VecEnv(spec, 6, seed=2)
    obs, mask, _ = vec.reset()
    mask = mask.copy()  # the env's buffer: the step below overwrites it
    z = np.where(mask, model.logits(obs).astype(np.float64), -np.inf)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    declared = np.array([spec.deck + 1, spec.deck + 3, spec.deck, spec.deck + 2, spec.deck + 1, spec.deck])
    vec.step(declared)
    games = np.arange(6)
    seats = vec.state.s[:, TO_ACT].astype(np.int64)
    got = inf.history_log_likelihood(spec, vec.state, games, seats, vec.state.take(games), 1, model, EPS)[:, 0]
    want = np.log((1 - EPS) * p[games, declared] + EPS / mask.sum(axis=1))
    np.testing.assert_allclose(got, want, rtol=1e-5)  # the folded first layer rounds differently


@pytest.mark.parametrize("game,options", [(g, o) for g, o, _ in REPLAYABLE], ids=[i for *_, i in REPLAYABLE])
def test_inference_depends_only_on_what_the_seat_knows(game, options):
    """A game changed in what the seat cannot know gets the same searched actions and values with
    policy inference (weights and resampled worlds)."""
    rng = np.random.default_rng(1)
    spec = trickenv.make_spec(game, **options)
    policies = ["rules"] + (["model"] if _shipped_player_fits(spec) else [])
    for seed, steps in ((1, 1), (3, 8), (4, 19)):
        env, _ = play_random(game, options, seed, steps)
        state = env.game
        seat = int(state.s[0, TO_ACT])
        other = _hide_differently(spec, state, seat, rng)
        obs = env.observe(env.agent_selection)
        o, m = obs["observation"][None], obs["action_mask"][None].astype(bool)
        for pool, policy in ((1, policies[-1]), (3, policies[0])):
            results = [SearchAgent(spec, seed=5, worlds=4, solve_tricks=1, inference="policy", inference_pool=pool,
                                   inference_policy=policy).search_batch(o, m, state=st, games=np.array([0]))
                       for st in (state, other)]
            assert results[0][0][0] == results[1][0][0]
            np.testing.assert_array_equal(results[0][1], results[1][1])


def test_the_pool_draws_worlds_by_their_likelihood(monkeypatch):
    """With inference_pool = k the agent weighs k x worlds worlds and keeps those the weights pick: a world
    that carries all the weight is every world kept; equal weights keep one world in every k."""
    spec = trickenv.make_spec("four_tricks")
    env, _ = play_random("four_tricks", {}, 2, 10)
    state = env.game
    games, seats = np.array([0]), state.s[[0], TO_ACT].astype(np.int64)
    pool = sample_worlds(spec, state, games, seats, 12, seed=0)
    for favourite, expect in ((7, [7, 7, 7, 7]), (None, None)):
        def fake(spec, state, games, seats, worlds, per, policy, epsilon, favourite=favourite):
            out = np.zeros((len(games), per))
            if favourite is not None:
                out[:] = -np.inf
                out[:, favourite] = 0.0
            return out

        monkeypatch.setattr("trickenv.agents.search.history_log_likelihood", fake)
        agent = SearchAgent(spec, seed=0, worlds=4, inference="policy", inference_pool=3)
        worlds, weights = agent._worlds(state, games, seats)
        assert weights is None and worlds.batch_size == 4
        kept = [int(np.flatnonzero((pool.hands == worlds.hands[j]).all(axis=1))[0]) for j in range(4)]
        if expect is not None:
            assert kept == expect
        else:
            assert np.diff(kept).tolist() == [3, 3, 3]  # systematic: one in every 3 of equally likely worlds


def test_policy_inference_refuses_what_it_cannot_do():
    # A game without the replay hook (your own game, say): King Calling's spec without its hooks.
    hookless = dataclasses.replace(trickenv.make_spec("koenigrufen"), worlds=GameWorlds())
    with pytest.raises(ValueError, match="inference='policy' needs a game whose decisions can be replayed"):
        SearchAgent(hookless, inference="policy")
    spec = trickenv.make_spec("four_tricks")
    with pytest.raises(ValueError, match="inference_epsilon must be between 0 and 1"):
        SearchAgent(spec, inference="policy", inference_epsilon=0.0)
    with pytest.raises(ValueError, match="inference_pool must be a positive integer"):
        SearchAgent(spec, inference="policy", inference_pool=0)
    with pytest.raises(ValueError, match="inference_pool > 1 draws worlds by their weights"):
        SearchAgent(spec, inference_pool=2)
    with pytest.raises(ValueError, match="inference_policy must act from the observation alone"):
        SearchAgent(spec, inference="policy", inference_policy="pimc")


def test_farbwechsel_search_weighs_worlds_by_the_shipped_player_where_it_fits():
    """The game's default (SearchDefaults.inference): Farbwechsel's search uses policy inference with the
    shipped player and a pool of 4; where no shipped player fits the variant the worlds stay unweighted, while
    asking for the model explicitly there is an error."""
    agent = make_agent("search", trickenv.make_spec("farbwechsel"))
    assert (agent.inference, agent.inference_pool, agent.inference_policy.name) == ("policy", 4, "model")
    # The player the search was measured with (SearchDefaults.likelihood), not the newer shipped one.
    assert agent.inference_policy.path.name == "farbwechsel_likelihood.npz"
    assert agent.inference_policy.path != make_agent("model", "farbwechsel").path
    asked = make_agent("search", trickenv.make_spec("farbwechsel"), inference_policy="model")
    assert asked.inference_policy.path == make_agent("model", "farbwechsel").path
    four = trickenv.make_spec("farbwechsel", num_players=4)
    assert not _shipped_player_fits(four)
    plain = make_agent("search", four)
    assert (plain.inference, plain.inference_pool, plain.inference_policy) == ("none", 1, None)
    with pytest.raises(ValueError, match="was trained with options"):
        SearchAgent(four, inference="policy", inference_policy="model")
    assert make_agent("search", trickenv.make_spec("four_tricks")).inference == "none"
    assert make_agent("search", trickenv.make_spec("koenigrufen")).inference == "none"


def test_king_calling_replays_start_with_the_worlds_partnership():
    """A world sampled after the call keeps no second batches: the replay deals the called card in its
    holder's second batch exactly where the world's caller is alone by chance, so that the replayed call
    settles the partner, the holder and the kind of alone as the world has them."""
    from trickenv.games.koenigrufen.rules import ALONE, ALONE_BY_CHANCE, CALLED, HOLDER, PARTNER

    spec = trickenv.make_spec("koenigrufen")
    env, _ = play_random("koenigrufen", {}, 5, 3)
    state = env.game
    seat = int(state.s[0, TO_ACT])
    worlds = sample_worlds(spec, state, np.array([0]), np.array([seat]), 64, seed=2)
    assert not worlds.dealt[:, 0, 4:].any()  # what the hook is for
    kinds = set(worlds.s[:, ALONE].tolist())
    assert ALONE_BY_CHANCE in kinds and len(kinds) > 1  # both cases are checked
    deal = inf.start_rows(spec, worlds)
    spec.worlds.replay_deal(spec, worlds, deal)
    sim = spec.new_state(64)
    mask = np.zeros((64, spec.num_actions), np.bool_)
    obs = np.zeros((64, spec.obs_size), np.int8)
    spec.reset_kernel(*sim.arrays(), spec.cfg, spec.tab, deal, np.ones(64, np.bool_),
                      np.full(64, state.s[0, trickenv.engine.layout.DEALER], np.int32), mask, obs)
    actions = spec.worlds.history_actions(spec, state, np.zeros(64, np.int64), sim, np.arange(64))
    assert (actions == spec.deck + state.s[0, CALLED]).all()
    assert spec.worlds.unweighed(spec, sim, np.arange(64)).all()
    spec.step_kernel(*sim.arrays(), spec.cfg, spec.tab, actions, np.ones(64, np.bool_), mask, obs,
                     np.zeros((64, 4), np.float32), np.zeros(64, np.bool_), np.zeros(64, np.bool_), False)
    for field in (PARTNER, HOLDER, ALONE):
        np.testing.assert_array_equal(sim.s[:, field], worlds.s[:, field])
