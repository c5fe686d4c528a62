"""SeatEnv, the single-seat core: the same games as the AEC env stepped by hand, legal masks,
one act_batch call per opponent and engine step, the sampler, seeds, illegal actions."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.agents.base import BatchAgent
from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import TO_ACT
from trickenv.rewards import reward_scale, worst_score
from trickenv.single_seat import SeatEnv
from tests.helpers import random_legal


class FirstLegal(BatchAgent):
    """Deterministic: the lowest legal action id (``act`` and ``act_batch`` agree)."""

    name = "first"

    def act_batch(self, obs, mask):
        return np.asarray(mask).argmax(axis=1)


class LastLegal(BatchAgent):
    name = "last"

    def act_batch(self, obs, mask):
        m = np.asarray(mask)
        return m.shape[1] - 1 - m[:, ::-1].argmax(axis=1)


CASES = [
    ("four_tricks", {}, 0),
    ("four_tricks", {"bidding": True, "rounds": 3}, "rotate"),
    ("four_tricks", {"deck": 52, "rounds": 2}, "random"),
    ("farbwechsel", {"rounds": 2}, "rotate"),
    ("farbwechsel", {"num_players": 4, "partnership": True, "rounds": 2}, 3),
    ("koenigrufen", {"rounds": 2}, "random"),
    ("koenigrufen", {}, 1),
]
IDS = [f"{g}-{o}-{s}" for g, o, s in CASES]


class _ByHand:
    """One AEC env driven by hand with the seat and opponents the SeatEnv chose for its game."""

    def __init__(self, game, options, rng_state, pool):
        self.env = trickenv.make(game, illegal_action="raise", **options)
        self.env.unwrapped.game.rng[0] = rng_state  # deals exactly like the batched game
        self.env.reset()
        self.pool = pool
        self.live = True

    def advance(self, seat, assignment):
        """Opponents move until ``seat`` is to act; returns the learner's reward if a deal ended, else None."""
        e = self.env
        while True:
            if all(e.terminations.values()):
                self.live = False
                return None
            agent = e.agent_selection
            s = e.unwrapped.agent_name_mapping[agent]
            if s == seat:
                return None
            e.step(self.pool[assignment[s]].act(e.observe(agent)))
            if e.infos[agent]["deal_end"]:
                return e.rewards[f"player_{seat}"]

    def learner_step(self, action, seat):
        e = self.env
        assert e.agent_selection == f"player_{seat}"
        e.step(int(action))
        if e.infos["player_0"]["deal_end"]:
            return e.rewards[f"player_{seat}"]
        return None


