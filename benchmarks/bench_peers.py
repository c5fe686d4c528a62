"""trickenv beside its peers: decision steps a second of random legal play, measured in one run on one machine.

    python benchmarks/bench_peers.py                       # the side-by-side table (about 3 minutes)
    python benchmarks/bench_peers.py --seconds 0.2 --repeats 1
    python benchmarks/bench_peers.py --write-docs          # also rewrite the table in docs/results/speed.md

Absolute speeds do not carry from one machine to another (the same trickenv kernel measured 25M and 16M decision
steps a second on two VMs of one kind); ratios measured side by side in one run do, much better. The peers
(``pip install -e ".[bench]"``; a peer that is not installed gets a row that says so):

- **OpenSpiel** (``open_spiel``), two loops: its C++ loop (``pyspiel.evaluate_bots`` with uniform random bots,
  a whole game per call, nothing in Python) and its Python loop as an RL user writes it (``legal_actions`` and
  the observation written into a NumPy buffer by ``open_spiel.python.observation``, ``apply_action``), on
  ``oh_hell`` with 3 players in two shapes: 52 cards, 17 tricks, which is Four Tricks with ``deck=52,
  bidding=True``; 48 cards, 15 tricks (OpenSpiel needs a card left over to turn up for trump, so 16 tricks
  cannot be dealt), beside Four Tricks with ``bidding=True`` (48 cards, 16 tricks); then ``hearts``, ``skat``,
  ``spades`` and ``bridge`` with the cards played (``use_double_dummy_result=false``).
- **RLCard** (``rlcard``): ``bridge`` and ``doudizhu`` (``env.step`` returns the next state with its
  observation and legal actions).
- **PettingZoo classic**: its card envs (Leduc and Texas Hold'em, on RLCard), the AEC loop.

What is counted: decisions (a player's action; OpenSpiel's chance nodes, the deal, are not counted but their
time is, as trickenv's reset is in its step). Every figure is process CPU time on one thread, the median of
``--repeats`` rounds in which every row runs once for ``--seconds`` (so a drift of the machine's speed during
the run hits trickenv's rows and the peers' alike). **Policy time is excluded on both sides**: trickenv's batched loop
times ``VecEnv.step`` alone (the random agent is timed apart); every Python loop is timed whole, then its
policy (a uniform choice among the legal actions) is timed alone, called as many times on legal-action inputs
recorded from the same env, and subtracted. OpenSpiel's C++ loop cannot be split from Python: its random bot
runs inside it, and all it adds to what a step needs is one draw from a random generator (it asks the state for
its legal actions, which every loop does), so that figure is the game's own cost within a few percent.

Ratios are trickenv's figure over the peer's (above 1: trickenv is faster), against the trickenv game named in
the row: Four Tricks for ``oh_hell``; trickenv's slowest game (of the three, each in its default variant) for
every other peer, which understates trickenv's lead. trickenv batched steps ``--batch`` games a call on one
thread; a peer's loop plays one game at a time on one thread.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import os

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # PettingZoo's card envs import pygame, which greets on import
HERE = Path(__file__).resolve().parent

import trickenv  # noqa: E402
from trickenv.research.timing import bench_vec  # noqa: E402

DOCS = HERE.parent / "docs" / "results" / "speed.md"
BEGIN, END = "<!-- bench_peers: begin -->", "<!-- bench_peers: end -->"

# trickenv's rows: (label, game, options). The peers' rows name one of these labels to compare with, or SLOWEST.
TRICKENV = [
    ("Four Tricks", "four_tricks", {}),
    ("Four Tricks bidding", "four_tricks", {"bidding": True}),
    ("Four Tricks 52 bidding", "four_tricks", {"deck": 52, "bidding": True}),
    ("Farbwechsel", "farbwechsel", {}),
    ("King Calling", "koenigrufen", {}),
]
DEFAULT_GAMES = ("Four Tricks", "Farbwechsel", "King Calling")  # SLOWEST is the slowest of these
SLOWEST = "slowest"


@dataclass
class Peer:
    library: str
    game: str  # as the peer names it, with its parameters
    loop: str
    compare: str  # a TRICKENV label, or SLOWEST
    run: Callable[[float], tuple[float, int]]  # seconds -> (CPU seconds without policy, decisions)
    obs: Callable[[], str] | None = None  # what the loop's observation is


# ----------------------------------------------------------------------------------------------------------------
# Timing


class Policy:
    """A uniform choice among the legal actions, timed alone afterwards on recorded inputs (then subtracted)."""

    def __init__(self, legal: Callable) -> None:
        self.legal = legal  # the loop's input -> a sequence of legal actions
        self.rng = random.Random(0)
        self.samples: list = []

    def __call__(self, x):
        if len(self.samples) < 512:
            self.samples.append(x)
        legal = self.legal(x)
        return legal[int(self.rng.random() * len(legal))]

    def cost(self, calls: int) -> float:
        """CPU seconds of ``calls`` calls (the same calls as in the loop) on the recorded inputs."""
        samples = self.samples
        n = len(samples)
        t0 = time.process_time()
        for k in range(calls):
            self(samples[k % n])
        return time.process_time() - t0


def timed_games(play_one: Callable[[Policy], int], policy: Policy, seconds: float) -> tuple[float, int]:
    """Play whole games until ``seconds`` of CPU time: (CPU seconds minus the policy's, decisions)."""
    play_one(policy)  # warm up (and compile or load what the env needs)
    decisions, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        decisions += play_one(policy)
    total = time.process_time() - t0
    return total - policy.cost(decisions), decisions


# ----------------------------------------------------------------------------------------------------------------
# trickenv


def trickenv_batched(game: str, options: dict, batch: int, seconds: float) -> float:
    """Decisions a second of ``VecEnv.step`` (obs + mask of every game, one thread), policy timed apart."""
    env_ns, _, _, _ = bench_vec(game, options, batch, seconds)
    return 1e9 / env_ns


def trickenv_aec(game: str, options: dict, seconds: float) -> tuple[float, int]:
    env = trickenv.make(game, **options)
    return aec_games(env, seconds)


def aec_games(env, seconds: float) -> tuple[float, int]:
    """Random legal play in a PettingZoo AEC env (trickenv's or a peer's), as :func:`timed_games` measures it."""
    env.reset(seed=0)

    def play_one(policy: Policy) -> int:
        n = 0
        env.reset()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(policy(obs["action_mask"])))
            n += 1
        return n

    return timed_games(play_one, Policy(np.flatnonzero), seconds)


