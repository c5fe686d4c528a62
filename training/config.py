"""The settings of a training run (:class:`TrainConfig`) and of the ``trickenv train`` command around it.

Each field is declared once, here, with its meaning: ``trickenv train``'s flags, their help and whether
``--resume`` may change them are all generated from these fields (:mod:`trickenv.training.flags`), and the
named recipes (:mod:`trickenv.training.recipes`) are partial :class:`TrainConfig` values.
"""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING, asdict, dataclass
from typing import Any, Callable

import trickenv
from trickenv.training.expert import OPPONENTS, parse_opponents
from trickenv.training.league import Schedule, parse_schedule


def setting(default: Any = MISSING, doc: str = "", *, factory: Callable[[], Any] | None = None, resume: bool = False,
            parse: Callable[[str], Any] | None = None, positional: bool = False, **argparse_keywords: Any) -> Any:
    """A field of a settings dataclass: its default, ``doc`` (what it does: the flag's help), whether a resumed
    run may change it (``resume``), how its flag's text is read (``parse``; by default from the field's type),
    whether it is a positional argument rather than a flag, and anything else its ``argparse`` argument needs
    (``nargs``, ``const``, ``metavar``, ``choices``)."""
    metadata = {"doc": doc, "resume": resume, "parse": parse, "positional": positional, "argparse": argparse_keywords}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def units(text: str) -> tuple[int, ...]:
    """``--net 256,256``: the units of each hidden layer."""
    return tuple(int(x) for x in text.split(","))


@dataclass
class TrainConfig:
    """Everything a run needs (``config.json`` of its folder). ``trickenv train`` fills it from a recipe
    (``--recipe``) and the flags given; a field not given keeps the default written here."""

    game: str = setting(doc="the game to train a player for", positional=True, nargs="?",
                        choices=sorted(trickenv.GAMES))
    options: dict[str, Any] = setting(factory=dict, doc="game options as name=value, e.g. deck=52 (anywhere on the "
                                      "line): the variant the player is trained for", positional=True, nargs="*")
    recipe: str = setting("", "start from the named recipe of settings for GAME (trickenv train --list-recipes), "
                              "e.g. shipped: the command that made the shipped player; the flags given beside it "
                              "override its settings. The name is recorded with the run's settings", metavar="NAME")
    steps: int = setting(3_000_000, "learner decisions of self-play PPO after the imitation phases; 0: no PPO, the "
                                    "player is the imitation's", resume=True)
    num_envs: int = setting(256, "games played side by side by PPO (one learner seat each)")
    n_steps: int = setting(64, "PPO rollout length per game: num_envs x n_steps decisions per update")
    batch_size: int = setting(2048, "PPO minibatch, in decisions")
    epochs: int = setting(3, "PPO epochs over each rollout")
    learning_rate: float = setting(3e-4, "PPO's learning rate (Adam)")
    net: tuple[int, ...] = setting((256, 256), "units of each hidden layer of the policy and value networks",
                                   parse=units, metavar="UNITS,...")
    features: str = setting("compact", "what the network reads: compact (the observation), or actions (also the "
                                       "game's per-card trick facts)")
    # The head's inputs are the last hidden layer and the card's own facts (trickenv/agents/card_head.py); PPO reads
    # them from the features, so PPO with a head needs the "actions" features.
    card_head: int = setting(0, "units of a per-card head: one network shared by every card adds each card's score "
                                "to its logit; fitted by the imitation phases and trained by PPO (PPO needs "
                                "--features actions); 0: none")
    gamma: float = setting(1.0, "PPO's discount; 1: a deal is a short episode paid at its end")
    gae_lambda: float = setting(0.95, "PPO's GAE lambda")
    clip_range: float = setting(0.2, "PPO's clip range")
    ent_coef: float = setting(0.01, "PPO's entropy bonus")
    bc_samples: int = setting(1_000_000, "decisions of the teacher the warm start imitates; 0: no warm start (the "
                                         "network starts from its random weights)")
    bc_epochs: int = setting(3, "epochs of the warm start's fit over its demonstrations")
    bc_teacher: str = setting("rules", "who the warm start imitates: rules; a search, pimc or search, or either with "
                                       "its keywords (search:solve_tricks=2), playing with --bc-worlds worlds; or a "
                                       "trained player to distil, model or model:PATH", metavar="AGENT")
    bc_worlds: int = setting(8, "a search teacher's sampled worlds per decision")
    # The fit runs after the search, alone, so the workers' cores are its threads.
    bc_workers: int = setting(1, "processes searching the demonstrations side by side (one per free core); also the "
                                 "torch threads of the warm start's fit")
    bc_temperature: float = setting(0.0, "above 0: fit softmax(values / T) of the values searched for every legal "
                                         "move, not only the teacher's move (needs a search teacher or --expert)",
                                    metavar="T")
    bc_mix: float = setting(0.0, "share of demonstration seats the rule-based agent plays (the teacher labels all)")
    bc_mix_random: float = setting(0.0, "share of demonstration seats the random agent plays (at most 1 - bc_mix)")
    bc_networks: int = setting(1, "networks fitted to the same demonstrations, network k from seed + k; the player "
                                  "plays the mean of their logits (an ensemble). Above 1 only for imitation alone: "
                                  "--steps 0, no --expert")
    augment_suits: bool = setting(False, "every fit sees each row under a random renaming of the suits, in a game "
                                         "whose rules treat suits alike")
    snapshot_every: int = setting(250_000, "PPO decisions between snapshots of the learner joining the league of "
                                           "opponents")
    keep_snapshots: int = setting(4, "snapshots the league keeps (the oldest leaves)")
    eval_every: int = setting(250_000, "PPO decisions between evaluations against the rule-based agent (eval.csv; "
                                       "also after each expert iteration)", resume=True)
    eval_deals: int = setting(300, "duplicate deals of each evaluation", resume=True)
    eval_pimc: bool = setting(False, "each evaluation also plays pimc (eval.csv: pimc_diff, for the time-to-strength "
                                     "plot; costs search time)")
    checkpoint_every: int = setting(100_000, "PPO decisions between checkpoints (what a kill can lose at most)",
                                    resume=True)
    seed: int = setting(0, "seed of the run: deals, network weights, demonstrations, labels")
    points_bonus: float = setting(0.0, "PPO reward shaping by the side's card points; 0: the deal score alone")
    privileged_critic: bool = setting(False, "the value network also reads every hand (training only; the player "
                                             "never does)")
    expert: str = setting("", "expert iteration after the warm start: search or pimc labels the student's own "
                              "positions with its values and the student fits every label so far, "
                              "--expert-iterations times; empty: none", metavar="AGENT")
    expert_iterations: int = setting(3, "rounds of expert iteration (labels, then a fit)", resume=True)
    expert_samples: int = setting(100_000, "student decisions labelled per round")
    expert_chunk: int = setting(10_000, "labels per file: what a kill can lose at most")
    expert_worlds: int = setting(16, "the expert's sampled worlds per labelled decision")
    expert_rollout: str = setting("rules", "who plays the expert's playouts: rules, random, student, or game (the "
                                           "expert agent's own default, without its second look)")
    expert_solve_tricks: int | None = setting(None, "tricks left at which the search expert's solver takes over "
                                                    "from its playouts (unset: the search agent's own, 3)")
    expert_share: float = setting(0.5, "chance that a seat of a labelling deal is the student's (else the league's)")
    expert_opponents: dict[str, int] = setting(factory=lambda: dict(OPPONENTS),
                                               doc="who sits beside the student at the labelling tables: agent "
                                                   "names and whole-number weights, e.g. rules=3,random=1,pimc=1",
                                               parse=parse_opponents, metavar="NAME=WEIGHT,...")
    expert_epochs: int = setting(2, "epochs of each round's fit over the labels so far")
    expert_workers: int = setting(1, "processes labelling chunks side by side (one per free core)", resume=True)
    # Where the searches run changes nothing in what they find: trickenv.cluster runs the same jobs.
    ray: str = setting("", "run the searches (the --bc-workers parts, the expert's label chunks) as Ray tasks on the "
                           "cluster at ADDRESS (without it: a Ray instance on this machine); the same data (the "
                           "cluster extra)", resume=True, nargs="?", const="local", metavar="ADDRESS")
    # One thread each: the engine's threaded step stalls while torch holds a core (docs/guides/training.md).
    env_threads: int = setting(1, "numba threads of the batched env", resume=True)
    torch_threads: int = setting(1, "torch threads of the PPO update", resume=True)
    schedule: dict[str, float] = setting(factory=lambda: asdict(Schedule()),
                                         doc="the league's shares of the opponent seats in PPO, e.g. "
                                             "rules=0.35,random=0.15", parse=parse_schedule, metavar="NAME=SHARE,...")


