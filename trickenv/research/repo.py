"""Where the repository is: the notebooks read and write files in it (findings, docs images, training logs)."""

from __future__ import annotations

from pathlib import Path


def repo_root() -> Path:
    """The trickenv repository's top folder (the one with pyproject.toml and trickenv/).

    Searched upwards from the working folder first (a notebook runs in notebooks/, a script from the top),
    then from this file (an editable install), so an installed trickenv finds the checkout it is used in.
    """
    here = Path.cwd().resolve()
    source = Path(__file__).resolve()
    for d in [here, *here.parents, *source.parents]:
        if (d / "pyproject.toml").exists() and (d / "trickenv").is_dir():
            return d
    raise FileNotFoundError("not inside the trickenv repository: run from its folder or one below it")
