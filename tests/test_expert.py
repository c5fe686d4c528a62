"""Expert iteration (training/expert.py): it labels the student's own positions, resumes without losing labels,
and a tiny run improves on its warm start."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")  # CI installs it

import trickenv  # noqa: E402
from trickenv.agents import make_agent  # noqa: E402
from trickenv.agents.evaluation import evaluate  # noqa: E402
from trickenv.training import Run, TrainConfig  # noqa: E402
from trickenv.training.bc import demonstrations  # noqa: E402
from trickenv.privileged import privileged_size  # noqa: E402
from trickenv.training.expert import label_positions, opponent_seats, parse_opponents  # noqa: E402
from trickenv.agents.search_defaults import search_defaults

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def test_the_expert_labels_the_positions_the_student_reaches_not_its_own():
    spec = trickenv.make_spec("four_tricks")
    student = make_agent("rules", spec, seed=5)  # the student demonstrations(seed=5) plays: the same games
    expert = make_agent("pimc", spec, seed=4, worlds=2)
    data = label_positions(spec, student, expert, 2000, seed=5, batch=16, share=1.0)
    first = 16 * 20  # the first 20 decisions of every game: all in first deals, all finished
    # Every seat is the student's: the labelled positions are those of the rule-based agent's self-play ...
    own = demonstrations(spec, 2000, seed=5, teacher="rules", batch=16)
    assert np.array_equal(data["obs"][:first], own["obs"][:first])
    # ... and not those the expert's own moves lead to.
    experts = demonstrations(spec, 2000, seed=5, teacher="pimc", batch=16, worlds=2)
    assert not np.array_equal(data["obs"][:first], experts["obs"][:first])
    # The student's move was played; the label is the expert's, with its values; they differ at times.
    assert np.array_equal(data["played"], student.act_batch(data["obs"], data["mask"]))
    assert data["mask"][np.arange(len(data["action"])), data["action"]].all()
    assert (data["played"] != data["action"]).any()
    searched = np.isfinite(data["values"]).any(axis=1)
    assert np.array_equal(np.nanargmax(data["values"][searched], axis=1), data["action"][searched])
    assert data["return"].shape == data["action"].shape
    with pytest.raises(ValueError, match="search agent"):
        label_positions(spec, student, student, 10)
    with pytest.raises(ValueError, match="share must be"):
        label_positions(spec, student, expert, 10, share=0.0)


def test_with_a_league_at_the_table_only_the_students_seats_are_labelled():
    spec = trickenv.make_spec("four_tricks")
    student = make_agent("random", spec, seed=1)  # plays unlike the opponents (the rule-based agent)
    rules = make_agent("rules", spec)
    data = label_positions(spec, student, make_agent("pimc", spec, seed=4, worlds=2), 1500, seed=6, batch=16,
                           share=0.3, opponents=("rules",), privileged=True)
    assert len(data["action"]) >= 1500 * 0.5
    # A random student's moves are rarely the rule-based agent's: the labelled rows are the student's decisions.
    assert (data["played"] != rules.act_batch(data["obs"], data["mask"])).mean() > 0.3
    assert data["privileged"].shape == (len(data["action"]), privileged_size(spec))


def test_the_labelling_tables_seat_the_opponents_asked_for():
    spec = trickenv.make_spec("four_tricks")
    assert parse_opponents("rules=3, random=1,pimc:8=2") == {"rules": 3, "random": 1, "pimc:8": 2}
    assert opponent_seats({"rules": 3, "random": 1, "pimc": 0}) == ("rules", "rules", "rules", "random")

    def labels(opponents):  # a fresh student and expert each time: their random draws start alike
        return label_positions(spec, make_agent("random", spec, seed=1), make_agent("pimc", spec, seed=4, worlds=2),
                               600, seed=6, batch=16, share=0.3, opponents=opponents)

    # The default weights are the tables the shipped players were labelled at, draw for draw.
    default = labels(opponent_seats(parse_opponents("rules=3,random=1")))
    assert all(np.array_equal(default[k], labels(("rules", "rules", "rules", "random"))[k], equal_nan=True)
               for k in default)
    # With pimc beside the student it reaches other positions than beside the rule-based agent.
    assert not np.array_equal(labels(("pimc:2",))["obs"][:200], labels(("rules",))["obs"][:200])
    for bad, message in (("rules", "is not NAME=WEIGHT"), ("rules=1,rules=2", "named twice"),
                         ("rules=0.5", "must be a whole number")):
        with pytest.raises(ValueError, match=message):
            parse_opponents(bad)


def tiny(**kw) -> TrainConfig:
    base = dict(game="four_tricks", steps=0, num_envs=16, n_steps=16, batch_size=256, epochs=1, net=(64, 64),
                bc_samples=2000, bc_epochs=1, eval_deals=8, seed=3, expert="pimc", expert_iterations=2,
                expert_samples=1200, expert_chunk=400, expert_worlds=2, bc_temperature=0.3)
    base.update(kw)
    return TrainConfig(**base)


def test_a_killed_expert_iteration_resumes_without_searching_its_finished_labels_again(tmp_path, monkeypatch):
    import trickenv.training.train as train_module

    whole = Run(tiny(), tmp_path / "whole", progress=False)
    whole.train()
    real = train_module.label_chunk
    calls = []

    def dies_on_the_fifth_chunk(*job):
        if len(calls) == 4:
            raise KeyboardInterrupt  # the run is stopped in iteration 2, one chunk into it
        calls.append(job[7])
        return real(*job)

    monkeypatch.setattr(train_module, "label_chunk", dies_on_the_fifth_chunk)
    out = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):
        Run(tiny(), out, progress=False).train()
    assert sorted(p.name for p in (out / "expert").glob("labels_*.npz")) == [
        "labels_0_0.npz", "labels_0_1.npz", "labels_0_2.npz", "labels_1_0.npz"]
    assert json.loads((out / "checkpoint" / "state.json").read_text())["expert"]["iteration"] == 1
    calls.clear()
    monkeypatch.setattr(train_module, "label_chunk", lambda *job: calls.append(job[7]) or real(*job))
    Run(None, out, resume=True, progress=False).train()
    assert len(calls) == 2  # only the two chunks not on disk
    # The resumed run is the same run: the same labels and the same player as one never stopped.
    for name in ("labels_1_0.npz", "labels_1_1.npz", "labels_1_2.npz"):
        with np.load(out / "expert" / name) as a, np.load(tmp_path / "whole" / "expert" / name) as b:
            assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a.files)
    with np.load(out / "player.npz") as a, np.load(tmp_path / "whole" / "player.npz") as b:
        assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")
    stats = json.loads((out / "checkpoint" / "state.json").read_text())["expert"]["stats"]
    assert [s["iteration"] for s in stats] == [1, 2] and stats[1]["labels"] > stats[0]["labels"]


def test_a_tiny_expert_iteration_run_improves_on_its_warm_start(tmp_path):
    run = Run(tiny(expert_samples=3000, expert_chunk=3000, expert_worlds=4), tmp_path / "ft", progress=False)
    run.train()
    warm = make_agent(f"model:{tmp_path / 'ft' / 'expert' / 'student_0.npz'}", "four_tricks")
    final = make_agent(f"model:{tmp_path / 'ft' / 'player.npz'}", "four_tricks")
    res = evaluate("four_tricks", [final, warm], deals=150, seed=11, progress=False, ratings=False).to_dict()
    assert res["pairs"][0]["ci95"][0] > 0, res["pairs"][0]


def test_a_run_labels_at_the_tables_of_its_expert_opponents(tmp_path, monkeypatch):
    import trickenv.training.train as train_module

    seats = []
    real = train_module.label_chunk
    monkeypatch.setattr(train_module, "label_chunk", lambda *job: seats.append(job[9]) or real(*job))
    config = tiny(expert_iterations=1, expert_opponents={"rules": 1, "pimc:2": 2})
    Run(config, tmp_path / "r", progress=False).train()
    assert seats == [("rules", "pimc:2", "pimc:2")] * 3  # every chunk
    assert json.loads((tmp_path / "r" / "config.json").read_text())["expert_opponents"] == {"rules": 1, "pimc:2": 2}
    with pytest.raises(ValueError, match="expert_opponents is"):  # what it learns from: not changed on resume
        Run({"expert_opponents": {"rules": 1}}, tmp_path / "r", resume=True, progress=False)


def test_expert_settings_are_checked(tmp_path):
    for bad, message in ((dict(expert_opponents={"oracle": 1}), "expert_opponents: oracle: unknown agent"),
                         (dict(expert_opponents={"rules": 0}), "at least one weight must be above 0"),
                         (dict(expert_opponents={"rules": -1}), "whole number >= 0"),
                         (dict(expert_opponents={"pimc:x": 1}), "expert_opponents: pimc:x"),
                         (dict(expert="oracle"), "expert must be one of search, pimc"),
                         (dict(expert_worlds=0), "expert_worlds must be an integer >= 1"),
                         (dict(expert_rollout="pimc"), "expert_rollout must be one of rules, random, student, game"),
                         (dict(expert_share=1.5), "expert_share must be"),
                         (dict(expert="search", expert_solve_tricks=-1), "expert_solve_tricks must be an integer >= 0"),
                         (dict(expert_solve_tricks=2), "expert_solve_tricks sets the search expert's solver; the "
                                                       "expert is 'pimc'")):
        with pytest.raises(ValueError, match=message):
            Run(tiny(**bad), tmp_path / "bad", progress=False)


def test_the_command_line_refuses_bad_expert_flags_clearly(tmp_path, capsys):
    from trickenv.cli import main

    with pytest.raises(SystemExit, match="expert must be one of search, pimc"):
        main(["train", "four_tricks", "--out", str(tmp_path / "r"), "--expert", "oracle", "--no-progress"])
    with pytest.raises(SystemExit, match="expert_share must be in"):
        main(["train", "four_tricks", "--out", str(tmp_path / "r"), "--expert", "search", "--expert-share", "0",
              "--no-progress"])
    with pytest.raises(SystemExit):  # argparse prints the message and exits with 2
        main(["train", "four_tricks", "--out", str(tmp_path / "r"), "--expert", "search", "--expert-opponents",
              "rules", "--no-progress"])
    assert "'rules' is not NAME=WEIGHT" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="unknown agent 'bogus'"):
        main(["train", "four_tricks", "--out", str(tmp_path / "r"), "--expert", "search", "--expert-opponents",
              "rules=3,bogus=1", "--no-progress"])
    assert not (tmp_path / "r" / "checkpoint").exists()


def time_to_strength():
    """notebooks/experiments/time_to_strength.py as a module (the experiments are scripts, not a package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "notebooks" / "experiments" / "time_to_strength.py"
    module_spec = importlib.util.spec_from_file_location("time_to_strength", path)
    bench = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(bench)
    return bench


def test_the_time_to_strength_benchmark_evaluates_every_round_and_resumes(tmp_path, monkeypatch, capsys):
    import sys

    bench = time_to_strength()
    out = tmp_path / "run"
    Run(tiny(expert_samples=400, expert_chunk=400), out, progress=False).train()
    found = bench.players(out)
    assert [p.name for _, p in found] == ["student_0.npz", "student_1.npz", "student_2.npz"]
    assert [m for m, _ in found] == sorted(m for m, _ in found)
    with np.load(out / "expert" / "student_2.npz") as a, np.load(out / "player.npz") as b:  # no PPO: the same net
        assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")
    monkeypatch.setattr(sys, "argv", ["time_to_strength.py", str(out), "--deals", "3", "--seed", "1"])
    bench.main()
    rows = (out / "time_to_strength.csv").read_text().splitlines()
    assert len(rows) == 4 and rows[0].startswith("minutes,player,diff")
    assert (out / "time_to_strength.png").exists()
    bench.main()  # everything is there: nothing is evaluated again
    assert len((out / "time_to_strength.csv").read_text().splitlines()) == 4


def test_the_time_to_strength_benchmark_shows_ppo_after_the_last_round(tmp_path):
    bench = time_to_strength()
    out = tmp_path / "run"
    Run(tiny(expert_samples=400, expert_chunk=400, steps=512, eval_every=256), out, progress=False).train()
    found = bench.players(out)
    # the warm start, each round's fit, then the player PPO made from the last fit, later on the clock
    assert [p.name for _, p in found] == ["student_0.npz", "student_1.npz", "student_2.npz", "player.npz"]
    assert found[-1][0] >= found[-2][0]
    with np.load(out / "expert" / "student_2.npz") as a, np.load(out / "player.npz") as b:  # PPO changed the net
        assert any(not np.array_equal(a[k], b[k]) for k in a.files if k != "meta")


def test_the_game_rollout_is_the_search_agents_own_playouts_without_the_second_look():
    from trickenv.agents.policy import PolicyAgent, shipped_model_path
    from trickenv.training.expert import make_expert

    spec = trickenv.make_spec("four_tricks")
    expert = make_expert(spec, "search", 3, 2, None)  # what --expert-rollout game asks for
    default = make_agent("search", spec, seed=3)
    assert isinstance(expert.policy, PolicyAgent)
    assert expert.policy.path == shipped_model_path(search_defaults(spec).playouts) == default.policy.path
    assert expert.refine == 0 and default.refine > 0  # the default search's second look is left out
    # Where the game's search plays out with the rule-based agent, so does the expert.
    fw = make_expert(trickenv.make_spec("farbwechsel"), "search", 3, 2, None)
    assert fw.policy.name == "rules" and fw.refine == 0


def test_the_expert_can_play_its_playouts_with_the_student(tmp_path):
    from trickenv.agents.policy import PolicyAgent, save_policy
    from trickenv.training.expert import label_chunk, make_expert

    spec = trickenv.make_spec("four_tricks")
    run = Run(tiny(expert="", bc_temperature=0.0), tmp_path / "warm", progress=False)
    run.warm_start()
    from trickenv.training import policy_weights

    path = tmp_path / "student.npz"
    save_policy(path, policy_weights(run.model), run.meta)
    expert = make_expert(spec, "pimc", 3, 2, f"model:{path}")
    assert isinstance(expert.policy, PolicyAgent) and expert.policy.path == path
    data = label_chunk("four_tricks", {}, str(path), "pimc", 2, "student", 200, 3, 0.5, ("rules",), False, 8)
    rules_playouts = label_chunk("four_tricks", {}, str(path), "pimc", 2, "rules", 200, 3, 0.5, ("rules",), False, 8)
    # The same positions at first (the student plays them), other searched values (other playouts).
    n = 8 * 4
    assert np.array_equal(data["obs"][:n], rules_playouts["obs"][:n])
    assert not np.array_equal(data["values"][:n], rules_playouts["values"][:n], equal_nan=True)


def test_the_search_experts_solver_takes_over_where_the_run_says(tmp_path, monkeypatch):
    import trickenv.training.expert as expert_module
    from trickenv.training.expert import label_chunk, make_expert

    spec = trickenv.make_spec("four_tricks")
    assert make_expert(spec, "search", 3, 2, "rules").solve_tricks == 3  # the search agent's default
    assert make_expert(spec, "search", 3, 2, "rules", solve_tricks=2).solve_tricks == 2
    with pytest.raises(ValueError, match="pimc has no solver"):
        make_expert(spec, "pimc", 3, 2, "rules", solve_tricks=2)
    # A run hands its setting to every labelling job ...
    made, experts = expert_module.make_expert, []
    monkeypatch.setattr(expert_module, "make_expert", lambda *a, **k: experts.append(made(*a, **k)) or experts[-1])
    Run(tiny(expert="search", expert_iterations=1, expert_samples=400, expert_solve_tricks=1), tmp_path / "r",
        progress=False).train()
    assert experts and all(e.solve_tricks == 1 for e in experts)
    assert json.loads((tmp_path / "r" / "config.json").read_text())["expert_solve_tricks"] == 1
    with pytest.raises(ValueError, match="expert_solve_tricks is 1 in this run"):  # what it learns from
        Run({"expert_solve_tricks": 3}, tmp_path / "r", resume=True, progress=False)
    # ... and the labels follow it: the same positions, other values where the playouts now run longer.
    student = str(tmp_path / "r" / "expert" / "student_0.npz")
    job = ("four_tricks", {}, student, "search", 2, "rules", 200, 3, 0.5, ("rules",), False, 8)
    one, three = label_chunk(*job, 1), label_chunk(*job)
    assert np.array_equal(one["obs"], three["obs"])
    assert not np.array_equal(one["values"], three["values"], equal_nan=True)
