"""Tianshou: examples/tianshou_dqn.py (a DQN seat against rule-based opponents through
tianshou.env.PettingZooEnv, infos on) runs for a short while in every game, and the SeatEnv's
opponents can be the same agents."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="the tianshou extra is not installed")  # CI installs it

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]
RULES = {"four_tricks": ("rules_four_tricks", "FourTricksRules"),
         "farbwechsel": ("rules_farbwechsel", "FarbwechselRules"),
         "koenigrufen": ("rules_koenigrufen", "KoenigrufenRules")}

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module", autouse=True)
def rules_agent_registered():
    """``make_agent("rules", spec)``: the registry entry of the rule-based agents (added here only if missing)."""
    from trickenv.agents import AGENTS, register

    if "rules" not in AGENTS:
        def rules(spec, seed=None, **kwargs):
            module, name = RULES[spec.name]
            return getattr(importlib.import_module(f"trickenv.agents.{module}"), name)(spec, seed=seed, **kwargs)

        register("rules", rules)


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_dqn_example_against_rules(game, capsys):
    import torch

    threads = torch.get_num_threads()
    try:
        out = load_example("tianshou_dqn").main(
            ["--game", game, "--opponents", "rules", "--seat", "1", "--steps", "600", "--envs", "2",
             "--eval-episodes", "6"])
    finally:
        torch.set_num_threads(threads)
    assert out["env_steps"] >= 600 and out["gradient_steps"] > 0
    players = 4 if game == "koenigrufen" else 3
    # infos on: the buffer holds a deal record (all seats' scores) for every finished deal
    assert out["deals_in_buffer"] > 0 and out["buffer_scores_shape"] == (out["deals_in_buffer"], players)
    assert np.isfinite(out["dqn_score"]) and np.isfinite(out["random_score"])
    assert "mean deal score over 6 deals against rules" in capsys.readouterr().out


def test_rules_opponents_in_the_seat_env():
    """The same agents by name as SeatEnv opponents (one act_batch per engine step)."""
    from trickenv.single_seat import SeatEnv

    core = SeatEnv("four_tricks", 64, seat="random", opponents=["rules", "random"], seed=0)
    obs, mask = core.reset()
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(80):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, mask, _, term, _ = core.step(actions)
        ends += int(term.sum())
    assert ends >= 64
    assert type(core.pool[0]).__name__ == "FourTricksRules"