# ----------------------------------------------------------------------------------------------------------------
# OpenSpiel


def openspiel_game(name: str, params: dict):
    import pyspiel

    return pyspiel.load_game(name, params)


def openspiel_cpp(name: str, params: dict) -> Callable[[float], tuple[float, int]]:
    def run(seconds: float) -> tuple[float, int]:
        import pyspiel

        game = openspiel_game(name, params)
        bots = [pyspiel.make_uniform_random_bot(p, 1 + p) for p in range(game.num_players())]
        seed, decisions, cpu = 0, 0, 0.0
        while cpu < seconds or seed < 3:
            t0 = time.process_time()
            state = game.new_initial_state()
            pyspiel.evaluate_bots(state, bots, seed)  # plays the state to its end, in place
            cpu += time.process_time() - t0
            decisions += sum(1 for pa in state.full_history() if pa.player >= 0)  # chance is player -1
            seed += 1
        return cpu, decisions

    return run


def openspiel_python(name: str, params: dict) -> Callable[[float], tuple[float, int]]:
    def run(seconds: float) -> tuple[float, int]:
        import pyspiel
        from open_spiel.python.observation import make_observation

        game = openspiel_game(name, params)
        # The observation where the game has one, else the information state (oh_hell and hearts have only that).
        observation = make_observation(game) or make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
        rng = random.Random(1)

        def play_one(policy: Policy) -> int:
            state, n = game.new_initial_state(), 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])  # the deal: env time
                    continue
                player = state.current_player()
                observation.set_from(state, player)
                state.apply_action(policy(state.legal_actions(player)))
                n += 1
            return n

        return timed_games(play_one, Policy(list), seconds)

    return run


def openspiel_obs(name: str, params: dict) -> str:
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = openspiel_game(name, params)
    obs = make_observation(game)
    if obs is not None:
        return f"observation, {obs.tensor.size} floats"
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    return f"information state, {obs.tensor.size} floats"


# ----------------------------------------------------------------------------------------------------------------
# RLCard and PettingZoo


def rlcard_loop(name: str) -> Callable[[float], tuple[float, int]]:
    def run(seconds: float) -> tuple[float, int]:
        import rlcard

        env = rlcard.make(name, config={"seed": 0})

        def play_one(policy: Policy) -> int:
            state, _ = env.reset()
            n = 0
            while not env.is_over():
                state, _ = env.step(policy(state["legal_actions"]))
                n += 1
            return n

        return timed_games(play_one, Policy(list), seconds)

    return run


