"""notebooks/experiments/search_noise.py: the regret of a search setting against a bigger search, on real positions."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("search_noise", ROOT / "notebooks" / "experiments" / "search_noise.py")
search_noise = importlib.util.module_from_spec(spec)
spec.loader.exec_module(search_noise)


def test_a_setting_is_a_label_and_search_keywords():
    assert search_noise.parse_setting("look=refine=3,refine_worlds=128,rollout=rules") == (
        "look", {"refine": 3, "refine_worlds": 128, "rollout": "rules"})
    with pytest.raises(ValueError, match="label=key=value"):
        search_noise.parse_setting("look=refine")


def test_the_reference_itself_has_no_regret_and_others_have_some():
    """A setting that is the reference search (same worlds, same seed) picks the reference's moves: regret 0,
    differs 0%; a 2-world search does worse on the same decisions. Real King Calling positions, real searches."""
    rows = search_noise.measure("koenigrufen", ["two=worlds=2,rollout=rules", "same=worlds=3,rollout=rules"],
                                batches=1, reference=3, seed=5, rollout="rules", reference_seed=65)
    assert [r["setting"] for r in rows] == ["two", "same"] and rows[0]["time"] == 1.0
    assert all(r["decisions"] >= 16 and 0 <= r["differs"] <= 1 for r in rows)
    assert rows[0]["regret"] > 0 and rows[0]["differs"] > 0
    assert rows[1]["regret"] == 0 and rows[1]["differs"] == 0


def test_positions_have_a_choice_of_cards():
    import trickenv

    deck = trickenv.make_spec("four_tricks").deck
    for _obs, mask, _state, rows in search_noise.positions("four_tricks", 2, 3):
        assert len(rows) == 64 and np.all(mask[:, :deck].sum(axis=1) > 1)
