"""The installed package: agents/ and training/ install as trickenv.agents and trickenv.training; trickenv.research
imports from a non-editable install."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_installs_agents_and_training_under_trickenv(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next(tmp_path.glob("trickenv-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "trickenv/agents/__init__.py" in names and "trickenv/training/__init__.py" in names
    assert "trickenv/research/__init__.py" in names and "trickenv/games/variants.py" in names
    assert not any(n.startswith(("agents/", "training/")) for n in names), "top-level names would clash"
    for init in (ROOT / "trickenv").rglob("__init__.py"):  # every package, e.g. trickenv.openspiel
        assert init.relative_to(ROOT).as_posix() in names, f"{init.parent.name} is not in the wheel"
    assert "trickenv/benchmark/v1/deals.npz" in names  # the frozen benchmark's deal set
    for page in ("index.html", "app.js", "style.css"):  # trickenv serve's page travels with the package
        assert f"trickenv/web/static/{page}" in names, page

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True)
    # The fresh venv has only trickenv; its dependencies come from this interpreter's site-packages,
    # appended after the venv's own, so trickenv itself is the installed wheel.
    deps = sysconfig.get_paths()["purelib"]
    code = (
        f"import sys; sys.path.append({deps!r}); import trickenv, trickenv.agents, trickenv.training; "
        "from trickenv.agents import RandomAgent; "
        "assert 'site-packages' in trickenv.agents.__file__, trickenv.agents.__file__; "
        "import importlib.util as u; assert u.find_spec('agents') is None and u.find_spec('training') is None; "
        # The research tools import with the base dependencies: the optional ones load only where used.
        "import trickenv.research, trickenv.research.where_it_loses; "
        "assert 'site-packages' in trickenv.research.__file__, trickenv.research.__file__; "
        "heavy = {'matplotlib', 'openskill'} & set(sys.modules); assert not heavy, heavy; "
        "print(trickenv.agents.__file__)"
    )
    out = subprocess.run([str(py), "-c", code], check=True, capture_output=True, text=True, cwd=tmp_path)
    assert "trickenv/agents/__init__.py" in out.stdout


def test_the_project_refers_to_no_file_outside_it():
    """Docs, code and README stand alone: no ../shared, no RULES.md; every relative markdown link resolves."""
    import re

    texts = [ROOT / "README.md", *ROOT.glob("docs/**/*.md")]
    texts += [p for d in ("trickenv", "agents", "training", "benchmarks", "notebooks", "examples")
              for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md", ".ipynb")]
    for path in texts:
        text = path.read_text(encoding="utf-8")
        for bad in ("../shared", "RULES.md", "STRATEGY.md", "PERF_NOTES"):
            assert bad not in text, f"{path.relative_to(ROOT)} refers to {bad}"
        if path.suffix == ".md":
            for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
                if "://" not in link:
                    assert (path.parent / link).exists(), f"{path.relative_to(ROOT)}: dead link {link}"
