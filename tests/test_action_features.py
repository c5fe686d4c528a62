"""The per-card trick facts (``trickenv.games.trick_facts``, ``Features(spec, actions=True)``).

They are checked against a plain reference computed from the engine state (the seat's hand, the trick
in play order, the played cards, the trump, the card table's strengths), card by card, at every decision
of random deals of every game and the variants that change the cards, the trump or the seats; and
through the players that read them (``meta["features"] == "actions"``), whose sparse first layer plays as the
dense network.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import trickenv
from trickenv.agents.features import Features, features_of
from trickenv.agents import make_agent
from trickenv.agents.card_head import card_inputs, fixed_card_inputs
from trickenv.agents.policy import PolicyAgent, load_networks
from trickenv.agents.sparse_layer import add_sparse_product
from trickenv.engine.layout import (PH_PLAY, PHASE, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH, TO_ACT, TRICK,
                                    TRICK_LEN, TRUMP)
from trickenv.games.four_tricks import TURNED_UP
from trickenv.games.trick_facts import TRICK_FACTS, trick_facts
from trickenv.vector import VecEnv


def reference(spec, state, g: int) -> np.ndarray:
    """The facts of game g's seat to act, by the definitions of ``trick_facts``, card by card."""
    deck, n, tab = spec.deck, spec.num_players, spec.tab
    ranks = deck // 4
    trump = int(state.s[g, TRUMP])  # -1: none (yet)

    def strength(c: int) -> int:
        return int(tab[TAB_TRUMP_STRENGTH if tab[TAB_SUIT, c] == trump else TAB_STRENGTH, c])

    def beats(c: int, w: int) -> bool:  # c played after the trick's current winner w takes the lead
        if tab[TAB_SUIT, c] == tab[TAB_SUIT, w]:
            return strength(c) > strength(w)
        return tab[TAB_SUIT, c] == trump

    seat = int(state.s[g, TO_ACT])
    hand = [c for c in range(deck) if int(state.hands[g, seat]) >> c & 1]
    trick = [int(state.s[g, TRICK + j]) for j in range(int(state.s[g, TRICK_LEN]))]
    seen = set(hand) | set(trick) | {c for c in range(deck) if state.played_by[g, c] >= 0}
    if spec.name == "four_tricks" and state.s[g, TURNED_UP] >= 0:
        seen.add(int(state.s[g, TURNED_UP]))
    unseen = [c for c in range(deck) if c not in seen]
    out = np.zeros((len(TRICK_FACTS), deck), np.float32)
    winner = None
    for t in trick:
        if winner is None or beats(t, winner):
            winner = t
    for c in hand:
        now = winner is not None and beats(c, winner)
        out[0, c] = now
        out[1, c] = sum(tab[TAB_SUIT, u] == tab[TAB_SUIT, c] and strength(u) > strength(c) for u in unseen) / (ranks - 1)
        takes = winner is None or now
        out[2, c] = takes and (len(trick) == n - 1 or not any(beats(u, c) for u in unseen))
    return out.reshape(-1)


VARIANTS = [("four_tricks", {}), ("four_tricks", {"trump": "none"}), ("four_tricks", {"deck": 52}),
            ("four_tricks", {"bidding": True}), ("farbwechsel", {}), ("farbwechsel", {"ranking": "natural"}),
            ("farbwechsel", {"ranking": "trump_ten"}), ("farbwechsel", {"num_players": 4, "partnership": True}),
            ("koenigrufen", {})]


