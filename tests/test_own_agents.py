"""Your own agent by name (trickenv.agents.external, trickenv.agents.sb3_agent): a module, a file, an installed
entry point, a Stable-Baselines3 model; and the one-line errors when an agent breaks the protocol in play."""

from __future__ import annotations

import importlib
import json
import sys

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import AgentError
from trickenv.agents.evaluation import evaluate
from trickenv.cli import main

AGENTS_SOURCE = '''
import time
import numpy as np


class Lowest:
    """The lowest legal action; ``bias`` is a keyword given in the name."""

    name = "lowest"

    def __init__(self, spec, seed=None, bias=0):
        self.spec, self.bias = spec, bias

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_batch(self, obs, mask):
        return mask.argmax(axis=1)


def make_highest(spec, seed=None):
    return Highest()


class Highest:
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


NOT_AN_AGENT = 42


class Raises(Lowest):
    def act_batch(self, obs, mask):
        raise RuntimeError("boom")


class Illegal(Lowest):
    def act_batch(self, obs, mask):
        return (~mask).argmax(axis=1)


class WrongShape(Lowest):
    def act_batch(self, obs, mask):
        return np.zeros((len(mask), 2), np.int64)


class Slow(Lowest):
    def act_batch(self, obs, mask):
        time.sleep(3)
        return mask.argmax(axis=1)


class LaterFails(Lowest):
    calls = 0

    def act_batch(self, obs, mask):
        LaterFails.calls += 1
        if LaterFails.calls > 75:  # in the second chunk of one deal (about 50 calls a chunk)
            raise RuntimeError("tired")
        return mask.argmax(axis=1)
'''


