"""The layers of the package, enforced: ``lint-imports`` (import-linter) on the installed layout.

In the repository ``agents/`` and ``training/`` sit beside ``trickenv/``; installed they are
``trickenv.agents`` and ``trickenv.training``. The test lays the sources out as installed, in a temporary
folder, and runs the real ``lint-imports`` there with the contracts of ``pyproject.toml``: the layers
(engine -> games -> env adapters -> agents -> single-seat envs -> training -> command line, web, research)
and no import cycles, imports inside functions included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"trickenv": "trickenv", "agents": "trickenv/agents", "training": "trickenv/training"}


def installed_layout(where: Path) -> Path:
    """Copy the package's Python files to ``where`` as pip installs them; return the folder to import from."""
    for src, dst in SOURCES.items():
        for path in (ROOT / src).rglob("*.py"):
            target = where / dst / path.relative_to(ROOT / src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return where


def lint_imports(where: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run([str(exe), "--no-cache", str(ROOT / "pyproject.toml")], cwd=where, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_layers_and_no_cycles_hold(tmp_path):
    result = lint_imports(installed_layout(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_every_module_of_the_package_is_in_a_layer():
    """A new top-level module must be placed in a layer, or the layers would say nothing about it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(c for c in config if c["type"] == "layers")
    placed = {name.strip() for layer in layers["layers"] for name in layer.replace("|", ":").split(":")}
    tops = {p.stem for p in (ROOT / "trickenv").glob("*.py") if p.stem != "__init__"}
    tops |= {p.name for p in (ROOT / "trickenv").iterdir() if (p / "__init__.py").exists()}
    tops |= {"agents", "training"}
    assert tops - placed == set(), f"modules in no layer: {sorted(tops - placed)}"
    assert placed - tops == set(), f"layers name modules that do not exist: {sorted(placed - tops)}"


def test_the_check_sees_an_upward_import(tmp_path):
    """The contracts can fail: a games module that imports an agent breaks them."""
    where = installed_layout(tmp_path)
    rules = where / "trickenv" / "games" / "four_tricks" / "rules.py"
    rules.write_text(rules.read_text() + "\nfrom trickenv.agents.base import make_agent  # noqa\n")
    result = lint_imports(where)
    assert result.returncode != 0
    assert "trickenv.games is not allowed to import trickenv.agents" in result.stdout.replace("\n", " ")


@pytest.mark.parametrize("cycle", [("trickenv/sampler.py", "trickenv.solver")])
def test_the_check_sees_a_cycle_inside_a_function(tmp_path, cycle):
    where = installed_layout(tmp_path)
    path, target = cycle
    module = where / path
    module.write_text(module.read_text() + f"\n\ndef _late():\n    import {target}  # noqa\n")
    other = where / (target.replace(".", "/") + ".py")
    other.write_text(other.read_text() + "\n\ndef _late2():\n    import trickenv.sampler  # noqa\n")
    result = lint_imports(where)
    assert result.returncode != 0
    assert "No cycles are allowed in trickenv" in result.stdout.replace("\n", " ")


def test_no_module_imports_itself_back(tmp_path):
    """Module by module (grimp, the graph import-linter checks): no chain of imports leads from a module back
    to it, parent packages and their children included (imports for annotations only run nothing and are
    left out, as in the contracts)."""
    import grimp

    where = installed_layout(tmp_path)
    sys.path.insert(0, str(where))
    try:
        graph = grimp.build_graph("trickenv", cache_dir=None, exclude_type_checking_imports=True)
    finally:
        sys.path.remove(str(where))
    back = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if imported != module and graph.chain_exists(importer=imported, imported=module):
                back.append(f"{module} -> {imported}")
    assert not back, "import cycles: " + ", ".join(back)
