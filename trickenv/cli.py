"""Command line: ``trickenv play GAME`` plays against the agents (``trickenv serve``: in the browser),
``trickenv info GAME`` shows its options and spaces,
``trickenv eval GAME --agents a,b`` compares agents on duplicate deals, ``trickenv tournament`` runs
them all in every game, ``trickenv train GAME`` trains a player (imitation, expert iteration, PPO)."""

from __future__ import annotations

import argparse
import importlib
import os
from typing import Any, Callable, Sequence

import trickenv
from trickenv.games.option_text import parse_value  # also importable from here, as it was


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["deck=52", "trump=none"]`` -> ``{"deck": 52, "trump": "none"}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"option {pair!r} must look like name=value")
        key, value = pair.split("=", 1)
        out[key] = parse_value(value)
    return out


def play(game: str, args: argparse.Namespace, options: dict[str, Any]) -> None:
    """``trickenv play``: a person against the agents (trickenv.play), or ``--agents`` watched."""
    from trickenv.play import play as play_table, watch

    try:
        if args.agents is not None:
            if args.seat is not None or args.opponents is not None:
                raise ValueError("--agents watches agents in every seat: leave out --seat and --opponents")
            watch(game, args.agents, deals=args.deals, seed=args.seed, options=options)
        else:
            play_table(game, seat=0 if args.seat is None else args.seat,
                       opponents="rules" if args.opponents is None else args.opponents,
                       deals=args.deals, seed=args.seed, options=options)
    except ValueError as e:
        raise SystemExit(f"trickenv play: {e}") from None


def serve(args: argparse.Namespace) -> None:
    """``trickenv serve``: the web page for play and replay (trickenv.web)."""
    try:
        from trickenv.web import serve as run
    except ImportError as e:
        raise SystemExit(f"trickenv serve needs the web extra (pip install 'trickenv[web]'): {e}") from None
    if not 0 < args.port < 65536:
        raise SystemExit(f"trickenv serve: --port must be 1..65535, got {args.port}")
    if args.max_sessions < 1:
        raise SystemExit(f"trickenv serve: --max-sessions must be at least 1, got {args.max_sessions}")
    if not args.idle_minutes > 0:
        raise SystemExit(f"trickenv serve: --idle-minutes must be more than 0, got {args.idle_minutes}")
    agents: list[str] = []
    if args.agents:
        from trickenv.play import split_names

        try:
            agents = split_names(args.agents, "--agents")
        except ValueError as e:
            raise SystemExit(f"trickenv serve: {e}") from None
    run(host=args.host, port=args.port, agents=agents, max_sessions=args.max_sessions,
        idle_seconds=60 * args.idle_minutes)


def info(game: str, options: dict[str, Any]) -> None:
    """Print the spaces, the options table (value, allowed values, default, meaning) and the observation blocks."""
    env = trickenv.make(game, **options)
    spec = env.unwrapped.spec
    print(f"{game}: {spec.num_players} players, {spec.deck} cards, {spec.num_tricks} tricks")
    print(f"options: {spec.options}")
    for line in option_lines(spec):
        print(line)
    print(f"actions: Discrete({spec.num_actions}); observation: int8[{spec.obs_size}]")
    for block, (off, size) in spec.obs_offsets.items():
        print(f"  {block:<12} {off:>5} .. {off + size - 1}")


def option_lines(spec: Any) -> list[str]:
    """The game's options table (``GameSpec.option_table``) with the values in use; each meaning below its row."""
    import textwrap

    from trickenv.games.base import literal

    rows = [("option", "value", "default", "allowed")]
    rows += [(o.name, literal(spec.options[o.name]), o.default_doc, o.values) for o in spec.option_table]
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    out = []
    for k, row in enumerate(rows):
        out.append("  " + "  ".join(f"{cell:<{w}}" for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3])
        if k:
            out += textwrap.wrap(spec.option_table[k - 1].comment, 100, initial_indent=" " * 6,
                                 subsequent_indent=" " * 6, break_on_hyphens=False)
    return out


