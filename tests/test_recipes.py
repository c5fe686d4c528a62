"""One training config: ``trickenv train``'s flags generated from TrainConfig, the named recipes (``--recipe``,
``--list-recipes``) that make the shipped players, and the documented commands that name them."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")  # CI installs it

from trickenv.cli import main  # noqa: E402
from trickenv.training import Run, TrainConfig  # noqa: E402
from trickenv.training.config import RESUME_CHANGES, TrainCommand, settings_from_data  # noqa: E402
from trickenv.training.flags import flag  # noqa: E402
from trickenv.training.recipes import recipe, recipe_lines, recipes  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[1]

# The commands that made the shipped players (agents/models/<game>.npz), as the training docs wrote them out
# before they became the recipes: the recipe data must stay these settings.
SHIPPED = {
    "four_tricks": {"features": "actions", "expert": "search", "expert_worlds": 32, "expert_iterations": 4,
                    "expert_samples": 90000, "expert_workers": 2, "expert_solve_tricks": 2, "bc_temperature": 0.01875,
                    "augment_suits": True, "expert_epochs": 4, "card_head": 128, "steps": 0},
    "farbwechsel": {"features": "actions", "expert": "search", "expert_worlds": 32, "expert_iterations": 4,
                    "expert_samples": 60000, "expert_workers": 2, "bc_temperature": 0.01875, "privileged_critic": True,
                    "steps": 3000000, "learning_rate": 1e-4, "ent_coef": 0.003, "eval_every": 500000},
    "koenigrufen": {"bc_teacher": "search:solve_tricks=2", "bc_worlds": 16, "bc_workers": 2, "bc_samples": 3500000,
                    "bc_temperature": 0.3, "steps": 0, "card_head": 128},
}

# Each shipped recipe at a tiny scale: the sizes cut to seconds (and one worker), its other settings kept.
TINY = ["--num-envs", "16", "--n-steps", "16", "--batch-size", "128", "--epochs", "1", "--net", "16,16",
        "--eval-deals", "4", "--eval-every", "100000", "--checkpoint-every", "100000", "--bc-epochs", "1"]
TINY_BY_GAME = {
    "four_tricks": ["--expert-iterations", "1", "--expert-samples", "300", "--expert-worlds", "2",
                    "--expert-workers", "1", "--expert-epochs", "1", "--bc-samples", "300", "--card-head", "8"],
    "farbwechsel": ["--expert-iterations", "1", "--expert-samples", "300", "--expert-worlds", "2",
                    "--expert-workers", "1", "--bc-samples", "300", "--steps", "256"],
    "koenigrufen": ["--bc-samples", "200", "--bc-worlds", "2", "--bc-workers", "1", "--card-head", "8"],
}


def tiny_settings(game: str) -> dict:
    """The settings the tiny flags ask, by field name (the parser's own reading of them)."""
    argv = TINY + TINY_BY_GAME[game]
    fields = {flag(f.name): f for f in dataclasses.fields(TrainConfig)}
    out = {}
    for name, text in zip(argv[::2], argv[1::2], strict=True):
        f = fields[name]
        out[f.name] = tuple(int(x) for x in text.split(",")) if f.name == "net" else \
            {"int": int, "float": float}[f.type](text)
    return out


def test_the_shipped_recipes_are_the_commands_that_made_the_shipped_players():
    for game, settings in SHIPPED.items():
        assert recipe(game, "shipped").settings == settings, game
        assert recipe(game, "shipped").summary.startswith("the shipped player"), game
    assert set(recipes()) == set(SHIPPED)


def test_the_readme_and_the_docs_name_the_shipped_recipe(tmp_path, monkeypatch):
    """The shipped players' table (docs/results/training.md) shows `trickenv train GAME --recipe shipped --out runs/GAME`, and that
    command builds the run of the shipped settings (the training itself is stopped before it starts)."""

    def commands(path: Path) -> list[str]:
        return re.findall(r"^\| [^|]+ \| `(trickenv train [^`]+)` \|", path.read_text(encoding="utf-8"), flags=re.M)

    docs = commands(ROOT / "docs" / "results" / "training.md")
    assert sorted(docs[:3]) == sorted(f"trickenv train {game} --recipe shipped --out runs/{game}" for game in SHIPPED)
    assert "trickenv train four_tricks --recipe shipped --out runs/four_tricks" in (ROOT / "README.md").read_text()

    class Built(Exception):
        pass

    def stop(run):
        raise Built(run.config)

    def built(command: str, out: Path) -> TrainConfig:
        argv = shlex.split(command)[1:]
        argv[argv.index("--out") + 1] = str(out)
        with pytest.raises(Built) as b:
            main(argv + ["--no-progress"])
        return b.value.args[0]

    monkeypatch.setattr(Run, "train", stop)
    for i, command in enumerate(docs[:3]):
        game = shlex.split(command)[2]
        assert built(command, tmp_path / f"r{i}") == TrainConfig(game=game, recipe="shipped", **SHIPPED[game])


def test_list_recipes_prints_one_line_each(capsys):
    main(["train", "--list-recipes"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == sum(len(named) for named in recipes().values()) >= 3
    for game in SHIPPED:
        assert any(line.split()[:2] == [game, "shipped"] for line in lines), (game, lines)
    main(["train", "koenigrufen", "--list-recipes"])
    assert capsys.readouterr().out.splitlines() == recipe_lines("koenigrufen") == \
        [line for line in lines if line.startswith("koenigrufen ")]


def test_an_unknown_recipe_names_the_known_ones(tmp_path):
    with pytest.raises(SystemExit, match="no recipe 'fast' for farbwechsel; its recipes: shipped"):
        main(["train", "farbwechsel", "--recipe", "fast", "--out", str(tmp_path / "r"), "--no-progress"])
    assert not (tmp_path / "r").exists()


def test_recipe_data_is_checked_against_the_settings():
    assert settings_from_data({"net": [64, 64], "learning_rate": 1}, "t") == {"net": (64, 64), "learning_rate": 1.0}
    with pytest.raises(ValueError, match="t: 'stepz' is not a setting"):
        settings_from_data({"stepz": 1}, "t")
    with pytest.raises(ValueError, match="t: steps must be int, got '10'"):
        settings_from_data({"steps": "10"}, "t")
    with pytest.raises(ValueError, match="t: card_head must be int, got True"):
        settings_from_data({"card_head": True}, "t")


@pytest.mark.parametrize("game", list(SHIPPED))
def test_the_shipped_recipe_runs_at_a_tiny_scale_with_its_overrides_recorded(game, tmp_path):
    out = tmp_path / game
    main(["train", game, "--recipe", "shipped", "--out", str(out), "--no-progress", *TINY, *TINY_BY_GAME[game]])
    assert (out / "player.npz").exists()
    recorded = json.loads((out / "config.json").read_text())
    expected = dataclasses.asdict(TrainConfig(game=game, recipe="shipped", **{**SHIPPED[game], **tiny_settings(game)}))
    expected["net"] = list(expected["net"])
    assert recorded == expected
    # The recipe's own settings the flags left alone are the run's.
    kept = {k: v for k, v in SHIPPED[game].items() if k not in tiny_settings(game)}
    assert kept and all(recorded[k] == v for k, v in kept.items())
    # A resumed run keeps what it learns: a recipe setting changed is refused, naming it; nothing is written.
    with pytest.raises(SystemExit, match=f"bc_temperature is {SHIPPED[game]['bc_temperature']} in this run, the "
                                         "command asks 0.5"):
        main(["train", game, "--recipe", "shipped", "--out", str(out), "--resume", "--no-progress", *TINY,
              *TINY_BY_GAME[game], "--bc-temperature", "0.5"])
    with pytest.raises(SystemExit, match="no recipe 'other' for"):
        main(["train", game, "--out", str(out), "--resume", "--no-progress", "--recipe", "other"])
    assert json.loads((out / "config.json").read_text()) == recorded and not (out / "resumes.jsonl").exists()


def test_help_lists_exactly_the_settings_fields(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per flag: argparse wraps at the terminal's width
    with pytest.raises(SystemExit) as e:
        main(["train", "--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    listed = re.findall(r"^  (--[a-z-]+)", text, flags=re.M)
    fields = [f for cls in (TrainConfig, TrainCommand) for f in dataclasses.fields(cls)]
    assert listed == [flag(f.name) for f in fields if not f.metadata["positional"]] and "  -h, --help" in text
    flat = " ".join(text.split())
    for f in fields:
        assert f.metadata["doc"] and " ".join(f.metadata["doc"].split()) in flat, f.name
    assert "per-game default" not in text and "MaskablePPO" in text and "expert iteration" in text
    # What --resume may change is what it always could.
    assert set(RESUME_CHANGES) == {"steps", "expert_iterations", "eval_every", "eval_deals", "checkpoint_every",
                                   "env_threads", "torch_threads", "expert_workers", "ray"}
    assert flat.count("--resume may change it") == len(RESUME_CHANGES)


def test_the_web_sessions_read_option_values_without_the_command_line():
    """trickenv.cli -> trickenv.web -> trickenv.web.sessions no longer leads back to trickenv.cli."""
    code = ("import sys; import trickenv.web.sessions; assert 'trickenv.cli' not in sys.modules, 'cli imported'; "
            "from trickenv.cli import parse_value; from trickenv.games.option_text import parse_value as p; "
            "assert parse_value is p and p('52') == 52 and p('none') == 'none'")
    pytest.importorskip("starlette", reason="the web extra is not installed")
    subprocess.run([sys.executable, "-c", code], check=True)
