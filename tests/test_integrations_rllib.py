"""RLlib (ray[rllib], the rllib extra): the MultiAgentEnv passes RLlib's env check, masked PPO trains
in every game, examples/rllib_train.py runs with a remote env runner; the project under the
gymnasium that ray pins. CI runs this file in a venv of its own (``pytest -m rllib``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the rllib extra is not installed (CI runs it in its own venv)")
pytest.importorskip("ray.rllib")

import trickenv  # noqa: E402
from trickenv.rllib_env import MASK_KEY, OBS_KEY, TrickMultiAgentEnv, policy_mapping, ppo_config  # noqa: E402

pytestmark = [pytest.mark.rllib, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*illegal action:UserWarning")]
ROOT = Path(__file__).resolve().parents[1]
GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]


@pytest.mark.parametrize("game", GAMES)
def test_rllib_env_check_with_unmasked_random_actions(game):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = TrickMultiAgentEnv({"game": game})
    check_multiagent_environments(env)  # steps action_space.sample(): illegal actions end the episode
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    assert set(o) == {OBS_KEY, MASK_KEY} and o[OBS_KEY].dtype == np.float32 and o[MASK_KEY].dtype == np.float32
    assert env.observation_spaces[agent].contains(o)


@pytest.mark.parametrize("game", GAMES)
def test_episode_bookkeeping(game):
    """Turn-based: one observation per step (the seat to act), every seat's reward on every step,
    observations of all seats and terminated["__all__"] at the end; rewards sum to the deal scores."""
    env = TrickMultiAgentEnv({"game": game, "illegal_action": "raise"})
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    for _ in range(500):
        (agent, o), = obs.items()
        action = int(rng.choice(np.flatnonzero(o[MASK_KEY])))
        obs, rewards, terminated, truncated, _ = env.step({agent: action})
        assert agent in rewards and set(rewards) == set(env.possible_agents)
        for a, r in rewards.items():
            total[a] += r
        if terminated["__all__"]:
            break
    assert terminated["__all__"] and not truncated["__all__"] and set(obs) == set(env.possible_agents)
    record = env._env.deal_record()
    assert [total[a] for a in env.possible_agents] == pytest.approx(record["scores"].tolist())


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("game,policies", [("four_tricks", "shared"), ("farbwechsel", "shared"),
                                           ("koenigrufen", "per_seat")])
def test_masked_ppo_trains_one_iteration(local_ray, game, policies):
    import torch

    torch.set_num_threads(1)
    algo = ppo_config(game, policies=policies, train_batch_size_per_learner=300, minibatch_size=150,
                      num_epochs=1, hidden=(64,)).build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_env_steps_sampled_lifetime"] >= 300
    learners = result["learners"]
    ids = ["shared"] if policies == "shared" else [f"player_{i}" for i in range(4)]
    assert all(np.isfinite(learners[i]["policy_loss"]) for i in ids)


def test_policy_mapping():
    assert policy_mapping("shared")("player_2", None) == "shared"
    assert policy_mapping("per_seat")("player_2", None) == "player_2"
    with pytest.raises(ValueError):
        policy_mapping("teams")


def test_rllib_train_example_with_a_remote_env_runner():
    """The script as a user runs it (no RAY_ADDRESS: a local instance), sampling in one remote env runner."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "rllib_train.py"), "--game", "koenigrufen", "--iterations", "1",
         "--num-env-runners", "1", "--batch-size", "400", "--minibatch-size", "200", "--epochs", "1"],
        capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "iteration 1:" in out.stdout and "trained 1 iterations" in out.stdout, out.stdout


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_faces_under_the_gymnasium_ray_pins(game):
    """ray[rllib] pins gymnasium (2.60: 1.2.2): the single-seat env and the VectorEnv still pass."""
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    check_env(trickenv.make_single(game, seat="random"))
    envs = gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec(
        {"four_tricks": "trickenv/FourTricks-v0", "farbwechsel": "trickenv/Farbwechsel-v0",
         "koenigrufen": "trickenv/KingCalling-v0"}[game], num_envs=16, seed=0))
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        mask = infos["action_mask"]
        obs, reward, term, trunc, infos = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
        episodes += int(infos.get("_episode", np.zeros(16, bool)).sum())
    assert episodes > 0


@pytest.mark.cluster
def test_rllib_train_example_on_a_two_node_cluster():
    """The example script as a driver of a two-node Ray cluster (ray.cluster_utils: a head and a second node,
    each with its own raylet): its env runner is placed on the cluster, sampling and training run there."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()
        env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
        out = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "rllib_train.py"), "--game", "four_tricks", "--iterations", "1",
             "--num-env-runners", "1", "--batch-size", "400", "--minibatch-size", "200", "--epochs", "1",
             "--address", cluster.address],
            capture_output=True, text=True, timeout=600, env=env, cwd=ROOT,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        assert "iteration 1:" in out.stdout and "trained 1 iterations" in out.stdout, out.stdout
    finally:
        cluster.shutdown()
