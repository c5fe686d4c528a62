"""Values of the decisions before the play, learned from simulated outcomes (``trickenv decisions``).

For a decision a game names (:class:`trickenv.games.parts.Decision`: King Calling's call, the dealer's trump,
Four Tricks' bid),
every simulated deal is played once for each legal choice: the same cards, the decider taking that choice at
its first turn of the decision, and a player (``--player``, the rule-based agent by default) making every
other move. The decider's deal score after each choice is its outcome. A small network learns, from what the
decider knows (the decision's features), each choice's outcome less the mean outcome of the deal's choices;
playing it is a forward pass (:mod:`trickenv.agents.decisions`).

The run lives in one folder (``--out``): ``run.json`` (the settings), ``chunk_K.npz`` (the simulated deals,
written as they finish, so a stopped run continues where it stopped: ``--resume``), and at the end the value
file ``<game>_<decision>.npz`` and ``report.json``: on held-out deals whose every choice was played, the mean
outcome of the learned choice against the player's own choice, with its paired 95% CI, and the same for a
network learned from a quarter and a half of the deals (how many deals the values need).

    trickenv decisions four_tricks trump --deals 200000 --out runs/ft_trump
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.base import act_rows
from trickenv.agents.decisions import DecisionValues, save_values, variant_options
from trickenv.games import make_spec
from trickenv.games.base import GameSpec
from trickenv.games.parts import Decision
from trickenv.training.config import setting
from trickenv.vector import VecEnv

__all__ = ["DecisionsConfig", "decision_of", "simulate", "run_decisions"]


@dataclass
class DecisionsConfig:
    """The settings of ``trickenv decisions`` (each field is a flag; ``run.json`` of the run's folder)."""

    game: str = setting(doc="the game", positional=True, choices=sorted(trickenv.GAMES))
    decision: str = setting(doc="the decision: call (King Calling), trump (the dealer's, Four Tricks and "
                                "Farbwechsel), bid (Four Tricks, bidding=True)", positional=True)
    options: dict[str, Any] = setting(factory=dict, doc="game options as name=value, e.g. bidding=True (anywhere on "
                                      "the line): the variant", positional=True, nargs="*")
    out: str = setting("", "the run's folder (chunks, the value file, report.json)")
    deals: int = setting(200_000, "simulated deals (each played once per legal choice)")
    holdout: int = setting(10_000, "of those, the last deals, kept out of the fit to measure the values")
    chunk: int = setting(10_000, "deals a chunk file (a stopped run continues from its chunks)")
    player: str = setting("rules", "who makes every other move of the simulated deals (an agent that acts from "
                                   "the observation)")
    seed: int = setting(0, "seed of the simulated deals")
    hidden: int = setting(128, "units of each of the network's two hidden layers")
    epochs: int = setting(8, "passes over the simulated deals", resume=True)
    lr: float = setting(1e-3, "Adam's learning rate", resume=True)
    resume: bool = setting(False, "continue the run in --out (its settings; those marked may change)")


def decision_of(spec: GameSpec, name: str) -> Decision:
    """The decision ``name`` of ``spec``'s variant (ValueError naming the variant's decisions)."""
    found = {d.name: d for d in (spec.learning.decisions(spec) if spec.learning.decisions else ())}
    if name not in found:
        raise ValueError(f"{spec.name} {variant_options(spec)} has no decision {name!r} to learn; its decisions: "
                         f"{', '.join(found) or 'none'}")
    return found[name]


def simulate(spec: GameSpec, decision: Decision, deals: int, seed: int, player: Any,
             batch: int = 256) -> dict[str, np.ndarray]:
    """``deals`` deals (the first deals of a VecEnv seeded ``seed``), each played once per choice of
    ``decision``: ``obs`` [D, obs_size] (the decider's observation at the decision), ``legal`` [D, choices],
    ``outcome`` [D, choices] (the decider's deal score after that choice; NaN where it was not legal) and
    ``own`` [D] (the choice ``player`` made there; -1 where the decision did not come up), ``seat`` [D] (the
    decider's absolute seat; -1 likewise) and, for a decision that may be declined, ``declined`` [D] (the move
    ``player`` made in the copy that declined; -1 where none did).

    Every copy of a deal is played by ``player`` (deterministic: the copies agree until the decision) up to the
    turn where ``decision`` is pending for the ``t``-th time, ``t`` = the deal's number modulo
    ``decision.turns`` (Four Tricks' bid: the first, second or last bidder); there copy ``k`` takes choice ``k``,
    and where the decision may be declined, the last copy takes ``player``'s move among the other actions. A
    deal in which that turn never comes has no legal choice."""
    k = decision.choices
    src = VecEnv(spec, deals, seed=seed)
    src.reset()
    all_deals, all_dealers = (np.array(a) for a in src.current_deals())
    out = {"obs": np.zeros((deals, spec.obs_size), np.int8), "legal": np.zeros((deals, k), bool),
           "outcome": np.full((deals, k), np.nan, np.float32), "own": np.full(deals, -1, np.int64),
           "seat": np.full(deals, -1, np.int64)}
    if decision.decline:
        out["declined"] = np.full(deals, -1, np.int64)
    for start in range(0, deals, batch):
        stop = min(deals, start + batch)
        _simulate_batch(spec, decision, player, seed, all_deals[start:stop], all_dealers[start:stop],
                        start, {name: a[start:stop] for name, a in out.items()})
    if not out["legal"].any():
        raise ValueError(f"the decision {decision.name!r} never came up in the deals of {spec.name}")
    return out


def _simulate_batch(spec: GameSpec, decision: Decision, player: Any, seed: int, deals: np.ndarray,
                    dealers: np.ndarray, start: int, out: dict[str, np.ndarray]) -> None:
    """:func:`simulate` for the deals ``start ..`` of one batch, written into ``out`` (views of its arrays)."""
    k, first, count = decision.choices, decision.first, decision.count
    b = len(deals) * k
    env = VecEnv(spec, b, seed=seed)
    obs, mask, to_act = env.reset(deals=np.repeat(deals, k, axis=0), dealers=np.repeat(dealers.astype(np.int64), k))
    pick = np.tile(np.arange(k), len(deals))  # the choice each copy takes
    active = np.ones(b, bool)
    branched = np.zeros(b, bool)
    decider = np.full(b, -1, np.int64)
    actions = np.zeros(b, np.int64)
    turn = (start + np.arange(b) // k) % decision.turns  # the turn of the decision each copy branches at
    seen = np.zeros(b, np.int64)  # turns of the decision passed so far
    for _ in range(4 * (spec.deck + 16)):
        rows = np.flatnonzero(active)
        actions[rows] = act_rows(player, obs[rows], mask[rows])
        pending = active & ~branched & mask[:, first:first + count].any(axis=1)
        at = np.flatnonzero(pending & (seen == turn))
        seen[pending & (seen != turn)] += 1
        if at.size:
            rec = at[at % k == 0]  # one copy a deal records what the decider saw and chose
            own = actions[rec] - first
            out["own"][rec // k] = np.where((own >= 0) & (own < count), own, count)
            out["obs"][rec // k] = obs[rec]
            out["seat"][rec // k] = to_act[rec]
            out["legal"][rec // k, :count] = mask[rec, first:first + count]
            others = mask[at].sum(axis=1) > mask[at, first:first + count].sum(axis=1)
            if decision.decline:
                out["legal"][rec // k, count] = others[at % k == 0]
                none = at[(pick[at] == count) & others]
                if none.size:  # "none": the player's move among the other actions
                    rest = mask[none].copy()
                    rest[:, first:first + count] = False
                    actions[none] = act_rows(player, obs[none], rest)
                    out["declined"][none // k] = actions[none]
            is_choice = pick[at] < count
            ok = others.copy()  # "none" (only where it may be declined) needs another action
            ok[is_choice] = mask[at[is_choice], first + pick[at[is_choice]]]
            take = at[ok & is_choice]
            actions[take] = first + pick[take]
            active[at[~ok]] = False  # an illegal choice has no outcome
            branched[at] = True
            decider[at] = to_act[at]
        obs, mask, to_act, _, _ = env.step(actions, where=active)
        if env.deal_end.any():
            rec = env.deal_records()
            g = rec["game"]
            done = g[branched[g] & active[g]]
            scores = rec["scores"][branched[g] & active[g]]
            out["outcome"][done // k, done % k] = scores[np.arange(len(done)), decider[done]]
            active[g] = False
        if not active.any():
            break
    else:
        raise RuntimeError("some simulated deals did not finish")


class _Run:
    """A run's folder: its settings and its chunks of simulated deals."""

    def __init__(self, cfg: DecisionsConfig) -> None:
        if not cfg.out:
            raise ValueError("trickenv decisions needs --out DIR (the run's folder)")
        for name in ("deals", "holdout", "chunk", "hidden", "epochs"):
            if getattr(cfg, name) < 1:
                raise ValueError(f"--{name} must be a positive integer, got {getattr(cfg, name)}")
        if cfg.holdout >= cfg.deals:
            raise ValueError(f"--holdout ({cfg.holdout}) must be below --deals ({cfg.deals}): the rest is fitted")
        self.path = Path(cfg.out)
        meta = self.path / "run.json"
        if cfg.resume:
            if not meta.exists():
                raise ValueError(f"--resume: no run in {self.path} (no run.json)")
            have = json.loads(meta.read_text())
            keep = {f.name for f in fields(DecisionsConfig) if f.metadata["resume"]} | {"resume"}
            differ = [k for k, v in asdict(cfg).items() if k not in keep and have.get(k, v) != v]
            if differ:
                raise ValueError(f"--resume continues the run in {self.path}; it differs in {', '.join(differ)}")
        elif meta.exists() or (self.path.exists() and any(self.path.iterdir())):
            raise ValueError(f"{self.path} is not empty: continue its run with --resume, or use a new folder")
        self.path.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps(asdict(cfg), indent=1))
        self.cfg = cfg

    def chunks(self, spec: GameSpec, decision: Decision, player: Any, log: Any) -> dict[str, np.ndarray]:
        """Every chunk of simulated deals (simulated now where missing), joined in deal order."""
        cfg = self.cfg
        parts = []
        for k, start in enumerate(range(0, cfg.deals, cfg.chunk)):
            path = self.path / f"chunk_{k:05d}.npz"
            if not path.exists():
                t0 = time.perf_counter()
                # A chunk's deals depend on the run's seed and the chunk only.
                sim = simulate(spec, decision, min(cfg.chunk, cfg.deals - start), cfg.seed * 100_003 + k, player)
                tmp = path.with_name(path.name + ".tmp.npz")
                np.savez_compressed(tmp, **sim)
                tmp.replace(path)
                log(f"chunk {k}: {min(cfg.chunk, cfg.deals - start)} deals in {time.perf_counter() - t0:.0f} s")
            with np.load(path) as f:
                parts.append({name: f[name] for name in f.files})
        common = [name for name in parts[0] if all(name in p for p in parts)]  # chunks from before "seat" lack it
        return {name: np.concatenate([p[name] for p in parts]) for name in common}


def _fit(spec: GameSpec, decision: Decision, data: dict[str, np.ndarray], cfg: DecisionsConfig,
         log: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network's layers, fitted to each legal choice's outcome less its deal's mean over the legal choices."""
    import torch

    torch.manual_seed(cfg.seed)
    legal = data["legal"]
    target = np.where(legal, data["outcome"] - np.nanmean(np.where(legal, data["outcome"], np.nan), axis=1,
                                                           keepdims=True), 0.0).astype(np.float32)
    width = decision.features(spec, data["obs"][:1]).shape[2]
    net = torch.nn.Sequential(torch.nn.Linear(width, cfg.hidden), torch.nn.ReLU(),
                              torch.nn.Linear(cfg.hidden, cfg.hidden), torch.nn.ReLU(), torch.nn.Linear(cfg.hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    size = max(1, 8192 // decision.choices)  # deals a step
    for epoch in range(cfg.epochs):
        total, count = 0.0, 0
        for idx in np.array_split(rng.permutation(len(legal)), max(1, len(legal) // size)):
            x = torch.from_numpy(decision.features(spec, data["obs"][idx]))
            m = torch.from_numpy(legal[idx].astype(np.float32))
            err = (net(x).squeeze(-1) - torch.from_numpy(target[idx])) ** 2 * m
            loss = err.sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, count = total + float(err.detach().sum()), count + float(m.sum())
        log(f"epoch {epoch + 1}: mean squared error {total / count:.3f}")
    layers = [mod for mod in net if isinstance(mod, torch.nn.Linear)]
    return [(layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()) for layer in layers]


def _gain(spec: GameSpec, decision: Decision, layers, held: dict[str, np.ndarray], own: np.ndarray) -> dict[str, Any]:
    """The held-out deals' mean outcome with the learned choice less the player's own choice (paired 95% CI)."""
    meta = {"game": spec.name, "options": variant_options(spec), "decision": decision.name,
            "features": int(layers[0][0].shape[0])}
    v = np.where(held["legal"], DecisionValues(spec, layers, meta).values(held["obs"]), -np.inf)
    rows = np.arange(len(v))
    diff = held["outcome"][rows, v.argmax(axis=1)] - held["outcome"][rows, own]
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    return {"gain": float(diff.mean()), "ci95": [float(diff.mean() - half), float(diff.mean() + half)],
            "same_choice": float(np.mean(v.argmax(axis=1) == own)), "deals": int(len(diff))}


def run_decisions(cfg: DecisionsConfig, log: Any = print) -> dict[str, Any]:
    """Simulate (or read the kept chunks), fit, measure on the held-out deals, write the value file and
    ``report.json``; returns the report."""
    spec = make_spec(cfg.game, **cfg.options)
    decision = decision_of(spec, cfg.decision)
    player = make_agent(cfg.player, spec, seed=cfg.seed)
    if getattr(player, "needs_state", False):
        raise ValueError(f"--player {cfg.player} needs the engine state; the simulation plays an agent that acts "
                         "from the observation (rules, model, random, ...)")
    run = _Run(cfg)
    t0 = time.perf_counter()
    data = run.chunks(spec, decision, player, log)
    simulated = time.perf_counter() - t0
    fit_n = cfg.deals - cfg.holdout

    def came_up(part: dict[str, np.ndarray]) -> dict[str, np.ndarray]:  # the deals the decision came up in
        keep = part["legal"].any(axis=1)
        return {k: v[keep] for k, v in part.items()}

    held = came_up({k: v[fit_n:] for k, v in data.items()})
    if "own" in held:
        own = held["own"]
    else:  # chunks simulated before the player's choice was recorded (a decision that cannot be declined)
        mask = np.zeros((len(held["obs"]), spec.num_actions), bool)
        mask[:, decision.first:decision.first + decision.count] = held["legal"]
        own = np.asarray(player.act_batch(held["obs"], mask), np.int64) - decision.first
    t1 = time.perf_counter()
    curve = {}
    for share in (4, 2):  # how many deals the values need: a quarter and a half of them
        part = came_up({k: v[:fit_n // share] for k, v in data.items()})
        curve[str(fit_n // share)] = _gain(spec, decision, _fit(spec, decision, part, cfg, lambda *_: None), held, own)
    layers = _fit(spec, decision, came_up({k: v[:fit_n] for k, v in data.items()}), cfg, log)
    curve[str(fit_n)] = _gain(spec, decision, layers, held, own)
    fitted = time.perf_counter() - t1
    meta = {"game": spec.name, "options": variant_options(spec), "decision": decision.name,
            "features": int(layers[0][0].shape[0]), "player": cfg.player, "deals": fit_n, "seed": cfg.seed}
    path = run.path / f"{spec.name}_{decision.name}.npz"
    save_values(path, layers, meta)
    report = {**meta, "file": str(path), "against": f"the choice of {cfg.player}", "held_out": curve[str(fit_n)],
              "by_deals": curve, "simulate_seconds": simulated, "fit_seconds": fitted}
    (run.path / "report.json").write_text(json.dumps(report, indent=1))
    g = report["held_out"]
    log(f"{path}: on {g['deals']} held-out deals the learned choice gains {g['gain']:+.3f} "
        f"[{g['ci95'][0]:+.3f}, {g['ci95'][1]:+.3f}] over the choice of {cfg.player} (the same in "
        f"{g['same_choice']:.0%})")
    return report
