"""Expert iteration: the search agent labels the positions the student itself reaches; the student fits them.

Expert Iteration (Anthony et al. 2017) with DAgger's rule for the data (Ross et
al. 2011): a student cloned from an expert's own games makes mistakes the expert
never makes, reaches positions the expert never reached, and has no labels there.
So each iteration

1. **plays**: the student (the current policy network) sits at tables with the
   league (each seat of each deal is the student with probability ``share``, else a
   member of ``opponents``; every table has at least one student seat) and plays its
   own moves;
2. **labels**: at every decision of a student seat the expert (``search`` or ``pimc``)
   searches the same position, with the engine state of the real game, and gives its
   value of every legal action (:meth:`trickenv.agents.pimc.PIMCAgent.search_batch`);
   the student's move is played, not the expert's;
3. **fits**: the student is fitted to every label so far, all iterations
   aggregated (the searched values as soft targets, ``softmax(values / T)``, with
   ``bc_temperature`` T; the value head to the deal score that followed).

The expert may play its playouts with the student (``rollout="student"``: the
student of the iteration, saved as a player file), so a better student makes a
better expert, or as the expert agent plays them by default (``rollout="game"``:
in Four Tricks ``search`` plays out with a shipped network, the strongest playouts
measured there). :func:`label_positions` is step 1-2 for one batch of games;
:class:`~trickenv.training.train.Run` runs the loop (``trickenv train --expert``),
keeping each finished chunk of labels on disk so a killed run resumes without
searching them again.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.games.base import GameSpec
from trickenv.privileged import privileged_obs
from trickenv.rewards import reward_scale
from trickenv.vector import VecEnv

EXPERTS = ("search", "pimc")
# Who plays the expert's playouts (``trickenv train --expert-rollout``): an agent, the student of the round, or
# "game": the expert agent's own default (``SearchDefaults.rollout`` for ``search``), without its second look.
EXPERT_ROLLOUTS = ("rules", "random", "student", "game")
# Who sits beside the student (``trickenv train --expert-opponents``): agent names and their weights, whole numbers;
# a seat draws each name as often as its weight says. The default is the tables the shipped players learned at.
OPPONENTS = {"rules": 3, "random": 1}


def opponent_seats(weights: dict[str, int]) -> tuple[str, ...]:
    """The names a seat draws from, uniformly: each name repeated its weight times, in the order given
    (``{"rules": 3, "random": 1}`` -> rules, rules, rules, random)."""
    return tuple(name for name, weight in weights.items() for _ in range(weight))


def parse_opponents(text: str) -> dict[str, int]:
    """``--expert-opponents rules=3,random=1,pimc=1``: agent names with whole-number weights (0 leaves a name out).

    Raises ``ValueError`` naming the part that is not ``NAME=WEIGHT``; the names are checked when the run
    builds them (:func:`check_opponents`)."""
    out: dict[str, int] = {}
    for part in text.split(","):
        name, eq, value = part.strip().rpartition("=")
        name = name.strip()
        if not eq or not name:
            raise ValueError(f"expert_opponents: {part!r} is not NAME=WEIGHT (e.g. rules=3,random=1,pimc=1)")
        if name in out:
            raise ValueError(f"expert_opponents: {name} is named twice")
        try:
            out[name] = int(value)
        except ValueError:
            raise ValueError(f"expert_opponents: the weight of {name} must be a whole number, got {value!r}") from None
    return out


def check_opponents(spec: GameSpec, weights: Any) -> None:
    """Refuse a table that cannot be drawn: a weight that is not a whole number >= 0, no weight above 0, or a
    name :func:`~trickenv.agents.make_agent` cannot build (its message names what is allowed)."""
    if not isinstance(weights, dict):
        raise ValueError(f"expert_opponents must map agent names to weights, e.g. {OPPONENTS}, got {weights!r}")
    for name, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int) or weight < 0:
            raise ValueError(f"expert_opponents: the weight of {name} must be a whole number >= 0, got {weight!r}")
    if not opponent_seats(weights):
        raise ValueError(f"expert_opponents: at least one weight must be above 0, got {weights}")
    for name in weights:
        try:
            make_agent(name, spec)
        except (ValueError, KeyError, FileNotFoundError) as e:
            raise ValueError(f"expert_opponents: {name}: {e}") from None


def label_positions(spec: GameSpec, student: Any, expert: Any, samples: int, seed: int = 0, batch: int = 128,
                    share: float = 0.5, opponents: Sequence[Any] = opponent_seats(OPPONENTS), privileged: bool = False,
                    progress: bool = False) -> dict[str, np.ndarray]:
    """At least ``samples`` decisions of student seats, each labelled by ``expert``; the student's moves are played.

    Once ``samples`` are in, each game plays its deal to the end (a label needs the deal's score) and stops.

    ``student``: an agent that reads the observation (``act_batch(obs, mask)``, a
    :class:`~trickenv.agents.policy.PolicyAgent`); ``expert``: a search agent (one with
    ``search_batch``); ``opponents``: agents or names for the other seats. Returns, per
    decision: ``obs``, ``mask``, ``action`` (the expert's choice),
    ``values`` (its searched values, NaN where it did not search), ``played`` (the
    student's move), ``return`` (the seat's scaled deal score), and ``privileged`` (every
    hand, :mod:`trickenv.privileged`) if asked.
    """
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], the chance a seat is the student's, got {share!r}")
    if not hasattr(expert, "search_batch"):
        raise ValueError(f"the expert must be a search agent (one of {', '.join(EXPERTS)}), got {expert!r}")
    if len(opponents) == 0 and share < 1:
        raise ValueError("opponents must name at least one agent unless every seat is the student's (share=1)")
    n = spec.num_players
    vec = VecEnv(spec, batch, seed=seed)
    pool = [make_agent(o, spec, seed=seed + 1 + k) if isinstance(o, str) else o for k, o in enumerate(opponents)]
    rng = np.random.default_rng([seed, 31])

    def draw(games: np.ndarray) -> None:
        """Seat roles of new deals: -1 the student, k >= 0 the pool member k."""
        roles[games] = np.where(rng.random((len(games), n)) < share, -1,
                                rng.integers(0, max(len(pool), 1), (len(games), n)))
        roles[games, rng.integers(0, n, len(games))] = -1  # every table has a student seat

    roles = np.zeros((batch, n), np.int64)
    draw(np.arange(batch))
    scores = np.zeros((batch, 4, n), np.float32)  # [game, deal, seat], grown as deals end
    deal = np.zeros(batch, np.int64)
    active = np.ones(batch, np.bool_)  # once enough labels are in, a game stops when its deal ends: none is wasted
    keep: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "action", "values", "played", "seat", "deal",
                                                        "game", "privileged")}
    obs, mask, player = vec.reset()
    labelled = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=samples, desc=f"expert labels ({getattr(expert, 'name', 'expert')})", unit="decision",
                   dynamic_ncols=True)
    while active.any():
        role = np.where(active, roles[np.arange(batch), player], len(pool))  # len(pool): nobody acts
        actions = np.zeros(batch, np.int64)
        mine = np.flatnonzero(role < 0)
        if len(mine):
            expert_action, values = expert.search_batch(obs[mine], mask[mine], state=vec.state, games=mine)
            played = np.array(student.act_batch(obs[mine], mask[mine]), np.int64)  # a copy: agents reuse buffers
            actions[mine] = played
            keep["obs"].append(obs[mine])
            keep["mask"].append(mask[mine])
            keep["action"].append(np.array(expert_action, np.int64))
            keep["values"].append(np.array(values, np.float32))
            keep["played"].append(played)
            keep["seat"].append(player[mine].astype(np.int64))
            keep["deal"].append(deal[mine].copy())
            keep["game"].append(mine)
            if privileged:
                keep["privileged"].append(privileged_obs(spec, vec.state, mine, player[mine]))
            labelled += len(mine)
            if bar is not None:
                bar.update(len(mine))
        for k, agent in enumerate(pool):
            rows = np.flatnonzero(role == k)
            if len(rows):
                actions[rows] = act_rows(agent, obs[rows], mask[rows], vec.state, rows)
        obs, mask, player, rewards, _ = vec.step(actions, where=active)
        ended = np.flatnonzero(vec.deal_end)
        if len(ended):
            if deal[ended].max() >= scores.shape[1]:
                scores = np.concatenate([scores, np.zeros_like(scores)], axis=1)
            scores[ended, deal[ended]] = rewards[ended]
            deal[ended] += 1
            if labelled >= samples:
                active[ended] = False
            else:
                draw(ended)
    if bar is not None:
        bar.close()
    game = np.concatenate(keep["game"])
    deals = np.concatenate(keep["deal"])
    seat = np.concatenate(keep["seat"])
    out = {k: np.concatenate(keep[k]) for k in ("obs", "mask", "action", "values", "played")}
    out["return"] = scores[game, deals, seat] * np.float32(reward_scale(spec))
    if privileged:
        out["privileged"] = np.concatenate(keep["privileged"])
    return out


def make_expert(spec: GameSpec, name: str, seed: int, worlds: int, rollout: str | None = None,
                solve_tricks: int | None = None) -> Any:
    """The expert agent: ``name`` (``search`` or ``pimc``) with ``worlds`` worlds, its playouts by ``rollout``
    (an agent name such as ``rules`` or ``model:PATH``; None: the agent's default, for ``search`` without the
    second look, which doubles its time for a small gain: docs/how-it-was-found/training.md). ``solve_tricks``: for ``search``,
    the tricks left at which its solver takes over from the playouts (None: the agent's default)."""
    if name not in EXPERTS:
        raise ValueError(f"expert must be one of {', '.join(EXPERTS)}, got {name!r}")
    if solve_tricks is not None and name != "search":
        raise ValueError(f"solve_tricks is the search expert's (its solver's endgame); {name} has no solver")
    options: dict[str, Any] = {"worlds": worlds}
    if solve_tricks is not None:
        options["solve_tricks"] = solve_tricks
    if name == "search":
        # Uniform worlds, as the shipped players' recipes were made: Farbwechsel's default policy inference
        # reads the shipped player itself and costs about 2.5x the labels' time (docs/results/strength.md).
        options["inference"] = "none"
        if rollout is None:
            options["refine"] = 0
    if rollout is not None:
        options["rollout"] = rollout
    return make_agent(name, spec, seed=seed, **options)


def label_chunk(game: str, options: dict[str, Any], student_path: str, expert: str, worlds: int, rollout: str,
                samples: int, seed: int, share: float, opponents: Sequence[str], privileged: bool,
                batch: int, solve_tricks: int | None = None) -> dict[str, np.ndarray]:
    """One chunk of labels from the student saved at ``student_path`` (a worker process's job, and the
    trainer's own). ``rollout``: one of :data:`EXPERT_ROLLOUTS` (``"student"``: the student plays the expert's
    playouts, ``"game"``: the expert agent's default playouts); ``solve_tricks``: :func:`make_expert`'s."""
    from trickenv.agents.policy import PolicyAgent
    from trickenv.games import make_spec

    spec = make_spec(game, **options)
    student = PolicyAgent(spec, path=student_path)
    playouts = {"student": f"model:{student_path}", "game": None}.get(rollout, rollout)
    agent = make_expert(spec, expert, seed, worlds, playouts, solve_tricks)
    return label_positions(spec, student, agent, samples, seed=seed, share=share, opponents=opponents,
                           privileged=privileged, batch=batch)