# What a resumed run may change: how long it runs and how it is watched and computed, not what it learns.
# Any other setting that differs from the run's config.json is refused (train.resumed_config).
RESUME_CHANGES = tuple(f.name for f in dataclasses.fields(TrainConfig) if f.metadata["resume"])


@dataclass
class TrainCommand:
    """The flags of ``trickenv train`` that are not a run's settings: where the run lives and how it is shown."""

    out: str | None = setting(None, "run folder: config, logs, checkpoints, player.npz (needed to train)",
                              metavar="DIR")
    resume: bool = setting(False, "continue the run in --out from its last checkpoint with its own settings")
    no_progress: bool = setting(False, "no progress bar")
    list_recipes: bool = setting(False, "list the named recipes (of GAME, or of every game), one a line, and exit")


def settings_from_data(values: dict[str, Any], where: str) -> dict[str, Any]:
    """``values`` (settings read from a data file, e.g. a recipe) checked against the fields of
    :class:`TrainConfig` and given their types (``net`` a tuple); ``where`` names the source in errors."""
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name not in fields or name in ("game", "recipe"):
            raise ValueError(f"{where}: {name!r} is not a setting a recipe can hold")
        kind = fields[name].type
        if kind == "tuple[int, ...]" and isinstance(value, list):
            value = tuple(value)
        elif kind == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        wanted = {"int": int, "float": float, "str": str, "bool": bool, "tuple[int, ...]": tuple,
                  "int | None": (int, type(None))}.get(kind, dict)
        if not isinstance(value, wanted) or (isinstance(value, bool) and wanted is not bool):
            raise ValueError(f"{where}: {name} must be {kind}, got {value!r}")
        out[name] = value
    return out
