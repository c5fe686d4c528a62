"""The random agent and the command line."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.agents import RandomAgent
from trickenv import cards
from trickenv.cli import main, parse_options


def test_random_agent_picks_legal_actions_uniformly_and_repeatably():
    mask = np.zeros((4000, 10), bool)
    mask[:, [2, 5, 7]] = True
    a = RandomAgent(seed=3).act_batch(None, mask).copy()
    assert set(a.tolist()) == {2, 5, 7}
    counts = np.bincount(a, minlength=10)[[2, 5, 7]]
    assert counts.min() > 1200  # about 1333 each
    assert np.array_equal(a, RandomAgent(seed=3).act_batch(None, mask))
    assert not np.array_equal(a, RandomAgent(seed=4).act_batch(None, mask))
    agent = RandomAgent(seed=5)  # batches of varying size keep drawing fresh numbers
    draws = [agent.act_batch(None, mask[:n]).copy() for n in (50, 40, 50, 40)]
    assert not np.array_equal(draws[0], draws[2]) and not np.array_equal(draws[1], draws[3])
    assert RandomAgent(1).act({"action_mask": np.array([0, 0, 1], np.int8)}) == 2
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(1).act({"action_mask": np.zeros(3, np.int8)})


def test_cli_info_and_play(capsys):
    main(["info", "four_tricks", "deck=52"])
    out = capsys.readouterr().out
    assert "Discrete(74)" in out and "turned_up" in out
    main(["play", "four_tricks", "trump=none", "--agents", "random", "--seed", "1"])
    out = capsys.readouterr().out
    assert out.count(" plays ") == 48 and "summary" in out
    assert parse_options(["deck=52", "trump=none", "switch_ranks=('Q','J')"]) == {
        "deck": 52, "trump": "none", "switch_ranks": ("Q", "J")}
    with pytest.raises(SystemExit):
        parse_options(["deck"])


def test_cli_options_anywhere_on_the_line(capsys):
    main(["play", "farbwechsel", "--agents", "random", "--seed", "1", "num_players=4"])  # options after flags
    out = capsys.readouterr().out
    assert out.count(" plays ") == 32 and out.count(" declares trump") == 1 and "P3" in out
    main(["info", "farbwechsel", "ranking=trump_ten", "num_players=4"])
    assert "'ranking': 'trump_ten'" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["play", "farbwechsel", "--seed", "1", "--bogus"])
    with pytest.raises(SystemExit):
        main(["play", "farbwechsel", "stray"])


def test_render_after_the_last_trick_names_no_extra_trick():
    for game, tricks in (("four_tricks", 16), ("farbwechsel", 10), ("koenigrufen", 8)):
        env = trickenv.make(game, render_mode="ansi")
        env.reset(seed=0)
        agent = RandomAgent(0)
        while not env.terminations[env.agent_selection]:
            env.step(agent.act(env.observe(env.agent_selection)))
        text = env.render()
        assert f"deal over after {tricks} tricks" in text and f"trick {tricks + 1}" not in text


def test_card_text_forms():
    assert cards.card_str(21, 32) == "QH" and cards.parse_card("QH", 32) == 21
    assert cards.parse_card("10s", 48) == 19 and cards.parse_card("T♠", 48) == 19
    assert cards.card_str(0, 52) == "2C" and cards.card_str(51, 52) == "AD"
    assert cards.parse_cards("AC, 7D", 32) == [7, 24]
    for bad, msg in [("1H", "rank '1'"), ("QX", "suit must be"), ("Q", "expected rank then suit"), ("2C", "rank '2'")]:
        with pytest.raises(ValueError, match=msg):
            cards.parse_card(bad, 32)
    with pytest.raises(ValueError, match="out of range"):
        cards.card_str(32, 32)
    with pytest.raises(ValueError, match="deck must be one of"):
        cards.num_ranks(36)
    assert trickenv.make_vec("four_tricks", 1).spec.action_str(49) == "trump spades"


def test_agent_names_carry_keywords():
    """``NAME[:ARG][:keyword=value...]``: the keywords reach the agent; mistakes are refused with the agent's
    keywords listed; the command line and the journal's path handling read the same names."""
    from trickenv.agents import make_agent
    from trickenv.agents.base import parse_agent_name

    assert parse_agent_name("search:128:refine=3:rollout=rules:tiebreak=0.5:sample=true:x=none") == (
        "search", "128", {"refine": 3, "rollout": "rules", "tiebreak": 0.5, "sample": True, "x": None})
    assert parse_agent_name("model:/tmp/a:b/p.npz") == ("model", "/tmp/a:b/p.npz", {})
    assert parse_agent_name("rules") == ("rules", "", {})
    agent = make_agent("search:32:refine=2:refine_worlds=40:rollout=random", "four_tricks", seed=1)
    assert (agent.worlds, agent.refine, agent.refine_worlds) == (32, 2, 40)
    assert make_agent("pimc:rollouts=2", "koenigrufen").rollouts == 2
    assert make_agent("model:sample=true", "four_tricks").sample is True
    assert make_agent("rules:alpha=0.25", "four_tricks", seed=0) is not None
    for name, message in [("search:bogus=1", "takes no keyword 'bogus'; its keywords: worlds, "),
                          ("search:seed=3", "takes no keyword 'seed'"),
                          ("search:32:worlds=3", "gives 'worlds' twice"),
                          ("search:refine=1:refine=2", "gives 'refine' twice"),
                          ("search:refine=", "refine= needs a value"),
                          ("search:refine=-1", "refine must be an integer >= 0"),
                          ("random:x=1", "unexpected keyword argument 'x'"),
                          ("rules:5", "takes no argument")]:
        with pytest.raises(ValueError, match=message):
            make_agent(name, "four_tricks")
    with pytest.raises(ValueError, match="so does the caller"):
        make_agent("pimc:rollouts=2", "four_tricks", rollouts=3)


def test_eval_takes_agent_keywords_on_the_command_line(tmp_path, capsys):
    import json

    out = tmp_path / "out.json"
    main(["eval", "four_tricks", "--agents", "pimc:2:rollout=random,rules", "--deals", "2", "--no-progress",
          "--no-ratings", "--json", str(out)])
    assert list(json.loads(out.read_text())["agents"]) == ["pimc:2:rollout=random", "rules"]
    with pytest.raises(SystemExit, match="takes no keyword 'nope'"):
        main(["eval", "four_tricks", "--agents", "pimc:nope=1,rules", "--deals", "2", "--no-progress"])


def test_a_bare_ray_flag_joins_the_cluster_of_ray_address(monkeypatch):
    """`--ray` without an address: $RAY_ADDRESS when set (as Ray itself), else a Ray instance on this machine;
    `--ray ADDRESS` and a game option right after a bare `--ray` keep working."""
    from trickenv.cli import parse

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert parse(["eval", "four_tricks", "--agents", "rules,random", "--ray"])[0].ray == "local"
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert parse(["eval", "four_tricks", "--agents", "rules,random", "--ray"])[0].ray == "10.0.0.5:6379"
    args, options, _ = parse(["eval", "four_tricks", "--agents", "rules,random", "--ray", "deck=52"])
    assert args.ray == "10.0.0.5:6379" and options == {"deck": 52}
    assert parse(["tournament", "--ray", "head:1234"])[0].ray == "head:1234"
    assert parse(["eval", "four_tricks", "--agents", "rules", "--ray", "local"])[0].ray == "local"