def read_journal(args: argparse.Namespace) -> None:
    """The results an evaluation journal holds so far (docs/guides/evaluation.md): print the table, write JSON/CSV."""
    from trickenv.agents.evaluation import JournalError, read_journal as read

    try:
        results = read(args.dir, ratings=args.ratings)
    except JournalError as e:
        raise SystemExit(f"trickenv journal: {e}") from None
    show_results(results, args)
    if results.interrupted:
        print(f"so far: {results.deals} finished deals of {results.deals_requested}")


def show_results(results: Any, args: argparse.Namespace) -> None:
    """Write the results where ``--json`` / ``--csv`` say, then print their table."""
    if args.json:
        results.save_json(args.json)
    if args.csv:
        results.save_csv(args.csv)
    print(results.table())


def evaluate(game: str, args: argparse.Namespace, options: dict[str, Any]) -> None:
    """Duplicate-deal evaluation (docs/guides/evaluation.md): print the table, write JSON/CSV; exit 130 if interrupted."""
    from trickenv.agents import make_agent
    from trickenv.agents.base import AgentError
    from trickenv.agents.evaluation import JournalError, check_options, evaluate as run

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:  # mistakes on the command line: a message, not a traceback (errors during play keep theirs)
        if not agents:
            raise ValueError("--agents needs at least one agent name, e.g. --agents random,rules")
        if args.deals < 1 or args.chunk < 1:
            raise ValueError("--deals and --chunk must be positive")
        if args.agent_timeout is not None and not args.agent_timeout > 0:
            raise ValueError(f"--agent-timeout must be a positive number of seconds, got {args.agent_timeout}")
        check_options(options)
        spec = trickenv.make_spec(game, **options)
        for name in agents:  # an unknown agent, keyword or value (search:refine=-1) is refused before any play
            make_agent(name, spec, seed=0)
    except (ValueError, ImportError) as e:
        if args.debug:
            raise
        raise SystemExit(f"trickenv eval: {e}") from None
    try:
        results = run(game, agents, deals=args.deals, seed=args.seed, options=options, chunk=args.chunk,
                      progress=not args.no_progress, seatings=args.seatings, ratings=not args.no_ratings,
                      threads=args.threads, records=args.records is not None, ray=args.ray, journal=args.journal,
                      agent_timeout=args.agent_timeout)
    except (ImportError, JournalError, AgentError) as e:
        if args.debug:
            raise
        raise SystemExit(f"trickenv eval: {e}") from None
    if args.records:
        results.save_records(args.records)
    show_results(results, args)
    if results.interrupted:
        print(f"interrupted: kept {results.deals} finished deals of {results.deals_requested}")
        raise SystemExit(130)


def benchmark(args: argparse.Namespace) -> None:
    """``trickenv benchmark AGENT``: the agent's card on the frozen deal set (trickenv.benchmark)."""
    from pathlib import Path

    from trickenv.agents import make_agent
    from trickenv.agents.base import AgentError
    from trickenv.benchmark import benchmark_set, bundled_cards, card_markdown, run_benchmark, write_card
    from trickenv.benchmark.card import slug

    games = [g.strip() for g in args.games.split(",") if g.strip()] if args.games else None
    try:
        bset = benchmark_set(args.version)
        first = next((e for e in bset.entries if games is None or e.game in games), bset.entries[0])
        try:  # an agent that cannot be made is refused before any play (where it fits no variant: below)
            make_agent(args.agent, first.spec, seed=0)
        except ValueError as e:
            if "unknown agent" in str(e) or "cannot import" in str(e) or "no attribute" in str(e):
                raise
        rows = Path(args.out) / f"{slug(args.agent)}.rows" if args.out else None  # a stopped card continues
        card = run_benchmark(args.agent, bset, games, progress=not args.no_progress,
                             agent_timeout=args.agent_timeout, rows_dir=rows, ray=args.ray)
    except (ValueError, ImportError, AgentError) as e:
        if args.debug:
            raise
        raise SystemExit(f"trickenv benchmark: {e}") from None
    others = bundled_cards(bset.version)
    print(card_markdown(card, others))
    if args.out:
        js, md = write_card(card, Path(args.out), others)
        print(f"card: {js} and {md}")


