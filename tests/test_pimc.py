"""The PIMC search agent: legal, repeatable, uses only the seat's information, and plays well."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.agents import PIMCAgent, make_agent
from trickenv.agents.evaluation import evaluate
from trickenv.engine.layout import TO_ACT
from tests.helpers import play_batched_deals
from tests.variants import IDS, VARIANTS

SINGLE = [(g, o) for g, o in VARIANTS if o.get("rounds", 1) == 1 and "win_at" not in o and "target_schedule" not in o]
SINGLE_IDS = [i for (g, o), i in zip(VARIANTS, IDS, strict=True) if (g, o) in SINGLE]


@pytest.mark.parametrize("game,options", SINGLE, ids=SINGLE_IDS)
def test_pimc_plays_only_legal_actions_in_every_variant(game, options):
    spec = trickenv.make_spec(game, **options)
    play_batched_deals(PIMCAgent(spec, seed=1, worlds=4, rollout="random"), game, options, 12, seed=2)


def test_pimc_repeats_for_a_seed_and_matches_in_the_aec_env():
    env = trickenv.make("farbwechsel").unwrapped
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(7):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    obs = env.observe(env.agent_selection)
    a = PIMCAgent(env.spec, seed=3, worlds=8, rollout="random").act(obs, state=env.game)
    b = PIMCAgent(env.spec, seed=3, worlds=8, rollout="random").act_batch(
        obs["observation"][None], obs["action_mask"][None].astype(bool), state=env.game, games=np.array([0]))[0]
    assert a == b and obs["action_mask"][a]
    with pytest.raises(ValueError, match="needs the engine state"):
        PIMCAgent(env.spec).act(obs)
    with pytest.raises(ValueError, match="worlds must be a positive integer"):
        PIMCAgent(env.spec, worlds=0)


def test_pimc_decision_ignores_hidden_cards():
    """Swapping two unseen cards between the other hands leaves every PIMC decision unchanged."""
    v = trickenv.make_vec("four_tricks", 16, seed=6)
    obs, mask, player = v.reset()
    rng = np.random.default_rng(1)
    for _ in range(10):
        obs, mask, player, _, _ = v.step((rng.random(mask.shape) * mask).argmax(axis=1))
    seats = v.state.s[:, TO_ACT]
    games = np.arange(16)
    first = PIMCAgent(v.spec, seed=5, worlds=6, rollout="random").act_batch(obs, mask, state=v.state, games=games)
    other = v.state.copy()
    for g in games:
        a, b = [q for q in range(3) if q != seats[g]]
        ca, cb = int(other.hands[g, a]) & -int(other.hands[g, a]), int(other.hands[g, b]) & -int(other.hands[g, b])
        other.hands[g, a] = np.uint64(int(other.hands[g, a]) ^ ca ^ cb)
        other.hands[g, b] = np.uint64(int(other.hands[g, b]) ^ ca ^ cb)
    again = PIMCAgent(v.spec, seed=5, worlds=6, rollout="random").act_batch(obs, mask, state=other, games=games)
    assert np.array_equal(first, again)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_pimc_with_random_playouts_beats_random(game):
    res = evaluate(game, [make_agent("pimc", game, seed=0, worlds=8, rollout="random"), "random"], deals=40,
                   seed=3, progress=False, ratings=False)
    pair = res.to_dict()["pairs"][0]
    assert pair["a"] == "pimc" and pair["ci95"][0] > 0, pair


def test_king_calling_pimc_leaves_calls_and_declarations_to_the_rules_and_searches_cards():
    spec = trickenv.make_spec("koenigrufen")
    v = trickenv.make_vec("koenigrufen", 32, seed=8)
    obs, mask, player = v.reset()
    pimc = PIMCAgent(spec, seed=2, worlds=4)
    rules = make_agent("rules", spec, seed=2 + 11)  # the rule-based agent PIMC asks (the same seed)
    assert pimc.search == "cards" and PIMCAgent(spec, search="all").search == "all"
    searched = 0
    for _ in range(12):
        games = np.arange(32)
        want = np.array(rules.act_batch(obs, mask), np.int64)
        got = pimc.act_batch(obs, mask, state=v.state, games=games)
        assert mask[games, got].all()
        bid = want >= spec.deck
        assert np.array_equal(got[bid], want[bid])  # calls and declarations: the rules' choice
        assert (got[~bid] < spec.deck).all()  # otherwise a searched card
        searched += int((got[~bid] != want[~bid]).sum())
        obs, mask, player, _, _ = v.step(got)
    assert searched > 0  # search does change some card plays
    with pytest.raises(ValueError, match="search must be 'all' or 'cards'"):
        PIMCAgent(spec, search="bids")


def test_search_batch_values_are_what_the_action_was_chosen_by():
    spec = trickenv.make_spec("koenigrufen")
    v = trickenv.make_vec("koenigrufen", 32, seed=8)
    obs, mask, player = v.reset()
    pimc = PIMCAgent(spec, seed=2, worlds=4)
    twin = PIMCAgent(spec, seed=2, worlds=4)
    searched = unsearched = 0
    for _ in range(14):
        games = np.arange(32)
        got, values = pimc.search_batch(obs, mask, state=v.state, games=games)
        assert np.array_equal(got, twin.act_batch(obs, mask, state=v.state, games=games))  # act_batch = search_batch[0]
        assert not np.isfinite(values[~mask]).any()  # illegal actions are never searched
        rows = np.isfinite(values).any(axis=1)
        for i in np.flatnonzero(rows):
            legal_cards = np.flatnonzero(mask[i, :spec.deck])
            assert np.array_equal(np.flatnonzero(np.isfinite(values[i])), legal_cards)
            assert got[i] == np.nanargmax(values[i])
        # Calls, declarations and forced card plays are not searched.
        forced = mask[:, :spec.deck].sum(axis=1) == 1
        assert ((got[~rows] >= spec.deck) | forced[~rows]).all()
        searched += int(rows.sum())
        unsearched += int((~rows).sum())
        obs, mask, player, _, _ = v.step(got)
    assert searched > 0 and unsearched > 0
