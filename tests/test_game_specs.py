"""Each game owns what it knows: options declared once (one table per game), typed GameSpec hooks, and no
test on a game's name outside ``trickenv/games/``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

import trickenv
from trickenv.agents import make_agent
from trickenv.cli import main
from trickenv.games import GAMES
from trickenv.agents.search_defaults import search_defaults
from trickenv.games.base import Option, at_least, block_offsets, literal, options_doc, resolve_options
from trickenv.games.parts import GameLearning, GameText, GameWorlds

ROOT = Path(__file__).resolve().parents[1]


def flat(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------ options


@pytest.mark.parametrize("game", list(GAMES))
def test_the_docstring_has_the_options_paragraph_of_the_table(game):
    module = importlib.import_module(GAMES[game])
    assert flat(options_doc(module.OPTIONS)) in flat(module.__doc__)
    assert trickenv.make_spec(game).option_table is module.OPTIONS


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_and_option_has_words_for_a_person(game):
    """The web table's start screen shows these, never a raw identifier: a title and a line per game, a label
    per option, and words for each value of a closed set of values (exactly the values the table allows)."""
    from trickenv.games.base import literal

    spec = trickenv.make_spec(game)
    assert spec.text.title and spec.text.tagline and "_" not in spec.text.title
    for o in spec.option_table:
        assert o.label and "_" not in o.label, o.name
        allowed = [x.strip() for x in o.values.split(" | ")]
        closed = len(allowed) > 1 and not any(w in o.values for w in ("integer", "list", ".."))
        if closed:
            assert sorted(literal(v) for v, _ in o.choices) == sorted(allowed), o.name
            assert all(words for _, words in o.choices), o.name
        else:
            assert not o.choices, o.name


@pytest.mark.parametrize("game", list(GAMES))
def test_info_prints_the_options_table(game, capsys):
    main(["info", game])
    out = flat(capsys.readouterr().out)
    spec = trickenv.make_spec(game)
    for o in spec.option_table:
        row = flat(f"{o.name} {literal(spec.options[o.name])} {o.default_doc} {o.values} {o.comment}")
        assert row in out, row


@pytest.mark.parametrize("game", list(GAMES))
def test_the_table_gives_the_names_and_defaults(game):
    spec = trickenv.make_spec(game)
    names = [o.name for o in spec.option_table]
    assert list(spec.options) == names
    for o in spec.option_table:
        if not callable(o.default) and o.default_text is None:
            assert spec.options[o.name] == o.default, o.name
    with pytest.raises(ValueError, match=f"^{game} has no option 'bogus'; options are {', '.join(names)}$"):
        trickenv.make_spec(game, bogus=1)


def test_a_check_reads_the_options_it_depends_on_first():
    # Four Tricks' rounds reads win_at, so win_at is checked first whatever the table order.
    with pytest.raises(ValueError, match="^win_at must be >= 1, got 0$"):
        trickenv.make_spec("four_tricks", rounds=0, win_at=0)
    with pytest.raises(ValueError, match="^partnership=True needs num_players=4"):
        trickenv.make_spec("farbwechsel", partnership=True, ranking="bogus")


def test_resolve_options_fills_defaults_from_other_options():
    table = (
        Option("a", 1, "an integer >= 0", "the first.", at_least(0)),
        Option("b", lambda opts: opts["a"] + 1, "an integer >= 0", "the second.", at_least(0), default_text="a + 1"),
    )
    assert resolve_options("toy", table, {}) == {"a": 1, "b": 2}
    assert resolve_options("toy", table, {"a": 5}) == {"a": 5, "b": 6}
    assert resolve_options("toy", table, {"b": 0}) == {"a": 1, "b": 0}
    with pytest.raises(ValueError, match="^a must be >= 0, got -1$"):
        resolve_options("toy", table, {"a": -1})
    assert options_doc(table).splitlines()[-1] == "- ``b`` an integer >= 0 [a + 1]: the second."
    assert literal(("Q",)) == '("Q",)' and literal("x") == '"x"' and literal(None) == "None"


# ------------------------------------------------------------------ typed fields and hooks


@pytest.mark.parametrize("game", list(GAMES))
def test_obs_offsets_come_from_the_blocks_and_extra_is_a_read_only_view(game):
    spec = trickenv.make_spec(game)
    assert spec.obs_offsets == block_offsets(spec.obs_blocks)
    assert sum(size for _, size in spec.obs_offsets.values()) == spec.obs_size
    assert spec.extra["obs_offsets"] == spec.obs_offsets
    assert dict(spec.extra).get("duties", (False, False)) == spec.duties
    with pytest.raises(TypeError):
        spec.extra["obs_offsets"] = {}


@pytest.mark.parametrize("game", list(GAMES))
def test_seat_metrics_and_side_points_of_records(game):
    spec = trickenv.make_spec(game)
    vec = trickenv.make_vec(game, 16, seed=3)
    obs, mask, _ = vec.reset(seed=3)
    agent = make_agent("random", spec, seed=4)
    rec = vec.deal_records()
    while not len(rec["game"]):
        obs, mask = vec.step(agent.act_batch(obs, mask))[:2]
        rec = vec.deal_records()
    g, n = len(rec["game"]), spec.num_players
    metrics = spec.seat_metrics(spec, rec)
    assert metrics
    for name, (value, weight) in metrics.items():
        assert np.shape(value) == (g, n) and weight.shape == (g, n) and weight.dtype == bool, name
    seats = np.arange(g) % n
    points = spec.side_points(spec, rec, seats)
    assert points.shape == (g,) and points.dtype == np.float32
    if search_defaults(spec).tiebreak == 0:
        assert np.array_equal(points, rec["points"][np.arange(g), seats])


# ------------------------------------------------------------------ no game names outside the games

GAME_NAMES = frozenset(GAMES)
# Where a game's name may stand outside trickenv/games/: (file or folder, the definition it is in) -> why.
ALLOWED = {
    ("trickenv/envs.py", "ENV_MODULES"): "registry: name -> env module",
    ("agents/search_defaults.py", "GAMES"): "registry: name -> the search's tuning in that game",
    ("trickenv/__init__.py", "_register_gymnasium.names"): "registry: gymnasium id -> name",
    ("trickenv/gym_env.py", "SingleSeatEnv.__init__"): "the default game of an entry point",
    ("trickenv/gym_env.py", "SeatVectorEnv.__init__"): "the default game of an entry point",
    ("trickenv/rllib_env.py", "TrickMultiAgentEnv.__init__.game"): "the default game of an entry point",
    ("trickenv/rllib_env.py", "ppo_config"): "the default game of an entry point",
    ("agents/rules.py", "RULES"): "registry: name -> rule-based agent",
    ("agents/rules_four_tricks.py", "FourTricksRules.__init__"): "a rule agent's guard of its own game",
    ("agents/rules_farbwechsel.py", "FarbwechselRules.__init__"): "a rule agent's guard of its own game",
    ("agents/rules_koenigrufen.py", "KoenigrufenRules.__init__"): "a rule agent's guard of its own game",
    ("agents/", "TOURNAMENT_GAMES"): "registry: the games a tournament plays",
    ("benchmarks/bench_envs.py", "VARIANTS"): "the benchmark's per-game settings",
    ("benchmarks/bench_envs.py", "TARGET_BATCHED"): "the benchmark's per-game settings",
    ("benchmarks/bench_agents.py", "VARIANTS"): "the benchmark's per-game settings",
    ("notebooks/experiments/search_variants.py", "VARIANTS"): "the benchmark's per-game settings",
    ("notebooks/experiments/search_noise.py", "GAME"): "the benchmark's default game",
    ("benchmarks/load_web.py", "GAME"): "the benchmark's default game",
    ("benchmarks/bench_cluster.py", "SETTINGS"): "the benchmark's per-game settings",
    ("benchmarks/bench_peers.py", "TRICKENV"): "the benchmark's per-game settings",
    ("trickenv/benchmark/sets.py", "V1"): "a benchmark version's game variants",
    ("trickenv/openspiel/oh_hell.py", "GAME"): "the one game OpenSpiel's oh_hell is",
}


def game_names_in(source: str) -> list[tuple[str, int]]:
    """``(definition, line)`` of every game name written as a string in ``source`` (docstrings aside).

    The definition is the dotted chain of classes, functions and assigned names around it, e.g.
    ``PIMCAgent.__init__`` or ``RULES``.
    """
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = scope + (child.name,)
            elif isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                names = [t.id if isinstance(t, ast.Name) else t.attr for t in targets
                         if isinstance(t, (ast.Name, ast.Attribute))]
                inner = scope + tuple(names[:1])
            if (isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value in GAME_NAMES
                    and id(child) not in docstrings):
                found.append((".".join(scope) or "<module>", child.lineno))
            visit(child, inner)

    visit(tree, ())
    return found


def allowed(path: str, definition: str) -> bool:
    return any((path == where or (where.endswith("/") and path.startswith(where))) and definition == name
               for where, name in ALLOWED)


def test_the_scan_finds_a_game_name_test():
    code = 'def f(spec):\n    """About koenigrufen."""\n    if spec.name == "koenigrufen":\n        return 1\n'
    assert game_names_in(code) == [("f", 3)]
    assert game_names_in('TABLE = {"four_tricks": 0.25}\n') == [("TABLE", 1)]
    assert not allowed("trickenv/sampler.py", "f") and allowed("agents/rules.py", "RULES")


def test_no_module_outside_the_games_tests_a_game_name():
    files = [p for top in ("trickenv", "agents", "training", "benchmarks", "notebooks")
             for p in sorted((ROOT / top).rglob("*.py"))
             if p.relative_to(ROOT).parts[:2] != ("trickenv", "games")]
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        found += [f"{rel}:{line} in {where}" for where, line in game_names_in(path.read_text(encoding="utf-8"))
                  if not allowed(rel, where)]
    assert not found, ("a game's name outside trickenv/games/: ask the game's spec (GameSpec) instead\n"
                       + "\n".join(found))


# ------------------------------------------------------------------ a game is a package (trickenv/games/__init__.py)


def test_the_recipe_for_a_game_matches_the_tree():
    """Each game is a folder with the modules the recipe of ``trickenv.games`` names, registered where it says."""
    from trickenv.agents.rules import RULES
    from trickenv.games.variants import VARIANTS

    doc = importlib.import_module("trickenv.games").__doc__
    for module in ("rules.py", "text.py", "worlds.py", "solver.py", "__init__.py", "learning.py"):
        assert f"``{module}``" in doc, module
    folders = {p.name for p in (ROOT / "trickenv" / "games").iterdir() if (p / "__init__.py").exists()}
    assert folders == set(GAMES)
    for game in GAMES:
        here = ROOT / "trickenv" / "games" / game
        assert {"rules.py", "text.py", "worlds.py", "solver.py"} <= {p.name for p in here.glob("*.py")}, game
        package = importlib.import_module(GAMES[game])
        assert package.__name__ == f"trickenv.games.{game}" and callable(package.make_spec)
        assert game in RULES and any(g == game for g, _ in VARIANTS)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_spec_is_the_rules_and_its_parts(game):
    """The spec carries the rules the envs need; the text, what a seat knows and what learners use are its parts,
    and no field of an agent's or a trainer's tuning is on it."""
    spec = trickenv.make_spec(game)
    assert isinstance(spec.text, GameText) and isinstance(spec.worlds, GameWorlds)
    assert isinstance(spec.learning, GameLearning)
    fields = set(spec.__dataclass_fields__)
    assert not {f for f in fields if f.startswith("search") or "model" in f or "rollout" in f}


def test_no_module_under_games_names_a_player_file_or_an_agent_default():
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "trickenv" / "games").rglob("*.py"))
    for word in (".npz", "_rollout", "_likelihood", "search_agent", "shipped", "models/"):
        assert word not in text, word


def test_a_game_without_a_versioned_module_still_makes_its_aec_env(monkeypatch):
    """A new game needs no ``trickenv/<game>_v0.py`` to be played: ``trickenv.make`` binds the same env."""
    import trickenv.envs

    versioned = trickenv.make("four_tricks")
    monkeypatch.delitem(trickenv.envs.ENV_MODULES, "four_tricks")
    bound = trickenv.make("four_tricks")
    assert type(bound.unwrapped) is not type(versioned.unwrapped)
    for env in (versioned, bound):
        env.reset(seed=3)
    a, b = versioned.last()[0], bound.last()[0]
    assert np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
    with pytest.raises(ValueError, match="unknown game 'hearts'"):
        trickenv.make("hearts")