def review(args: argparse.Namespace) -> None:
    """``trickenv review RECORDS --seat N``: each decision of the seat with the search's value of the move played
    against the best (trickenv.agents.review)."""
    import json

    from trickenv.agents.review import review_records
    from trickenv.replay import load_records

    try:
        with open(args.records, encoding="utf-8") as f:
            records = load_records(json.load(f))
        deals = range(len(records.records)) if args.deal is None else [args.deal]
        search = {} if args.worlds is None else {"worlds": args.worlds}
        reviewed = {d: review_records(records, d, args.seat, seed=args.seed, **search) for d in deals}
    except (OSError, ValueError, TypeError) as e:
        raise SystemExit(f"trickenv review: {e}") from None
    spec = records.spec
    out = []
    for d, moves in reviewed.items():
        lost = [m.loss for m in moves if m.valued]
        print(f"{records.labels[d]}: P{args.seat} ({records.seats[d][args.seat]}), "
              f"lost {sum(lost):.2f} over {len(lost)} valued decisions")
        for m in moves:
            print("  " + m.text(spec))
        out.append({"deal": d, "label": records.labels[d], "seat": args.seat,
                    "moves": [m.as_dict(spec) for m in moves]})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"game": records.game, "options": records.options, "seed": args.seed, "deals": out}, f,
                      indent=1, default=list)
        print(f"review: {args.json}")


def tournament(args: argparse.Namespace) -> None:
    """``trickenv tournament``: duplicate tournament of the bundled agents in every game; one table."""
    from trickenv.agents.evaluation import TOURNAMENT_GAMES, tournament as run, tournament_table

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    games = [g.strip() for g in args.games.split(",") if g.strip()] if args.games else list(TOURNAMENT_GAMES)
    bad = [g for g in games if g not in trickenv.GAMES]
    if bad:
        raise SystemExit(f"trickenv tournament: unknown game {bad[0]!r}; games are {', '.join(trickenv.GAMES)}")
    if args.deals < 1 or args.pimc_worlds < 1:
        raise SystemExit("trickenv tournament: --deals and --pimc-worlds must be positive")
    try:
        results = run(agents, deals=args.deals, seed=args.seed, games=games, pimc_worlds=args.pimc_worlds,
                      progress=not args.no_progress, ray=args.ray)
    except (ValueError, ImportError) as e:
        raise SystemExit(f"trickenv tournament: {e}") from None
    if args.json:
        import json

        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({g: r.to_dict() for g, r in results.items()}, f, indent=2)
    print(f"duplicate tournament: {args.deals} deals per game, each in every seating, seed {args.seed}; "
          "mean deal score per agent (Four Tricks points, Farbwechsel score, King Calling payment)")
    print(tournament_table(results))


TRAIN_DESCRIPTION = (
    "Train a player for GAME and write it to DIR/player.npz. A run has up to three phases, each of which a flag\n"
    "turns off: imitation of a teacher (the rule-based agent, a search agent's moves and values, or a trained\n"
    "player: --bc-*), expert iteration (a search labels the student's own positions: --expert*) and self-play\n"
    "PPO against a league of opponents (sb3-contrib's MaskablePPO: --steps). --recipe NAME starts from a named\n"
    "recipe of settings (--list-recipes); the shipped players are the 'shipped' recipes. Ctrl-C saves a\n"
    "checkpoint that --resume continues (docs/guides/training.md).")


