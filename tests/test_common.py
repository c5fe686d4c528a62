"""Checks every game variant must pass: PettingZoo API, seeding, AEC == batched,
the guarantees of docs/rules.md invariants and hidden information."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import trickenv
from trickenv.engine.layout import DEALS_DONE, PHASE, PH_DONE, TO_ACT
from tests.helpers import random_legal
from tests.variants import IDS, VARIANTS

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_pettingzoo_api(game, options):
    api_test(trickenv.make(game, **options), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_pettingzoo_seed(game, options):
    seed_test(lambda: trickenv.make(game, **options), num_cycles=50)


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_same_seed_same_games(game, options):
    runs = []
    for _ in range(2):
        v = trickenv.make_vec(game, 64, seed=123, **options)
        obs, mask, _ = v.reset()
        rng = np.random.default_rng(5)
        trace = [obs.copy()]
        for _ in range(150):
            obs, mask, _, rew, _ = v.step(random_legal(mask, rng))
            trace.append(obs.copy())
            trace.append(rew.copy())
        runs.append(trace)
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))
    other = trickenv.make_vec(game, 64, seed=124, **options)
    assert not np.array_equal(other.reset()[0], runs[0][0])


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_aec_seed_deals_like_vec_game_zero(game, options):
    env = trickenv.make(game, **options)
    env.reset(seed=77)
    v = trickenv.make_vec(game, 3, seed=77, **options)
    obs, mask, player = v.reset()
    agent = env.agent_selection
    assert agent == f"player_{player[0]}"
    o = env.observe(agent)
    assert np.array_equal(o["observation"], obs[0])
    assert np.array_equal(o["action_mask"], mask[0].astype(np.int8))


def _aec_games(game, options, rng_states):
    envs = []
    for st in rng_states:
        e = trickenv.make(game, **options)
        e.unwrapped.game.rng[0] = st
        e.reset()
        envs.append(e)
    return envs


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_aec_and_batched_agree_move_for_move(game, options):
    """1,000 random games through both adapters: same obs, masks, seats, rewards, ends, and
    every deal record of the batched env equals the AEC env's deal-end infos."""
    n_games = 1000
    v = trickenv.make_vec(game, n_games, seed=2024, **options)
    envs = _aec_games(game, options, v.state.rng.copy())
    obs, mask, player = v.reset()
    rng = np.random.default_rng(1)
    live = np.ones(n_games, bool)
    steps = 0
    while live.any():
        actions = random_legal(mask, rng)
        for g in np.flatnonzero(live):
            e = envs[g]
            agent = e.agent_selection
            assert agent == f"player_{player[g]}"
            o = e.observe(agent)
            assert np.array_equal(o["observation"], obs[g]), f"obs differ in game {g} at step {steps}"
            assert np.array_equal(o["action_mask"], mask[g].astype(np.int8)), f"masks differ in game {g}"
        g = int(rng.choice(np.flatnonzero(live)))
        seat = int((player[g] + 1 + rng.integers(v.num_players - 1)) % v.num_players)
        other_obs = envs[g].observe(f"player_{seat}")
        assert np.array_equal(other_obs["observation"], v.observe(seat)[g]), "non-acting seat's obs differ"
        assert not other_obs["action_mask"].any(), "a seat not to act has legal actions"
        obs, mask, player, rew, done = v.step(actions)
        steps += 1
        rec = v.deal_records()
        row = {int(g): i for i, g in enumerate(rec["game"])}
        for g in np.flatnonzero(live):
            e = envs[g]
            e.step(int(actions[g]))
            assert [e.rewards[a] for a in e.possible_agents] == pytest.approx(list(rew[g])), f"rewards, game {g}"
            info = e.infos["player_0"]
            assert bool(info["deal_end"]) == (g in row) == bool(v.deal_end[g])
            if g in row:
                for k, val in rec.items():
                    if k != "game":
                        assert np.array_equal(info[k], val[row[g]]) and info[k].dtype == val.dtype, (k, g)
            if done[g]:
                assert all(e.terminations.values())
                live[g] = False
            else:
                assert not any(e.terminations.values())
    assert steps > 10


