"""Privileged observations (every hand) for training only: what they hold, and that no player reads them."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.policy import shipped_model_path
from trickenv.engine.layout import PH_PLAY, PHASE, TO_ACT
from trickenv.privileged import privileged_blocks, privileged_obs, privileged_size
from trickenv.sampler import sample_worlds
from trickenv.single_seat import SeatEnv
from tests.variants import IDS, VARIANTS


def random_positions(game: str, options: dict, n: int = 48, seed: int = 0, steps: int = 14):
    """n games of random play, stopped after a different number of moves each."""
    v = trickenv.make_vec(game, n, seed=seed, **options)
    obs, mask, _ = v.reset()
    rng = np.random.default_rng(seed)
    stop = rng.integers(0, steps, n)
    for t in range(steps):
        live = (stop > t) & (v.state.s[:, PHASE] <= PH_PLAY)
        if not live.any():
            break
        obs, mask, *_ = v.step((rng.random(mask.shape) * mask).argmax(axis=1), where=live)
    return v, obs, mask


def bits(x: int, deck: int) -> np.ndarray:
    return np.array([(int(x) >> c) & 1 for c in range(deck)], np.int8)


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_the_privileged_observation_holds_every_hand_from_the_seats_view(game, options):
    v, obs, _ = random_positions(game, options)
    spec = v.spec
    n, d = spec.num_players, spec.deck
    priv = v.privileged()
    assert priv.shape == (v.num_envs, privileged_size(spec)) and priv.dtype == np.int8
    blocks = privileged_blocks(spec)
    assert sum(size for _, size in blocks.values()) == privileged_size(spec)
    h0, _ = blocks["hands"]
    u0, _ = blocks["undealt"]
    for g in range(v.num_envs):
        me = int(v.state.s[g, TO_ACT])
        for k in range(n):
            assert np.array_equal(priv[g, h0 + k * d:h0 + (k + 1) * d], bits(v.state.hands[g, (me + k) % n], d))
        assert np.array_equal(priv[g, u0:u0 + d], bits(v.state.aux[g, 0], d))
        # Every card is in exactly one place: a hand, the undealt rest, played, or (King Calling) still to come.
        played = (v.state.played_by[g] >= 0).astype(np.int8)
        place = priv[g, h0:h0 + n * d].reshape(n, d).sum(axis=0) + priv[g, u0:u0 + d] + played
        if "game" in blocks:
            o, size = blocks["game"]
            place = place + priv[g, o:o + n * d].reshape(n, d).sum(axis=0)
        assert (place == 1).all(), (g, place)
    # Another seat's view: the same cards, rotated.
    other = v.privileged((v.state.s[:, TO_ACT] + 1) % n)
    assert np.array_equal(other[:, h0:h0 + (n - 1) * d], priv[:, h0 + d:h0 + n * d])
    with pytest.raises(ValueError, match="seats must be"):
        v.privileged(n)
    with pytest.raises(ValueError, match="one seat per game"):
        privileged_obs(spec, v.state, np.arange(3), np.zeros(2, np.int64))


def test_king_callings_privileged_block_has_the_second_batches_and_the_partner():
    from trickenv.games.koenigrufen import PARTNER

    v, obs, _ = random_positions("koenigrufen", {}, n=64, steps=10)
    spec, n, d = v.spec, 4, v.spec.deck
    o, size = privileged_blocks(spec)["game"]
    assert size == n * d + n + 1
    priv = v.privileged()
    before = v.state.s[:, PHASE] < PH_PLAY
    assert before.any() and (~before).any()
    for g in range(v.num_envs):
        me = int(v.state.s[g, TO_ACT])
        to_come = np.stack([bits(v.state.aux[g, 1 + (me + k) % n], d) for k in range(n)]).reshape(-1)
        assert np.array_equal(priv[g, o:o + n * d], to_come)
        partner = int(v.state.s[g, PARTNER])
        slot = (partner - me) % n if partner >= 0 else n
        assert priv[g, o + n * d:].tolist() == [int(i == slot) for i in range(n + 1)]
        if before[g]:
            assert to_come.sum() > 0  # the second batch is still to come before the call
    assert priv[~before, o + n * d:o + n * d + n].sum() > 0  # some partners are known to the privileged view


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_the_seat_env_gives_the_learners_privileged_view_row_aligned(game):
    env = SeatEnv(game, 16, seat="rotate", opponents=["rules"], seed=3)
    with pytest.raises(RuntimeError, match="reset"):
        env.privileged()
    obs, mask = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        priv = env.privileged()
        assert np.array_equal(priv, privileged_obs(env.spec, env.vec.state, np.arange(16), env.seats))
        assert np.array_equal(env.vec.state.s[:, TO_ACT], env.seats)
        obs, mask, *_ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_shipped_players_act_on_the_seats_information_alone(game):
    """The envs' leak-test style: in worlds that differ only in cards the seat cannot know (resampled), the seat's
    observation is the same and so is every shipped player's action, while the privileged view does differ."""
    assert shipped_model_path(game).exists(), f"no shipped player for {game}"
    v, obs, mask = random_positions(game, {}, n=32, seed=4, steps=12)
    spec = v.spec
    games = np.arange(v.num_envs)
    seats = v.state.s[:, TO_ACT].astype(np.int64)
    worlds = sample_worlds(spec, v.state, games, seats, 4, seed=9)
    agent = make_agent("model", spec)
    first = agent.act_batch(obs, mask)
    differ = 0
    for k in range(4):
        rows = games * 4 + k
        seen = np.zeros_like(obs)
        spec.observe_kernel(*worlds.take(rows).arrays()[:-1], spec.cfg, spec.tab, seats, seen)
        assert np.array_equal(seen, obs)
        assert np.array_equal(agent.act_batch(seen, mask), first)
        differ += int((privileged_obs(spec, worlds, rows, seats) != v.privileged()).any(axis=1).sum())
    assert differ > 0  # the worlds did hide different cards


