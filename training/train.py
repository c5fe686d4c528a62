"""Training a player on the batched engine: ``trickenv train GAME --out DIR``. A run imitates a teacher (the
rule-based agent, a search agent's moves and values, or a trained player), then may run expert iteration (a
search labels the student's own positions) and self-play PPO (sb3-contrib's MaskablePPO); any phase can be off.
Its settings: :class:`~trickenv.training.config.TrainConfig`; the commands that made the shipped players are the
``shipped`` recipes (:mod:`~trickenv.training.recipes`).

What one run does, top to bottom:

1. **Setup.** ``B`` games in a :class:`~trickenv.single_seat.SeatEnv` (one
   learner seat per game, rotating every deal) wrapped as an SB3 VecEnv
   (:class:`~trickenv.training.vec_env.SeatVecEnv`); the other seats are played
   by the :class:`~trickenv.training.league.League` (random, rules and frozen
   snapshots of the learner). Torch and numba get one thread each: on this
   2-core machine a second thread for either made training slower (the engine's
   2-thread step stalls when torch holds a core; torch's 2 threads were 10-30x
   slower on these small matrices).
2. **Warm start** (:mod:`~trickenv.training.bc`): the policy imitates the
   rule-based agent on ``bc_samples`` decisions.
3. **Expert iteration** (:mod:`~trickenv.training.expert`, with ``expert``): the
   search agent labels the student's own positions with its values, the student
   fits every label so far, ``expert_iterations`` times.
4. **Self-play PPO** for ``steps`` learner decisions. Every ``snapshot_every``
   steps the current policy joins the league; every ``eval_every`` steps it
   plays a duplicate evaluation against the rule-based agent (``eval_deals``
   deals, fixed seed), logged to ``eval.csv`` (and TensorBoard when installed);
   every ``checkpoint_every`` steps, and on Ctrl-C, the model (with its
   optimizer), the league and the logs are saved to ``checkpoint/``.
5. **Export**: ``player.npz``, a NumPy player for
   :class:`~trickenv.agents.policy.PolicyAgent` (``trickenv eval ... --agents
   model:DIR/player.npz``), and a final evaluation table (``final.json``).

``--resume`` continues from ``checkpoint/`` with the same step count, weights,
optimizer state and league (a run killed between checkpoints loses at most
``checkpoint_every`` steps, or one chunk of expert labels), and with the settings
of the run's ``config.json``: only :data:`RESUME_CHANGES` may change.

The reward is the learner's own deal score scaled per game (Four Tricks /4, Farbwechsel /120, King Calling x1): the score is what
a player of the game is paid, and in Farbwechsel (not zero-sum) a player who
raises its own score is the one we want; a score relative to the table would
also reward sinking the opponents.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import time
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterator

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.card_head import card_input_names
from trickenv.agents.evaluation import evaluate
from trickenv.agents.features import Features
from trickenv.agents.policy import PolicyAgent, load_networks, save_policy
from trickenv.single_seat import SeatEnv
from trickenv.training.bc import behaviour_clone, demonstrations, demonstrations_in_parallel, exit_with_parent
from trickenv.training.augment import SuitRelabelling
from trickenv.training.config import RESUME_CHANGES, TrainConfig
from trickenv.training.expert import EXPERT_ROLLOUTS, EXPERTS, check_opponents, label_chunk, opponent_seats
from trickenv.training.league import League, Schedule
from trickenv.training.vec_env import SeatVecEnv


def run_config(out: str | Path) -> TrainConfig:
    """The settings of the run in ``out`` (its ``config.json``)."""
    path = Path(out) / "config.json"
    if not path.exists():
        raise FileNotFoundError(f"--resume: no run in {out} (no config.json)")
    saved = json.loads(path.read_text())
    saved["net"] = tuple(saved["net"])
    return TrainConfig(**saved)


def resumed_config(out: str | Path, config: TrainConfig | dict[str, Any] | None = None) -> TrainConfig:
    """The settings a resumed run goes on with: the run's own (``out/config.json``) with the changes asked.

    ``config``: the changes, as a dict of fields, or a whole :class:`TrainConfig` (its fields that differ
    from the run's are the changes), or None (none). Only :data:`RESUME_CHANGES` may change (e.g.
    ``steps`` to train a finished run further); any other difference raises ``ValueError`` naming the
    setting, the run's value and the one asked, and nothing is written. The changes applied are appended
    to ``out/resumes.jsonl`` (with the step count at which they apply) by :class:`Run`.
    """
    saved = run_config(out)
    if config is None:
        changes: dict[str, Any] = {}
    elif isinstance(config, TrainConfig):
        changes = {k: v for k, v in asdict(config).items() if v != getattr(saved, k)}
    else:
        unknown = sorted(set(config) - {f.name for f in dataclasses.fields(TrainConfig)})
        if unknown:
            raise ValueError(f"unknown training settings {', '.join(unknown)}")
        changes = {k: v for k, v in config.items() if v != getattr(saved, k)}
    if "net" in changes and tuple(changes["net"]) == saved.net:
        del changes["net"]
    refused = [k for k in changes if k not in RESUME_CHANGES]
    if refused:
        said = "; ".join(f"{k} is {getattr(saved, k)!r} in this run, the command asks {changes[k]!r}" for k in refused)
        raise ValueError(f"--resume keeps the run's settings ({Path(out) / 'config.json'}): {said}. A resumed run "
                         f"may change only {', '.join(RESUME_CHANGES)}; start a new --out to train with other settings")
    return dataclasses.replace(saved, **changes)


def search_teacher(name: str) -> bool:
    """Whether the warm start's teacher ``name`` is a search agent (``pimc`` or ``search``, keywords allowed:
    ``search:solve_tricks=2``), which plays with ``bc_worlds`` worlds and gives searched values."""
    return name.split(":", 1)[0] in ("pimc", "search")


def check_expert(c: TrainConfig) -> None:
    """Refuse expert-iteration settings that cannot run, naming the setting and what is allowed."""
    if c.expert not in ("", *EXPERTS):
        raise ValueError(f"expert must be one of {', '.join(EXPERTS)} (or empty: none), got {c.expert!r}")
    for name in ("expert_iterations", "expert_samples", "expert_chunk", "expert_worlds", "expert_epochs",
                 "expert_workers"):
        value = getattr(c, name)
        least = 0 if name == "expert_iterations" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    if c.expert_rollout not in EXPERT_ROLLOUTS:
        raise ValueError(f"expert_rollout must be one of {', '.join(EXPERT_ROLLOUTS)}, got {c.expert_rollout!r}")
    k = c.expert_solve_tricks
    if k is not None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"expert_solve_tricks must be an integer >= 0 (or unset: the agent's default), got {k!r}")
        if c.expert != "search":
            raise ValueError(f"expert_solve_tricks sets the search expert's solver; the expert is {c.expert!r}, "
                             "not 'search'")
    if not 0.0 < c.expert_share <= 1.0:
        raise ValueError(f"expert_share must be in (0, 1], got {c.expert_share!r}")
    if c.expert:
        check_opponents(trickenv.make_spec(c.game, **c.options), c.expert_opponents)


def check_networks(c: TrainConfig) -> None:
    """Refuse an ensemble (``bc_networks`` > 1) that a run could not make: PPO and expert iteration train one
    network, and the networks are fitted to the warm start's demonstrations."""
    n = c.bc_networks
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"bc_networks must be a whole number >= 1, got {n!r}")
    if n > 1 and (c.steps > 0 or c.expert or c.bc_samples <= 0):
        raise ValueError(f"bc_networks={n} fits that many networks to the warm start's demonstrations, so it needs "
                         f"bc_samples > 0, steps 0 and no expert (PPO and expert iteration train one network); "
                         f"got bc_samples={c.bc_samples}, steps={c.steps}, expert={c.expert!r}")