def settings_arguments(command: str, module: str, *settings: str) -> Callable[[argparse.ArgumentParser], None]:
    """The arguments of ``trickenv COMMAND``, generated from the fields of the settings dataclasses ``settings``
    of ``trickenv.training.MODULE`` (imported when the command parses: it loads torch)."""
    def add(parser: argparse.ArgumentParser) -> None:
        try:
            from trickenv.training.flags import add_arguments

            found = importlib.import_module(f"trickenv.training.{module}")
        except ImportError as e:
            raise SystemExit(f"trickenv {command} needs the train extra (pip install 'trickenv[train]'): {e}") from None
        for name in settings:
            add_arguments(parser, getattr(found, name))
    return add


DECISIONS_DESCRIPTION = (
    "Learn the values of DECISION (King Calling's call, the dealer's trump, Four Tricks' bid) in GAME from\n"
    "simulated deals: each deal is played once per legal choice, --player making every other move, and a small\n"
    "network learns each choice's outcome from what the decider knows. Writes DIR/<game>_<decision>.npz (play\n"
    "it: AGENT:decisions=PATH) and DIR/report.json (the learned choice against the player's own on held-out\n"
    "deals). --resume continues a run.")


def decisions(args: argparse.Namespace, options: dict[str, Any]) -> None:
    """Learn the values of a decision before the play from simulated deals (docs/guides/decisions.md)."""
    from trickenv.training.decisions import DecisionsConfig, run_decisions
    from trickenv.training.flags import given

    try:
        cfg = DecisionsConfig(game=args.game, decision=args.decision, options=options,
                              **given(args, DecisionsConfig))
        run_decisions(cfg)
    except ValueError as e:
        raise SystemExit(f"trickenv decisions: {e}") from None