def test_the_privileged_critics_actor_never_depends_on_the_privileged_columns(tmp_path):
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    import torch

    from trickenv.agents.policy import PolicyAgent
    from trickenv.training import Run, TrainConfig, policy_weights

    config = TrainConfig(game="four_tricks", steps=512, num_envs=16, n_steps=32, batch_size=256, epochs=1,
                         net=(32, 32), bc_samples=2000, bc_epochs=1, snapshot_every=10**6, eval_every=10**6,
                         eval_deals=4, checkpoint_every=10**6, seed=1, privileged_critic=True)
    run = Run(config, tmp_path / "run", progress=False)
    run.train()
    venv, policy = run.venv, run.model.policy
    a = venv.actor_inputs
    assert venv.observation_space.shape[0] == a + privileged_size(run.spec)
    x = torch.as_tensor(venv.reset())
    other = x.clone()
    other[:, a:] = torch.as_tensor(np.random.default_rng(0).integers(0, 2, other[:, a:].shape), dtype=torch.float32)
    with torch.no_grad():
        logits = policy.get_distribution(x).distribution.logits
        logits2 = policy.get_distribution(other).distribution.logits
        values, values2 = policy.predict_values(x), policy.predict_values(other)
    assert torch.equal(logits, logits2)  # the actor: the same, whatever the hidden cards
    assert not torch.allclose(values, values2)  # the critic reads them
    # The exported player has only the features' weights and plays as the policy's actor.
    weights = policy_weights(run.model)
    assert weights[0][0].shape[0] == a
    player = PolicyAgent.from_weights(run.spec, weights, run.meta)
    obs, mask = run.seat_env.reset(seed=5)
    x = torch.as_tensor(np.concatenate([venv.features(obs), run.seat_env.privileged().astype(np.float32)], axis=1))
    with torch.no_grad():
        z = policy.get_distribution(x).distribution.logits.numpy()
    assert np.array_equal(np.where(mask, z, -np.inf).argmax(axis=1), player.act_batch(obs, mask))
    mine = player.logits(obs)
    mine = mine - np.log(np.exp(mine - mine.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)) - mine.max(
        axis=1, keepdims=True)
    assert np.allclose(mine, z, atol=1e-4)  # the same distribution (torch's logits are normalized)
    # A resumed run rebuilds the same policy class and keeps the weights.
    again = Run({"steps": 1024}, tmp_path / "run", resume=True, progress=False)
    assert type(again.model.policy).__name__ == "PrivilegedCriticPolicy"
    assert all(np.array_equal(w, w2) for (w, _), (w2, _) in zip(weights, policy_weights(again.model), strict=True))
