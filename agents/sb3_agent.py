"""``sb3:PATH``: a Stable-Baselines3 or sb3-contrib model as an agent (the ``train`` extra).

The model was trained on one seat of the game (:func:`trickenv.make_single`, ``gymnasium.make("trickenv/...")``):
its observation is the seat's observation row and its action an action id. It plays with the legal-action mask,
one ``predict`` for a whole batch of games:

- ``MaskablePPO`` (sb3-contrib): ``model.predict(obs, action_masks=mask)``;
- ``PPO`` and ``A2C``: the policy's action logits with the illegal actions masked out;
- ``DQN``: the Q-values with the illegal actions masked out.

The algorithm is read from the saved file (``algo=`` names it when that is not enough). ``deterministic=false``
samples from the masked policy (PPO, A2C, MaskablePPO) instead of taking its most likely action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from trickenv.games.base import GameSpec

ALGOS = ("MaskablePPO", "PPO", "A2C", "DQN")


def _algorithm(path: Path, algo: str | None) -> Any:
    """The model's class: ``algo`` if given, else what the file's policy says."""
    try:
        import sb3_contrib
        import stable_baselines3
        from stable_baselines3.common.save_util import load_from_zip_file
    except ImportError as e:
        raise ImportError(f"sb3:PATH needs the train extra (pip install 'trickenv[train]'): {e}") from None
    classes = {"MaskablePPO": sb3_contrib.MaskablePPO, "PPO": stable_baselines3.PPO, "A2C": stable_baselines3.A2C,
               "DQN": stable_baselines3.DQN}
    if algo is not None:
        if algo not in classes:
            raise ValueError(f"sb3: algo must be one of {', '.join(ALGOS)}, got {algo!r}")
        return classes[algo]
    data, _, _ = load_from_zip_file(path, load_data=True, device="cpu")
    policy = data.get("policy_class") if data else None
    module = getattr(policy, "__module__", "")
    if "maskable" in module:
        return classes["MaskablePPO"]
    if "dqn" in module:
        return classes["DQN"]
    if "n_epochs" in data:  # PPO's, not A2C's
        return classes["PPO"]
    if "n_steps" in data:
        return classes["A2C"]
    raise ValueError(f"sb3:{path}: cannot tell the algorithm of this model; name it: sb3:{path}:algo=PPO "
                     f"(one of {', '.join(ALGOS)})")


class SB3Agent:
    """A saved Stable-Baselines3 / sb3-contrib model playing one seat (see the module docstring)."""

    name = "sb3"
    needs_state = False

    def __init__(self, spec: GameSpec, seed: int | None = None, path: str = "", algo: str | None = None,
                 deterministic: bool = True) -> None:
        file = Path(path).expanduser()
        if not path or not (file.is_file() or file.with_suffix(".zip").is_file()):
            raise ValueError(f"sb3: no saved model at {path!r} (give sb3:PATH, the .zip that model.save wrote)")
        file = file if file.is_file() else file.with_suffix(".zip")
        self.spec = spec
        self.algo = _algorithm(file, algo)
        self.model = self.algo.load(file, device="cpu")
        shape = getattr(self.model.observation_space, "shape", None)
        n = getattr(self.model.action_space, "n", None)
        if shape != (spec.obs_size,) or n != spec.num_actions:
            raise ValueError(f"sb3:{path}: the model sees observations {shape} and {n} actions; {spec.name} with "
                             f"these options has ({spec.obs_size},) and {spec.num_actions}: it was trained on "
                             f"another game or variant")
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.dtype = self.model.observation_space.dtype

    def act(self, observation: dict[str, np.ndarray]) -> int:
        obs = np.asarray(observation["observation"])[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        return int(self.act_batch(obs, mask)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        x = np.asarray(obs).astype(self.dtype, copy=False)
        mask = np.array(mask, np.bool_)  # a copy: torch refuses the env's read-only views
        if self.algo.__name__ == "MaskablePPO":
            actions, _ = self.model.predict(x, action_masks=mask, deterministic=self.deterministic)
            return np.asarray(actions, np.int64).reshape(-1)
        import torch

        with torch.no_grad():
            tensor, _ = self.model.policy.obs_to_tensor(x)
            if self.algo.__name__ == "DQN":
                scores = self.model.q_net(tensor).cpu().numpy()
                return np.where(mask, scores, -np.inf).argmax(axis=1)
            scores = self.model.policy.get_distribution(tensor).distribution.logits.cpu().numpy()
        scores = np.where(mask, scores, -np.inf)
        if self.deterministic:
            return scores.argmax(axis=1)
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return np.array([self.rng.choice(len(row), p=row) for row in p])
