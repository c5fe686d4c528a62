"""The lint this ecosystem's projects run: ``ruff check`` with pyflakes and bugbear (``[tool.ruff]`` in
pyproject.toml), and the pre-commit hook a contributor installs runs the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_ruff_finds_nothing():
    result = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_would_see_a_finding(tmp_path):
    """The check can fail: a loop variable used by a closure (bugbear) is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("fs = []\nfor i in range(3):\n    fs.append(lambda: i)\n")
    result = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
                             str(bad)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "B023" in result.stdout


def test_the_pre_commit_hook_runs_that_check():
    config = ROOT / ".pre-commit-config.yaml"
    result = subprocess.run([str(BIN / "pre-commit"), "validate-config", str(config)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "entry: ruff check" in config.read_text()
