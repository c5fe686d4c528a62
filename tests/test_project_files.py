"""What a package of this ecosystem ships beside its code agrees with the package: the license, the citation,
the changelog's env versions and the contributor's guide."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

import trickenv
from trickenv.envs import ENV_MODULES

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_license_file_is_the_license_the_package_declares():
    assert PROJECT["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_citation_names_this_version():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert {"cff-version", "message", "title", "authors", "version", "license"} <= set(cff)
    assert str(cff["version"]) == PROJECT["version"] == trickenv.__version__
    assert cff["license"] == "MIT" and cff["authors"]


def test_the_changelog_lists_the_version_and_every_env_with_its_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {PROJECT['version']}" in text
    for module in ENV_MODULES.values():
        version = re.fullmatch(r".+_v(\d+)", module).group(1)
        assert re.search(rf"\| `{module}` \| {version} \|", text), module


def test_the_contributors_guide_runs_the_tests_as_ci_does():
    guide = (ROOT / "CONTRIBUTING.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q" in guide and "python -m pytest -q" in ci
    assert 'pip install -e ".[dev]"' in guide and "pre-commit install" in guide
