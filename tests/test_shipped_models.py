"""The trained players shipped in the package: present for every game, small, legal, and stronger than random."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.evaluation import evaluate
from trickenv.agents.policy import shipped_model_path

GAMES = ["four_tricks", "farbwechsel", "koenigrufen"]


@pytest.mark.parametrize("game", GAMES)
def test_shipped_model_is_small_and_plays_only_legal_actions(game):
    path = shipped_model_path(game)
    assert path.exists() and path.stat().st_size < 5_000_000
    agent = make_agent("model", game)
    assert agent.meta["game"] == game and agent.meta["options"] == json.loads(json.dumps(trickenv.make_spec(game).options))
    v = trickenv.make_vec(game, 128, seed=5)
    obs, mask, _ = v.reset()
    for _ in range(80):
        a = agent.act_batch(obs, mask)
        assert mask[np.arange(128), a].all()
        obs, mask, *_ = v.step(a)
    env = trickenv.make(game, illegal_action="raise")
    env.reset(seed=1)
    for _ in env.agent_iter():
        ob, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(ob))


@pytest.mark.parametrize("game", GAMES)
def test_shipped_model_beats_random(game):
    res = evaluate(game, ["model", "random"], deals=60, seed=11, progress=False, ratings=False).to_dict()
    assert res["pairs"][0]["ci95"][0] > 0, res["pairs"][0]