def check_card_head(c: TrainConfig) -> None:
    """Refuse a per-card head that cannot be trained, naming the setting and what is allowed."""
    if isinstance(c.card_head, bool) or not isinstance(c.card_head, int) or c.card_head < 0:
        raise ValueError(f"card_head must be a whole number of units >= 0 (0: no card head), got {c.card_head!r}")
    if c.card_head and c.steps > 0 and c.features != "actions":
        raise ValueError(f"card_head with PPO (steps {c.steps:,}) needs features 'actions': PPO computes the head's "
                         f"inputs from the features, and the compact ones lack the trick facts (features is "
                         f"{c.features!r}); or use steps 0 (imitation alone)")
    if c.card_head and not c.net:
        raise ValueError("card_head reads the policy's last hidden layer: net needs at least one hidden layer")


def policy_weights(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy MLP of a MaskablePPO model as ``[(W [in, out], b), ...]`` (the last layer: the logits)."""
    import torch

    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    weights = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in layers]
    actor_inputs = getattr(model.policy, "actor_inputs", None)
    if actor_inputs is not None:  # a privileged critic's actor: its rows on the (zeroed) privileged columns are dead
        weights[0] = (weights[0][0][:actor_inputs].copy(), weights[0][1])
    return weights


class Run:
    """One training run in ``out`` (module docstring)."""

    def __init__(self, config: TrainConfig | dict[str, Any] | None, out: str | Path, resume: bool = False,
                 progress: bool = True) -> None:
        import torch

        self.out = Path(out)
        self.ckpt = self.out / "checkpoint"
        if resume:
            if not (self.ckpt / "model.zip").exists():
                raise FileNotFoundError(f"--resume: no checkpoint in {self.ckpt}")
            config = resumed_config(self.out, config)
        elif not isinstance(config, TrainConfig):
            raise TypeError("a new run needs a TrainConfig (a dict of changes or None only with resume=True)")
        elif (self.ckpt / "model.zip").exists():
            raise FileExistsError(f"{self.out} holds a run already: pass --resume to continue it, or another --out")
        searches = search_teacher(config.bc_teacher)
        if config.bc_teacher not in ("rules", "model") and not config.bc_teacher.startswith("model:") \
                and not searches:
            raise ValueError(f"bc_teacher must be 'rules', a search ('pimc', 'search', or either with its keywords, "
                             f"e.g. 'search:solve_tricks=2'), 'model' (the shipped player) or 'model:PATH' (a player "
                             f"file), got {config.bc_teacher!r}")
        if config.bc_teacher.startswith("model") or searches:  # refuse a missing file or a bad keyword now
            try:
                make_agent(config.bc_teacher, trickenv.make_spec(config.game, **config.options),
                           **({"worlds": config.bc_worlds} if searches else {}))
            except ValueError as e:
                raise ValueError(f"bc_teacher: {e}" + (" (a search teacher's worlds are bc_worlds)" if searches
                                                       else "")) from None
        if isinstance(config.bc_workers, bool) or not isinstance(config.bc_workers, int) or config.bc_workers < 1:
            raise ValueError(f"bc_workers must be a positive integer, got {config.bc_workers!r}")
        if not config.bc_temperature >= 0:
            raise ValueError(f"bc_temperature must be >= 0 (0: fit the teacher's moves only), got {config.bc_temperature!r}")
        if not 0.0 <= config.bc_mix <= 1.0:
            raise ValueError(f"bc_mix must be a share of seats in [0, 1], got {config.bc_mix!r}")
        if config.bc_mix > 0 and config.bc_teacher == "rules":
            raise ValueError("bc_mix seats the rule-based agent beside another teacher; with bc_teacher='rules' "
                             "every seat is the rule-based agent already")
        if not 0.0 <= config.bc_mix_random <= 1.0 - config.bc_mix:
            raise ValueError(f"bc_mix_random must be a share of seats in [0, 1 - bc_mix] = [0, {1.0 - config.bc_mix:g}], "
                             f"got {config.bc_mix_random!r}")
        if config.bc_temperature > 0 and not searches and not config.expert:
            raise ValueError("bc_temperature needs a search teacher (bc_teacher 'pimc' or 'search') or an expert: "
                             f"only a search has values to fit (bc_teacher is {config.bc_teacher!r})")
        check_expert(config)
        check_networks(config)
        if config.augment_suits:
            SuitRelabelling(trickenv.make_spec(config.game, **config.options))  # refuses a game that tells suits apart
        if config.features not in ("compact", "actions"):
            raise ValueError(f"features must be 'compact' or 'actions', got {config.features!r}")
        if config.features == "actions":
            Features(trickenv.make_spec(config.game, **config.options), actions=True)  # refuses a game without them
        check_card_head(config)
        unknown = sorted(set(config.schedule) - set(asdict(Schedule())))
        if unknown:
            raise ValueError(f"schedule: unknown {', '.join(unknown)}; allowed {', '.join(asdict(Schedule()))}")
        Schedule(**config.schedule)  # refuses negative shares
        if resume:
            before = run_config(self.out)
            changed = {k: [getattr(before, k), getattr(config, k)] for k in RESUME_CHANGES
                       if getattr(before, k) != getattr(config, k)}
            if changed:
                at = json.loads((self.ckpt / "state.json").read_text())["num_timesteps"]
                with (self.out / "resumes.jsonl").open("a") as f:
                    f.write(json.dumps({"at_step": at, "changes": changed}) + "\n")
        self.config = config
        torch.set_num_threads(config.torch_threads)
        self.progress = progress
        self.out.mkdir(parents=True, exist_ok=True)
        cfg = asdict(config)
        cfg["net"] = list(config.net)
        (self.out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
        self.spec = trickenv.make_spec(config.game, **config.options)
        self.league = League(self.spec, Schedule(**config.schedule), keep=config.keep_snapshots, seed=config.seed)
        self.seat_env = SeatEnv(self.spec, config.num_envs, seat="rotate", opponents=self.league.members,
                                sampler=self.league.sampler, seed=config.seed,
                                threads=config.env_threads)
        self.venv = SeatVecEnv(self.seat_env, points_bonus=config.points_bonus, privileged=config.privileged_critic,
                               actions=config.features == "actions")
        self.meta = {"game": config.game, "options": json.loads(json.dumps(self.spec.options)), "features": config.features,
                     "activation": "relu", "net": list(config.net)}
        if config.card_head:
            self.meta["card_head"] = card_input_names(self.spec)
        self.log: list[dict[str, Any]] = []
        self.started = time.perf_counter()
        self._elapsed_before = 0.0
        self._next: dict[str, int] = {}  # step of the next snapshot, evaluation and checkpoint
        self.bc_stats: dict[str, float] = {}
        self._expert: dict[str, Any] = {"iteration": 0, "stats": []}  # expert iterations done (training/expert.py)
        # The ensemble's networks after the first (bc_networks > 1): (weights, card head arrays), each kept in
        # members/network_<k>.npz as soon as it is fitted.
        self.members: list[tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray] | None]] = []
        self._demos: dict[str, np.ndarray] | None = None
        if resume:
            self._load()
        else:
            shutil.rmtree(self.out / "members", ignore_errors=True)  # a stopped earlier start's, never this run's
            self.model = self._new_model()
            self.model.set_random_seed(config.seed)
            self.venv.seed(config.seed)
        # The per-card head lives in the policy (CardHeadPolicy): the fits and PPO train it, checkpoints hold it.
        self.card_head = getattr(self.model.policy, "card_head", None)

    # ------------------------------------------------------------------ pieces
    def _new_model(self, seed: int | None = None):
        """A new MaskablePPO with this run's policy, its initial weights from ``seed`` (the run's by default)."""
        import torch
        from sb3_contrib import MaskablePPO

        c = self.config
        seed = c.seed if seed is None else seed
        policy, extra = "MlpPolicy", {}
        if c.privileged_critic:
            from trickenv.training.critic import PrivilegedCriticPolicy

            policy, extra = PrivilegedCriticPolicy, {"actor_inputs": self.venv.actor_inputs}
        if c.card_head:
            from trickenv.training.card_head import CardHeadPolicy, PrivilegedCardHeadPolicy

            policy = PrivilegedCardHeadPolicy if c.privileged_critic else CardHeadPolicy
            # Its initial weights from their own seed (seed + 61), drawn aside from the MLP's.
            extra["card_head"] = {"game": c.game, "options": json.loads(json.dumps(self.spec.options)),
                                  "units": c.card_head, "seed": seed + 61, "features": c.features}
        return MaskablePPO(
            policy, self.venv, learning_rate=c.learning_rate, n_steps=c.n_steps, batch_size=c.batch_size,
            n_epochs=c.epochs, gamma=c.gamma, gae_lambda=c.gae_lambda, clip_range=c.clip_range,
            ent_coef=c.ent_coef, seed=seed, device="cpu", verbose=0,
            policy_kwargs={"net_arch": {"pi": list(c.net), "vf": list(c.net)}, "activation_fn": torch.nn.ReLU, **extra},
        )

    def player(self) -> PolicyAgent:
        """The current policy as a NumPy player."""
        return PolicyAgent.from_weights(self.spec, policy_weights(self.model), self.meta, card_head=self.head_arrays(),
                                        more=self.members)

    def head_arrays(self) -> dict[str, np.ndarray] | None:
        """The per-card head's arrays for a player file, None without one."""
        return None if self.card_head is None else self.card_head.arrays()

    def augment(self) -> SuitRelabelling | None:
        """The suit renamings of the fits (``augment_suits``), else None."""
        return SuitRelabelling(self.spec) if self.config.augment_suits else None

    def value_coef(self) -> float:
        """The weight of the critic's loss in the imitation fits. 0 in a run with a card head and no PPO (steps 0):
        nothing reads its critic, and skipping it leaves the actor's fit as it is and saves the critic's share of
        the time. (Such a run resumed with more steps starts PPO from the critic's initial weights.)"""
        return 0.0 if self.config.card_head and self.config.steps == 0 else 0.5

    def warm_start(self) -> dict[str, float]:
        """Imitate the teacher, the rule-based agent by default (:mod:`trickenv.training.bc`)."""
        c = self.config
        if c.bc_samples <= 0:
            return {}
        t0 = time.perf_counter()
        data = self.demonstrations()
        with self._fit_threads():
            self.bc_stats = self._clone(self.model, data, c.seed)
        self.bc_stats["bc_seconds"] = time.perf_counter() - t0
        if c.bc_networks > 1:
            self._demos = data  # the other networks' fits (fit_members) read them too
        return self.bc_stats

    @contextmanager
    def _fit_threads(self) -> Iterator[None]:
        """The imitation fits run alone: the cores the demonstration workers had are free (1.7x faster on 2 cores).
        (A network made inside also gets its initial weights with these threads: SB3's orthogonal initialisation
        depends on them in the last bits.)"""
        import torch

        c = self.config
        torch.set_num_threads(max(c.torch_threads, c.bc_workers))
        try:
            yield
        finally:
            torch.set_num_threads(c.torch_threads)

    def _clone(self, model, data: dict[str, np.ndarray], seed: int) -> dict[str, float]:
        """Fit ``model`` (its head inside its policy, if the run has one) to the demonstrations, ``seed`` drawing the
        batches (:func:`~trickenv.training.bc.behaviour_clone`)."""
        c = self.config
        return behaviour_clone(model, data, self.venv.features, epochs=c.bc_epochs, seed=seed,
                               temperature=c.bc_temperature, augment=self.augment(),
                               card_head=getattr(model.policy, "card_head", None), value_coef=self.value_coef())

    def fit_members(self) -> None:
        """The ensemble's other networks (``bc_networks`` > 1): network k is a new policy from seed + k, fitted to the
        warm start's demonstrations as the first was. Each is written to ``members/network_<k>.npz`` when fitted,
        so a resumed run fits only the ones still missing."""
        c = self.config
        if len(self.members) >= c.bc_networks - 1:
            return
        data = self._demos if self._demos is not None else self.demonstrations()
        (self.out / "members").mkdir(exist_ok=True)
        with self._fit_threads():
            for k in range(1 + len(self.members), c.bc_networks):
                t0 = time.perf_counter()
                model = self._new_model(seed=c.seed + k)
                stats = self._clone(model, data, c.seed + k)
                head = getattr(model.policy, "card_head", None)
                weights, arrays = policy_weights(model), None if head is None else head.arrays()
                tmp = self.out / "members" / f"network_{k}.tmp.npz"
                save_policy(tmp, weights, self.meta, arrays)
                tmp.rename(self.out / "members" / f"network_{k}.npz")
                self.members.append((weights, arrays))
                self.bc_stats.update({f"bc_accuracy_{k}": stats["bc_accuracy"],
                                      f"bc_seconds_{k}": time.perf_counter() - t0})
                if self.progress:
                    print(f"network {k + 1}/{c.bc_networks} fitted: accuracy {stats['bc_accuracy']:.3f}, "
                          f"{(time.perf_counter() - t0) / 60:.1f} min", flush=True)
        self._demos = None

    def demonstrations(self) -> dict[str, np.ndarray]:
        """The warm start's demonstrations, kept in ``demonstrations.npz``: a run stopped before its
        first checkpoint and started again with the same command does not search them again."""
        c = self.config
        teacher_options = {"worlds": c.bc_worlds} if search_teacher(c.bc_teacher) else {}
        workers = {"workers": c.bc_workers} if c.bc_workers > 1 else {}
        mix = {"mix": c.bc_mix} if c.bc_mix > 0 else {}
        if c.bc_mix_random > 0:
            mix["mix_random"] = c.bc_mix_random
        if c.privileged_critic:
            mix["privileged"] = True
        key = json.dumps({"game": c.game, "options": self.meta["options"], "teacher": c.bc_teacher,
                          "samples": c.bc_samples, "seed": c.seed + 17, **teacher_options, **workers, **mix},
                         sort_keys=True)
        path = self.out / "demonstrations.npz"
        if path.exists():
            with np.load(path, allow_pickle=False) as f:
                if str(f["key"]) == key:
                    return {k: f[k] for k in f.files if k != "key"}
        if c.bc_workers > 1 or c.ray:
            data = demonstrations_in_parallel(c.game, c.options, c.bc_samples, c.bc_workers, seed=c.seed + 17,
                                              teacher=c.bc_teacher, progress=self.progress, mix=c.bc_mix,
                                              mix_random=c.bc_mix_random, privileged=c.privileged_critic,
                                              ray=c.ray or None, **teacher_options)
        else:
            data = demonstrations(self.spec, c.bc_samples, seed=c.seed + 17, teacher=c.bc_teacher,
                                  progress=self.progress, mix=c.bc_mix, mix_random=c.bc_mix_random,
                                  privileged=c.privileged_critic,
                                  **teacher_options)
        if c.bc_teacher != "rules":  # the rule-based agent's take seconds: not worth the disk
            tmp = self.out / "demonstrations.tmp.npz"
            np.savez(tmp, key=np.array(key), **data)
            tmp.rename(path)
        return data

    def expert_iteration(self) -> None:
        """Expert iterations up to ``expert_iterations`` (training/expert.py): label the student's own positions
        in chunks kept in ``DIR/expert/``, fit the student to all labels so far, checkpoint, evaluate."""
        import torch

        c = self.config
        folder = self.out / "expert"
        folder.mkdir(exist_ok=True)
        chunks = -(-c.expert_samples // c.expert_chunk)
        # Games labelled side by side: 128 (the search is batched over them), fewer for small chunks, which
        # would otherwise overshoot (a chunk plays on until every game has finished a deal).
        batch = int(np.clip(c.expert_chunk // (self.spec.num_tricks * self.spec.num_players), 8, 128))
        labels: dict[tuple[int, int], dict[str, np.ndarray]] = {}
        while self._expert["iteration"] < c.expert_iterations:
            i = int(self._expert["iteration"])
            t0 = time.perf_counter()
            student = folder / f"student_{i}.npz"
            if not student.exists():
                save_policy(student, policy_weights(self.model), self.meta, self.head_arrays())
            todo = [k for k in range(chunks) if not (folder / f"labels_{i}_{k}.npz").exists()]
            jobs = [(c.game, c.options, str(student), c.expert, c.expert_worlds, c.expert_rollout,
                     min(c.expert_chunk, c.expert_samples - k * c.expert_chunk), c.seed * 7919 + 1009 * (i + 1) + k,
                     c.expert_share, opponent_seats(c.expert_opponents), c.privileged_critic, batch,
                     c.expert_solve_tricks) for k in todo]
            self._label(jobs, [folder / f"labels_{i}_{k}.npz" for k in todo])
            t1 = time.perf_counter()
            for j in range(i + 1):  # DAgger: every label so far (each file read once per run)
                for k in range(chunks):
                    if (j, k) not in labels:
                        with np.load(folder / f"labels_{j}_{k}.npz") as f:
                            labels[j, k] = {key: f[key] for key in f.files}
            parts = [labels[j, k] for j in range(i + 1) for k in range(chunks)]
            data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
            torch.set_num_threads(max(c.torch_threads, c.expert_workers))  # the fit runs alone
            try:
                fit = behaviour_clone(self.model, data, self.venv.features, epochs=c.expert_epochs,
                                      seed=c.seed + 101 * (i + 1), temperature=c.bc_temperature,
                                      augment=self.augment(), card_head=self.card_head,
                                      value_coef=self.value_coef())
            finally:
                torch.set_num_threads(c.torch_threads)
            agree = float((data["played"] == data["action"]).mean())
            self._expert["stats"].append({"iteration": i + 1, "labels": int(len(data["action"])),
                                          "student_agreed": agree, "label_seconds": t1 - t0,
                                          "fit_seconds": time.perf_counter() - t1, **fit})
            self._expert["iteration"] = i + 1
            # The student after this fit: the next round's student_{i+1}, and, when PPO follows the last
            # round, the expert-iteration player before PPO (notebooks/experiments/time_to_strength.py compares both).
            save_policy(folder / f"student_{i + 1}.npz", policy_weights(self.model), self.meta, self.head_arrays())
            self.save()
            row = self.record_eval()
            if self.progress:
                print(f"expert iteration {i + 1}/{c.expert_iterations}: {len(data['action']):,} labels, the student "
                      f"played the expert's move in {agree:.1%}; against rules {row['diff']:+.3f} "
                      f"[{row['ci_lo']:+.3f}, {row['ci_hi']:+.3f}]")

    def _label(self, jobs: list[tuple], paths: list[Path]) -> None:
        """Run the labelling jobs (in ``expert_workers`` processes when more than one) and write each chunk as
        it finishes (to a temporary name, then renamed: a kill leaves no half-written chunk)."""
        def write(data: dict[str, np.ndarray], path: Path) -> None:
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, **data)
            tmp.rename(path)

        if self.config.ray and jobs:
            from trickenv.cluster import run_tasks

            # The student travels in the job (a node may not see this folder); chunks are written as they finish.
            student = {job[2]: Path(job[2]).read_bytes() for job in jobs}
            portable = [(student[job[2]], *job[:2], *job[3:]) for job in jobs]
            run_tasks(_label_job_portable, portable, lambda k, data: write(data, paths[k]), address=self.config.ray)
        elif self.config.expert_workers > 1 and len(jobs) > 1:
            import multiprocessing

            with multiprocessing.get_context("spawn").Pool(self.config.expert_workers,
                                                           initializer=exit_with_parent) as pool:
                for data, path in zip(pool.imap(_label_job, jobs), paths, strict=True):
                    write(data, path)
        else:
            for job, path in zip(jobs, paths, strict=True):
                write(label_chunk(*job), path)

    def evaluate(self, deals: int, opponents: tuple[str, ...] = ("rules",), seed: int = 12345):
        """Duplicate evaluation of the current policy against ``opponents``."""
        return evaluate(self.config.game, [self.player(), *opponents], deals=deals, seed=seed,
                        options=self.config.options, progress=False, ratings=False)

    def record_eval(self) -> dict[str, Any]:
        """Evaluate against the rule-based agent and append a row to ``eval.csv`` (and TensorBoard)."""
        minutes = round(self.elapsed() / 60, 2)  # the clock of the training itself, before the evaluations
        res = self.evaluate(self.config.eval_deals).to_dict()
        pair = res["pairs"][0]
        row = {"steps": int(self.model.num_timesteps), "minutes": minutes,
               "model_mean": res["agents"]["model"]["mean"], "rules_mean": res["agents"]["rules"]["mean"],
               "diff": pair["diff"], "ci_lo": pair["ci95"][0], "ci_hi": pair["ci95"][1], "deals": pair["deals"]}
        if self.config.eval_pimc:
            pimc = self.evaluate(self.config.eval_deals, opponents=("pimc",)).to_dict()["pairs"][0]
            row.update({"pimc_diff": pimc["diff"], "pimc_ci_lo": pimc["ci95"][0], "pimc_ci_hi": pimc["ci95"][1]})
        self.log.append(row)
        path = self.out / "eval.csv"
        new = not path.exists()
        with path.open("a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)
        self.model.logger.record("eval/diff_vs_rules", row["diff"])
        self.model.logger.record("eval/model_mean", row["model_mean"])
        return row

    def snapshot(self) -> None:
        """Add the current policy to the league and let the games draw from the new pool."""
        self.league.add_snapshot(int(self.model.num_timesteps), policy_weights(self.model), self.meta,
                                 self.head_arrays())
        self.seat_env.set_opponents(self.league.members, resample=False)

    def elapsed(self) -> float:
        """Seconds of training so far, over resumes."""
        return self._elapsed_before + time.perf_counter() - self.started

    def save(self) -> None:
        """Write the checkpoint: model with optimizer, league, step count and time."""
        tmp = self.out / "checkpoint.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self.model.save(tmp / "model.zip")  # the card head with it, inside the policy
        self.league.save(tmp / "league")
        (tmp / "state.json").write_text(json.dumps({
            "num_timesteps": int(self.model.num_timesteps), "elapsed": self.elapsed(), "bc": self.bc_stats,
            "next": self._next, "expert": self._expert,
        }))
        shutil.rmtree(self.ckpt, ignore_errors=True)
        tmp.rename(self.ckpt)  # a kill during the save leaves the previous checkpoint whole

    def _load(self) -> None:
        from sb3_contrib import MaskablePPO

        state = json.loads((self.ckpt / "state.json").read_text())
        self.league.load(self.ckpt / "league")
        self.seat_env.set_opponents(self.league.members, resample=False)
        self.model = MaskablePPO.load(self.ckpt / "model.zip", env=self.venv, device="cpu")
        if self.config.card_head and not hasattr(self.model.policy, "card_head"):
            raise ValueError(f"{self.ckpt} was written before the card head moved into the policy (it keeps the "
                             f"head in card_head.pt): finish it with the trickenv release that started it")
        self.model.num_timesteps = int(state["num_timesteps"])
        self._elapsed_before = float(state["elapsed"])
        self.bc_stats = state.get("bc", {})
        self._next = state["next"]
        self._expert = state.get("expert", {"iteration": 0, "stats": []})
        for k in range(1, self.config.bc_networks):  # the ensemble's networks fitted before the stop
            path = self.out / "members" / f"network_{k}.npz"
            if not path.exists():
                break
            self.members.append(load_networks(path)[0][0])
        self.venv.seed(self.config.seed + self.model.num_timesteps)
        if (self.out / "eval.csv").exists():
            with (self.out / "eval.csv").open() as f:
                self.log = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]

    # ------------------------------------------------------------------ the run
    def train(self) -> dict[str, Any]:
        """Warm start (new runs), PPO to ``steps`` with snapshots, evaluations and checkpoints, export."""
        from stable_baselines3.common.callbacks import BaseCallback
        from stable_baselines3.common.logger import configure

        c = self.config
        formats = ["csv"]
        try:
            import tensorboard  # noqa: F401

            formats.append("tensorboard")
        except ImportError:
            pass
        self.model.set_logger(configure(str(self.out / "logs"), formats))
        if not self._next:
            self.warm_start()
            self._next = {"snapshot": c.snapshot_every, "eval": 0, "checkpoint": c.checkpoint_every}
            if c.expert or c.bc_networks > 1:
                self.save()  # the student of the first iteration (or the first network): a resumed run keeps it
        if c.expert and self._expert["iteration"] < c.expert_iterations:
            self.expert_iteration()
        if c.bc_networks > 1:
            self.fit_members()
        run = self

        class Hooks(BaseCallback):
            def _on_step(self) -> bool:
                t = run.model.num_timesteps
                if t >= run._next["snapshot"]:
                    run.snapshot()
                    run._next["snapshot"] += c.snapshot_every
                if t >= run._next["eval"]:
                    run.record_eval()
                    run._next["eval"] += c.eval_every
                if t >= run._next["checkpoint"]:
                    run.save()
                    run._next["checkpoint"] += c.checkpoint_every
                return True

        remaining = c.steps - int(self.model.num_timesteps)
        t0, cpu0 = time.perf_counter(), time.process_time()
        steps0, env0, opp0 = int(self.model.num_timesteps), self.venv.clock, self.league.clock[0]
        try:
            if remaining > 0:
                self.model.learn(total_timesteps=remaining, callback=Hooks(), reset_num_timesteps=False,
                                 progress_bar=self.progress)
        except KeyboardInterrupt:
            self.save()
            raise
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        done = int(self.model.num_timesteps) - steps0
        self.save()
        if not self.log or int(self.log[-1]["steps"]) != int(self.model.num_timesteps):
            self.record_eval()
        throughput = {
            "decisions_per_second": done / wall if wall else 0.0,
            # CPU seconds of this process (all its threads): on a busy machine the wall clock also
            # counts the time other processes held the cores.
            "decisions_per_cpu_second": done / cpu if cpu else 0.0,
            "env_share": (self.venv.clock - env0) / wall if wall else 0.0,
            "opponent_share": (self.league.clock[0] - opp0) / wall if wall else 0.0,
            "seconds": wall,
        }
        save_policy(self.out / "player.npz", policy_weights(self.model),
                    {**self.meta, "steps": int(self.model.num_timesteps), "minutes": round(self.elapsed() / 60, 1),
                     "config": {k: v for k, v in asdict(c).items() if k not in ("options",)}}, self.head_arrays(),
                    more=self.members)
        summary = {"steps": int(self.model.num_timesteps), "minutes": self.elapsed() / 60, "throughput": throughput,
                   "bc": self.bc_stats, "last_eval": self.log[-1] if self.log else None}
        (self.out / "final.json").write_text(json.dumps(summary, indent=2, default=float) + "\n")
        return summary


def _label_job(job: tuple) -> dict[str, np.ndarray]:
    """A worker process's labelling job (``Run._label``)."""
    return label_chunk(*job)


def _label_job_portable(student: bytes, game: str, options: dict[str, Any], *rest: Any) -> dict[str, np.ndarray]:
    """A Ray task's labelling job: ``label_chunk`` with the student's file sent along (``Run._label``)."""
    from trickenv.cluster import file_of

    with file_of(student) as path:
        return label_chunk(game, options, path, *rest)


def _draw_differences(png_path: str | Path, title: str, xlabel: str,
                      series: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> None:
    """One PNG of score differences with their 95% CIs shaded: ``series`` of (label, x, diff, lo, hi)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for label, x, diff, lo, hi in series:
        ax.fill_between(x, lo, hi, alpha=0.2)
        ax.plot(x, diff, marker="o", label=label)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean deal score difference")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def _read_rows(csv_path: str | Path) -> list[dict[str, float]]:
    with open(csv_path) as f:
        return [{k: float(v) for k, v in r.items() if k != "player"} for r in csv.DictReader(f)]


def plot_time_to_strength(csv_path: str | Path, png_path: str | Path, title: str = "") -> None:
    """Score difference of a run's player against the rule-based agent and (``eval_pimc`` runs) against pimc,
    by wall minutes of training (the run's clock, everything counted), from its ``eval.csv``, as a PNG."""
    rows = _read_rows(csv_path)
    if not rows:
        raise ValueError(f"{csv_path} has no evaluations")
    minutes = np.array([r["minutes"] for r in rows])
    series = [(label, minutes, *(np.array([r[f"{prefix}{k}"] for r in rows]) for k in ("diff", "ci_lo", "ci_hi")))
              for prefix, label in (("", "model - rules"), ("pimc_", "model - pimc")) if f"{prefix}diff" in rows[0]]
    _draw_differences(png_path, title, "wall minutes of training", series)


def plot_curve(csv_path: str | Path, png_path: str | Path, title: str = "") -> None:
    """The learning curve of a run (score difference against the rule-based agent vs steps) as a PNG."""
    rows = _read_rows(csv_path)
    steps = np.array([r["steps"] for r in rows]) / 1e6
    diff, lo, hi = (np.array([r[k] for r in rows]) for k in ("diff", "ci_lo", "ci_hi"))
    _draw_differences(png_path, title, "learner decisions (millions)", [("trained - rules", steps, diff, lo, hi)])
