"""The engine's fast paths give exactly what the plain ones gave: dealing, the random agent,
one and two threads of the step kernel, and the AEC env's direct step path."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from numba import njit

import trickenv
from trickenv.agents.random_agent import RandomAgent, _pick_random_legal, _pick_random_legal_bits
from trickenv.engine.kernels import deal_groups, deal_split, group_sizes, kth_bit

from tests.helpers import finish_randomly
from tests.variants import IDS, VARIANTS

M64 = (1 << 64) - 1


def _reference_deal(state: int, caps: list[int]) -> tuple[int, list[int]]:
    """The dealing as first written (splitmix64 draws, a linear walk over the groups), in Python."""
    out, room, left = [0] * len(caps), list(caps), sum(caps)
    for c in range(left):
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        r = ((z >> 32) * left) >> 32
        k = 0
        while r >= room[k]:
            r -= room[k]
            k += 1
        room[k] -= 1
        out[k] |= 1 << c
        left -= 1
    return state, out


@njit
def _deal_all(rng, caps, out):
    for g in range(rng.shape[0]):
        deal_groups(rng, g, caps, out[g])


@njit
def _deal_sizes(rng, n, size, rest, out):
    for g in range(rng.shape[0]):
        deal_split(rng, g, group_sizes(n, size, rest), n + (1 if n < 8 else 0), out[g])


@pytest.mark.parametrize("caps", [[16, 16, 16, 0], [17, 17, 17, 1], [10, 10, 10, 2], [8, 8, 8, 8, 0], [4] * 8,
                                  [4] * 7, [1, 50], [0, 0, 5], [3], [0, 30, 0, 4, 30]])
def test_dealing_draws_what_it_always_drew(caps):
    rs = np.random.default_rng(len(caps) * 100 + sum(caps))
    rng = rs.integers(0, 2**63, 200, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    caps = np.array(caps, np.int64)
    got = rng.copy()
    out = np.zeros((200, len(caps)), np.uint64)
    _deal_all(got, caps, out)
    for g in range(200):
        state, groups = _reference_deal(int(rng[g]), caps.tolist())
        assert int(got[g]) == state and out[g].tolist() == groups


def test_group_sizes_deal_like_their_arrays():
    rng = np.arange(1, 51, dtype=np.uint64) * np.uint64(0x1234567)
    for n, size, rest in [(3, 16, 0), (3, 17, 1), (4, 8, 0), (3, 10, 2), (8, 4, 0)]:
        a, b = rng.copy(), rng.copy()
        caps = np.array([size] * n + ([rest] if n < 8 else []), np.int64)
        out_a = np.zeros((50, 8), np.uint64)
        out_b = np.zeros((50, 8), np.uint64)
        _deal_all(a, caps, out_a)
        _deal_sizes(b, n, size, rest, out_b)
        assert np.array_equal(a, b) and np.array_equal(out_a, out_b)


@njit
def _kth(xs, ks, out):
    for i in range(xs.shape[0]):
        out[i] = kth_bit(xs[i], ks[i])


def test_kth_bit():
    rs = np.random.default_rng(2)
    xs = [int(x) for x in rs.integers(1, 2**63, 300, dtype=np.int64)] + [M64, 1 << 63, 1, 0xFF00, 0x8000000000000001]
    xs_u = np.array(xs, np.uint64)
    bits = [[i for i in range(64) if (x >> i) & 1] for x in xs]
    ks = np.array([rs.integers(0, len(b)) for b in bits], np.int64)
    out = np.zeros(len(xs), np.int64)
    _kth(xs_u, ks, out)
    assert out.tolist() == [b[k] for b, k in zip(bits, ks, strict=True)]
    full = np.full(64, M64, np.uint64)
    _kth(full, np.arange(64), out[:64])
    assert out[:64].tolist() == list(range(64))
    # Every byte value in every byte position, every rank in it (the table's whole domain).
    xs, ks, want = [], [], []
    for y in range(1, 256):
        places = [i for i in range(8) if (y >> i) & 1]
        for j in range(8):
            for r, b in enumerate(places):
                xs.append(y << (8 * j) | (1 if j else 0))  # one lower bit too, from byte 1 on
                ks.append(r + (1 if j else 0))
                want.append(8 * j + b)
    out = np.zeros(len(xs), np.int64)
    _kth(np.array(xs, np.uint64), np.array(ks, np.int64), out)
    assert out.tolist() == want


def test_random_agent_picks_as_before():
    rs = np.random.default_rng(11)
    mask = rs.random((12, 70)) < 0.15
    mask[3] = False
    mask[4, 69] = True
    # Recorded with the agent as it was before the bitset kernel (same seed, same mask).
    assert RandomAgent(seed=3).act_batch(None, mask).tolist() == [40, 30, 58, -1, 41, 28, 67, 45, 7, 28, 66, 26]
    agent = RandomAgent(seed=9)
    assert [agent.act({"action_mask": m.astype(np.int8)}) for m in mask if m.any()] == [
        66, 47, 61, 37, 7, 47, 58, 61, 57, 25, 51]
    for width in (16, 17, 36, 64, 65, 70, 74, 100, 128):
        for p in (0.0, 0.04, 0.3, 1.0):
            m = rs.random((500, width)) < p
            rng = rs.integers(0, 2**63, 500, dtype=np.int64).astype(np.uint64)
            r1, r2 = rng.copy(), rng.copy()
            o1, o2 = np.zeros(500, np.int64), np.zeros(500, np.int64)
            _pick_random_legal(m, r1, o1)
            _pick_random_legal_bits(m, r2, o2)
            assert np.array_equal(o1, o2) and np.array_equal(r1, r2)


@pytest.mark.parametrize("game,options", VARIANTS[::2], ids=IDS[::2])
def test_one_and_two_threads_play_the_same(game, options):
    envs = [trickenv.make_vec(game, 150, seed=8, threads=t, **options) for t in (1, 2)]
    assert envs[1]._parallel  # two slices of the batch, stepped at once
    outs = [e.reset() for e in envs]
    agent = RandomAgent(1)
    for t in range(120):
        actions = agent.act_batch(None, outs[0][1]).copy()
        where = None if t % 5 else np.arange(150) % 3 != 0
        outs = [e.step(actions, where=where) for e in envs]
        for a, b in zip(*outs, strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(envs[0].deal_end, envs[1].deal_end)
    for a, b in zip(envs[0].state.arrays(), envs[1].state.arrays(), strict=True):
        assert np.array_equal(a, b)


def _trace(env, rng, steps):
    out = []
    for _ in range(steps):
        obs, reward, term, trunc, info = env.last()
        out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc,
                    {k: np.asarray(v).tobytes() for k, v in info.items()}, env.agent_selection,
                    dict(env.rewards), dict(env._cumulative_rewards)))
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset()
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_aec_step_path_follows_replaced_and_copied_state(game):
    """The AEC env binds its kernel arguments to env.game: replacing the state or copying the env rebinds."""
    envs = [trickenv.make(game, rounds=2) for _ in range(3)]
    for e in envs:
        e.reset(seed=4)
    first = [_trace(e, np.random.default_rng(0), 20) for e in envs]
    envs[1].unwrapped.game = envs[1].unwrapped.game.copy()
    envs[2] = copy.deepcopy(envs[2])
    rest = [_trace(e, np.random.default_rng(1), 150) for e in envs]
    assert first[0] == first[1] == first[2]
    assert rest[0] == rest[1] == rest[2]
    finish_randomly(envs[0], np.random.default_rng(2))


@pytest.mark.parametrize("game", ["four_tricks", "koenigrufen"])
@pytest.mark.parametrize("batch,threads", [(16, 1), (150, 1), (150, 2)])  # one call, and slices on two threads
def test_vec_step_path_follows_replaced_and_copied_state(game, batch, threads):
    """VecEnv.step binds its kernel arguments to env.state: replacing the state or copying the env rebinds."""
    envs = [trickenv.make_vec(game, batch, seed=5, threads=threads) for _ in range(3)]
    outs = [e.reset() for e in envs]
    agent = RandomAgent(2)

    def play(steps):
        nonlocal outs
        for t in range(steps):
            actions = agent.act_batch(None, outs[0][1]).copy()
            where = None if t % 3 else np.arange(batch) % 4 != t % 4  # both bound argument tuples
            outs = [e.step(actions, where=where) for e in envs]
            for a, b in zip(outs[0], outs[1], strict=True):
                assert np.array_equal(a, b)
            for a, b in zip(outs[0], outs[2], strict=True):
                assert np.array_equal(a, b)

    play(10)
    replaced = envs[1].state
    envs[1].state = replaced.copy()
    original = envs[2]
    envs[2] = copy.deepcopy(original)
    frozen = [a.copy() for a in original.state.arrays()]
    play(60)
    for a, b in zip(envs[0].state.arrays(), envs[1].state.arrays(), strict=True):
        assert np.array_equal(a, b)
    # Stepping went to the new state and the copy only: the replaced state and the original stayed put.
    for a, b, c in zip(frozen, original.state.arrays(), replaced.arrays(), strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert not np.array_equal(frozen[0], envs[0].state.hands)


def test_order_enforcing_still_enforces():
    env = trickenv.make("four_tricks")
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)
    with pytest.raises(AttributeError):
        env.last()
    env.reset(seed=1)
    it = iter(env.agent_iter())
    assert next(it) == env.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)
    env.agent_selection = "player_1"  # writes go to the env
    assert env.unwrapped.agent_selection == "player_1"


def test_an_illegal_action_in_one_slice_leaves_every_slice_unchanged():
    """With two threads each slice of the batch is stepped apart; the batch is checked first, as in one call."""
    vec = trickenv.make_vec("farbwechsel", 150, seed=3, threads=2)
    obs, mask, _ = vec.reset()
    before = [a.copy() for a in vec.state.arrays()], obs.copy(), mask.copy()
    actions = np.argmax(mask, axis=1)
    actions[140] = int(np.flatnonzero(~mask[140])[0])  # the second slice's game; the first slice is all legal
    with pytest.raises(ValueError, match="1 illegal action"):
        vec.step(actions)
    for a, b in zip(before[0], vec.state.arrays(), strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(before[1], obs) and np.array_equal(before[2], mask)
