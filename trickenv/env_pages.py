"""The tables of the environment pages (``docs/envs/<game>.md``), generated from the games' own declarations.

Each page is prose with generated parts between markers::

    <!-- generated:specs -->
    ...
    <!-- /generated:specs -->

The parts are the spec table (as PettingZoo's and Pgx's pages open), the variants, the options
(``GameSpec.option_table``), the action ids (``spec.text.action_rows``) and the observation blocks
(``spec.obs_blocks``, with each block's ``doc``). So the pages cannot drift from the code:

    python -m trickenv.env_pages            # rewrite the generated parts of docs/envs/*.md
    python -m trickenv.env_pages --check    # exit 1, naming the page, if one is out of date (the tests do this)
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any, Callable

from trickenv.envs import ENV_MODULES, make
from trickenv.games import GAMES, make_spec
from trickenv.games.base import GameSpec, literal
from trickenv.games.variants import VARIANTS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "envs"
MARKER = re.compile(r"(<!-- generated:(\w+) -->\n)(.*?)(<!-- /generated:\2 -->)", re.S)


def _cell(text: Any) -> str:
    """Text for a markdown table cell (a ``|`` would end the cell)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={literal(v)}" for k, v in options.items()) or "defaults"


def specs(game: str) -> str:
    """The spec table: how to make the env, its agents, spaces, reward and render modes."""
    env = make(game)
    spec: GameSpec = env.unwrapped.spec
    first = env.possible_agents[0]
    agents = ", ".join(f"`{a}`" for a in env.possible_agents)
    module = ENV_MODULES.get(game)
    version = f"`{module}`" if module else "v0"
    rows = [
        ("Import", f'`trickenv.make("{game}")`' + (f" or `trickenv.{module}.env()`" if module else "")),
        ("Batched engine", f'`trickenv.make_vec("{game}", num_envs)`'),
        ("Version", version),
        ("Agents", f"{len(env.possible_agents)}: {agents}" + _players_note(game, spec)),
        ("Action space", f"`{env.action_space(first)}`"),
        ("Observation", f"`{env.observation_space(first)}`"),
        ("Reward", f"the deal score of each seat when a deal ends, 0 on other steps: {spec.worst_score:g} .. "
                   f"{spec.best_score:g} a deal with the default options"),
        ("Render modes", ", ".join(f"`{m}`" for m in env.metadata["render_modes"])),
        ("Variants", f"{sum(g == game for g, _ in VARIANTS)} checked one by one (below); any mix of the options"),
    ]
    return _table(("", ""), rows)


def _players_note(game: str, spec: GameSpec) -> str:
    counts = sorted({make_spec(g, **o).num_players for g, o in VARIANTS if g == game})
    return "" if counts == [spec.num_players] else f" (with other options: {' or '.join(map(str, counts))} players)"


def variants(game: str) -> str:
    """The variants the tests and the fingerprint check one by one, with their sizes."""
    rows = []
    for g, options in VARIANTS:
        if g != game:
            continue
        spec = make_spec(g, **options)
        rows.append((f"`{_options_text(options)}`", spec.num_players, spec.deck, spec.num_tricks, spec.num_actions,
                     spec.obs_size, f"{spec.worst_score:g} .. {spec.best_score:g}"))
    return _table(("options", "players", "cards", "tricks", "actions", "observation", "deal score"), rows)


def options(game: str) -> str:
    """The options table, as the game declares it (``OPTIONS``)."""
    spec = make_spec(game)
    rows = [(f"`{o.name}`", f"`{o.default_doc}`", o.values, o.comment) for o in spec.option_table]
    return _table(("option", "default", "values", "meaning"), rows)


def actions(game: str) -> str:
    """The action ids, range by range, for the default options."""
    spec = make_spec(game)
    return _table(("ids", "action", "when"), [(f"`{i}`", a, w) for i, a, w in spec.text.action_rows(spec)])


def observation(game: str) -> str:
    """The observation blocks for the default options: offset, shape, kind and meaning."""
    spec = make_spec(game)
    rows = []
    for b in spec.obs_blocks:
        off, size = spec.obs_offsets[b.name]
        kind = b.kind if b.kind == "bits" else f"one-hot (axis {b.axis})" if len(b.shape) > 1 else "one-hot"
        rows.append((f"`{b.name}`", off, f"`{b.shape}`", size, kind, b.doc))
    return _table(("block", "offset", "shape", "size", "kind", "meaning"), rows)


SECTIONS: dict[str, Callable[[str], str]] = {
    "specs": specs, "variants": variants, "options": options, "actions": actions, "observation": observation,
}


def render_page(game: str, text: str) -> str:
    """``text`` with every generated part of ``game``'s page made anew; KeyError for an unknown part."""
    def fill(m: re.Match) -> str:
        if m.group(2) not in SECTIONS:
            raise KeyError(f"unknown generated part {m.group(2)!r}; parts are {list(SECTIONS)}")
        return m.group(1) + SECTIONS[m.group(2)](game) + m.group(4)
    return MARKER.sub(fill, text)


def page_path(game: str, docs: Path = DOCS) -> Path:
    return docs / f"{game}.md"


def stale_pages(docs: Path = DOCS, write: bool = False) -> list[str]:
    """The games whose page differs from what the code generates (rewritten when ``write``)."""
    stale = []
    for game in GAMES:
        path = page_path(game, docs)
        text = path.read_text(encoding="utf-8")
        if not MARKER.search(text):
            raise ValueError(f"{path} has no generated parts (<!-- generated:NAME --> ... <!-- /generated:NAME -->)")
        new = render_page(game, text)
        if new != text:
            stale.append(game)
            if write:
                path.write_text(new, encoding="utf-8")
    return stale


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m trickenv.env_pages", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a page is out of date")
    ap.add_argument("--docs", type=Path, default=DOCS, help="the directory of the env pages (default: docs/envs)")
    args = ap.parse_args(argv)
    stale = stale_pages(args.docs, write=not args.check)
    if args.check and stale:
        print(f"out of date: {', '.join(str(page_path(g, args.docs)) for g in stale)}; "
              "run python -m trickenv.env_pages", file=sys.stderr)
        return 1
    for game in stale:
        print(f"wrote {page_path(game, args.docs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
