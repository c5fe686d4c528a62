"""trickenv's order-enforcing wrapper (trickenv.aec.OrderEnforcing) against PettingZoo's own.

trickenv's ``env()`` wraps the raw env in a subclass of PettingZoo's OrderEnforcingWrapper that
takes a direct path for the calls of an AEC loop. These tests make the same calls, right and
wrong, on it and on the stock wrapper of the installed PettingZoo, and ask for the same results:
values, errors (type and text) and PettingZoo's logged warnings. A PettingZoo release that
changes its wrapper's behaviour then fails here instead of leaving trickenv's copy behind.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import trickenv
from trickenv.aec import OrderEnforcing

GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]
BEFORE_RESET = ("rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents")


def pair(game: str, **kwargs) -> tuple:
    """trickenv's env() and PettingZoo's stock wrapper over a raw env made the same way."""
    ours = trickenv.make(game, **kwargs)
    assert type(ours) is OrderEnforcing
    return ours, OrderEnforcingWrapper(trickenv.make(game, **kwargs).unwrapped)


def plain(value):
    """A comparable form of what the env returns (arrays as dtype, shape and bytes)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def outcome(env, call) -> tuple:
    """What ``call(env)`` does: its value or its error, and the warnings it gave (both kinds PettingZoo
    uses: EnvLogger's log and UserWarnings; not numba's, which come with a first compile). The
    wrapper's class name is written as <wrapper>."""
    EnvLogger.flush()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("value", plain(call(env)))
        except Exception as e:  # noqa: BLE001 (the error is the outcome)
            result = (type(e).__name__, str(e).replace(type(env).__name__, "<wrapper>"))
    logged = [str(m) for m in EnvLogger.mqueue]
    EnvLogger.flush()
    return result, logged, [(w.category.__name__, str(w.message)) for w in caught
                            if issubclass(w.category, UserWarning)]


def same(ours, theirs, call) -> tuple:
    got, want = outcome(ours, call), outcome(theirs, call)
    assert got == want
    return got


def test_misuse_before_reset_fails_as_pettingzoo():
    ours, theirs = pair("four_tricks", render_mode="ansi")
    for name in BEFORE_RESET:
        (kind, text), _, _ = same(ours, theirs, lambda e, n=name: getattr(e, n))
        assert kind == "AttributeError" and "before reset" in text
    calls = {
        "last": lambda e: e.last(),
        "step": lambda e: e.step(0),
        "observe": lambda e: e.observe("player_0"),
        "state": lambda e: e.state(),
        "render": lambda e: e.render(),
        "agent_iter": lambda e: e.agent_iter(),
        "private": lambda e: e._obs,
    }
    for name, call in calls.items():
        (kind, _), _, _ = same(ours, theirs, call)
        assert kind != "value", name
    # What may be read before reset reads the same.
    for name in ("possible_agents", "max_num_agents", "metadata", "render_mode", "unwrapped"):
        same(ours, theirs, lambda e, n=name: str(getattr(e, n)))
    same(ours, theirs, lambda e: e.observation_space("player_1"))


def test_misuse_after_reset_fails_as_pettingzoo():
    ours, theirs = pair("four_tricks")
    for env in (ours, theirs):
        env.reset(seed=4)
    (kind, text), _, _ = same(ours, theirs, lambda e: [next(it) for it in [iter(e.agent_iter())] for _ in range(2)])
    assert kind == "AssertionError" and "need to call step" in text
    for env in (ours, theirs):
        env.reset(seed=4)
    # max_iter ends the loop, and each iter() of agent_iter starts its own count.
    def loop(env):
        agents, loop_ = [], env.agent_iter(max_iter=3)
        for _ in range(2):
            for agent in loop_:
                agents.append(agent)
                env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
        return agents

    (kind, agents), _, _ = same(ours, theirs, loop)
    assert kind == "value" and len(agents) == 6
    same(ours, theirs, lambda e: e.num_agents)
    same(ours, theirs, lambda e: e._cumulative_rewards)
    (kind, _), _, _ = same(ours, theirs, lambda e: e._obs)
    assert kind == "AttributeError"


@pytest.mark.parametrize("game", GAMES)
def test_same_play_and_end_of_episode_as_pettingzoos_wrapper(game):
    """Seeded random play through both wrappers: every value of the loop is the same, byte for byte,
    including a dead agent's step with an action, an illegal action's penalty and the steps after
    the end."""
    ours, theirs = pair(game, render_mode="ansi")
    for episode, seed in enumerate((11, 12)):
        for env in (ours, theirs):
            env.reset(seed=seed)
        rng = {id(ours): np.random.default_rng(seed), id(theirs): np.random.default_rng(seed)}

        def play(env, episode=episode, rng=rng):
            seen, first_dead = [], True
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                seen.append(plain((agent, obs, reward, term, trunc, info, env.rewards, env.agents)))
                if term or trunc:
                    if first_dead:
                        first_dead = False
                        seen.append(outcome(env, lambda e: e.step(0)))  # a dead agent may only step None
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                if episode == 1 and len(seen) == 9:
                    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # penalized
                else:
                    env.step(int(rng[id(env)].choice(legal)))
                seen.append(plain(env.state()))
            return seen

        (kind, steps), _, _ = same(ours, theirs, play)
        assert kind == "value" and len(steps) > 10
        same(ours, theirs, lambda e: e.render())
        (kind, _), logged, _ = same(ours, theirs, lambda e: e.step(None))  # every agent is done
        assert kind == "value" and logged and "step() called after all agents" in logged[0]
        same(ours, theirs, lambda e: (e.agents, list(e.agent_iter()), e.last(observe=False)))