@pytest.mark.parametrize("game,options", VARIANTS)
def test_the_features_are_the_reference_at_every_decision(game, options):
    spec = trickenv.make_spec(game, **options)
    env = VecEnv(spec, 16, seed=7)
    obs, mask = env.reset(seed=7)[:2]
    rng = np.random.default_rng(3)
    feats = Features(spec, actions=True)
    compact = Features(spec)
    seen_play = seen_beats = seen_sure = 0
    for _ in range(spec.num_tricks * spec.num_players + 12):
        got = feats(obs)
        assert got.shape == (16, feats.size) and feats.size == compact.size + 3 * spec.deck
        np.testing.assert_array_equal(got[:, :compact.size], compact(obs))
        for g in range(16):
            want = reference(spec, env.state, g)
            np.testing.assert_allclose(got[g, compact.size:], want, atol=1e-6, err_msg=f"game {g}")
            if env.state.s[g, PHASE] == PH_PLAY:
                seen_play += 1
                seen_beats += bool(want[:spec.deck].any())
                seen_sure += bool(want[2 * spec.deck:].any())
        legal = [np.flatnonzero(m) for m in mask]
        obs, mask = env.step(np.array([rng.choice(a) for a in legal]))[:2]
    # The deals reached positions where each fact is true somewhere and false elsewhere.
    assert seen_play > 100 and 0 < seen_beats < seen_play and 0 < seen_sure < seen_play


def test_a_hand_checked_trick():
    """Clubs trump; the seat holds the A and 3 of spades and the 5 of clubs; the K of spades was led."""
    spec = trickenv.make_spec("four_tricks")
    o = spec.obs_offsets
    obs = np.zeros(spec.obs_size, np.int8)
    ks, as_, s3, c5 = 12 + 10, 12 + 11, 12 + 0, 2
    for c in (as_, s3, c5):
        obs[o["hand"][0] + c] = 1
    leader = 2  # the seat before us (relative seat 2) led
    obs[o["trick"][0] + leader * spec.deck + ks] = 1
    obs[o["played"][0] + leader * spec.deck + ks] = 1
    obs[o["trump"][0] + 0] = 1
    obs[o["leader"][0] + leader] = 1
    obs[o["phase"][0] + PH_PLAY] = 1
    row = spec.learning.action_features(spec, obs[None])[0].reshape(3, spec.deck)
    assert row[0, as_] == 1 and row[0, s3] == 0 and row[0, c5] == 1  # A over K; 3 under; the trump over it
    assert row[1, as_] == 0 and row[1, s3] == pytest.approx(9 / 11)  # 4..Q of spades unseen, K and A seen
    assert row[1, c5] == pytest.approx(9 / 11)  # 6..A of clubs unseen
    # The A of spades can still be trumped by the next seat (clubs are unseen); the 5 of clubs overtrumped.
    assert row[2].sum() == 0
    assert row[:, [c for c in range(spec.deck) if c not in (as_, s3, c5)]].sum() == 0


def test_players_read_the_features_their_file_names():
    spec = trickenv.make_spec("four_tricks")
    feats = Features(spec, actions=True)
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(feats.size, 32)).astype(np.float32), np.zeros(32, np.float32)),
               (rng.normal(size=(32, spec.num_actions)).astype(np.float32), np.zeros(spec.num_actions, np.float32))]
    meta = {"game": "four_tricks", "features": "actions", "activation": "relu"}
    agent = PolicyAgent.from_weights(spec, weights, meta)
    env = VecEnv(spec, 8, seed=1)
    obs, mask = env.reset(seed=1)[:2]
    for _ in range(5):  # into the first trick
        obs, mask = env.step(np.array([np.flatnonzero(m)[0] for m in mask]))[:2]
    # Equal up to float rounding: the first layer sums the rows of the nonzero inputs in their order.
    np.testing.assert_allclose(agent.logits(obs), np.maximum(feats(obs) @ weights[0][0], 0) @ weights[1][0],
                               rtol=1e-5, atol=1e-3)
    with pytest.raises(ValueError, match="not a linear map"):
        feats.matrix()


