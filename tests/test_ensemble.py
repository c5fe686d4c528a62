"""Players of several networks (``trickenv train --bc-networks K``): the file, the player's logits, the run that
fits them, its resume and its refusals."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import trickenv
import trickenv.training.train as train_module
from trickenv.agents.features import Features
from trickenv.agents.policy import PolicyAgent, load_networks, load_policy, save_policy
from trickenv.training import Run, TrainConfig


def _networks(spec, count: int, hidden: int = 16, seed: int = 0):
    rng = np.random.default_rng(seed)
    size = Features(spec).size
    return [[(rng.normal(size=(size, hidden)).astype(np.float32), rng.normal(size=hidden).astype(np.float32)),
             (rng.normal(size=(hidden, spec.num_actions)).astype(np.float32),
              rng.normal(size=spec.num_actions).astype(np.float32))] for _ in range(count)]


def _meta(spec):
    return {"game": spec.name, "options": json.loads(json.dumps(spec.options)), "features": "compact",
            "activation": "relu"}


def test_a_file_of_several_networks_plays_the_mean_of_their_logits(tmp_path):
    spec = trickenv.make_spec("koenigrufen")
    nets, meta = _networks(spec, 3), _meta(spec)
    save_policy(tmp_path / "ens.npz", nets[0], meta, more=[(w, None) for w in nets[1:]])
    loaded, meta2 = load_networks(tmp_path / "ens.npz")
    assert meta2 == {**meta, "networks": 3} and len(loaded) == 3
    assert all(np.array_equal(a, b) for net, (got, head) in zip(nets, loaded, strict=True)
               for (a, _), (b, _) in zip(net, got, strict=True))
    assert all(head is None for _, head in loaded)
    assert all(np.array_equal(a, b)
               for (a, _), (b, _) in zip(nets[0], load_policy(tmp_path / "ens.npz")[0], strict=True))
    # One network alone: the file as before, no "networks" entry, and its player is that network.
    save_policy(tmp_path / "one.npz", nets[0], meta)
    with np.load(tmp_path / "one.npz") as f:
        assert sorted(f.files) == ["W0", "W1", "b0", "b1", "meta"] and "networks" not in json.loads(str(f["meta"]))
    ensemble = PolicyAgent(spec, path=tmp_path / "ens.npz")
    alone = [PolicyAgent.from_weights(spec, w, meta) for w in nets]
    in_memory = PolicyAgent.from_weights(spec, nets[0], meta, more=[(w, None) for w in nets[1:]])
    v = trickenv.make_vec("koenigrufen", 64, seed=2)
    obs, mask, _ = v.reset()
    differs = 0
    for _ in range(40):
        mean = np.mean([a.logits(obs) for a in alone], axis=0)
        np.testing.assert_allclose(ensemble.logits(obs), mean, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(ensemble.logits(obs), in_memory.logits(obs))
        act = ensemble.act_batch(obs, mask)
        assert mask[np.arange(64), act].all()
        np.testing.assert_array_equal(act, np.where(mask, mean, -np.inf).argmax(axis=1))
        differs += int((act != alone[0].act_batch(obs, mask)).sum())
        obs, mask, *_ = v.step(act)
    assert differs > 0  # the other networks change moves: the player is not its first network


def test_a_file_of_several_networks_is_refused_when_its_parts_disagree(tmp_path):
    spec = trickenv.make_spec("koenigrufen")
    nets, meta = _networks(spec, 2), _meta(spec)
    with pytest.raises(ValueError, match="must have one shape"):
        save_policy(tmp_path / "x.npz", nets[0], meta, more=[(_networks(spec, 1, hidden=8)[0], None)])
    with pytest.raises(ValueError, match="go together"):
        save_policy(tmp_path / "x.npz", nets[0], meta, more=[(nets[1], {"H_wh": np.zeros(1)})])
    save_policy(tmp_path / "two.npz", nets[0], meta, more=[(nets[1], None)])
    with np.load(tmp_path / "two.npz") as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
    for count, message in ((3, "says 3 networks, network 2 has no weights"), (0, "whole number >= 1")):
        np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps({**meta, "networks": count})), **arrays)
        with pytest.raises(ValueError, match=message):
            PolicyAgent(spec, path=tmp_path / "bad.npz")
    wrong = {k: (v[:, :-1] if k == "n1/W1" else v[:-1] if k == "n1/b1" else v) for k, v in arrays.items()}
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps({**meta, "networks": 2})), **wrong)
    with pytest.raises(ValueError, match="network 1's shape .* does not fit koenigrufen"):
        PolicyAgent(spec, path=tmp_path / "bad.npz")


def _tiny(**kw) -> TrainConfig:
    base = dict(game="four_tricks", steps=0, num_envs=32, n_steps=32, batch_size=512, net=(32, 32), card_head=16,
                bc_samples=3000, bc_epochs=1, eval_deals=8, seed=5)
    base.update(kw)
    return TrainConfig(**base)


def _arrays(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files if k != "meta"}


def test_a_run_fits_its_networks_from_their_own_seeds_and_a_resumed_run_fits_only_the_missing(tmp_path, monkeypatch):
    fits = []
    clone = train_module.behaviour_clone

    def counted(model, *args, **kwargs):
        fits.append(kwargs["seed"])
        return clone(model, *args, **kwargs)

    monkeypatch.setattr(train_module, "behaviour_clone", counted)
    Run(_tiny(bc_networks=3), tmp_path / "three", progress=False).train()
    assert fits == [5, 6, 7]  # network k from seed + k, the fit's order too
    Run(_tiny(), tmp_path / "one", progress=False).train()
    three, one = _arrays(tmp_path / "three" / "player.npz"), _arrays(tmp_path / "one" / "player.npz")
    # The first network is the one-network run's player, bit for bit; the others are their own.
    assert {k: v for k, v in three.items() if "/" not in k}.keys() == one.keys()
    assert all(np.array_equal(three[k], one[k]) for k in one)
    for k in (1, 2):
        assert all(f"n{k}/{name}" in three for name in one)
        assert not np.array_equal(three[f"n{k}/W0"], one["W0"]) and not np.array_equal(three[f"n{k}/H_wa"], one["H_wa"])
    assert not np.array_equal(three["n1/W0"], three["n2/W0"])
    assert json.loads(str(np.load(tmp_path / "three" / "player.npz")["meta"]))["networks"] == 3

    # Stopped after its second network: the resumed run fits the third alone and ends with the same player.
    shutil.copytree(tmp_path / "three", tmp_path / "stopped")
    for name in ("player.npz", "final.json", "members/network_2.npz"):
        (tmp_path / "stopped" / name).unlink()
    fits.clear()
    Run(None, tmp_path / "stopped", resume=True, progress=False).train()
    assert fits == [7]
    again = _arrays(tmp_path / "stopped" / "player.npz")
    assert again.keys() == three.keys() and all(np.array_equal(again[k], three[k]) for k in three)
    with pytest.raises(ValueError, match="bc_networks is 3 in this run, the command asks 2"):
        Run({"bc_networks": 2}, tmp_path / "stopped", resume=True, progress=False)


@pytest.mark.parametrize("changes, message", [
    ({"bc_networks": 0}, "bc_networks must be a whole number >= 1, got 0"),
    ({"bc_networks": True}, "bc_networks must be a whole number >= 1, got True"),
    ({"bc_networks": 2, "steps": 4096, "card_head": 0}, "needs bc_samples > 0, steps 0 and no expert"),
    ({"bc_networks": 2, "expert": "search"}, "needs bc_samples > 0, steps 0 and no expert"),
    ({"bc_networks": 2, "bc_samples": 0}, "needs bc_samples > 0, steps 0 and no expert"),
])
def test_refusals(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        Run(_tiny(**changes), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()  # nothing written


def test_the_command_line_flag(tmp_path):
    from trickenv.cli import main

    with pytest.raises(SystemExit) as e:  # the message is the exit status: Python prints it and exits with 1
        main(["train", "four_tricks", "--out", str(tmp_path / "r"), "--bc-networks", "2", "--steps", "100"])
    assert "bc_networks=2 fits that many networks" in str(e.value.code)
    assert not (tmp_path / "r" / "checkpoint").exists()
