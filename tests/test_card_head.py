"""The per-card head (``trickenv.agents.card_head``, ``trickenv train --card-head N``).

Its inputs are checked against a card-by-card reference from the engine state at every decision of random
deals of every game and the variants that change the cards, the trump or the seats; the NumPy player's logits
against the torch network that was fitted; a run's player file, checkpoint and refusals.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.card_head import CARD_INPUTS, card_input_names, card_inputs
from trickenv.agents.policy import PolicyAgent, load_card_head, load_policy, save_policy
from trickenv.decode import card_sets
from trickenv.engine.layout import PH_PLAY, PHASE, TO_ACT, TRICK, TRICK_LEN, TRUMP
from trickenv.games.four_tricks import TURNED_UP
from trickenv.training import Run, TrainConfig
from trickenv.training.card_head import CardHead, CardHeadPolicy, FeatureInputs
from trickenv.training.train import policy_weights
from trickenv.vector import VecEnv

VARIANTS = [("four_tricks", {}), ("four_tricks", {"deck": 52}), ("four_tricks", {"trump": "none"}),
            ("farbwechsel", {}), ("farbwechsel", {"num_players": 4, "partnership": True}), ("koenigrufen", {})]


def reference(spec, state, g: int) -> np.ndarray:
    """The position inputs of game g's seat to act, by their definitions, card by card ([deck, len(CARD_INPUTS)])."""
    deck, n = spec.deck, spec.num_players
    ranks = deck // 4
    sets = card_sets(spec)
    suit, points = sets["suit"].astype(int), sets["points"].astype(float)
    trump = int(state.s[g, TRUMP])
    seat = int(state.s[g, TO_ACT])
    hand = {c for c in range(deck) if int(state.hands[g, seat]) >> c & 1}
    trick = [int(state.s[g, TRICK + j]) for j in range(int(state.s[g, TRICK_LEN]))]
    seen = hand | set(trick) | {c for c in range(deck) if state.played_by[g, c] >= 0}
    if spec.name == "four_tricks" and state.s[g, TURNED_UP] >= 0:
        seen.add(int(state.s[g, TURNED_UP]))
    unseen = [c for c in range(deck) if c not in seen]
    led = suit[trick[0]] if trick else -1
    out = np.zeros((deck, len(CARD_INPUTS)), np.float32)
    for c in range(deck):
        out[c] = [c in hand, 0 <= trump < 4 and suit[c] == trump, suit[c] == led,
                  sum(suit[h] == suit[c] for h in hand) / ranks, sum(suit[u] == suit[c] for u in unseen) / ranks,
                  sum(suit[u] == trump for u in unseen) / ranks,
                  sum(points[t] for t in trick) / max(points.max() * n, 1.0)]
    return out


