"""The world sampler: worlds never contradict what the seat knows, depend on nothing else, and are
uniform over the consistent deals. Consistency is checked independently of the sampler: a deal is
consistent when replaying the game's actions on it is legal throughout and shows the seat the same
observation."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

import trickenv
from trickenv.engine.layout import DEALER, TO_ACT
from trickenv.games import koenigrufen as kr
from trickenv.games.four_tricks import TURNED_UP
from trickenv.sampler import information_state, sample_worlds
from tests.variants import IDS, VARIANTS

SINGLE = [(g, o) for g, o in VARIANTS if o.get("rounds", 1) in (1, None) and "win_at" not in o]
SINGLE_IDS = [i for (g, o), i in zip(VARIANTS, IDS, strict=True) if (g, o) in SINGLE]


def bits(x) -> list[int]:
    return [c for c in range(64) if (int(x) >> c) & 1]


def play_random(game, options, seed, steps):
    """A raw AEC env after ``steps`` random actions (fewer if the deal ends), and the actions."""
    env = trickenv.make(game, **options).unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    for _ in range(steps):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        a = int(rng.choice(legal))
        env.step(a)
        actions.append(a)
        if env.infos["player_0"]["deal_end"] or env.terminations["player_0"]:
            env.reset(seed=seed)
            actions = []
    return env, actions


def deal_of_world(spec, world, w) -> list[list[int]]:
    """The deal a world implies: each seat's hand plus what it played (King Calling: batches
    arranged so that the partner comes out as in the world)."""
    n = spec.num_players
    deal = []
    for q in range(n):
        cards_ = bits(world.hands[w, q]) + [c for c in range(spec.deck) if world.played_by[w, c] == q]
        deal.append(sorted(cards_))
    if spec.name == "koenigrufen" and world.s[w, kr.CALLED] >= 0:
        called = int(world.s[w, kr.CALLED])
        holder = next(q for q in range(n) if called in deal[q])
        first_batch = world.s[w, kr.PARTNER] >= 0 or world.s[w, kr.ALONE] == kr.ALONE_ON_PURPOSE
        rest = [c for c in deal[holder] if c != called]
        deal[holder] = ([called] + rest) if first_batch else (rest[:4] + [called] + rest[4:])
    return deal


def replays(game, options, deal, dealer, actions, seat, reference_obs) -> tuple[bool, object]:
    """Whether ``actions`` are all legal on ``deal`` and end with ``reference_obs`` for ``seat``."""
    env = trickenv.make(game, **options).unwrapped
    env.reset(options={"deal": deal, "dealer": dealer})
    for a in actions:
        if not env.observe(env.agent_selection)["action_mask"][a]:
            return False, env
        env.step(a)
    return bool(np.array_equal(env.observe(f"player_{seat}")["observation"], reference_obs)), env


@pytest.mark.parametrize("game,options", SINGLE, ids=SINGLE_IDS)
def test_every_world_replays_the_public_history(game, options):
    for seed, steps in ((1, 3), (2, 11), (3, 20), (4, 27)):
        env, actions = play_random(game, options, seed, steps)
        spec = env.spec
        seat = int(env.game.s[0, TO_ACT])
        ref = env.observe(f"player_{seat}")["observation"]
        dealer = int(env.game.s[0, DEALER])
        worlds = sample_worlds(spec, env.game, np.array([0]), np.array([seat]), 12, seed=seed)
        for w in range(12):
            if spec.name == "koenigrufen" and env.game.s[0, kr.CALLED] < 0:
                continue  # before the call: checked by test_call_phase_worlds
            ok, replay = replays(game, options, deal_of_world(spec, worlds, w), dealer, actions, seat, ref)
            assert ok, f"world {w} contradicts the history (seed {seed})"
            assert (replay.game.hands[0] == worlds.hands[w]).all()
            if spec.name == "koenigrufen":
                assert replay.game.s[0, kr.PARTNER] == worlds.s[w, kr.PARTNER]


def test_call_phase_worlds():
    env, _ = play_random("koenigrufen", {}, 5, 0)
    caller = int(env.game.s[0, TO_ACT])
    worlds = sample_worlds(env.spec, env.game, np.array([0]), np.array([caller]), 50, seed=0)
    mine = env.game.hands[0, caller]
    seen = set()
    for w in range(50):
        assert worlds.hands[w, caller] == mine
        held = [int(worlds.hands[w, q]) for q in range(4)] + [int(worlds.aux[w, 1 + q]) for q in range(4)]
        assert sum(bin(x).count("1") for x in held) == 32 and np.bitwise_or.reduce(held) == (1 << 32) - 1
        assert all(bin(x).count("1") == 4 for x in held)
        seen.add(int(worlds.aux[w, 1 + caller]))
    assert len(seen) > 40  # even its own second batch is unknown to the caller


def _hide_differently(spec, state, seat, rng):
    """A copy of game 0 that differs in what ``seat`` cannot know (not necessarily consistent)."""
    other = state.take(np.array([0]))
    n = spec.num_players
    a, b = [q for q in range(n) if q != seat][:2]
    ha, hb = bits(other.hands[0, a]), bits(other.hands[0, b])
    if ha and hb:
        ca, cb = rng.choice(ha), rng.choice(hb)
        other.hands[0, a] = np.uint64(int(other.hands[0, a]) ^ (1 << ca) ^ (1 << cb))
        other.hands[0, b] = np.uint64(int(other.hands[0, b]) ^ (1 << ca) ^ (1 << cb))
    aside = bits(other.aux[0, 0])
    if aside and hb and spec.name == "farbwechsel":
        cs, cb = aside[0], bits(other.hands[0, b])[0]
        other.aux[0, 0] = np.uint64(int(other.aux[0, 0]) ^ (1 << cs) ^ (1 << cb))
        other.hands[0, b] = np.uint64(int(other.hands[0, b]) ^ (1 << cs) ^ (1 << cb))
    other.rng[:] += np.uint64(12345)
    other.dealt[:] = np.uint64(77)
    if spec.name == "koenigrufen":
        other.aux[0, 1:] = other.aux[0, 1:][::-1].copy()
        info = information_state(spec, state, np.array([0]), np.array([seat]))
        if info.s[0, kr.PARTNER] == -2:  # unknown to the seat: change it
            other.s[0, kr.PARTNER] = (other.s[0, kr.PARTNER] + 2) % 4 - 1
            other.s[0, kr.HOLDER] = (other.s[0, kr.HOLDER] + 1) % 4
    return other


@pytest.mark.parametrize("game,options", VARIANTS, ids=IDS)
def test_worlds_depend_only_on_what_the_seat_knows(game, options):
    rng = np.random.default_rng(0)
    for seed, steps in ((1, 2), (2, 9), (3, 17), (4, 26)):
        env, _ = play_random(game, options, seed, steps)
        spec, state = env.spec, env.game
        seat = int(state.s[0, TO_ACT])
        other = _hide_differently(spec, state, seat, rng)
        changed = not all(np.array_equal(x, y) for x, y in zip(state.arrays(), other.arrays(), strict=True))
        assert changed
        one = sample_worlds(spec, state, np.array([0]), np.array([seat]), 8, seed=9)
        two = sample_worlds(spec, other, np.array([0]), np.array([seat]), 8, seed=9)
        for x, y in zip(one.arrays(), two.arrays(), strict=True):
            assert np.array_equal(x, y), "the worlds depend on hidden information"
        # ... while the seat's own cards do matter
        if bits(state.hands[0, seat]):
            mine = state.take(np.array([0]))
            q = (seat + 1) % spec.num_players
            c0, c1 = bits(mine.hands[0, seat])[0], (bits(mine.hands[0, q]) or [None])[0]
            if c1 is not None:
                mine.hands[0, seat] = np.uint64(int(mine.hands[0, seat]) ^ (1 << c0) ^ (1 << c1))
                mine.hands[0, q] = np.uint64(int(mine.hands[0, q]) ^ (1 << c0) ^ (1 << c1))
                three = sample_worlds(spec, mine, np.array([0]), np.array([seat]), 8, seed=9)
                assert not np.array_equal(three.hands, one.hands)


def consistent_deals(game, options, env, actions, seat):
    """Every deal of the unseen cards that replays the history (brute force, independent of the sampler)."""
    spec, st = env.spec, env.game
    n = spec.num_players
    ref = env.observe(f"player_{seat}")["observation"]
    played = {q: [c for c in range(spec.deck) if st.played_by[0, c] == q] for q in range(n)}
    others = [q for q in range(n) if q != seat]
    sizes = [bin(int(st.hands[0, q])).count("1") for q in others]
    public = set(bits(st.aux[0, 0])) if spec.name == "four_tricks" and st.s[0, TURNED_UP] >= 0 else set()
    pool = sorted(set(range(spec.deck)) - set(bits(st.hands[0, seat])) - {c for v in played.values() for c in v}
                  - public)
    out = []
    for first in itertools.combinations(pool, sizes[0]):
        left = [c for c in pool if c not in first]
        for second in itertools.combinations(left, sizes[1]) if len(others) > 1 else [()]:
            rest = [c for c in left if c not in second]
            groups = [first, second]
            if len(others) == 3:
                for third in itertools.combinations(rest, sizes[2]):
                    out.append(_check(game, options, env, actions, seat, ref, played, others, [first, second, third]))
            else:
                out.append(_check(game, options, env, actions, seat, ref, played, others, groups))
    return [d for d in out if d is not None]


def _check(game, options, env, actions, seat, ref, played, others, groups):
    deal = [None] * env.spec.num_players
    deal[seat] = sorted(bits(env.game.hands[0, seat]) + played[seat])
    for q, cards_ in zip(others, groups, strict=True):
        deal[q] = sorted(list(cards_) + played[q])
    ok, _ = replays(game, options, deal, int(env.game.s[0, DEALER]), actions, seat, ref)
    return tuple(tuple(bits(sum(1 << c for c in g))) for g in groups) if ok else None


@pytest.mark.parametrize("game,options,seed,steps", [
    # positions late in a deal with 20..300 consistent deals where voids (and King Calling's
    # duties) rule out more than half of the unconstrained deals; found by search
    ("four_tricks", {}, 11, 33),
    ("four_tricks", {"deck": 52, "trump": "none"}, 11, 38),
    ("farbwechsel", {}, 11, 23),
    ("farbwechsel", {"num_players": 4}, 11, 22),
    ("koenigrufen", {"partner_from": "full_hand"}, 11, 23),
])
def test_worlds_are_uniform_over_the_consistent_deals(game, options, seed, steps):
    env, actions = play_random(game, options, seed, steps)
    seat = int(env.game.s[0, TO_ACT])
    deals = consistent_deals(game, options, env, actions, seat)
    sizes = [bin(int(env.game.hands[0, q])).count("1") for q in range(env.spec.num_players) if q != seat]
    unseen = sum(sizes) + (0 if env.spec.name == "four_tricks" and env.game.s[0, TURNED_UP] >= 0
                           else bin(int(env.game.aux[0, 0])).count("1"))
    unconstrained, left = 1, unseen
    for size in sizes:
        unconstrained, left = unconstrained * math.comb(left, size), left - size
    assert 20 <= len(deals) <= 300 and len(deals) < unconstrained / 2, (len(deals), unconstrained)
    k = 60 * len(deals)
    worlds = sample_worlds(env.spec, env.game, np.array([0]), np.array([seat]), k, seed=1)
    others = [q for q in range(env.spec.num_players) if q != seat]
    seen = Counter(tuple(tuple(bits(worlds.hands[w, q])) for q in others) for w in range(k))
    assert set(seen) == set(deals), "a sampled world is inconsistent, or a consistent deal never comes up"
    expected = k / len(deals)
    chi2 = sum((c - expected) ** 2 / expected for c in seen.values())
    dof = len(deals) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof) + 10, (chi2, dof)  # far beyond any plausible chi-square draw