def _location_counts(state, deck):
    bits = np.arange(deck, dtype=np.uint64)
    count = ((state.hands[:, :, None] >> bits) & np.uint64(1)).sum(axis=1).astype(int)
    count += ((state.aux[:, :, None] >> bits) & np.uint64(1)).sum(axis=1).astype(int)
    count += state.played_by >= 0
    return count


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_conservation_and_masks_on_random_play(game, options):
    v = trickenv.make_vec(game, 256, seed=9, **options)
    obs, mask, player = v.reset()
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(400):
        assert mask.any(axis=1).all(), "empty legal-action mask while a player is to act"
        assert (_location_counts(v.state, v.spec.deck) == 1).all(), "a card is in zero or two places"
        assert (player == v.state.s[:, TO_ACT]).all()
        obs, mask, player, rew, done = v.step(random_legal(mask, rng))
        ends += int(done.sum())
    assert ends > 0 or v.spec.options.get("rounds", 1) != 1
    assert v.state.s[:, DEALS_DONE].min() > 0, "some game never finished a deal"
    assert not (v.state.s[:, PHASE] == PH_DONE).any(), "auto-reset left a finished game"


def _swap_hidden(state, g, observer, n, rng):
    """Swap one card between the hands of two seats other than ``observer``; False if impossible."""
    others = [p for p in range(n) if p != observer]
    rng.shuffle(others)
    a, b = others[0], others[1]
    ha, hb = int(state.hands[g, a]), int(state.hands[g, b])
    if ha == 0 or hb == 0:
        return False
    ca = rng.choice([c for c in range(64) if ha >> c & 1])
    cb = rng.choice([c for c in range(64) if hb >> c & 1])
    state.hands[g, a] = np.uint64((ha & ~(1 << ca)) | (1 << cb))
    state.hands[g, b] = np.uint64((hb & ~(1 << cb)) | (1 << ca))
    return True


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_observation_ignores_other_hands(game, options):
    """Swapping cards between two other seats' hands never changes a seat's observation,
    while swapping one of its own cards always does (so the check can fail)."""
    v = trickenv.make_vec(game, 128, seed=31, **options)
    obs, mask, _ = v.reset()
    rng = np.random.default_rng(3)
    n = v.num_players
    checked = 0
    for step in range(60):
        if step % 7 == 3:
            for observer in range(n):
                seats = np.full(v.num_envs, observer)
                before = v.observe(seats)
                saved = v.state.copy()
                swapped = np.array([_swap_hidden(v.state, g, observer, n, rng) for g in range(v.num_envs)])
                after = v.observe(seats)
                assert np.array_equal(before[swapped], after[swapped]), "observation depends on hidden cards"
                checked += int(swapped.sum())
                v.state = saved
                # Own-card swap is visible.
                g = int(np.flatnonzero(swapped)[0])
                other = (observer + 1) % n
                own, theirs = int(v.state.hands[g, observer]), int(v.state.hands[g, other])
                if own and theirs:
                    trial = v.state.copy()
                    co = next(c for c in range(64) if own >> c & 1)
                    ct = next(c for c in range(64) if theirs >> c & 1)
                    trial.hands[g, observer] = np.uint64((own & ~(1 << co)) | (1 << ct))
                    trial.hands[g, other] = np.uint64((theirs & ~(1 << ct)) | (1 << co))
                    real, v.state = v.state, trial
                    assert not np.array_equal(v.observe(seats)[g], before[g])
                    v.state = real
        obs, mask, _, _, _ = v.step(random_legal(mask, rng))
    assert checked > 100


@pytest.mark.parametrize("game,options", VARIANTS[:1] + [v for v in VARIANTS if v[0] != "four_tricks"][:1], ids=IDS[:2])
def test_global_state_is_every_seat_observation(game, options):
    env = trickenv.make(game, **options)
    env.reset(seed=3)
    for _ in range(7):
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    state = env.state()
    assert env.unwrapped.state_space.contains(state)
    expected = np.concatenate([env.observe(a)["observation"] for a in env.possible_agents])
    assert np.array_equal(state, expected)
