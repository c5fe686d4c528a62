"""gymnasium and Stable-Baselines3 on the single-seat envs, run for real: both env checkers, the
registered ids, sb3-contrib's MaskablePPO (a short run beats random at Four Tricks), the VectorEnv
with gymnasium's wrappers, and the CleanRL-style example."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import trickenv
from trickenv.gym_env import SeatVectorEnv
from trickenv.single_seat import SeatEnv
from tests.helpers import random_legal

GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]
IDS = {"four_tricks": "trickenv/FourTricks-v0", "farbwechsel": "trickenv/Farbwechsel-v0",
       "koenigrufen": "trickenv/KingCalling-v0"}
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.filterwarnings("ignore:.*illegal action:UserWarning")


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def one_torch_thread():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # small nets on 2 busy cores: one thread is many times faster
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_and_sb3_env_checkers_pass(game):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    check_env(trickenv.make_single(game))
    check_env(gym.make(IDS[game], seat="rotate", opponents=["random", "random"]).unwrapped)
    sb3_check_env(trickenv.make_single(game, seat="random", dtype="int8"))


@pytest.mark.parametrize("game", GAMES)
def test_single_env_is_the_seat_env_with_one_game(game):
    """Same seed, same actions: SingleSeatEnv gives what SeatEnv(num_envs=1) gives."""
    env = trickenv.make_single(game, seat="rotate", seed=3, illegal_action="raise")
    core = SeatEnv(game, 1, seat="rotate", seed=3)
    obs, info = env.reset(seed=3)
    obs2, mask2 = core.reset(seed=3)
    assert np.array_equal(obs, obs2[0]) and np.array_equal(info["action_mask"], mask2[0])
    assert env.observation_space.contains(obs) and info["action_mask"].dtype == np.bool_
    rng = np.random.default_rng(0)
    deals = 0
    for _ in range(200):
        a = int(random_legal(env.action_masks()[None], rng)[0])
        obs, reward, term, trunc, info = env.step(a)
        obs2, mask2, reward2, term2, info2 = core.step(np.array([a]))
        assert np.array_equal(obs, obs2[0]) and reward == reward2[0] and term == term2[0] and not trunc
        assert np.array_equal(info["action_mask"], mask2[0]) and info["score"] == info2["score"][0]
        if term:
            deals += 1
            obs_next, info_next = env.reset()  # continues with the deal that is already dealt
            assert np.array_equal(obs_next, obs) and info_next["seat"] == core.seats[0]
    assert deals >= 8


def test_registered_ids_make_and_make_vec():
    for env_id in [*IDS.values(), "trickenv/Koenigrufen-v0"]:
        env = gym.make(env_id, opponents=["random"])
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert env.get_wrapper_attr("action_masks")().any()
        venv = gym.make_vec(env_id, num_envs=4, seat="random")
        assert isinstance(venv.unwrapped, SeatVectorEnv)
        obs, info = venv.reset(seed=0)
        assert obs.shape == (4, venv.single_observation_space.shape[0]) and info["action_mask"].shape[0] == 4
    assert trickenv.make_single("koenigrufen").core.spec.name == "koenigrufen"


def test_illegal_action_ends_the_episode_with_the_penalty_or_raises():
    env = trickenv.make_single("farbwechsel")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="illegal action"):
        obs, reward, term, trunc, info = env.step(bad)
    assert term and not trunc and info["illegal_action"] and info["score"] == -80.0
    assert reward == pytest.approx(-80 / 120)
    env = trickenv.make_single("farbwechsel", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal"):
        env.step(bad)


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_with_gymnasium_wrappers(game):
    """RecordEpisodeStatistics over the VectorEnv: same-step autoreset, one episode per deal, infos with masks."""
    envs = gym.wrappers.vector.RecordEpisodeStatistics(SeatVectorEnv(game, num_envs=32, seat="rotate", seed=1))
    obs, infos = envs.reset(seed=1)
    assert envs.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    core = SeatEnv(game, 32, seat="rotate", seed=1)
    core.reset(seed=1)
    episodes = deals = 0
    for _ in range(100):
        actions = random_legal(infos["action_mask"], rng)
        obs, reward, term, trunc, infos = envs.step(actions)
        obs2, _, reward2, term2, _ = core.step(actions)
        assert np.array_equal(obs, obs2) and np.array_equal(reward, reward2) and np.array_equal(term, term2)
        assert not trunc.any() and infos["_action_mask"].all()
        assert np.array_equal(infos["_score"], term)
        deals += int(term.sum())
        if "episode" in infos:
            episodes += int(infos["_episode"].sum())
            assert np.allclose(infos["episode"]["r"][infos["_episode"]], reward[infos["_episode"]])
    assert deals > 32 and episodes == deals
    assert np.array_equal(envs.unwrapped.action_masks(), infos["action_mask"])


def _mean_score(policy, deals: int = 4000, seed: int = 123) -> float:
    """Mean Four Tricks deal score of ``policy(obs, mask)`` in a random seat against random players."""
    env = SeatEnv("four_tricks", 500, seat="random", opponents=["random"], seed=seed)
    obs, mask = env.reset()
    scores = []
    while sum(len(s) for s in scores) < deals:
        obs, mask, _, term, info = env.step(policy(obs, mask))
        scores.append(info["score"][term])
    return float(np.concatenate(scores)[:deals].mean())


def test_maskable_ppo_learns_four_tricks_and_beats_random():
    """sb3-contrib's MaskablePPO, 16k steps on 8 single-seat envs (~20 s), then 4000 deals each."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(lambda: trickenv.make_single("four_tricks", seat="random"), n_envs=8, seed=2)
    model = MaskablePPO("MlpPolicy", venv, learning_rate=1e-3, n_steps=256, batch_size=512, n_epochs=10, gamma=1.0,
                        policy_kwargs=dict(net_arch=[128, 128]), seed=2, device="cpu")
    model.learn(16_384)
    assert len(model.ep_info_buffer) > 0 and get_action_masks(venv).shape == (8, venv.action_space.n)

    def ppo(obs, mask):
        return model.predict(obs, action_masks=mask, deterministic=True)[0]

    rng = np.random.default_rng(0)
    ppo_score = _mean_score(ppo)
    random_score = _mean_score(lambda obs, mask: random_legal(mask, rng))
    # random: about -1.42 (standard error 0.04); 16k steps reach about -1.2 (play low cards early)
    assert ppo_score > random_score + 0.1, (ppo_score, random_score)


@pytest.mark.parametrize("game", ["farbwechsel", "koenigrufen"])
def test_maskable_ppo_runs_on_the_other_games(game):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(lambda: gym.make(IDS[game], seat="random"), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    actions, _ = model.predict(obs, action_masks=masks)
    assert masks[np.arange(2), actions].all()


@pytest.mark.parametrize("game", GAMES)
def test_cleanrl_example_trains_on_the_vector_env(game, capsys):
    example = load_example("cleanrl_ppo_masked")
    result = example.main(["--game", game, "--total-timesteps", "4096", "--num-envs", "32", "--num-steps", "32",
                           "--update-epochs", "2", "--eval-deals", "300"])
    assert result["steps"] == 4096 and result["episodes"] > 0
    assert np.isfinite(result["greedy_score"]) and np.isfinite(result["random_score"])
    assert "mean deal score over 300 deals" in capsys.readouterr().out
