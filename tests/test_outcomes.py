"""The decisions before the play as playbook positions (trickenv.research.outcomes): every choice is played out
(declining too: the card played instead), the player's own choice scores what the plain deal scores, a stopped
run continues with the same positions, and a playbook learned from them adds its rules to the rules it starts
from."""

from __future__ import annotations

import json

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.playbook import load_playbook
from trickenv.research.deals import make_deals, play
from trickenv.research.mining import load_positions
from trickenv.research.outcomes import outcome_positions, outcomes_about, outcomes_to

KC = trickenv.make_spec("koenigrufen")
FT = trickenv.make_spec("four_tricks")


@pytest.mark.parametrize("spec,decision", [(KC, "call"), (FT, "trump")])
def test_every_choice_is_played_out_and_the_own_choice_scores_the_plain_deal(spec, decision):
    player = make_agent("rules", spec, seed=0)
    pos = outcome_positions(spec, decision, 24, 9, player, first_game=100)
    assert len(pos) == 24 and (pos.game == 100 + np.arange(24)).all()
    first = spec.learning.decisions(spec)[0 if decision in ("call", "trump") else 1].first
    assert not pos.mask[:, :first].any(), "only the decision's moves are legal"
    assert (np.isfinite(pos.values) == pos.mask).all(), "a value for every legal choice, none elsewhere"
    assert (pos.values[np.arange(24), pos.action] == np.nanmax(pos.values, axis=1)).all()
    kinds = spec.learning.move_features(spec, pos.obs, pos.mask)
    assert (kinds.kind == 0).all(), "every position is the decision's kind"
    # The player's own choice at the position is the deal played plainly: its value is the decider's score.
    own = np.asarray(player.act_batch(pos.obs, pos.mask))
    deals, dealers = make_deals(spec, 24, 9)
    scores = play(spec, deals, dealers, [make_agent("rules", spec, seed=0)], np.zeros((24, spec.num_players), int))["scores"]
    assert np.allclose(pos.values[np.arange(24), own], scores[np.arange(24), pos.seat])
    assert np.nanstd(pos.values, axis=1).max() > 0, "the choices' outcomes differ"
    tie = pos.values[np.arange(24), own] == np.nanmax(pos.values, axis=1)
    assert (pos.action[tie] == own[tie]).all(), "where the player's own choice ties for the best, it is the move"


def test_declarations_are_positions_of_declaring_or_playing_the_card_the_player_would_play():
    """A decision that may be declined (King Calling's declarations): a position's moves are the legal
    declarations and the one card the player plays instead, each valued by its copy's outcome; the player's own
    move there scores what the plain deal scores, and the playbook reads the position as "declaring"."""
    from trickenv.games.koenigrufen import A_ALL_TRICKS, A_MARRIAGE
    from trickenv.research.playbook import move_table

    player = make_agent("rules", KC, seed=0)
    pos = outcome_positions(KC, "declaration", 48, 9, player)
    assert len(pos) > 40
    assert (pos.mask[:, :KC.deck].sum(axis=1) == 1).all(), "one card: the move made instead of declaring"
    assert not pos.mask[:, KC.deck:A_MARRIAGE].any()
    assert pos.mask[:, A_MARRIAGE:A_ALL_TRICKS + 1].any(axis=1).all()
    assert (np.isfinite(pos.values) == pos.mask).all()
    own = np.asarray(player.act_batch(pos.obs, pos.mask))
    deals, dealers = make_deals(KC, 48, 9)
    scores = play(KC, deals, dealers, [make_agent("rules", KC, seed=0)], np.zeros((48, KC.num_players), int))["scores"]
    assert np.allclose(pos.values[np.arange(len(pos)), own], scores[pos.game, pos.seat])
    tie = pos.values[np.arange(len(pos)), own] == np.nanmax(pos.values, axis=1)
    assert tie.sum() > len(pos) // 2 and (pos.action[tie] == own[tie]).all(), "a tie goes to the player's choice"
    assert (pos.action[~tie] != own[~tie]).all()
    mf = KC.learning.move_features(KC, pos.obs, pos.mask)
    assert (mf.beside == mf.kinds.index("declaring")).all()
    assert (move_table(KC, pos, mf).kind == mf.kinds.index("declaring")).all()


def test_an_unknown_decision_is_refused_by_name():
    with pytest.raises(ValueError, match="no decision 'bid'.*its decisions: trump"):
        outcome_positions(FT, "bid", 4, 1, make_agent("rules", FT, seed=0))


def test_a_stopped_run_continues_with_the_same_positions(tmp_path):
    player = make_agent("rules", FT, seed=0)
    whole = outcomes_to(FT, "trump", tmp_path / "whole", 30, 4, player, chunk=10, progress=False)
    outcomes_to(FT, "trump", tmp_path / "part", 20, 4, player, chunk=10, progress=False)
    more = outcomes_to(FT, "trump", tmp_path / "part", 30, 4, player, chunk=10, progress=False)
    for name in ("obs", "mask", "action", "game", "seat"):
        assert (getattr(whole, name) == getattr(more, name)).all()
    assert np.array_equal(whole.values, more.values, equal_nan=True)
    assert outcomes_about(tmp_path / "whole")["decision"] == "trump" and outcomes_about(tmp_path) is None
    with pytest.raises(ValueError, match="holds another simulation"):
        outcomes_to(FT, "trump", tmp_path / "part", 30, 5, player, chunk=10, progress=False)


def test_the_commands_learn_rules_for_the_call_on_top_of_a_playbook(tmp_path, capsys):
    """``outcomes`` then ``playbook --start``: the new file keeps the starting rules first, and says what was
    simulated and where it started."""
    pytest.importorskip("sklearn")
    from trickenv.research.__main__ import main
    from trickenv.research.repo import repo_root

    shipped = repo_root() / "agents" / "playbooks" / "koenigrufen.json"
    main(["outcomes", "koenigrufen", "call", "--deals", "400", "--chunk", "200", "--seed", "3", "--out",
          str(tmp_path / "call")])
    assert len(load_positions(tmp_path / "call")) == 400
    main(["playbook", "koenigrufen", "--mined", str(tmp_path / "call"), "--seed", "77", "--deals", "200",
          "--rounds", "1", "--tries", "2", "--start", str(shipped), "--out", str(tmp_path / "kc.json")])
    start, rules = load_playbook(shipped, KC), load_playbook(tmp_path / "kc.json", KC)
    assert rules[:len(start)] == start
    assert all(r.kind == "calling a card" for r in rules[len(start):])
    about = json.loads((tmp_path / "kc.json").read_text())["about"]
    assert about["outcomes"]["decision"] == "call" and about["outcomes"]["seed"] == 3
    assert about["start"]["rules"] == len(start) and about["start"]["about"]["choosing_seed"] is not None
    assert about["passed"][0] >= 0 and about["tried"][0] <= 2
    with pytest.raises(SystemExit):
        main(["outcomes", "four_tricks", "bid", "--deals", "10", "--seed", "3", "--out", str(tmp_path / "d")])
    assert "no decision 'bid'" in capsys.readouterr().err
    assert not (tmp_path / "d").exists(), "a refused run writes nothing"
