"""Tianshou's collector stores trickenv's infos: fixed keys, shapes and numeric dtypes at every step.

Runs the real library (tianshou.env.PettingZooEnv, masked random policies, a Collector with a
replay buffer) for 200 episodes of every game, with infos on, and reads the deal records back
out of the buffer.
"""

from __future__ import annotations

import numpy as np
import pytest

tianshou = pytest.importorskip("tianshou", reason="the tianshou extra is not installed")  # CI installs it

from tianshou.algorithm import MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402

import trickenv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_collector_keeps_infos_for_200_episodes(game):
    def make():
        return PettingZooEnv(trickenv.make(game))

    env = make()
    policies = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    algo = MultiAgentOffPolicyAlgorithm(algorithms=policies, env=env)
    envs = DummyVectorEnv([make for _ in range(4)])
    envs.seed(0)
    buffer = VectorReplayBuffer(20_000, 4)
    stats = Collector[CollectStats](algo, envs, buffer).collect(n_episode=200, reset_before_collect=True)
    assert stats.n_collected_episodes >= 200
    info = buffer[buffer.sample_indices(0)].info  # every stored step
    ends = np.asarray(info.deal_end, bool)
    assert ends.sum() == stats.n_collected_episodes  # one deal per episode, each recorded once
    scores = np.asarray(info.scores)[ends]
    n = env.env.unwrapped.spec.num_players
    assert scores.shape == (ends.sum(), n)
    if game == "koenigrufen":
        assert (scores.sum(axis=1) == 0).all()  # payments are zero-sum
    deals = np.asarray(info.deal)[ends]
    assert deals.shape[1] == n and (deals >= 0).all()
    assert (np.asarray(info.dealer)[~ends] >= -1).all()