@pytest.mark.parametrize("game,options,seat", CASES, ids=IDS)
def test_seat_env_equals_the_aec_env_stepped_by_hand(game, options, seat):
    """Same deals, same actions: the same observations, masks, rewards and deal ends as the AEC env."""
    b, seed = 6, 31
    spec = trickenv.make_spec(game, **options)
    pool = [FirstLegal(spec), LastLegal(spec)]
    core = SeatEnv(game, b, seat=seat, opponents=pool, seed=seed, dtype="int8", **options)
    hands = [_ByHand(game, options, st, pool) for st in seed_states(seed, b)]
    obs, mask = core.reset()
    seats, assign = core.seats.copy(), core.assignment.copy()
    for g, h in enumerate(hands):
        assert h.advance(seats[g], assign[g]) is None
    rng = np.random.default_rng(4)
    deals = 0
    for _ in range(400):
        for g, h in enumerate(hands):
            if not h.live:
                continue
            o = h.env.observe(f"player_{seats[g]}")
            assert np.array_equal(o["observation"], obs[g]), f"game {g}: observations differ"
            assert np.array_equal(o["action_mask"].astype(bool), mask[g]), f"game {g}: masks differ"
        actions = random_legal(mask, rng)
        obs, mask, reward, term, info = core.step(actions)
        for g, h in enumerate(hands):
            if not h.live:
                continue
            r = h.learner_step(actions[g], seats[g])
            if r is None:
                r = h.advance(seats[g], assign[g])
                if not h.live:
                    continue
            assert (r is not None) == bool(term[g]), f"game {g}: deal end differs"
            if r is not None:
                deals += 1
                assert info["score"][g] == r and info["seat"][g] == seats[g]
                assert np.array_equal(info["opponents"][g], assign[g])
                assert reward[g] == pytest.approx(r * reward_scale(spec))
                assert h.advance(core.seats[g], core.assignment[g]) is None  # the next deal of a match
        seats, assign = core.seats.copy(), core.assignment.copy()
        if not any(h.live for h in hands):
            break
    assert not any(h.live for h in hands)
    assert deals >= b * options.get("rounds", 1)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_masks_are_legal_and_rewards_are_the_learners_deal_scores(game):
    """Random play from the masks through 256 games (the engine raises on any illegal action);
    every reward is the learner's score in the deal record; each learner turn is the learner's."""
    core = SeatEnv(game, 256, seat="random", opponents=["random", "random"], seed=5)
    obs, mask = core.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(120):
        assert mask.any(axis=1).all()
        assert (core.vec.state.s[:, TO_ACT] == core.seats).all()  # the learner is to act everywhere
        seats = core.seats.copy()
        obs, mask, reward, term, info = core.step(random_legal(mask, rng))
        assert obs.dtype == np.float32 and obs.flags.writeable and mask.flags.writeable
        assert np.array_equal(info["seat"], seats)
        rec = core.deal_records()
        assert np.array_equal(rec["game"], np.flatnonzero(term))
        assert np.array_equal(info["score"][term], rec["scores"][np.arange(len(rec["game"])), seats[term]])
        assert np.array_equal(info["scores"][term], rec["scores"])
        assert (reward[~term] == 0).all()
        ends += int(term.sum())
    assert ends > 256
    assert np.array_equal(core.action_masks(), mask)


def test_each_opponent_acts_once_per_engine_step_on_all_its_rows():
    calls = []

    class Recorder(FirstLegal):
        def __init__(self, spec, tag):
            super().__init__(spec)
            self.tag = tag

        def act_batch(self, obs, mask):
            calls.append((self.tag, len(mask)))
            return super().act_batch(obs, mask)

    spec = trickenv.make_spec("koenigrufen")
    core = SeatEnv("koenigrufen", 64, seat="rotate", opponents=[Recorder(spec, 0), Recorder(spec, 1)], seed=1)
    steps = []
    inner = core.vec.step

    def counting_step(actions, where=None):
        if where is not None:  # an opponents' step: where = the games where an opponent is to act
            who = core.assignment[np.arange(64), core.vec.state.s[:, TO_ACT]]
            steps.append((len(calls), np.bincount(who[where], minlength=2)))
        return inner(actions, where=where)

    core.vec.step = counting_step
    obs, mask = core.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        core.step(random_legal(mask, rng))
        mask = core._mask
    assert len(steps) > 30
    previous = 0
    for n_calls, per_member in steps:
        made = calls[previous:n_calls]
        previous = n_calls
        # one call per pool member that acts somewhere, with all of its rows
        assert sorted(t for t, _ in made) == [m for m in range(2) if per_member[m] > 0]
        assert all(rows == per_member[t] for t, rows in made)


def test_sampler_picks_the_opponents_and_search_agents_get_the_state():
    seen = []

    def by_seat(*, rng, games, seats, num_players, pool_size):
        seen.append((games.copy(), seats.copy()))
        return np.tile(np.arange(num_players) % pool_size, (len(games), 1))

    class Search(FirstLegal):
        needs_state = True

        def act_batch(self, obs, mask, state=None, games=None):
            assert state is core.vec.state and len(games) == len(mask)
            assert (state.s[games, TO_ACT] != core.seats[games]).all()  # never the learner's turn
            return super().act_batch(obs, mask)

    spec = trickenv.make_spec("four_tricks")
    core = SeatEnv(spec, 16, seat="random", opponents=[FirstLegal(spec), Search(spec)], sampler=by_seat, seed=2)
    obs, mask = core.reset()
    assert np.array_equal(seen[0][0], np.arange(16))
    rng = np.random.default_rng(1)
    for _ in range(60):
        obs, mask, _, term, info = core.step(random_legal(mask, rng))
        expect = np.tile(np.arange(3) % 2, (16, 1))
        expect[np.arange(16), core.seats] = -1
        assert np.array_equal(core.assignment, expect)
    assert len(seen) > 1 and all(len(g) == len(s) for g, s in seen)


