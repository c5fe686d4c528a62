"""OpenSpiel's own oh_hell is trickenv's Four Tricks (deck=52, bidding, trump turned up): trickenv.openspiel.oh_hell
and the match of a trickenv agent against OpenSpiel's C++ ISMCTS in it (notebooks/experiments/oh_hell_match.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (pip install 'trickenv[openspiel]')")

from trickenv import cards  # noqa: E402
from trickenv.openspiel import oh_hell  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def dealt(game, rng):
    state = game.new_initial_state()
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    return state


def test_the_cards_and_bids_translate_both_ways():
    state = oh_hell.load_oh_hell().new_initial_state()
    state.apply_action(17)  # the number of tricks, then the dealer: now OpenSpiel names the cards it deals
    state.apply_action(0)
    for card in range(52):  # OpenSpiel's "D5" (suit, rank; T for 10) is trickenv's "5D"
        theirs = state.action_to_string(card)
        ours = cards.card_str(oh_hell.action_to_trickenv(card), 52)
        assert ours == theirs[1:].replace("T", "10") + theirs[0], (card, ours, theirs)
        assert oh_hell.action_to_oh_hell(oh_hell.action_to_trickenv(card)) == card
    assert oh_hell.action_to_trickenv(52 + 3) == 56 + 3 and oh_hell.action_to_oh_hell(56 + 17) == 52 + 17
    with pytest.raises(ValueError, match="neither a card"):
        oh_hell.action_to_oh_hell(52)  # a trump choice: oh_hell turns its trump up
    with pytest.raises(ValueError, match="neither a card"):
        oh_hell.action_to_trickenv(70)


def test_oh_hell_and_four_tricks_agree_move_by_move():
    """The same seat to act, the same legal actions at every decision, and the same returns, on random games."""
    ohg, ft = oh_hell.load_oh_hell(), oh_hell.load_four_tricks()
    rng = np.random.default_rng(0)
    made = 0
    for _ in range(40):
        state = dealt(ohg, rng)
        mirror = oh_hell.to_four_tricks(state, ft)
        while not state.is_terminal():
            assert mirror.current_player() == state.current_player()
            assert sorted(oh_hell.action_to_trickenv(a) for a in state.legal_actions()) == mirror.legal_actions()
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            mirror.apply_action(oh_hell.action_to_trickenv(action))
        assert mirror.is_terminal() and mirror.returns() == state.returns()
        made += sum(r >= 10 for r in state.returns())
    assert made > 0  # the bid made (+10) was scored too, not only misses


def test_a_state_in_the_middle_translates_with_its_history():
    ohg = oh_hell.load_oh_hell()
    rng = np.random.default_rng(3)
    state = dealt(ohg, rng)
    for _ in range(10):
        state.apply_action(int(rng.choice(state.legal_actions())))
    mirror = oh_hell.to_four_tricks(state)
    assert mirror.current_player() == state.current_player()
    assert sorted(oh_hell.action_to_trickenv(a) for a in state.legal_actions()) == mirror.legal_actions()
    with pytest.raises(ValueError, match="deal is over"):
        oh_hell.to_four_tricks(ohg.new_initial_state())


def test_the_match_against_cpp_ismcts_runs_continues_and_reports(tmp_path, capsys, monkeypatch):
    path = ROOT / "notebooks" / "experiments" / "oh_hell_match.py"
    spec = importlib.util.spec_from_file_location("oh_hell_match", path)
    match = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "oh_hell_match", match)  # its dataclass looks its module up there
    spec.loader.exec_module(match)
    out = tmp_path / "m.jsonl"
    assert match.main(["--agent", "rules", "--sims", "10", "--deals", "1", "--seed", "9000", "--out", str(out)]) == 0
    assert match.main(["--agent", "rules", "--sims", "10", "--deals", "2", "--seed", "9000", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["deal"] for r in rows] == [0, 1] and len(rows[0]["scores"]) == 6
    assert rows[0]["decisions"]["rules"] > 0 and rows[0]["decisions"]["ismcts"] > 0
    assert "rules - ismcts:10" in capsys.readouterr().out
    ohg = oh_hell.load_oh_hell()  # the same seed deals the same cards (OpenSpiel's C++ ISMCTS does not repeat itself)
    assert match.deal_state(ohg, 4, 1).history() == match.deal_state(ohg, 4, 1).history()
    assert match.deal_state(ohg, 4, 1).history() != match.deal_state(ohg, 4, 2).history()
    with pytest.raises(SystemExit, match="another run"):
        match.main(["--agent", "rules", "--sims", "20", "--deals", "3", "--seed", "9000", "--out", str(out)])
