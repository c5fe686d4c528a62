"""PettingZoo conventions: env() ends the episode on an illegal action like the classic games (a penalty,
terminations only, a gymnasium warning), raw_env and the batched env raise, observation dtype and keys."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import trickenv
from trickenv.rewards import worst_score

GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]
MODULES = {"four_tricks": "four_tricks_v0", "farbwechsel": "farbwechsel_v0", "koenigrufen": "koenigrufen_v0"}


def _first_illegal(env) -> tuple[str, int]:
    agent = env.agent_selection
    return agent, int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])


@pytest.mark.parametrize("game", GAMES)
def test_env_penalizes_an_illegal_action_like_pettingzoo_classic_games(game):
    env = trickenv.make(game)
    env.reset(seed=0)
    actor, bad = _first_illegal(env)
    with pytest.warns(UserWarning, match=f"illegal action by {actor}"):
        env.step(bad)
    penalty = worst_score(env.unwrapped.spec)
    assert env.rewards == {a: (penalty if a == actor else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos[actor]["illegal_action"] and not env.infos[env.possible_agents[0] if actor != "player_0"
                                                                else "player_1"]["illegal_action"]
    returns = {}
    for agent in env.agent_iter():  # every seat sees the end once, then the episode is over
        _, reward, term, trunc, _ = env.last()
        returns[agent] = reward
        assert term and not trunc
        env.step(None)
    assert returns[actor] == penalty and not env.agents


@pytest.mark.parametrize("game", GAMES)
def test_same_outcome_as_pettingzoos_terminate_illegal_wrapper(game):
    """PettingZoo's own wrapper over the raising raw_env gives the offender the same penalty."""
    ours = trickenv.make(game)
    theirs = TerminateIllegalWrapper(trickenv.make(game, illegal_action="raise"), illegal_reward=worst_score(
        trickenv.make_spec(game)))
    for env in (ours, theirs):
        env.reset(seed=5)
    actor, bad = _first_illegal(ours)
    with pytest.warns(UserWarning):
        ours.step(bad)
        theirs.step(bad)
    assert ours.rewards == theirs.rewards
    assert all(ours.terminations.values()) and all(theirs.terminations.values())


@pytest.mark.parametrize("game", GAMES)
def test_raw_env_and_batched_env_raise_and_raise_is_available(game):
    module = getattr(trickenv, MODULES[game])
    for env in (module.raw_env(), trickenv.make(game, illegal_action="raise")):
        env.reset(seed=0)
        _, bad = _first_illegal(env)
        with pytest.raises(ValueError, match="illegal action"):
            env.step(bad)
    vec = trickenv.make_vec(game, 4, seed=0)
    _, mask, _ = vec.reset()
    with pytest.raises(ValueError, match="illegal"):
        vec.step((~mask).argmax(axis=1))


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_state_test_steps_unmasked_random_actions(game):
    """pettingzoo.test.state_test samples actions without the mask: env() passes it as it is."""
    with pytest.warns(UserWarning):
        pz_state_test(trickenv.make(game), num_cycles=20)


@pytest.mark.parametrize("game", GAMES)
def test_float32_observations_and_own_key_names(game):
    env = trickenv.make(game, dtype="float32")
    with pytest.warns(UserWarning):  # api_test's foreign reset option and its Dict-space remark
        api_test(env, num_cycles=50, verbose_progress=False)
    env.reset(seed=1)
    ref = trickenv.make(game)
    ref.reset(seed=1)
    o, r = env.observe(env.agent_selection), ref.observe(ref.agent_selection)
    assert o["observation"].dtype == np.float32 and o["action_mask"].dtype == np.int8  # gymnasium's sample(mask)
    assert np.array_equal(o["observation"], r["observation"]) and np.array_equal(o["action_mask"], r["action_mask"])
    assert env.state().dtype == np.float32 and env.unwrapped.state_space.dtype == np.float32

    named = trickenv.make(game, dtype=np.float32, mask_dtype="float32", observation_key="observations")
    named.reset(seed=1)
    space = named.observation_space(named.agent_selection)
    obs = named.observe(named.agent_selection)
    assert set(obs) == {"observations", "action_mask"} and space.contains(obs)  # RLlib's keys and dtypes
    assert obs["action_mask"].dtype == np.float32
    with pytest.raises(ValueError, match="dtype"):
        trickenv.make(game, dtype="float64")
    with pytest.raises(ValueError, match="different"):
        trickenv.make(game, observation_key="x", mask_key="x")


def test_batched_env_arrays_are_read_only_views_copy_them_for_torch():
    """The documented copy: the batched env's buffers are read-only; np.array(...) gives torch a writable one."""
    torch = pytest.importorskip("torch")
    vec = trickenv.make_vec("four_tricks", 8, seed=0)
    obs, mask, _ = vec.reset()
    assert not obs.flags.writeable
    t = torch.from_numpy(np.array(obs, np.float32))
    assert t.shape == obs.shape
