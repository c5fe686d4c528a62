"""MkDocs hook: lay the sources out as installed, so the API pages find ``trickenv.agents`` and ``trickenv.training``.

The repository keeps ``agents/`` and ``training/`` beside ``trickenv/`` and installs them as
``trickenv.agents`` and ``trickenv.training`` (``[tool.setuptools.package-dir]``). mkdocstrings reads the
sources without importing them, so it is pointed at a directory of links in that installed shape.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
SUBPACKAGES = {"agents": ROOT / "agents", "training": ROOT / "training"}
_keep: list[tempfile.TemporaryDirectory] = []


@event_priority(100)  # before mkdocstrings reads its handlers' options
def on_config(config, **kwargs):
    tmp = tempfile.TemporaryDirectory(prefix="trickenv-docs-")
    _keep.append(tmp)
    package = Path(tmp.name) / "trickenv"
    package.mkdir()
    for entry in (ROOT / "trickenv").iterdir():
        (package / entry.name).symlink_to(entry)
    for name, source in SUBPACKAGES.items():
        (package / name).symlink_to(source)
    options = config["plugins"]["mkdocstrings"].config["handlers"].setdefault("python", {})
    options["paths"] = [tmp.name]
    return config