class CommandParser(argparse.ArgumentParser):
    """A command's parser whose arguments may be added only when it parses or shows its help (``later``): the
    arguments of ``trickenv train`` come from trickenv.training, which loads torch, and no other command needs it."""

    def __init__(self, *args: Any, later: Callable[[argparse.ArgumentParser], None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._later = later

    def _complete(self) -> None:
        later, self._later = self._later, None
        if later is not None:
            later(self)

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None):
        self._complete()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self._complete()
        return super().format_help()

    def format_usage(self) -> str:
        self._complete()
        return super().format_usage()


def train(args: argparse.Namespace, options: dict[str, Any], error: Callable[[str], Any]) -> None:
    """Train a player (docs/guides/training.md): the settings are the recipe's (``--recipe``) with the flags given over
    them; with ``--resume`` the run's own with the flags given as changes. Ctrl-C saves a checkpoint."""
    from trickenv.training import Run, TrainConfig
    from trickenv.training.flags import given
    from trickenv.training.recipes import recipe, recipe_lines

    if args.list_recipes:
        for line in recipe_lines(args.game):
            print(line)
        return
    if args.game is None or args.out is None:
        error("trickenv train needs GAME and --out DIR (or --list-recipes)")
    game = args.game
    try:
        trickenv.make_spec(game, **options)
        settings = dict(recipe(game, args.recipe).settings) if args.recipe is not None else {}
        settings.update(given(args, TrainConfig))  # the flags given override the recipe (and record its name)
        if options:
            settings["options"] = options
        if args.resume:
            # The run folder holds the settings; only what the command line says is a change (resumed_config).
            run = Run({"game": game, **settings}, args.out, resume=True, progress=not args.no_progress)
        else:
            run = Run(TrainConfig(game=game, **settings), args.out, progress=not args.no_progress)
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        raise SystemExit(f"trickenv train: {e}") from None
    try:
        summary = run.train()
    except KeyboardInterrupt:
        print(f"interrupted at {run.model.num_timesteps} steps; checkpoint saved: trickenv train {game} "
              f"--out {args.out} --resume")
        raise SystemExit(130) from None
    ev = summary["last_eval"]
    print(f"{summary['steps']} steps in {summary['minutes']:.1f} min "
          f"({summary['throughput']['decisions_per_second']:,.0f} learner decisions/s, "
          f"{summary['throughput'].get('decisions_per_cpu_second', 0):,.0f} per CPU second)")
    if ev:
        print(f"against rules ({int(ev['deals'])} duplicate deals): model {ev['model_mean']:.3f}, "
              f"rules {ev['rules_mean']:.3f}, diff {ev['diff']:.3f} [{ev['ci_lo']:.3f}, {ev['ci_hi']:.3f}]")
    print(f"player: {args.out}/player.npz (trickenv eval {game} --agents model:{args.out}/player.npz,rules)")


class ListAgents(argparse.Action):
    """``--list-agents``: print the agent names and stop (as ``--help`` does, before the other arguments)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        from trickenv.agents.base import AGENTS, NAME_ARGUMENTS
        from trickenv.agents.external import entry_points

        print("bundled:")
        for name in sorted(AGENTS):
            arg = NAME_ARGUMENTS.get(name)
            print(f"  {name}" + (f"[:{arg[0].upper()}]" if arg else ""))
        installed = entry_points()
        print("installed (entry points of trickenv.agents):" + ("" if installed else " none"))
        for name, ep in sorted(installed.items()):
            print(f"  {name}  ({ep.value})")
        print("your own: module.path:Attribute or path/to/file.py:Attribute (a class, a factory, an (obs, mask) -> "
              "action function); keywords follow as :name=value")
        parser.exit()


def build_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The ``trickenv`` command line: the parser and its subcommands (``trickenv train``'s arguments come from
    trickenv.training, read when that subcommand is parsed)."""
    ap = argparse.ArgumentParser(prog="trickenv", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=CommandParser)
    p = sub.add_parser(
        "play", help="play a game in the terminal against the agents, or watch agents play (--agents)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play GAME at the terminal against the agents. You see your hand sorted by suit, the\n"
                    "trick, trump (changes announced), the scores, the call and declarations in King Calling.\n"
                    "Type a move's number, a card such as QH or 10S, or a name such as 'clubs', 'bid 4',\n"
                    "'call AH', 'hundred'; 'help' shows the moves again, 'quit' ends with the summary.\n"
                    "With --agents every seat is an agent and the deals are shown without input.",
        epilog="examples:\n"
               "  trickenv play farbwechsel --opponents rules,pimc --deals 3\n"
               "  trickenv play koenigrufen --seat 2 --opponents pimc\n"
               "  trickenv play four_tricks bidding=True --opponents model\n"
               "  trickenv play farbwechsel num_players=4 --agents rules,pimc,random,rules --seed 1")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value, e.g. num_players=4 (anywhere on the line)")
    p.add_argument("--seat", type=int, default=None, help="your seat, 0..players-1 (default 0)")
    p.add_argument("--opponents", default=None, metavar="A,B,...",
                   help="agents in the other seats, clockwise from your left, repeated if fewer: random, rules, "
                        "pimc, model (the shipped trained player), model:PATH (default rules)")
    p.add_argument("--agents", default=None, metavar="A,B,...",
                   help="watch instead: one agent for every seat, or one per seat; no input")
    p.add_argument("--deals", type=int, default=1, help="deals to play, dealer moving clockwise, scores totalled")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals and the agents")
    p = sub.add_parser("serve", help="play and replay in the browser (the web extra; docs/guides/web.md)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--agents", default=None, metavar="A,B,...",
                   help="more agents the page may seat, by these names: your own (my_agents.py:MyAgent), "
                        "sb3:PATH, model:PATH")
    p.add_argument("--max-sessions", type=int, default=256,
                   help="browser sessions at once; beyond them a new browser is told the server is full (503)")
    p.add_argument("--idle-minutes", type=float, default=30.0,
                   help="a session without a request for this long expires, its table with it (default 30)")
    p = sub.add_parser("info")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value, e.g. deck=52")
    p = sub.add_parser("eval", help="compare agents on duplicate deals (docs/guides/evaluation.md)")
    p.add_argument("--list-agents", action=ListAgents, help="list the agent names (bundled, installed, your own)")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value, e.g. num_players=4")
    p.add_argument("--agents", required=True,
                   help="comma-separated agent names, e.g. random,rules,pimc,model:PATH,sb3:PATH,my_module:MyAgent; "
                        "an agent's keywords follow its name after colons: search:128:refine=3:rollout=rules "
                        "(docs/guides/your-agent.md; --list-agents)")
    p.add_argument("--agent-timeout", type=float, default=None, metavar="SECONDS",
                   help="stop the run if an agent takes longer than this a decision")
    p.add_argument("--debug", action="store_true", help="show the traceback when an agent fails")
    p.add_argument("--deals", type=int, default=1000, help="number of deals (each played in every seating)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    p.add_argument("--csv", default=None, metavar="PATH", help="write the results as CSV (long form)")
    p.add_argument("--records", default=None, metavar="PATH",
                   help="write every deal's record in every seating as JSON (replay: trickenv serve)")
    p.add_argument("--chunk", type=int, default=256, help="deals per batched env (chunk x seatings games)")
    p.add_argument("--seatings", choices=("rotations", "all"), default="rotations")
    p.add_argument("--threads", type=int, default=1, help="threads for the env step (each steps a slice of the batch)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the chunks of deals as Ray tasks on the cluster at ADDRESS (HEAD:PORT; without it: $RAY_ADDRESS or a Ray instance on this machine); the same results as without --ray (the cluster extra)")
    p.add_argument("--journal", default=None, metavar="DIR",
                   help="keep every finished chunk in DIR: the same command run again continues the run")
    p.add_argument("--no-ratings", action="store_true", help="skip the openskill ratings")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p = sub.add_parser("journal", help="the results an evaluation journal (eval --journal DIR) holds so far, "
                                       "playing nothing: a run under way or stopped")
    p.add_argument("dir", help="the journal's folder")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    p.add_argument("--csv", default=None, metavar="PATH", help="write the results as CSV (long form)")
    p.add_argument("--ratings", action="store_true", help="add the openskill ratings (slow on long runs)")
    p = sub.add_parser("tournament", help="duplicate tournament of the bundled agents in all three games")
    p.add_argument("--agents", default="random,rules,pimc,model", help="comma-separated agent names")
    p.add_argument("--games", default=None, help="comma-separated games (default: all three)")
    p.add_argument("--deals", type=int, default=100, help="deals per game (each played in every seating)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--pimc-worlds", type=int, default=8, help="PIMC's sampled worlds per decision (budget)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the chunks of deals as Ray tasks on the cluster at ADDRESS (HEAD:PORT; without it: $RAY_ADDRESS or a Ray instance on this machine); the same results as without --ray (the cluster extra)")
    p.add_argument("--json", default=None, metavar="PATH", help="write every game's results as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p = sub.add_parser("benchmark", help="an agent against the bundled references on the frozen deal set "
                                         "(docs/guides/benchmark.md)")
    p.add_argument("agent", help="the agent's name: a bundled one, sb3:PATH, my_agents.py:MyAgent, ...")
    p.add_argument("--games", default=None, help="comma-separated games (default: all three)")
    p.add_argument("--version", default="v1", help="the benchmark version (default v1)")
    p.add_argument("--out", default=None, metavar="DIR", help="write the card to DIR/<agent>.json and .md")
    p.add_argument("--agent-timeout", type=float, default=None, metavar="SECONDS",
                   help="stop if the agent takes longer than this a decision")
    p.add_argument("--debug", action="store_true", help="show the traceback when the agent fails")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the chunks of deals as Ray tasks on the cluster at ADDRESS (without it: $RAY_ADDRESS "
                        "or a Ray instance on this machine, every core); the same card as without --ray")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p = sub.add_parser("review", help="what each move of a seat was worth, by the search (docs/guides/review.md)")
    p.add_argument("records", help="a records file (trickenv eval --records, the web table's download)")
    p.add_argument("--seat", type=int, required=True, help="the seat to review (0-based: P0, P1, ...)")
    p.add_argument("--deal", type=int, default=None, help="the deal of the file (0-based; default: every deal)")
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--worlds", type=int, default=None, help="the search's worlds a decision (default: its own)")
    p.add_argument("--json", default=None, metavar="PATH", help="write every reviewed decision as JSON")
    sub.add_parser("train", help="train a player: imitation of a teacher or search, expert iteration, PPO "
                                 "(docs/guides/training.md)", description=TRAIN_DESCRIPTION,
                   formatter_class=argparse.RawDescriptionHelpFormatter,
                   later=settings_arguments("train", "config", "TrainConfig", "TrainCommand"))
    sub.add_parser("decisions", help="learn the values of a decision before the play (the call, the dealer's trump) "
                                     "from simulated deals (docs/guides/decisions.md)",
                   description=DECISIONS_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
                   later=settings_arguments("decisions", "decisions", "DecisionsConfig"))
    # Game options (name=value) may stand anywhere on the line, also after flags, e.g.
    # `trickenv play farbwechsel --seed 1 num_players=4`: argparse leaves those to us.
    return ap, sub


def parse(argv: Sequence[str] | None = None) -> tuple[argparse.Namespace, dict[str, Any], Callable[[str], Any]]:
    """Parse a ``trickenv`` command line: the arguments, the game options (``name=value``, anywhere on the line)
    and the error function of ``trickenv train``. Exits (argparse's usage error) on a bad line."""
    ap, sub = build_parser()
    args, rest = ap.parse_known_args(argv)
    ray = getattr(args, "ray", None)
    if ray is not None and "=" in ray:  # `--ray deck=52`: a game option after a bare --ray, not an address
        rest.append(ray)
        args.ray = ray = ""
    if ray == "":  # a bare --ray: the cluster of $RAY_ADDRESS, as Ray itself would join, else a local instance
        args.ray = os.environ.get("RAY_ADDRESS") or "local"
    stray = [x for x in rest if "=" not in x or x.startswith("-")]
    if stray:
        ap.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = list(getattr(args, "options", [])) + rest
    options = parse_options(args.options)
    return args, options, sub.choices["train"].error


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trickenv`` command."""
    from trickenv.engine.first_run import announce_compiles

    announce_compiles()  # a first run's compile wait is said, not silent
    args, options, train_error = parse(argv)
    if args.cmd == "tournament":
        if args.options:
            raise SystemExit("trickenv tournament plays the default variants: it takes no game options")
        tournament(args)
    elif args.cmd == "serve":
        if args.options:
            raise SystemExit("trickenv serve takes no game options: choose them on the page")
        serve(args)
    elif args.cmd == "play":
        play(args.game, args, options)
    elif args.cmd == "eval":
        evaluate(args.game, args, options)
    elif args.cmd == "journal":
        if args.options:
            raise SystemExit("trickenv journal takes no game options: the journal's run.json has them")
        read_journal(args)
    elif args.cmd == "train":
        train(args, options, train_error)
    elif args.cmd == "decisions":
        decisions(args, options)
    elif args.cmd == "review":
        if options:
            raise SystemExit("trickenv review reads the game and its options from the records file")
        review(args)
    elif args.cmd == "benchmark":
        if options:
            raise SystemExit("trickenv benchmark plays the variants of its version: it takes no game options")
        benchmark(args)
    else:
        info(args.game, options)


if __name__ == "__main__":
    main()
