"""Suit relabelling of training rows (training/augment.py, GameSpec.learning.suit_relabel): a Four Tricks deal with its
suits renamed is played the same way, observation for observation; the fits use it only when asked."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")  # CI installs it

import trickenv  # noqa: E402
from trickenv.training import Run, TrainConfig  # noqa: E402
from trickenv.training.augment import SuitRelabelling  # noqa: E402
from trickenv.vector import VecEnv  # noqa: E402
from tests.helpers import random_legal  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")

VARIANTS = [{}, {"deck": 52}, {"deck": 52, "trump": "dealer"}, {"trump": "none"}, {"bidding": True},
            {"target": 2}]


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_a_deal_with_its_suits_renamed_is_played_the_same_way(options):
    spec = trickenv.make_spec("four_tricks", **options)
    relabel = SuitRelabelling(spec)
    games, n, ranks = 48, spec.num_players, spec.deck // 4
    rng = np.random.default_rng(7)
    which = np.r_[np.arange(24), rng.integers(0, 24, games - 24)]  # every renaming, the identity included
    deals = np.stack([rng.permutation(spec.deck)[:n * spec.hand_size].reshape(n, spec.hand_size)
                      for _ in range(games)])
    perm = relabel.perms[which]  # [games, 4]: the new name of each suit
    renamed = perm[np.arange(games)[:, None, None], deals // ranks] * ranks + deals % ranks
    dealers = rng.integers(0, n, games)
    a, b = VecEnv(spec, games, seed=1), VecEnv(spec, games, seed=1)
    obs, mask, player = a.reset(deals=deals, dealers=dealers)
    obs2, mask2, player2 = b.reset(deals=renamed, dealers=dealers)
    steps, live = 0, np.ones(games, np.bool_)
    while live.any():  # every game plays its deal once
        expect = relabel.apply(which[live], obs=obs[live], mask=mask[live], privileged=a.privileged()[live])
        assert np.array_equal(obs2[live], expect["obs"])
        assert np.array_equal(mask2[live], expect["mask"])
        assert np.array_equal(b.privileged()[live], expect["privileged"])
        assert np.array_equal(player2, player)
        act = random_legal(mask, rng)
        obs, mask, player, rewards, done = a.step(act, where=live)
        obs2, mask2, player2, rewards2, done2 = b.step(relabel.apply(which, action=act)["action"], where=live)
        assert np.array_equal(rewards2, rewards) and np.array_equal(done2, done)  # the renamed deal scores the same
        live &= ~done
        steps += 1
    assert steps >= spec.num_tricks * n
    # Renaming 0 is the identity; the renamings form the whole group of the 4 suits.
    assert np.array_equal(relabel.obs[0], np.arange(spec.obs_size))
    assert len({tuple(p) for p in relabel.perms}) == 24


def test_games_whose_rules_tell_suits_apart_are_refused_clearly(tmp_path):
    for game in ("koenigrufen", "farbwechsel"):
        with pytest.raises(ValueError, match="tell the suits apart"):
            SuitRelabelling(trickenv.make_spec(game))
        with pytest.raises(ValueError, match="tell the suits apart"):
            Run(TrainConfig(game=game, augment_suits=True, steps=0, bc_samples=0), tmp_path / game, progress=False)
    relabel = SuitRelabelling(trickenv.make_spec("four_tricks"))
    with pytest.raises(ValueError, match="cannot relabel 'values'"):
        relabel.apply(np.zeros(1, np.int64), values=np.zeros((1, 69)))
    with pytest.raises(ValueError, match="obs has 2 rows"):
        relabel.apply(np.zeros(1, np.int64), obs=np.zeros((2, 519), np.int8))


def tiny(**kw) -> TrainConfig:
    base = dict(game="four_tricks", steps=0, num_envs=16, n_steps=16, batch_size=256, epochs=1, net=(64, 64),
                bc_samples=2000, bc_epochs=2, eval_deals=8, seed=3, expert="pimc", expert_iterations=1,
                expert_samples=600, expert_chunk=600, expert_worlds=2, bc_temperature=0.3, privileged_critic=True)
    base.update(kw)
    return TrainConfig(**base)


def test_a_run_fits_relabelled_rows_only_when_asked_and_the_same_each_time(tmp_path, monkeypatch):
    import trickenv.training.train as train_module

    seen = []
    real = train_module.behaviour_clone
    monkeypatch.setattr(train_module, "behaviour_clone",
                        lambda *a, **kw: seen.append(kw["augment"]) or real(*a, **kw))

    def player(name, **kw):
        Run(tiny(**kw), tmp_path / name, progress=False).train()
        with np.load(tmp_path / name / "player.npz") as f:
            return {k: f[k] for k in f.files if k != "meta"}

    plain, once, again = player("plain"), player("once", augment_suits=True), player("again", augment_suits=True)
    assert seen[:2] == [None, None] and all(isinstance(x, SuitRelabelling) for x in seen[2:])
    assert len(seen) == 6  # the warm start and the one expert iteration of each run
    assert all(np.array_equal(once[k], again[k]) for k in once)  # the renamings are drawn from the seed
    assert not all(np.array_equal(once[k], plain[k]) for k in once)
    assert json.loads((tmp_path / "once" / "config.json").read_text())["augment_suits"] is True
    with pytest.raises(ValueError, match="augment_suits is True in this run"):  # what it learns from
        Run({"augment_suits": False}, tmp_path / "once", resume=True, progress=False)


def test_the_command_line_flag(tmp_path):
    from trickenv.cli import main

    with pytest.raises(SystemExit, match="koenigrufen: its rules tell the suits apart"):
        main(["train", "koenigrufen", "--out", str(tmp_path / "r"), "--augment-suits", "--no-progress"])
    assert not (tmp_path / "r").exists()  # nothing written