@pytest.mark.parametrize("game,options", VARIANTS)
def test_the_inputs_are_the_reference_at_every_decision(game, options):
    spec = trickenv.make_spec(game, **options)
    env = VecEnv(spec, 12, seed=5)
    obs, mask = env.reset(seed=5)[:2]
    rng = np.random.default_rng(2)
    k = len(CARD_INPUTS)
    seen = np.zeros(k, np.int64)
    for _ in range(spec.num_tricks * spec.num_players + 12):
        got = card_inputs(spec, obs)
        assert got.shape == (12, spec.deck, len(card_input_names(spec)) - spec.deck - spec.deck // 4 - 2)
        facts = spec.learning.action_features(spec, obs).reshape(12, -1, spec.deck).transpose(0, 2, 1)
        np.testing.assert_array_equal(got[:, :, k:], facts)
        for g in range(12):
            if env.state.s[g, PHASE] != PH_PLAY:
                continue
            want = reference(spec, env.state, g)
            np.testing.assert_allclose(got[g, :, :k], want, atol=1e-6, err_msg=f"game {g}")
            seen += (want != 0).any(axis=0)
        legal = [np.flatnonzero(m) for m in mask]
        obs, mask = env.step(np.array([rng.choice(a) for a in legal]))[:2]
    # Each input is nonzero somewhere: the trump ones where the variant has trump, table points where cards
    # carry points.
    has_trump = options.get("trump") != "none"
    has_points = card_sets(spec)["points"].max() > 0
    expect = [True, has_trump, True, True, True, has_trump, has_points]
    assert list(seen > 0) == expect, seen


def _run(tmp_path, game="koenigrufen", **kw):
    cfg = dict(game=game, steps=0, num_envs=16, n_steps=16, batch_size=256, epochs=1, net=(32, 32),
               bc_samples=2000, bc_epochs=2, eval_every=10**9, eval_deals=4, checkpoint_every=10**9, seed=4,
               card_head=16)
    cfg.update(kw)
    return Run(TrainConfig(**cfg), tmp_path, progress=False)


def _torch_logits(run, obs):
    """The fitted torch network's logits, card head included, for raw observations."""
    policy = run.model.policy
    with torch.no_grad():
        x = torch.as_tensor(run.venv.features.many(obs))
        hidden = policy.mlp_extractor.forward_actor(policy.pi_features_extractor(x))
        return run.card_head.add_to(policy.action_net(hidden), hidden, run.card_head.inputs(obs)).numpy()


@pytest.mark.parametrize("game", ["koenigrufen", "four_tricks"])
def test_the_numpy_player_is_the_fitted_network_and_its_file(tmp_path, game):
    run = _run(tmp_path / "R", game=game)
    run.train()
    spec = run.spec
    v = trickenv.make_vec(game, 64, seed=9)
    obs, mask, _ = v.reset()
    path = tmp_path / "R" / "player.npz"
    weights, meta = load_policy(path)
    assert meta["card_head"] == card_input_names(spec) and set(load_card_head(path)) == {
        "H_wh", "H_bh", "H_wa", "H_wo", "H_bo"}
    saved = make_agent(f"model:{path}", spec)
    without = PolicyAgent.from_weights(spec, weights, {k: x for k, x in meta.items() if k != "card_head"})
    differs = 0
    for _ in range(spec.num_tricks * spec.num_players):
        want = _torch_logits(run, obs)
        got = saved.logits(obs)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(got, run.player().logits(obs))
        # the head moves the card logits only, and it does move them
        plain = without.logits(obs)
        np.testing.assert_array_equal(got[:, spec.deck:], plain[:, spec.deck:])
        differs += int((np.abs(got[:, :spec.deck] - plain[:, :spec.deck]) > 1e-3).any())
        a = saved.act_batch(obs, mask)
        assert mask[np.arange(64), a].all()
        obs, mask, *_ = v.step(a)
    assert differs > 0


def test_the_head_is_fitted_and_kept_by_the_checkpoint(tmp_path):
    run = _run(tmp_path / "R")
    with torch.random.fork_rng():
        torch.manual_seed(4 + 61)
        before = CardHead(run.spec, 32, 16).arrays()
    assert all(np.array_equal(before[k], run.head_arrays()[k]) for k in before)  # its initial weights: the seed's
    run.train()
    after = run.head_arrays()
    assert not np.array_equal(before["H_wa"], after["H_wa"])  # the warm start fitted it
    again = Run(None, tmp_path / "R", resume=True, progress=False)
    assert all(np.array_equal(after[k], again.head_arrays()[k]) for k in after)
    with pytest.raises(ValueError, match="card_head is 16 in this run, the command asks 32"):
        Run({"card_head": 32}, tmp_path / "R", resume=True, progress=False)


def test_refusals(tmp_path):
    with pytest.raises(ValueError, match="card_head with PPO \\(steps 4,096\\) needs features 'actions'.*features is "
                                         "'compact'"):
        _run(tmp_path / "A", steps=4096)
    assert not (tmp_path / "A").exists()
    with pytest.raises(ValueError, match="card_head must be a whole number of units >= 0"):
        _run(tmp_path / "B", card_head=-1)
    with pytest.raises(ValueError, match="net needs at least one hidden layer"):
        _run(tmp_path / "C", net=())
    from trickenv.cli import main

    with pytest.raises(SystemExit):
        main(["train", "koenigrufen", "--out", str(tmp_path / "D"), "--card-head", "8", "--no-progress"])
    assert not (tmp_path / "D" / "checkpoint").exists()
    # A player file whose meta and arrays disagree, or whose inputs are not this version's, is refused.
    run = _run(tmp_path / "E")
    spec, weights, meta, head = run.spec, policy_weights(run.model), run.meta, run.head_arrays()
    with pytest.raises(ValueError, match="give both or neither"):
        save_policy(tmp_path / "x.npz", weights, meta)
    with pytest.raises(ValueError, match="found only the meta entry"):
        PolicyAgent.from_weights(spec, weights, meta)
    with pytest.raises(ValueError, match="found only the arrays"):
        PolicyAgent.from_weights(spec, weights, {k: x for k, x in meta.items() if k != "card_head"}, card_head=head)
    with pytest.raises(ValueError, match="card inputs that are not the"):
        PolicyAgent.from_weights(spec, weights, {**meta, "card_head": meta["card_head"][:-1]}, card_head=head)
    with pytest.raises(ValueError, match="card head shapes"):
        PolicyAgent.from_weights(spec, weights, meta, card_head={**head, "H_wa": head["H_wa"][:-1]})
    save_policy(tmp_path / "ok.npz", weights, meta, head)
    assert json.loads(json.dumps(load_policy(tmp_path / "ok.npz")[1])) == meta


def test_expert_iteration_fits_the_head_and_its_students_carry_it(tmp_path):
    """The labelling workers play the student from its file: each round's student has the head, fitted anew."""
    run = Run(TrainConfig(game="four_tricks", steps=0, num_envs=16, n_steps=16, batch_size=256, epochs=1,
                          net=(32, 32), bc_samples=1500, bc_epochs=1, eval_deals=4, seed=3, expert="pimc",
                          expert_iterations=2, expert_samples=600, expert_chunk=300, expert_worlds=2,
                          bc_temperature=0.3, card_head=8), tmp_path / "R", progress=False)
    run.train()
    heads = [load_card_head(tmp_path / "R" / "expert" / f"student_{i}.npz") for i in range(3)]
    assert all(h is not None for h in heads)
    assert not np.array_equal(heads[0]["H_wa"], heads[1]["H_wa"])
    assert not np.array_equal(heads[1]["H_wa"], heads[2]["H_wa"])
    final = load_card_head(tmp_path / "R" / "player.npz")
    assert all(np.array_equal(final[k], heads[2][k]) for k in final)


def test_a_run_with_the_head_leaves_its_critic_and_fits_the_actor_as_with_it(tmp_path):
    """A run with a card head has no PPO, so its fits skip the critic (``value_coef`` 0); the actor and the head
    come out bit for bit as from a fit that also fits the critic, which then moves."""
    from trickenv.training.bc import behaviour_clone, demonstrations

    runs = [_run(tmp_path / name) for name in ("A", "B")]
    assert runs[0].value_coef() == 0.0 and _run(tmp_path / "C", card_head=0).value_coef() == 0.5
    data = demonstrations(runs[0].spec, 1500, seed=8)
    critic = [{k: p.detach().clone() for k, p in r.model.policy.named_parameters() if "value" in k or "vf" in k}
              for r in runs]
    assert critic[0] and all(torch.equal(critic[0][k], critic[1][k]) for k in critic[0])  # the same seed
    for r, coef in zip(runs, (0.0, 0.5), strict=True):
        behaviour_clone(r.model, data, r.venv.features, epochs=2, seed=1, card_head=r.card_head, value_coef=coef)
    a, b = (dict(r.model.policy.named_parameters()) for r in runs)
    assert all(torch.equal(a[k], b[k]) for k in a if k not in critic[0])
    assert all(np.array_equal(runs[0].head_arrays()[k], runs[1].head_arrays()[k]) for k in runs[0].head_arrays())
    assert all(torch.equal(a[k], critic[0][k]) for k in critic[0])  # not fitted
    assert not all(torch.equal(b[k], critic[1][k]) for k in critic[1])  # fitted


@pytest.mark.parametrize("game,options", VARIANTS)
def test_the_inputs_from_the_features_are_the_inputs_from_the_observation(game, options):
    """PPO's head reads its inputs from the features (the rollout buffer holds no observation): the same numbers."""
    from trickenv.agents.features import Features
    from trickenv.training.bc import demonstrations

    spec = trickenv.make_spec(game, **options)
    data = demonstrations(spec, 3000, seed=6, teacher="random", batch=48)
    features = Features(spec, actions=True)
    got = FeatureInputs(spec, features)(torch.as_tensor(features(data["obs"]))).numpy()
    want = card_inputs(spec, data["obs"])
    assert want[:, :, 1:].any() and np.array_equal(got, want)
    with pytest.raises(ValueError, match="need the trick facts among the features"):
        FeatureInputs(spec, Features(spec))


def test_ppo_trains_the_head_and_the_player_is_the_trained_network(tmp_path):
    """With steps > 0 PPO trains the head with the MLP (one optimizer, the policy's); the checkpoint keeps it; the
    exported NumPy player's logits are the torch policy's, head included, as PPO computes them."""
    config = dict(game="four_tricks", features="actions", bc_samples=1500, privileged_critic=True)
    run = _run(tmp_path / "R", steps=512, checkpoint_every=256, snapshot_every=256, **config)
    policy = run.model.policy
    assert isinstance(policy, CardHeadPolicy) and run.card_head is policy.card_head
    head_weights = {id(p) for p in run.card_head.parameters()}
    assert head_weights <= {id(p) for g in policy.optimizer.param_groups for p in g["params"]}
    run.train()
    assert run.model.num_timesteps >= 512
    after = run.head_arrays()
    # The same run without PPO ends at the warm start (the actor's fit does not depend on the critic's).
    warm = _run(tmp_path / "W", steps=0, **config)
    warm.train()
    before = warm.head_arrays()
    assert all(not np.array_equal(before[k], after[k]) for k in ("H_wh", "H_wa", "H_wo"))  # PPO moved the head
    # The player file is the torch policy: PPO's own distribution (features in, head inputs from them).
    v = trickenv.make_vec("four_tricks", 32, seed=9)
    obs, mask, _ = v.reset()
    saved = make_agent(f"model:{tmp_path / 'R' / 'player.npz'}", run.spec)
    weights, meta = load_policy(tmp_path / "R" / "player.npz")
    without = PolicyAgent.from_weights(run.spec, weights, {k: x for k, x in meta.items() if k != "card_head"})
    assert not np.allclose(saved.logits(obs), without.logits(obs), atol=1e-3)  # the head is part of what is compared
    for _ in range(12):
        x = torch.as_tensor(np.concatenate([run.venv.features(obs), np.zeros((32, policy.observation_space.shape[0]
                                                                              - run.venv.actor_inputs), np.float32)],
                                           axis=1))
        with torch.no_grad():
            probs = policy.get_distribution(x, action_masks=mask).distribution.probs.numpy()
        p = np.exp(saved.logits(obs) - saved.logits(obs).max(axis=1, keepdims=True)) * mask
        np.testing.assert_allclose(p / p.sum(axis=1, keepdims=True), probs, atol=1e-5)
        obs, mask, *_ = v.step(saved.act_batch(obs, mask))
    # A resumed run holds the same head (it is in the checkpoint's policy).
    again = Run(None, tmp_path / "R", resume=True, progress=False)
    assert isinstance(again.model.policy, CardHeadPolicy) and again.card_head is again.model.policy.card_head
    assert all(np.array_equal(again.head_arrays()[k], after[k]) for k in after)
    # The league's snapshots play with their head, and keep it through the checkpoint.
    assert run.league.snapshots and all(head is not None for *_, head in run.league.snapshots)
    assert [(step, sorted(head)) for step, _, _, head in again.league.snapshots] == \
        [(step, sorted(head)) for step, _, _, head in run.league.snapshots]
    assert all(np.array_equal(a[3][k], b[3][k])
               for a, b in zip(again.league.snapshots, run.league.snapshots, strict=True)
               for k in a[3])