def pettingzoo_loop(module: str) -> Callable[[float], tuple[float, int]]:
    def run(seconds: float) -> tuple[float, int]:
        import importlib

        return aec_games(importlib.import_module(f"pettingzoo.classic.{module}").env(), seconds)

    return run


def rlcard_obs(name: str) -> str:
    import rlcard

    return f"{int(np.prod(rlcard.make(name).state_shape[0]))} values"


def pettingzoo_obs(module: str) -> str:
    import importlib

    env = importlib.import_module(f"pettingzoo.classic.{module}").env()
    space = env.observation_space(env.possible_agents[0])["observation"]
    return f"{int(np.prod(space.shape))} values"


OH_HELL_52 = {"players": 3, "num_suits": 4, "num_cards_per_suit": 13, "num_tricks_fixed": 17}
OH_HELL_48 = {"players": 3, "num_suits": 4, "num_cards_per_suit": 12, "num_tricks_fixed": 15}
BRIDGE_PLAY = {"use_double_dummy_result": False}


def peers() -> list[Peer]:
    rows = []
    for name, params, compare in (("oh_hell", OH_HELL_52, "Four Tricks 52 bidding"),
                                  ("oh_hell", OH_HELL_48, "Four Tricks bidding"),
                                  ("hearts", {}, SLOWEST), ("skat", {}, SLOWEST), ("spades", {}, SLOWEST),
                                  ("bridge", BRIDGE_PLAY, SLOWEST)):
        shown = name + (f" ({params['num_cards_per_suit'] * 4} cards, {params['num_tricks_fixed']} tricks)"
                        if name == "oh_hell" else " (cards played)" if params else "")
        rows.append(Peer("OpenSpiel", shown, "C++ (evaluate_bots)", compare, openspiel_cpp(name, params)))
        rows.append(Peer("OpenSpiel", shown, "Python (obs + legal actions)", compare,
                         openspiel_python(name, params), obs=lambda name=name, params=params: openspiel_obs(name, params)))
    for name in ("bridge", "doudizhu"):
        rows.append(Peer("RLCard", name, "Python (env.step)", SLOWEST, rlcard_loop(name),
                         obs=lambda name=name: rlcard_obs(name)))
    for module in ("leduc_holdem_v4", "texas_holdem_v4"):
        rows.append(Peer("PettingZoo", module, "AEC", SLOWEST, pettingzoo_loop(module),
                         obs=lambda module=module: pettingzoo_obs(module)))
    return rows


def installed(library: str) -> str | None:
    """None if the peer imports, else why not."""
    modules = {"OpenSpiel": "pyspiel", "RLCard": "rlcard", "PettingZoo": "rlcard"}  # PettingZoo's card envs need rlcard
    try:
        __import__(modules[library])
    except ImportError as e:
        return f"not installed ({e.name}): pip install -e \".[bench]\""
    return None


# ----------------------------------------------------------------------------------------------------------------
# The run


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        names = re.findall(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())
        cpu = f"{names[0]}, {len(names)} cores" if names else cpu
    except OSError:
        pass
    return cpu


def versions() -> str:
    import numba

    out = [f"Python {platform.python_version()}", f"numba {numba.__version__}", f"numpy {np.__version__}"]
    for module, label in (("pyspiel", "open_spiel"), ("rlcard", "rlcard"), ("pettingzoo", "pettingzoo")):
        try:
            from importlib.metadata import version

            out.append(f"{label} {version({'pyspiel': 'open_spiel'}.get(module, module))}")
        except Exception:
            pass
    return ", ".join(out)