def test_games_without_them_and_unknown_names_are_refused():
    spec = trickenv.make_spec("farbwechsel")
    bare = dataclasses.replace(spec, learning=dataclasses.replace(spec.learning, action_features=None,
                                                                  action_feature_names=()))
    with pytest.raises(ValueError, match="farbwechsel has no per-action features"):
        Features(bare, actions=True)
    with pytest.raises(ValueError, match="unknown features 'cards': allowed compact, actions, raw"):
        features_of(trickenv.make_spec("four_tricks"), "cards")
    assert features_of(trickenv.make_spec("four_tricks"), "raw") is None


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_many_rows_in_slices_equal_the_whole_batch(game):
    # The warm start's features come from many() (slices into one array, for millions of rows): they must be
    # exactly what the player computes on a batch, whatever the slice boundaries.
    spec = trickenv.make_spec(game)
    env = VecEnv(spec, 32, seed=5)
    obs, mask = env.reset(seed=5)[:2]
    rows = []
    for _ in range(spec.num_tricks * spec.num_players // 2):
        rows.append(obs.copy())
        obs, mask = env.step(np.array([np.flatnonzero(m)[-1] for m in mask]))[:2]
    batch = np.concatenate(rows)
    for feats in (Features(spec), Features(spec, actions=True)):
        whole = feats(batch)
        for size in (1, 7, 100, len(batch) + 3):
            got = feats.many(batch, rows=size)
            assert got.dtype == np.float32 and got.shape == whole.shape
            np.testing.assert_array_equal(got, whole)
    with pytest.raises(ValueError, match="rows must be positive, got 0"):
        Features(spec).many(batch, rows=0)
    with pytest.raises(ValueError, match=r"must be a \[B, "):
        Features(spec).many(batch[0])


def test_the_sparse_first_layer_is_the_dense_product():
    rng = np.random.default_rng(3)
    w = rng.normal(size=(300, 40)).astype(np.float32)
    for x in ((rng.random((64, 300)) < 0.1).astype(np.int8),
              np.where(rng.random((64, 300)) < 0.1, rng.random((64, 300)), 0).astype(np.float32)):
        out = np.full((64, 40), 0.5, np.float32)
        add_sparse_product(x, w, out)
        np.testing.assert_allclose(out, 0.5 + x.astype(np.float64) @ w, rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="shapes do not fit"):
        add_sparse_product(x[:, :299], w, out)
    with pytest.raises(ValueError, match="must be float32"):
        add_sparse_product(x, w.astype(np.float64), out)
    with pytest.raises(ValueError, match=r"observations must be a \[B, 519\] array"):
        trick_facts(trickenv.make_spec("four_tricks"), np.zeros((2, 518), np.int8))


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_shipped_players_act_as_their_dense_network(game):
    """The forward pass folds the feature map into the first layer and sums its rows sparsely: on the positions of
    seeded play every action of the shipped player is the argmax of the plain dense network (features, matmuls),
    or of the mean of its networks' logits for a file with several."""
    agent = make_agent("model", game)
    rules = make_agent("rules", game, seed=1)
    env = VecEnv(agent.spec, 1024, seed=7)
    obs, mask = env.reset(seed=7)[:2]
    networks = load_networks(agent.path)[0]
    spec = agent.spec
    for _ in range(agent.spec.num_tricks * agent.spec.num_players):
        logits = []
        for weights, head in networks:
            x = agent.features(obs)
            for i, (w, b) in enumerate(weights):
                if i == len(weights) - 1:
                    hidden = x
                x = x @ w + b
                if i < len(weights) - 1:
                    x = np.maximum(x, 0)
            if head is not None:  # a per-card head, plainly: every card's fixed and position inputs
                fixed = np.broadcast_to(fixed_card_inputs(spec), (len(obs), *fixed_card_inputs(spec).shape))
                position = card_inputs(spec, obs)
                cards = np.concatenate([fixed, position], axis=2)
                z = np.maximum((hidden @ head["H_wh"] + head["H_bh"])[:, None, :] + cards @ head["H_wa"], 0)
                x[:, :spec.deck] += (z @ head["H_wo"] + head["H_bo"]) * position[:, :, 0]  # the cards in the hand
            logits.append(x)
        x = np.mean(logits, axis=0)
        np.testing.assert_allclose(agent.logits(obs), x, rtol=1e-4, atol=1e-3)
        np.testing.assert_array_equal(agent.act_batch(obs, mask), np.where(mask, x, -np.inf).argmax(axis=1))
        obs, mask = env.step(rules.act_batch(obs, mask))[:2]