def test_seat_modes():
    core = SeatEnv("farbwechsel", 8, seat="rotate", seed=0)
    core.reset()
    assert np.array_equal(core.seats, np.arange(8) % 3)
    rng = np.random.default_rng(0)
    first = core.seats.copy()
    mask = core.action_masks()
    while True:
        _, mask, _, term, _ = core.step(random_legal(mask, rng))
        if term[0]:
            break
    assert core.seats[0] == (first[0] + 1) % 3
    with pytest.raises(ValueError, match="seat must be"):
        SeatEnv("farbwechsel", 2, seat=3)
    with pytest.raises(ValueError, match="seat must be"):
        SeatEnv("farbwechsel", 2, seat="left")


def test_same_seed_same_run_with_named_random_opponents():
    def run():
        core = SeatEnv("koenigrufen", 32, seat="random", opponents=["random", "random"], seed=9)
        obs, mask = core.reset(seed=3)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(50):
            obs, mask, reward, term, info = core.step(random_legal(mask, rng))
            out += [obs, reward, info["opponents"]]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_illegal_actions_raise_or_end_the_episode_with_the_worst_score(game):
    core = SeatEnv(game, 4, seed=0)
    obs, mask = core.reset()
    bad = (~mask).argmax(axis=1)
    with pytest.raises(ValueError, match="illegal"):
        core.step(bad)

    core = SeatEnv(game, 4, seed=0, illegal_action="penalize")
    obs, mask = core.reset()
    actions = mask.argmax(axis=1)
    actions[1] = (~mask[1]).argmax()
    with pytest.warns(UserWarning, match="illegal action by the learner"):
        obs, mask, reward, term, info = core.step(actions)
    spec = core.spec
    assert term.tolist() == [False, True, False, False]
    assert info["illegal_action"].tolist() == [False, True, False, False]
    assert info["score"][1] == worst_score(spec) and reward[1] == pytest.approx(worst_score(spec) * reward_scale(spec))
    assert (core.vec.state.s[:, TO_ACT] == core.seats).all()  # game 1 is at its next deal, the learner to act
    rng = np.random.default_rng(0)
    for _ in range(60):  # play goes on normally
        obs, mask, reward, term, info = core.step(random_legal(mask, rng))
        assert not info["illegal_action"].any()


def test_worst_scores():
    assert worst_score(trickenv.make_spec("four_tricks")) == -12
    assert worst_score(trickenv.make_spec("four_tricks", bidding=True)) == -16
    assert worst_score(trickenv.make_spec("four_tricks", target_schedule="default")) == -15
    assert worst_score(trickenv.make_spec("farbwechsel")) == -80
    assert worst_score(trickenv.make_spec("farbwechsel", num_players=4)) == -60
    assert worst_score(trickenv.make_spec("farbwechsel", num_players=4, partnership=True)) == -120
    assert worst_score(trickenv.make_spec("koenigrufen")) == -15
    for game in ("four_tricks", "farbwechsel", "koenigrufen"):  # no random deal scores below it
        v = trickenv.make_vec(game, 512, seed=1)
        obs, mask, _ = v.reset()
        rng = np.random.default_rng(0)
        low = 0.0
        for _ in range(300):
            _, mask, _, rew, _ = v.step(random_legal(mask, rng))
            low = min(low, float(rew.min()))
        assert worst_score(v.spec) <= low


def test_a_search_agent_object_as_opponent():
    """PIMC (needs_state=True) plays the opponent seats with the engine state of the batched env."""
    from trickenv.agents import PIMCAgent

    spec = trickenv.make_spec("four_tricks")
    core = SeatEnv(spec, 4, seat="random", opponents=[PIMCAgent(spec, seed=0, worlds=2, rollout="random")], seed=0)
    obs, mask = core.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(20):
        obs, mask, _, term, _ = core.step(random_legal(mask, rng))
        ends += int(term.sum())
    assert ends >= 4 and core.pool[0].searched > 0
