"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    namespace: dict = {}
    exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), namespace)
    assert namespace.get("env") is not None or namespace.get("vec") is not None


def test_ci_runs_the_readmes_test_command():
    """`.ci/run` runs the test command the README gives, as written (setup included)."""
    text = README.read_text(encoding="utf-8")
    command = next(line for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
                   for line in block.splitlines() if "pytest" in line)
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in ci, command