def measure(seconds: float, repeats: int, batch: int, only: list[str] | None = None,
            progress: Callable[[str], None] = lambda s: None) -> dict:
    """Every row's decisions a second: ``{"trickenv": [...], "peers": [...], "machine", "versions", "date"}``.

    The rows are measured in rounds, every row once a round, and each figure is the median over the rounds:
    a machine whose speed drifts during the run (a shared VM) then slows trickenv's rows and the peers' alike.
    """
    jobs: dict[tuple, Callable[[], float]] = {}
    for label, game, options in TRICKENV:
        jobs["trickenv", label, "batched"] = lambda game=game, options=options: trickenv_batched(game, options, batch,
                                                                                                 seconds)
        jobs["trickenv", label, "aec"] = lambda game=game, options=options: (
            lambda c, n: n / c)(*trickenv_aec(game, options, seconds))
    chosen = [p for p in peers() if not only or p.library in only]
    why = {p.library: installed(p.library) for p in chosen}
    for k, peer in enumerate(chosen):
        if why[peer.library] is None:
            jobs["peer", k] = lambda peer=peer: (lambda c, n: n / c)(*peer.run(seconds))
    runs: dict[tuple, list[float]] = {key: [] for key in jobs}
    for r in range(repeats):
        for key, job in jobs.items():
            runs[key].append(job())
        progress(f"round {r + 1} of {repeats} done")
    rate_of = {key: statistics.median(v) for key, v in runs.items()}
    mine = [{"label": label, "game": game, "options": options, "batched": rate_of["trickenv", label, "batched"],
             "aec": rate_of["trickenv", label, "aec"], "obs": f"{trickenv.make_spec(game, **options).obs_size} bytes"}
            for label, game, options in TRICKENV]
    out = []
    for k, peer in enumerate(chosen):
        row = {"library": peer.library, "game": peer.game, "loop": peer.loop, "compare": peer.compare,
               "rate": rate_of.get(("peer", k)), "why": why[peer.library], "obs": ""}
        if row["rate"] is not None and peer.obs:
            row["obs"] = peer.obs()
        out.append(row)
    return {"trickenv": mine, "peers": out, "machine": machine(), "versions": versions(),
            "date": datetime.date.today().isoformat(), "seconds": seconds, "repeats": repeats, "batch": batch}


def compared_with(result: dict, row: dict) -> dict:
    mine = {r["label"]: r for r in result["trickenv"]}
    if row["compare"] != SLOWEST:
        return mine[row["compare"]]
    return min((mine[label] for label in DEFAULT_GAMES), key=lambda r: r["batched"])


def rate(x: float) -> str:
    return f"{x / 1e6:.2f}M" if x >= 1e6 else f"{x / 1e3:.0f}k"


def table(result: dict) -> str:
    lines = [f"{result['date']}, {result['machine']}; {result['versions']}. One thread; process CPU time, median "
             f"of {result['repeats']} rounds (every row once a round) of {result['seconds']:g} s runs; trickenv batched: {result['batch']} games "
             f"a call. Ratio = trickenv's decisions a second over the peer's (above 1: trickenv is faster).",
             "",
             "| trickenv | observation | batched (obs + mask) | AEC |",
             "|---|---|---:|---:|"]
    for r in result["trickenv"]:
        lines.append(f"| {r['label']} | {r['obs']} | {rate(r['batched'])} | {rate(r['aec'])} |")
    lines += ["",
              "| peer | game | loop | observation | decisions/s | compared with | trickenv batched ÷ peer "
              "| trickenv AEC ÷ peer |",
              "|---|---|---|---|---:|---|---:|---:|"]
    for row in result["peers"]:
        if row["rate"] is None:
            lines.append(f"| {row['library']} | {row['game']} | {row['loop']} | | {row['why']} | | | |")
            continue
        mine = compared_with(result, row)
        shown = mine["label"] + (" (trickenv's slowest)" if row["compare"] == SLOWEST else "")
        lines.append(f"| {row['library']} | {row['game']} | {row['loop']} | {row['obs']} | {rate(row['rate'])} "
                     f"| {shown} | {mine['batched'] / row['rate']:.1f}x | {mine['aec'] / row['rate']:.2f}x |")
    return "\n".join(lines)


def write_docs(text: str, path: Path = DOCS) -> None:
    """Put ``text`` between the bench_peers markers of ``path`` (the rest of the file unchanged)."""
    doc = path.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        raise ValueError(f"{path} has no {BEGIN} ... {END} block to rewrite")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per timed run")
    ap.add_argument("--repeats", type=int, default=5, help="rounds of runs (each figure: the median over them)")
    ap.add_argument("--batch", type=int, default=4096, help="games per VecEnv.step call")
    ap.add_argument("--peers", nargs="+", choices=("OpenSpiel", "RLCard", "PettingZoo"), default=None,
                    help="only these peers (default: all)")
    ap.add_argument("--write-docs", action="store_true", help=f"rewrite the table in {DOCS.name}")
    ap.add_argument("--json", type=Path, default=None, help="also save the figures as JSON")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1 or args.batch < 1:
        ap.error("--seconds must be > 0, --repeats and --batch >= 1")
    result = measure(args.seconds, args.repeats, args.batch, args.peers,
                     progress=lambda s: print(s, file=sys.stderr, flush=True))
    text = table(result)
    print(text)
    if args.json:
        import json

        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    if args.write_docs:
        write_docs(text)
    return result


if __name__ == "__main__":
    main()