@pytest.fixture()
def own(tmp_path, monkeypatch):
    """A module ``own_agents_t58`` on sys.path (nothing installed) and the same code in a file elsewhere."""
    (tmp_path / "own_agents_t58.py").write_text(AGENTS_SOURCE)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "agent_file.py").write_text(AGENTS_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path, other / "agent_file.py"
    sys.modules.pop("own_agents_t58", None)


def eval_json(tmp_path, *args):
    out = tmp_path / "r.json"
    main(["eval", "four_tricks", "--deals", "2", "--no-ratings", "--no-progress", "--json", str(out), *args])
    return json.loads(out.read_text())


def test_a_class_by_module_and_by_file_from_the_command_line(own):
    tmp_path, file = own
    names = f"own_agents_t58:Lowest:bias=2,{file}:Lowest,random"
    result = eval_json(tmp_path, "--agents", names)
    assert list(result["agents"]) == names.split(",")
    assert make_agent("own_agents_t58:Lowest:bias=2", "four_tricks").bias == 2


def test_a_factory_a_function_and_an_act_only_agent_play(own):
    tmp_path, file = own
    result = eval_json(tmp_path, "--agents", f"own_agents_t58:make_highest,{file}:first_legal")
    assert len(result["agents"]) == 2
    spec = trickenv.make_spec("four_tricks")
    vec = trickenv.make_vec("four_tricks", 4, seed=0)
    obs, mask, _ = vec.reset()
    assert (make_agent("own_agents_t58:first_legal", spec).act_batch(obs, mask) == mask.argmax(axis=1)).all()
    highest = make_agent("own_agents_t58:make_highest", spec).act_batch(obs, mask)  # act() a row at a time
    assert (highest == [np.flatnonzero(m)[-1] for m in mask]).all()


def test_an_installed_entry_point_appears_by_name(tmp_path, monkeypatch, capsys):
    """A small distribution (its dist-info with an entry_points.txt) on the path, as pip would leave it."""
    site = tmp_path / "site"
    (site / "t58_dist").mkdir(parents=True)
    (site / "t58_dist" / "__init__.py").write_text(AGENTS_SOURCE)
    info = site / "t58_dist-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: t58-dist\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[trickenv.agents]\nt58-lowest = t58_dist:Lowest\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    with pytest.raises(SystemExit) as stop:
        main(["eval", "--list-agents"])
    assert stop.value.code == 0 and "t58-lowest  (t58_dist:Lowest)" in capsys.readouterr().out
    assert make_agent("t58-lowest:bias=1", "koenigrufen").bias == 1
    result = evaluate("koenigrufen", ["t58-lowest", "rules"], deals=1, progress=False, ratings=False)
    assert "t58-lowest" in result.to_dict()["agents"]
    sys.modules.pop("t58_dist", None)


def test_a_maskable_ppo_model_plays_as_sb3_path_with_its_masks(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = trickenv.make_single("four_tricks", opponents="random", seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, seed=0, verbose=0)
    model.learn(3072)
    path = tmp_path / "seat.zip"
    model.save(path)
    main(["eval", "four_tricks", "--agents", f"sb3:{path},random", "--deals", "2", "--no-ratings", "--no-progress"])

    class Recorder:  # the sb3 agent, with what it was asked and answered
        def __init__(self):
            self.inner = make_agent(f"sb3:{path}", "four_tricks", seed=0)
            self.seen = []

        def act_batch(self, obs, mask):
            act = self.inner.act_batch(obs, mask)
            self.seen.append((obs.copy(), mask.copy(), act.copy()))
            return act

    rec = Recorder()
    evaluate("four_tricks", [("sb3", rec), "random"], deals=3, progress=False, ratings=False)
    assert rec.seen
    for obs, mask, act in rec.seen:
        expected, _ = model.predict(obs.astype(np.float32), action_masks=mask, deterministic=True)
        assert (act == expected).all()


def test_an_sb3_model_of_another_game_is_refused(tmp_path):
    sb3 = pytest.importorskip("stable_baselines3")
    model = sb3.PPO("MlpPolicy", trickenv.make_single("koenigrufen", opponents="random", seed=0), n_steps=64)
    model.save(tmp_path / "kc.zip")
    with pytest.raises(ValueError, match="trained on another game or variant"):
        make_agent(f"sb3:{tmp_path / 'kc.zip'}", "four_tricks")
    with pytest.raises(ValueError, match="no saved model"):
        make_agent(f"sb3:{tmp_path / 'none.zip'}", "four_tricks")


@pytest.mark.parametrize(("name", "message"), [
    ("own_agents_t58:Nothing", "own_agents_t58 has no attribute 'Nothing'"),
    ("own_agents_t58:NOT_AN_AGENT", "is a int, not an agent class"),
    ("no_such_module_t58:Agent", "unknown agent"),
    ("no_such_pkg_t58.agents:Agent", "cannot import 'no_such_pkg_t58.agents'"),
    ("{file_dir}/missing.py:Agent", "there is no file"),
    ("own_agents_t58:first_legal:depth=3", "it takes no keywords"),
])
def test_an_agent_that_cannot_be_made_gets_one_line(own, capsys, name, message):
    tmp_path, file = own
    name = name.format(file_dir=file.parent)
    with pytest.raises(SystemExit) as stop:
        main(["eval", "four_tricks", "--agents", f"{name},random", "--deals", "1", "--no-progress"])
    text = str(stop.value.code)
    assert message in text and text.startswith("trickenv eval: ") and "\n" not in text


@pytest.mark.parametrize(("agent", "message"), [
    ("Raises", r"agent own_agents_t58:Raises raised RuntimeError: boom \(asked at deal 0, seat \d"),
    ("Illegal", r"agent own_agents_t58:Illegal chose illegal action \d+ at deal 0, seat \d; legal: \["),
    ("WrongShape", r"returned \[\[0, 0\], .*\] \(int64, shape \(\d+, 2\)\) from act_batch at deal 0, seat \d: "
                   r"expected \d+ integer actions?, shape \(\d+,\)"),
])
def test_an_agent_that_breaks_the_protocol_stops_the_run_with_one_line(own, agent, message):
    with pytest.raises(SystemExit, match=message) as stop:
        main(["eval", "four_tricks", "--agents", f"own_agents_t58:{agent},random", "--deals", "1", "--no-progress",
              "--no-ratings"])
    assert "\n" not in str(stop.value.code)
    with pytest.raises(AgentError):  # --debug: the exception itself, traceback and all
        main(["eval", "four_tricks", "--agents", f"own_agents_t58:{agent},random", "--deals", "1", "--no-progress",
              "--no-ratings", "--debug"])


def test_agent_timeout_stops_a_slow_agent(own):
    with pytest.raises(SystemExit, match=r"agent own_agents_t58:Slow took longer than 0.2 s a decision"):
        main(["eval", "four_tricks", "--agents", "own_agents_t58:Slow,random", "--deals", "1", "--no-progress",
              "--no-ratings", "--agent-timeout", "0.2"])
    with pytest.raises(SystemExit, match="--agent-timeout must be a positive"):
        main(["eval", "four_tricks", "--agents", "random", "--agent-timeout", "0"])


def test_a_journal_keeps_the_chunks_finished_before_an_agent_failed(own):
    tmp_path, _ = own
    journal = tmp_path / "journal"
    with pytest.raises(SystemExit, match="raised RuntimeError: tired"):
        main(["eval", "four_tricks", "--agents", "own_agents_t58:LaterFails,random", "--deals", "4", "--chunk", "1",
              "--no-progress", "--no-ratings", "--journal", str(journal)])
    kept = sorted(p.name for p in journal.glob("chunk_*.npz"))
    assert kept and kept[0] == "chunk_00000.npz" and len(kept) < 4


def test_the_play_table_takes_your_agent(own):
    from trickenv.play import Table
    import io

    out = io.StringIO()
    Table("four_tricks", ["own_agents_t58:Lowest", "rules", "own_agents_t58:first_legal"], seed=1, output=out).run()
    assert "own_agents_t58:Lowest" in out.getvalue()


def test_serve_seats_the_agents_its_operator_named(own):
    from starlette.testclient import TestClient

    from trickenv.web import create_app

    with TestClient(create_app(agents=["own_agents_t58:Lowest"])) as client:
        client.get("/")
        assert "own_agents_t58:Lowest" in client.get("/api/games").json()["agents"]
        r = client.post("/api/play", json={"game": "koenigrufen", "seed": 1,
                                           "opponents": ["own_agents_t58:Lowest", "rules", "random"]})
        assert r.status_code == 200, r.text
        assert [s["name"] for s in r.json()["seats"]][1:] == ["own_agents_t58:Lowest", "rules", "random"]
        r = client.post("/api/play", json={"game": "koenigrufen", "opponents": ["own_agents_t58:Raises"]})
        assert r.status_code == 400  # a name the operator did not give stays refused
    with pytest.raises(SystemExit, match="unknown agent 'nosuch'"):
        main(["serve", "--agents", "nosuch", "--port", "1"])


def test_a_tournament_seats_your_agent(own, capsys):
    main(["tournament", "--agents", "own_agents_t58:Lowest,random", "--games", "koenigrufen", "--deals", "2",
          "--no-progress"])
    assert "own_agents_t58:Lowest" in capsys.readouterr().out
