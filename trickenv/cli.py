"""Command line: ``trickenv play GAME`` plays against the agents (``trickenv serve``: in the browser),
``trickenv info GAME`` shows its options and spaces,
``trickenv eval GAME --agents a,b`` compares agents on duplicate deals, ``trickenv tournament`` runs
them all in every game, ``trickenv train GAME`` trains a player."""

from __future__ import annotations

import argparse
import ast
from typing import Any, Sequence

import trickenv


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["deck=52", "trump=none"]`` -> ``{"deck": 52, "trump": "none"}``."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"option {pair!r} must look like name=value")
        key, value = pair.split("=", 1)
        out[key] = parse_value(value)
    return out


def parse_value(text: str) -> Any:
    """An option's value as typed: a Python literal (``52``, ``True``, ``("Q", "J")``) or else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text


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
    run(host=args.host, port=args.port)


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
        out.append("  " + "  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths)) + "  " + row[3])
        if k:
            out += textwrap.wrap(spec.option_table[k - 1].comment, 100, initial_indent=" " * 6,
                                 subsequent_indent=" " * 6, break_on_hyphens=False)
    return out


def evaluate(game: str, args: argparse.Namespace, options: dict[str, Any]) -> None:
    """Duplicate-deal evaluation (docs/agents.md): print the table, write JSON/CSV; exit 130 if interrupted."""
    from trickenv.agents import make_agent
    from trickenv.agents.evaluation import JournalError, check_options, evaluate as run

    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    try:  # mistakes on the command line: a message, not a traceback (errors during play keep theirs)
        if not agents:
            raise ValueError("--agents needs at least one agent name, e.g. --agents random,rules")
        if args.deals < 1 or args.chunk < 1:
            raise ValueError("--deals and --chunk must be positive")
        check_options(options)
        spec = trickenv.make_spec(game, **options)
        for name in agents:  # an unknown agent, keyword or value (search:refine=-1) is refused before any play
            make_agent(name, spec, seed=0)
    except ValueError as e:
        raise SystemExit(f"trickenv eval: {e}") from None
    try:
        results = run(game, agents, deals=args.deals, seed=args.seed, options=options, chunk=args.chunk,
                      progress=not args.no_progress, seatings=args.seatings, ratings=not args.no_ratings,
                      threads=args.threads, records=args.records is not None, ray=args.ray, journal=args.journal)
    except (ImportError, JournalError) as e:
        raise SystemExit(f"trickenv eval: {e}") from None
    if args.records:
        results.save_records(args.records)
    if args.json:
        results.save_json(args.json)
    if args.csv:
        results.save_csv(args.csv)
    print(results.table())
    if results.interrupted:
        print(f"interrupted: kept {results.deals} finished deals of {results.deals_requested}")
        raise SystemExit(130)


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


# trickenv train: flags that override fields of trickenv.training.TrainConfig
TRAIN_FLAGS = {
    "steps": int, "num_envs": int, "n_steps": int, "batch_size": int, "epochs": int, "learning_rate": float,
    "ent_coef": float, "bc_samples": int, "bc_epochs": int, "snapshot_every": int, "eval_every": int,
    "eval_deals": int, "checkpoint_every": int, "seed": int, "env_threads": int, "torch_threads": int,
    "points_bonus": float, "bc_teacher": str, "bc_worlds": int,
    "bc_temperature": float, "bc_workers": int, "bc_mix": float, "bc_mix_random": float,
    "bc_networks": int,
    "expert": str, "expert_iterations": int, "expert_samples": int, "expert_chunk": int, "expert_worlds": int,
    "expert_rollout": str, "expert_solve_tricks": int, "expert_share": float, "expert_epochs": int, "expert_workers": int,
    "net": lambda text: tuple(int(x) for x in text.split(",")), "features": str, "card_head": int,
    "schedule": lambda text: _parsed(text, "trickenv.training.league", "parse_schedule"),
    "expert_opponents": lambda text: _parsed(text, "trickenv.training.expert", "parse_opponents"),
}


def _parsed(text: str, module: str, parser: str) -> Any:
    """A flag's value read by ``module.parser`` (imported only when the flag is given: the training modules need
    torch); argparse shows the message of an ArgumentTypeError (of a ValueError only its type)."""
    import importlib

    try:
        return getattr(importlib.import_module(module), parser)(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def train(game: str, args: argparse.Namespace, options: dict[str, Any]) -> None:
    """Self-play training (docs/training.md); Ctrl-C saves a checkpoint that --resume continues."""
    try:
        from trickenv.training import DEFAULTS, Run, TrainConfig
    except ImportError as e:
        raise SystemExit(f"trickenv train needs the train extra (pip install 'trickenv[train]'): {e}") from None
    given = {k: getattr(args, k) for k in (*TRAIN_FLAGS, "privileged_critic", "eval_pimc", "augment_suits", "ray")
             if getattr(args, k) is not None}
    try:
        trickenv.make_spec(game, **options)
        if args.resume:
            # The run folder holds the settings; only what the command line says is a change (resumed_config).
            changes = {"game": game, **({"options": options} if options else {}), **given}
            run = Run(changes, args.out, resume=True, progress=not args.no_progress)
        else:
            run = Run(TrainConfig(game=game, options=options, **{**DEFAULTS.get(game, {}), **given}), args.out,
                      progress=not args.no_progress)
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


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trickenv`` command."""
    from trickenv.engine.first_run import announce_compiles

    announce_compiles()  # a first run's compile wait is said, not silent
    ap = argparse.ArgumentParser(prog="trickenv", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
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
    p = sub.add_parser("serve", help="play and replay in the browser (the web extra; docs/web.md)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p = sub.add_parser("info")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value, e.g. deck=52")
    p = sub.add_parser("eval", help="compare agents on duplicate deals (docs/agents.md)")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value, e.g. num_players=4")
    p.add_argument("--agents", required=True,
                   help="comma-separated agent names, e.g. random,rules,pimc,model:PATH; an agent's keywords follow "
                        "its name after colons: search:128:refine=3:rollout=rules (docs/agents.md)")
    p.add_argument("--deals", type=int, default=1000, help="number of deals (each played in every seating)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    p.add_argument("--csv", default=None, metavar="PATH", help="write the results as CSV (long form)")
    p.add_argument("--records", default=None, metavar="PATH",
                   help="write every deal's record in every seating as JSON (replay: trickenv serve)")
    p.add_argument("--chunk", type=int, default=256, help="deals per batched env (chunk x seatings games)")
    p.add_argument("--seatings", choices=("rotations", "all"), default="rotations")
    p.add_argument("--threads", type=int, default=1, help="threads for the env step (each steps a slice of the batch)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the chunks of deals as Ray tasks on the cluster at ADDRESS (HEAD:PORT; without it: $RAY_ADDRESS or a Ray instance on this machine); the same results as without --ray (the cluster extra)")
    p.add_argument("--journal", default=None, metavar="DIR",
                   help="keep every finished chunk in DIR: the same command run again continues the run")
    p.add_argument("--no-ratings", action="store_true", help="skip the openskill ratings")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p = sub.add_parser("tournament", help="duplicate tournament of the bundled agents in all three games")
    p.add_argument("--agents", default="random,rules,pimc,model", help="comma-separated agent names")
    p.add_argument("--games", default=None, help="comma-separated games (default: all three)")
    p.add_argument("--deals", type=int, default=100, help="deals per game (each played in every seating)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the agents")
    p.add_argument("--pimc-worlds", type=int, default=8, help="PIMC's sampled worlds per decision (budget)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the chunks of deals as Ray tasks on the cluster at ADDRESS (HEAD:PORT; without it: $RAY_ADDRESS or a Ray instance on this machine); the same results as without --ray (the cluster extra)")
    p.add_argument("--json", default=None, metavar="PATH", help="write every game's results as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p = sub.add_parser("train", help="self-play training with MaskablePPO (docs/training.md)")
    p.add_argument("game", choices=sorted(trickenv.GAMES))
    p.add_argument("options", nargs="*", help="game options as name=value")
    p.add_argument("--out", required=True, metavar="DIR", help="run folder: config, logs, checkpoints, player.npz")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--privileged-critic", action="store_const", const=True, default=None, dest="privileged_critic",
                   help="the value network also reads every hand (training only; the player never does)")
    p.add_argument("--augment-suits", action="store_const", const=True, default=None, dest="augment_suits",
                   help="fit every row under a random renaming of the suits, where the rules treat suits alike "
                        "(Four Tricks)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run the searches (the --bc-workers parts, the expert's label chunks) as Ray tasks on the "
                        "cluster at ADDRESS (without it: a Ray instance on this machine); the same data (cluster extra)")
    p.add_argument("--eval-pimc", action="store_const", const=True, default=None, dest="eval_pimc",
                   help="each evaluation also plays pimc (eval.csv: pimc_diff, for the time-to-strength plot)")
    for flag, kind in TRAIN_FLAGS.items():
        p.add_argument(f"--{flag.replace('_', '-')}", type=kind, default=None, dest=flag,
                       help=f"override the per-game default of {flag}" + {
                           "net": " (e.g. 256,256)", "features": " (compact, or actions: + the per-card facts)",
                           "card_head": " (units of a network shared by every card that adds each card's score "
                                        "to its logit; PPO trains it too, with --features actions; 0: none)",
                           "bc_mix": " (share of demonstration seats the rule-based agent plays)",
                           "bc_mix_random": " (share of demonstration seats the random agent plays)",
                           "bc_networks": " (networks fitted to the same demonstrations, each from its own seed; "
                                          "the player plays the mean of their logits; needs --steps 0, no --expert)",
                           "schedule": " (the league's shares per opponent seat, e.g. rules=0.35,random=0.15)",
                           "expert_opponents": " (who sits beside the student in expert iteration: agent names "
                                               "and whole-number weights, e.g. rules=3,random=1,pimc=1)",
                           "bc_teacher": " (rules; a search: pimc, search, or either with its keywords, e.g. "
                                         "search:solve_tricks=2, playing with --bc-worlds worlds; model or model:PATH)",
                           "expert_solve_tricks": " (tricks left at which the search expert's solver takes over "
                                                  "from its playouts; default: the search agent's, 3)",
                           "expert_rollout": " (who plays the expert's playouts: rules, random, student, or game: "
                                             "as the expert agent does by default, without its second look)"
                       }.get(flag, ""))
    # Game options (name=value) may stand anywhere on the line, also after flags, e.g.
    # `trickenv play farbwechsel --seed 1 num_players=4`: argparse leaves those to us.
    args, rest = ap.parse_known_args(argv)
    ray = getattr(args, "ray", None)
    if ray is not None and "=" in ray:  # `--ray deck=52`: a game option after a bare --ray, not an address
        rest.append(ray)
        args.ray = "local"
    stray = [x for x in rest if "=" not in x or x.startswith("-")]
    if stray:
        ap.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = list(getattr(args, "options", [])) + rest
    options = parse_options(args.options)
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
    elif args.cmd == "train":
        train(args.game, args, options)
    else:
        info(args.game, options)


if __name__ == "__main__":
    main()
