"""Self-play training: the SB3 VecEnv contract, the league, the saved players, resume, and a tiny run."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")  # CI installs it

import trickenv  # noqa: E402
from trickenv.agents import make_agent  # noqa: E402
from trickenv.agents.evaluation import evaluate  # noqa: E402
from trickenv.agents.features import Features  # noqa: E402
from trickenv.agents.policy import PolicyAgent, load_policy, save_policy, shipped_model_path  # noqa: E402
from trickenv.single_seat import SeatEnv  # noqa: E402
from trickenv.training import League, Run, Schedule, SeatVecEnv, TrainConfig, policy_weights  # noqa: E402
from trickenv.training.bc import (demonstrations, demonstrations_in_parallel, in_flushing_thread,  # noqa: E402
                                  soft_targets)
from trickenv.vector import VecEnv  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def tiny(game: str = "four_tricks", **kw) -> TrainConfig:
    base = dict(game=game, steps=4096, num_envs=32, n_steps=32, batch_size=512, epochs=1, net=(32, 32),
                bc_samples=3000, bc_epochs=1, snapshot_every=1024, eval_every=2048, eval_deals=8,
                checkpoint_every=2048, seed=3)
    base.update(kw)
    return TrainConfig(**base)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_vec_env_contract_and_masks(game):
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    spec = trickenv.make_spec(game)
    league = League(spec, seed=1)
    venv = SeatVecEnv(SeatEnv(spec, 16, seat="rotate", opponents=league.members, sampler=league.sampler, seed=2))
    assert is_masking_supported(venv)
    venv.seed(5)
    obs = venv.reset()
    assert obs.shape == (16, venv.features.size) and obs.dtype == np.float32
    assert venv.observation_space.contains(obs[0])
    rng = np.random.default_rng(0)
    finished = 0
    first = obs.copy()
    for _ in range(60):
        masks = get_action_masks(venv)
        assert masks.shape == (16, spec.num_actions) and masks.any(axis=1).all()
        assert np.array_equal(masks, np.stack(venv.env_method("action_masks")))
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)  # legal only: SeatEnv raises otherwise
        obs, reward, done, infos = venv.step(actions)
        assert len(infos) == 16 and reward.shape == (16,)
        for g in np.flatnonzero(done):
            assert infos[g]["terminal_observation"].shape == obs[g].shape
            assert infos[g]["episode"]["l"] >= 1 and "score" in infos[g]
            finished += 1
        assert not any(infos[g] for g in np.flatnonzero(~done))
    assert finished > 0
    assert venv.get_attr("render_mode") == [None] * 16 and venv.env_is_wrapped(object) == [False] * 16
    venv.seed(5)  # the same seed deals the same games (the learners' hands; opponents keep their own state)
    assert np.array_equal(venv.reset()[:, :spec.deck], first[:, :spec.deck])


def test_league_schedule_and_snapshots():
    spec = trickenv.make_spec("four_tricks")
    league = League(spec, Schedule(rules=0.5, latest=0.3, older=0.15, random=0.05), keep=2)
    assert np.allclose(league.probabilities, [0.05 / 0.55, 0.5 / 0.55])
    w = [(np.zeros((414, 4), np.float32), np.zeros(4, np.float32)), (np.zeros((4, 69), np.float32),
                                                                     np.zeros(69, np.float32))]
    meta = {"game": "four_tricks", "options": None, "features": "compact", "activation": "relu"}
    league.add_snapshot(10, w, meta)
    assert np.allclose(league.probabilities, [0.05, 0.5, 0.45])  # one snapshot takes latest + older
    for step in (20, 30):
        league.add_snapshot(step, w, meta)
    assert [s for s, _, _, _ in league.snapshots] == [20, 30] and len(league.members) == 4
    assert np.allclose(league.probabilities, [0.05, 0.5, 0.15, 0.3])
    picks = league.sampler(rng=np.random.default_rng(0), games=np.arange(4000), seats=np.zeros(4000, int),
                           num_players=3, pool_size=4)
    assert np.allclose(np.bincount(picks.ravel(), minlength=4) / picks.size, [0.05, 0.5, 0.15, 0.3], atol=0.01)


def test_the_league_schedule_from_the_command_line(tmp_path, capsys):
    from trickenv.cli import main
    from trickenv.training.league import parse_schedule

    assert parse_schedule("random=0.15, rules=0.35") == {"rules": 0.35, "latest": 0.30, "older": 0.20, "random": 0.15}
    for text, message in (("pimc=0.2", "'pimc=0.2' is not NAME=SHARE with NAME one of rules, latest, older, random"),
                          ("random", "'random' is not NAME=SHARE"), ("random=x", "the share of random must be a number"),
                          ("random=-1", "random must be a finite number >= 0, got -1.0"),
                          ("rules=0,random=0", "rules \\+ random must be > 0")):
        with pytest.raises(ValueError, match=message):
            parse_schedule(text)
    with pytest.raises(SystemExit):
        main(["train", "four_tricks", "--out", str(tmp_path / "R"), "--schedule", "random=-1", "--no-progress"])
    assert "argument --schedule: schedule: random must be a finite number >= 0" in capsys.readouterr().err
    with pytest.raises(ValueError, match="schedule: unknown pimc; allowed rules, latest, older, random"):
        Run(tiny(schedule={"pimc": 0.5}), tmp_path / "R", progress=False)
    assert not (tmp_path / "R").exists()
    run = Run(tiny(schedule=parse_schedule("random=0.5")), tmp_path / "S", progress=False)
    assert np.allclose(run.league.probabilities, [0.5 / 0.95, 0.45 / 0.95])


def test_saved_player_round_trip_and_checks(tmp_path):
    spec = trickenv.make_spec("four_tricks")
    rng = np.random.default_rng(0)
    size = Features(spec).size
    weights = [(rng.normal(size=(size, 16)).astype(np.float32), np.zeros(16, np.float32)),
               (rng.normal(size=(16, spec.num_actions)).astype(np.float32), np.zeros(spec.num_actions, np.float32))]
    meta = {"game": "four_tricks", "options": json.loads(json.dumps(spec.options)), "features": "compact",
            "activation": "relu"}
    save_policy(tmp_path / "p.npz", weights, meta)
    w2, meta2 = load_policy(tmp_path / "p.npz")
    assert meta2 == meta and all(np.array_equal(a, b) for (a, _), (b, _) in zip(weights, w2, strict=True))
    agent = make_agent(f"model:{tmp_path / 'p.npz'}", spec)
    v = trickenv.make_vec("four_tricks", 64, seed=1)
    obs, mask, _ = v.reset()
    for _ in range(60):
        a = agent.act_batch(obs, mask)
        assert mask[np.arange(64), a].all()
        assert np.array_equal(a, PolicyAgent.from_weights(spec, weights, meta).act_batch(obs, mask))
        obs, mask, *_ = v.step(a)
    with pytest.raises(ValueError, match="plays 'four_tricks', not 'farbwechsel'"):
        PolicyAgent(trickenv.make_spec("farbwechsel"), path=tmp_path / "p.npz")
    with pytest.raises(ValueError, match="trained with options"):
        PolicyAgent(trickenv.make_spec("four_tricks", deck=52), path=tmp_path / "p.npz")
    with pytest.raises(ValueError, match="no trained player"):
        PolicyAgent(spec, path=tmp_path / "missing.npz")


def test_resume_continues_from_the_checkpoint(tmp_path):
    out = tmp_path / "run"
    first = Run(tiny(steps=2048), out, progress=False)
    first.train()
    saved = policy_weights(first.model)
    steps = first.model.num_timesteps
    with pytest.raises(FileExistsError):
        Run(tiny(), out, progress=False)
    again = Run(tiny(steps=4096), out, resume=True, progress=False)
    assert again.model.num_timesteps == steps
    assert all(np.array_equal(a, b) and np.array_equal(c, d)
               for (a, c), (b, d) in zip(saved, policy_weights(again.model), strict=True))
    assert len(again.league.snapshots) == len(first.league.snapshots)

    # Ctrl-C: the run saves a checkpoint at the step it was stopped and --resume continues there.
    def stop():
        raise KeyboardInterrupt

    again.snapshot = stop
    with pytest.raises(KeyboardInterrupt):
        again.train()
    stopped = again.model.num_timesteps
    assert steps < stopped < 4096
    third = Run(tiny(steps=4096), out, resume=True, progress=False)
    assert third.model.num_timesteps == stopped
    third.train()
    assert third.model.num_timesteps >= 4096 and (out / "player.npz").exists()
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("steps,") and len(rows) >= 3


def test_a_run_killed_at_a_checkpoint_resumes_with_its_own_settings(tmp_path):
    """The defect of issue 25: `--resume` without flags trained on to the default 3,000,000 steps."""
    out = tmp_path / "R"
    flags = ["--steps", "40000", "--num-envs", "32", "--n-steps", "32", "--batch-size", "512", "--epochs", "1",
             "--net", "16,16", "--bc-samples", "2000", "--bc-epochs", "1", "--snapshot-every", "4096",
             "--eval-every", "100000", "--eval-deals", "4", "--checkpoint-every", "2048", "--seed", "3"]
    cmd = [sys.executable, "-m", "trickenv.cli", "train", "four_tricks", "--out", str(out), "--no-progress"]
    trainer = subprocess.Popen(cmd + flags, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 300
        while not (out / "checkpoint" / "state.json").exists():
            assert trainer.poll() is None and time.time() < deadline, "the run never wrote a checkpoint"
            time.sleep(0.2)
        trainer.kill()  # kill -9 just after a checkpoint
    finally:
        trainer.kill()
        trainer.wait()
    saved = json.loads((out / "config.json").read_text())
    at = json.loads((out / "checkpoint" / "state.json").read_text())["num_timesteps"]
    assert 0 < at < 40000

    from trickenv.cli import main

    # A flag that would change what the run learns is refused, naming it, and nothing is written.
    with pytest.raises(SystemExit, match="learning_rate is 0.0003 in this run, the command asks 0.001"):
        main(["train", "four_tricks", "--out", str(out), "--resume", "--learning-rate", "0.001", "--no-progress"])
    with pytest.raises(SystemExit, match="game is 'four_tricks' in this run"):
        main(["train", "farbwechsel", "--out", str(out), "--resume", "--no-progress"])
    with pytest.raises(SystemExit, match="options is {} in this run"):
        main(["train", "four_tricks", "deck=52", "--out", str(out), "--resume", "--no-progress"])
    assert json.loads((out / "config.json").read_text()) == saved and not (out / "resumes.jsonl").exists()

    # --resume alone: the run's own settings (a few steps of them here: --steps is a change a resume may make,
    # applied and recorded; the flags equal to the run's are no change).
    main(["train", "four_tricks", "--out", str(out), "--resume", "--steps", str(at + 1024), "--seed", "3",
          "--no-progress"])
    after = json.loads((out / "config.json").read_text())
    assert after == {**saved, "steps": at + 1024}
    assert [json.loads(line) for line in (out / "resumes.jsonl").read_text().splitlines()] == [
        {"at_step": at, "changes": {"steps": [40000, at + 1024]}}]
    finished = json.loads((out / "final.json").read_text())["steps"]
    assert at + 1024 <= finished < at + 2048  # one more PPO update of 32 x 32 decisions, not 3,000,000
    # A second resume with no flags keeps the recorded steps: the run is done, it only exports again.
    main(["train", "four_tricks", "--out", str(out), "--resume", "--no-progress"])
    assert json.loads((out / "final.json").read_text())["steps"] == finished
    assert json.loads((out / "config.json").read_text())["steps"] == at + 1024


def test_a_tiny_training_run_beats_random(tmp_path):
    run = Run(tiny(steps=6144, bc_samples=20000, bc_epochs=2, net=(64, 64)), tmp_path / "ft", progress=False)
    summary = run.train()
    assert summary["throughput"]["decisions_per_second"] > 0
    res = evaluate("four_tricks", [make_agent(f"model:{tmp_path / 'ft' / 'player.npz'}", "four_tricks"), "random"],
                   deals=150, seed=7, progress=False, ratings=False).to_dict()
    assert res["pairs"][0]["ci95"][0] > 0, res["pairs"][0]


def test_a_run_with_per_action_features_trains_and_exports_a_player_that_reads_them(tmp_path):
    run = Run(tiny(steps=1024, bc_samples=2000, features="actions", privileged_critic=True), tmp_path / "ft",
              progress=False)
    assert run.venv.actor_inputs == Features(run.spec, actions=True).size
    run.train()
    weights, meta = load_policy(tmp_path / "ft" / "player.npz")
    assert meta["features"] == "actions" and weights[0][0].shape[0] == run.venv.actor_inputs
    agent = PolicyAgent(run.spec, path=tmp_path / "ft" / "player.npz")
    assert agent.features.actions
    env = VecEnv(run.spec, 4, seed=0)
    obs, mask = env.reset(seed=0)[:2]
    assert mask[np.arange(4), agent.act_batch(obs, mask)].all()
    with pytest.raises(ValueError, match="features must be 'compact' or 'actions', got 'raw'"):
        Run(tiny(features="raw"), tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()  # refused before anything is written


def test_the_warm_start_can_clone_the_search_agent(tmp_path):
    spec = trickenv.make_spec("four_tricks")
    data = demonstrations(spec, 3000, seed=5, teacher="pimc", batch=64, worlds=2)
    rows = np.arange(len(data["action"]))
    assert len(rows) > 0 and data["mask"][rows, data["action"]].all()
    # The first decisions are the search agent's on the same deals (it got the engine state).
    vec = VecEnv(spec, 64, seed=5)
    obs, mask, _ = vec.reset()
    first = make_agent("pimc", spec, seed=5, worlds=2).act_batch(obs, mask, state=vec.state, games=np.arange(64))
    assert np.array_equal(data["action"][:64], first)
    rules = demonstrations(spec, 3000, seed=5, teacher="rules", batch=64)
    assert not np.array_equal(rules["action"][:64], first)
    with pytest.raises(ValueError, match="bc_teacher must be"):
        Run(tiny(bc_teacher="oracle"), tmp_path / "bad", progress=False)


def test_the_warm_start_can_distil_a_trained_player(tmp_path):
    """bc_teacher="model:PATH" (or "model", the shipped player): the student imitates a saved player, e.g. a small
    network for playouts. The teacher is a fixed file (the search's playout player), so that how well a 64-unit
    student can follow it does not change whenever another player is shipped."""
    path = shipped_model_path("four_tricks").with_name("four_tricks_rollout.npz")
    teacher = make_agent(f"model:{path}", "four_tricks")
    run = Run(tiny(steps=0, bc_samples=20000, bc_epochs=2, net=(64,), features="actions", bc_teacher=f"model:{path}"),
              tmp_path / "small", progress=False)
    run.train()
    data = run.demonstrations()  # kept from the run: the teacher's choices in its own self-play
    assert np.array_equal(data["action"], teacher.act_batch(data["obs"], data["mask"]))
    student = make_agent(f"model:{tmp_path / 'small' / 'player.npz'}", "four_tricks")
    assert [w.shape for w, _ in student.weights] == [(Features(run.spec, actions=True).size, 64), (64, 69)]
    agree = (student.act_batch(data["obs"], data["mask"]) == data["action"]).mean()
    assert agree > 0.6, agree
    # "model" is the shipped player: its demonstrations are its own moves.
    shipped = Run(tiny(steps=0, bc_samples=300, bc_teacher="model"), tmp_path / "shipped", progress=False).demonstrations()
    assert np.array_equal(shipped["action"], make_agent("model", "four_tricks").act_batch(shipped["obs"], shipped["mask"]))
    for bad in ("model:/nowhere/player.npz", f"model:{make_agent('model', 'farbwechsel').path}"):
        with pytest.raises(ValueError, match="no trained player at|plays 'farbwechsel'"):
            Run(tiny(bc_teacher=bad), tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()


def test_the_temperature_is_in_reward_units():
    from trickenv.training.bc import score_temperature

    # softmax(reward / T) = softmax(score / (T / reward_scale)): a searched value is a deal score.
    assert score_temperature(trickenv.make_spec("four_tricks"), 0.3) == pytest.approx(1.2)
    assert score_temperature(trickenv.make_spec("farbwechsel"), 0.3) == pytest.approx(36.0)
    assert score_temperature(trickenv.make_spec("koenigrufen"), 0.3) == 0.3
    # The shipped Four Tricks command's 0.01875 is exactly the 0.075 points it was trained with.
    assert np.float32(score_temperature(trickenv.make_spec("four_tricks"), 0.01875)) == np.float32(0.075)


def test_soft_targets_weigh_the_searched_actions_by_their_values():
    nan = np.nan
    values = np.array([[1.0, nan, 0.0, nan],     # two searched actions, one unit apart
                       [nan, nan, nan, nan],     # not searched: all on the chosen action
                       [2.0, 2.0, nan, nan]], np.float32)
    t = soft_targets(values, np.array([0, 3, 1]), temperature=0.5)
    e = np.exp(2.0)
    assert np.allclose(t[0], [e / (e + 1), 0, 1 / (e + 1), 0])
    assert np.allclose(t[1], [0, 0, 0, 1]) and np.allclose(t[2], [0.5, 0.5, 0, 0])
    spec = trickenv.make_spec("four_tricks")
    data = demonstrations(spec, 2000, seed=5, teacher="pimc", batch=32, worlds=2)
    searched = np.isfinite(data["values"]).any(axis=1)
    assert searched.any() and data["values"].shape == data["mask"].shape
    assert np.array_equal(np.nanargmax(data["values"][searched], axis=1), data["action"][searched])


def test_the_fits_run_where_subnormal_floats_are_flushed_on_every_thread():
    import signal
    import threading

    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        tiny_floats = torch.full((1_000_000,), 1e-39)  # subnormal in float32; big enough for both threads
        assert float((tiny_floats * 1.0).sum()) > 0  # the caller's pool has run torch's work before: not flushed
        assert in_flushing_thread(lambda stop: float((tiny_floats * 1.0).sum())) == 0.0
        assert float((tiny_floats * 1.0).sum()) > 0  # and the caller's threads are as they were
    finally:
        torch.set_num_threads(threads)

    def fails(stop):
        raise ValueError("from the fit")

    with pytest.raises(ValueError, match="from the fit"):
        in_flushing_thread(fails)

    # Interrupted while it waits (Ctrl-C), the caller stops the fit and waits for it before it raises.
    seen = []

    def interrupted(stop):
        time.sleep(0.2)  # the caller waits by now
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # Ctrl-C
        seen.append(stop.wait(timeout=30))
        time.sleep(0.2)
        seen.append("returned")

    # Python's own Ctrl-C handler for this test: a pytest started in the background (nohup ... &) inherits
    # SIGINT ignored, and the signal would then never reach the caller.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            in_flushing_thread(interrupted)
    finally:
        signal.signal(signal.SIGINT, before)
    assert seen == [True, "returned"]


def test_the_pimc_warm_start_fits_the_values_and_keeps_its_demonstrations(tmp_path, monkeypatch):
    config = tiny(steps=64, bc_samples=1500, bc_epochs=1, bc_teacher="pimc", bc_worlds=2, bc_temperature=0.25,
                  net=(16, 16), num_envs=8, n_steps=8, batch_size=64, eval_deals=4)
    run = Run(config, tmp_path / "soft", progress=False)
    stats = run.warm_start()
    assert (tmp_path / "soft" / "demonstrations.npz").exists() and stats["bc_samples"] > 0
    # The same run started again reads the demonstrations instead of searching them again.
    import trickenv.training.train as train_module

    def no_search(*args, **kwargs):
        raise AssertionError("the demonstrations were searched again")

    monkeypatch.setattr(train_module, "demonstrations", no_search)
    again = Run(config, tmp_path / "soft", progress=False)
    assert again.warm_start()["bc_samples"] == stats["bc_samples"]
    # Other settings do not reuse them.
    other = Run(dataclasses.replace(config, bc_worlds=3), tmp_path / "soft", progress=False)
    with pytest.raises(AssertionError, match="searched again"):
        other.warm_start()
    with pytest.raises(ValueError, match="bc_temperature must be"):
        Run(tiny(bc_temperature=-1.0), tmp_path / "bad", progress=False)
    with pytest.raises(ValueError, match="bc_temperature needs a search teacher"):
        Run(tiny(bc_temperature=0.3), tmp_path / "bad", progress=False)


def test_the_warm_start_can_fit_the_search_agents_values_with_its_keywords(tmp_path, monkeypatch):
    """bc_teacher="search:solve_tricks=2": the search agent, its keywords as on the command line, bc_worlds worlds."""
    import trickenv.training.train as train_module
    from trickenv.agents.search import SearchAgent

    asked = []
    real = train_module.demonstrations
    # 64 games side by side instead of 1,024: the same teacher and data path, in seconds
    monkeypatch.setattr(train_module, "demonstrations",
                        lambda spec, n, **kw: asked.append(kw) or real(spec, n, **{**kw, "batch": 64}))
    config = tiny(steps=0, bc_samples=600, bc_epochs=1, bc_teacher="search:solve_tricks=1", bc_worlds=2,
                  bc_temperature=0.3, net=(16, 16), eval_deals=4)
    run = Run(config, tmp_path / "s", progress=False)
    run.train()
    assert asked[0]["teacher"] == "search:solve_tricks=1" and asked[0]["worlds"] == 2
    assert (tmp_path / "s" / "player.npz").exists()
    data = run.demonstrations()  # kept from the run
    # The teacher's moves and values on its own games: those of the search agent so made, deal for deal.
    spec = trickenv.make_spec("four_tricks")
    teacher = make_agent("search", spec, seed=config.seed + 17, worlds=2, solve_tricks=1)
    assert isinstance(teacher, SearchAgent) and teacher.solve_tricks == 1
    vec = VecEnv(spec, 64, seed=config.seed + 17)
    obs, mask, _ = vec.reset()
    first, values = teacher.search_batch(obs, mask, state=vec.state, games=np.arange(64))
    assert np.array_equal(data["action"][:64], first)
    assert np.array_equal(data["values"][:64], values, equal_nan=True)
    searched = np.isfinite(data["values"]).any(axis=1)  # every decision but the forced ones
    assert searched.mean() > 0.5
    v = data["values"][searched]
    chosen = v[np.arange(len(v)), data["action"][searched]]
    assert np.allclose(chosen, np.nanmax(v, axis=1), atol=1e-5)  # the teacher plays a best searched move
    for bad, message in (("search:bogus=1", "bc_teacher: agent 'search:bogus=1': search takes no keyword 'bogus'"),
                         ("search:16", r"bc_teacher: agent 'search:16' gives 'worlds'.*\(a search teacher's worlds "
                                       r"are bc_worlds\)")):
        with pytest.raises(ValueError, match=message):
            Run(tiny(bc_teacher=bad), tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize("seated,share", [("rules", "mix"), ("random", "mix_random")])
def test_mixed_demonstration_tables_play_the_other_agent_and_keep_the_teachers_labels(seated, share):
    spec = trickenv.make_spec("four_tricks")
    alone = demonstrations(spec, 1200, seed=5, teacher=seated, batch=32)
    # Every seat the other agent's: its games, labelled with the search agent's choices.
    everyone = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, **{share: 1.0})
    n = min(len(alone["obs"]), len(everyone["obs"]))
    assert n > 0 and np.array_equal(everyone["obs"][:n], alone["obs"][:n])
    assert not np.array_equal(everyone["action"][:n], alone["action"][:n])
    assert everyone["mask"][np.arange(len(everyone["action"])), everyone["action"]].all()
    # Half the seats: other games than both pure tables, the same for the same seed.
    half = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, **{share: 0.5})
    pure = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2)
    m = min(len(half["obs"]), len(pure["obs"]), n)
    assert not np.array_equal(half["obs"][:m], pure["obs"][:m]) and not np.array_equal(half["obs"][:m], alone["obs"][:m])
    again = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, **{share: 0.5})
    assert all(np.array_equal(half[k], again[k], equal_nan=True) for k in half)


def test_mixed_demonstration_tables_with_both_and_the_refusals(tmp_path):
    spec = trickenv.make_spec("four_tricks")
    # Rules, random and the teacher at one table: other games than the rules-only mix, the same for the same seed.
    rules = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, mix=0.4)
    both = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, mix=0.4, mix_random=0.3)
    m = min(len(rules["obs"]), len(both["obs"]))
    assert not np.array_equal(rules["obs"][:m], both["obs"][:m])
    again = demonstrations(spec, 1200, seed=5, teacher="pimc", batch=32, worlds=2, mix=0.4, mix_random=0.3)
    assert all(np.array_equal(both[k], again[k], equal_nan=True) for k in both)
    with pytest.raises(ValueError, match=r"mix must be a share of seats in \[0, 1\]"):
        demonstrations(spec, 100, teacher="pimc", worlds=2, mix=1.5)
    with pytest.raises(ValueError, match=r"mix_random must be a share of seats in \[0, 1 - mix\] = \[0, 0.6\]"):
        demonstrations(spec, 100, teacher="pimc", worlds=2, mix=0.4, mix_random=0.7)
    with pytest.raises(ValueError, match="bc_mix must be a share"):
        Run(tiny(bc_teacher="pimc", bc_mix=-0.1), tmp_path / "bad", progress=False)
    with pytest.raises(ValueError, match="bc_mix seats the rule-based agent beside another teacher"):
        Run(tiny(bc_mix=0.5), tmp_path / "bad", progress=False)
    with pytest.raises(ValueError, match=r"bc_mix_random must be a share of seats in \[0, 1 - bc_mix\]"):
        Run(tiny(bc_teacher="pimc", bc_mix=0.5, bc_mix_random=0.6), tmp_path / "bad", progress=False)
    assert not (tmp_path / "bad").exists()


def test_demonstrations_in_parallel_are_the_workers_parts_in_order():
    spec = trickenv.make_spec("four_tricks")
    both = demonstrations_in_parallel("four_tricks", {}, 1600, 2, seed=5, teacher="pimc", worlds=2)
    parts = [demonstrations(spec, 800, seed=5 + i, teacher="pimc", worlds=2) for i in range(2)]
    for key in ("obs", "mask", "action", "return", "values"):
        assert np.array_equal(both[key], np.concatenate([p[key] for p in parts]), equal_nan=key == "values"), key
    with pytest.raises(ValueError, match="bc_workers must be a positive integer"):
        Run(tiny(bc_workers=0), "unused", progress=False)


# It tells a killed worker from a zombie by reading /proc/<pid>/stat; without /proc (macOS, Windows) it cannot
# check, and the mechanism it tests (a thread polling os.getppid) needs no platform of its own.
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states from /proc (Linux)")
def test_demonstration_workers_exit_when_the_trainer_is_killed():
    # The trainer's stand-in starts a pool like demonstrations_in_parallel, prints its worker's pid, gives
    # it a long job (an idle worker would see its task pipe close and exit anyway), then waits for it.
    script = (
        "import multiprocessing, os, time\n"
        "from trickenv.training.bc import exit_with_parent\n"
        "pool = multiprocessing.get_context('spawn').Pool(1, initializer=exit_with_parent, initargs=(0.1,))\n"
        "print(pool.apply(os.getpid), flush=True)\n"
        "pool.apply(time.sleep, (120,))\n"
    )
    trainer = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(trainer.stdout.readline())
        assert alive(worker)
        trainer.kill()  # SIGKILL: no finally, no atexit, the pool is never closed
        trainer.wait(10)
        deadline = time.monotonic() + 20
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(worker), "the worker outlived its trainer"
    finally:
        trainer.kill()


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_points_bonus_adds_the_sides_card_points_at_deal_end():
    spec = trickenv.make_spec("koenigrufen")
    plain = SeatVecEnv(SeatEnv(spec, 16, seat="rotate", opponents=["rules"], seed=4))
    shaped = SeatVecEnv(SeatEnv(spec, 16, seat="rotate", opponents=["rules"], seed=4), points_bonus=0.5)
    plain.reset(), shaped.reset()
    rules = make_agent("rules", spec, seed=1)
    checked = 0
    for _ in range(40):
        masks = plain.action_masks()
        assert np.array_equal(masks, shaped.action_masks())
        obs = plain.seat_env._obs  # the learners' raw observations (same games, same seeds)
        a = rules.act_batch(obs, masks)
        _, r0, d0, _ = plain.step(a)
        _, r1, d1, _ = shaped.step(a)
        assert np.array_equal(d0, d1)
        if d1.any():
            rec = shaped.seat_env.deal_records()
            seat = shaped.seat_env.seats  # rotated already: the finished deal's seat is one back
            for k, g in enumerate(rec["game"]):
                s = (seat[g] - 1) % 4
                side = rec["calling_side"][k, s]
                pts = rec["team_totals"][k, 0 if side else 1]
                assert r1[g] == pytest.approx(r0[g] + 0.5 * (pts - 60) / 120, abs=1e-5)
                checked += 1
        assert np.array_equal(r0[~d0], r1[~d1])
    assert checked > 0


def test_the_warm_start_fits_with_a_torch_thread_per_worker_then_gives_them_back(tmp_path, monkeypatch):
    import torch

    import trickenv.training.train as train_module

    seen = []
    monkeypatch.setattr(train_module, "behaviour_clone", lambda *a, **k: seen.append(torch.get_num_threads()) or {})
    run = Run(tiny(bc_workers=2, bc_teacher="pimc"), tmp_path / "run", progress=False)
    monkeypatch.setattr(run, "demonstrations", lambda: {})
    run.warm_start()
    assert seen == [2]
    assert torch.get_num_threads() == run.config.torch_threads == 1


def test_evaluations_against_pimc_and_the_time_to_strength_plot(tmp_path):
    from trickenv.training import plot_time_to_strength

    run = Run(tiny(steps=1024, eval_every=512, eval_pimc=True, bc_samples=1000), tmp_path / "run", progress=False)
    run.train()
    import csv

    with open(tmp_path / "run" / "eval.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 2 and {"diff", "pimc_diff", "pimc_ci_lo", "pimc_ci_hi", "minutes"} <= set(rows[0])
    assert [float(r["minutes"]) for r in rows] == sorted(float(r["minutes"]) for r in rows)
    plot_time_to_strength(tmp_path / "run" / "eval.csv", tmp_path / "t.png", title="four_tricks")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from trickenv.training import plot_curve

    plot_curve(tmp_path / "run" / "eval.csv", tmp_path / "c.png", title="four_tricks")
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "empty.csv").write_text("steps,minutes,diff,ci_lo,ci_hi\n")
    with pytest.raises(ValueError, match="no evaluations"):
        plot_time_to_strength(tmp_path / "empty.csv", tmp_path / "e.png")
