"""Command line: ``trickenv play GAME`` shows a random game, ``trickenv info GAME`` its spaces."""

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
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def play(game: str, seed: int | None, options: dict[str, Any]) -> None:
    """Play one episode with random legal actions, printing the table at every decision."""
    from trickenv.agents import RandomAgent

    env = trickenv.make(game, render_mode="ansi", **options)
    agent = RandomAgent(seed)
    env.reset(seed=seed)
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        print(env.render())
        action = agent.act(obs)
        print(f"-> {name} plays {env.unwrapped.spec.action_str(action)}\n")
        env.step(action)
    print("result:", info)


def info(game: str, options: dict[str, Any]) -> None:
    """Print the spaces and resolved options of a game."""
    env = trickenv.make(game, **options)
    spec = env.unwrapped.spec
    print(f"{game}: {spec.num_players} players, {spec.deck} cards, {spec.num_tricks} tricks")
    print(f"options: {spec.options}")
    print(f"actions: Discrete({spec.num_actions}); observation: int8[{spec.obs_size}]")
    for block, (off, size) in spec.extra.get("obs_offsets", {}).items():
        print(f"  {block:<12} {off:>5} .. {off + size - 1}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``trickenv`` command."""
    ap = argparse.ArgumentParser(prog="trickenv", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("play", "info"):
        p = sub.add_parser(name)
        p.add_argument("game", choices=sorted(trickenv.GAMES))
        p.add_argument("options", nargs="*", help="game options as name=value, e.g. deck=52")
        if name == "play":
            p.add_argument("--seed", type=int, default=None)
    # Game options (name=value) may stand anywhere on the line, also after flags, e.g.
    # `trickenv play farbwechsel --seed 1 num_players=4`: argparse leaves those to us.
    args, rest = ap.parse_known_args(argv)
    stray = [x for x in rest if "=" not in x or x.startswith("-")]
    if stray:
        ap.error(f"unrecognized arguments: {' '.join(stray)}")
    args.options = list(args.options) + rest
    options = parse_options(args.options)
    if args.cmd == "play":
        play(args.game, args.seed, options)
    else:
        info(args.game, options)


if __name__ == "__main__":
    main()
