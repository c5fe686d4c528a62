"""The documentation: the site builds with warnings as errors, every guide's code runs, every ``trickenv``
command in them parses, the environment pages' tables are what the code generates, guides carry no measured
history, and the README is a landing page. The site's home and environment pages open in real Chromium
(marker ``browser``)."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shlex
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trickenv import env_pages

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# The pages whose code a reader runs as written: the guides and the getting-started page.
GUIDES = sorted([DOCS / "getting-started.md", *(DOCS / "guides").glob("*.md"), DOCS / "playbook" / "index.md"])
# Pages for using the library, where measured history does not belong (it lives in results/ and
# how-it-was-found/).
USER_PAGES = sorted([*GUIDES, DOCS / "index.md", *(DOCS / "envs").glob("*.md")])
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
INTERVAL = re.compile(r"\[[-+]?\d*\.\d+, [-+]?\d*\.\d+\]")  # a confidence interval such as [0.12, 0.34]: the pattern this test refuses
HISTORY = re.compile(r"\bseeds? \d{3,}|shipped before|the one before it", re.I)  # what this test refuses, not a figure


def blocks(path: Path, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(path.read_text(encoding="utf-8")) if lang == language]


PYTHON = [(p, i) for p in GUIDES for i in range(len(blocks(p, "python")))]
COMMANDS = [(p, line.split("#")[0].strip()) for p in [*GUIDES, DOCS / "index.md", ROOT / "README.md"]
            for body in blocks(p, "bash") for line in body.splitlines() if line.strip().startswith("trickenv ")]


def test_the_guides_are_there_and_have_code():
    names = {p.relative_to(DOCS).as_posix() for p in GUIDES}
    assert {"getting-started.md", "guides/rl-libraries.md", "guides/your-agent.md", "guides/evaluation.md",
            "guides/search.md", "guides/training.md", "guides/research.md", "guides/web.md",
            "guides/cluster.md"} <= names
    assert len(PYTHON) >= 10 and len(COMMANDS) >= 10


@pytest.mark.parametrize(("page", "index"), PYTHON,
                         ids=[f"{p.relative_to(DOCS)}-{i}" for p, i in PYTHON])
def test_guide_code_runs(page, index, tmp_path, monkeypatch):
    """Each python block runs as written, on its own, in a folder of its own (what it writes stays there) that
    sees the repository's docs/, notebooks/, examples/ and benchmarks/ as a reader's clone does."""
    for name in ("docs", "notebooks", "examples", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    code = blocks(page, "python")[index]
    namespace: dict = {"__name__": "__docs__"}
    exec(compile(code, f"{page.relative_to(ROOT)} block {index}", "exec"), namespace)


@pytest.mark.parametrize(("page", "command"), COMMANDS,
                         ids=[f"{p.name}: {c[:60]}" for p, c in COMMANDS])
def test_commands_in_the_docs_parse(page, command):
    """Every ``trickenv ...`` line of a bash block is a valid command line (flags, choices, game options)."""
    from trickenv.cli import parse

    import trickenv

    argv = shlex.split(command)[1:]
    if "--list-agents" in argv:  # an action that prints and stops, as --help does: it must stop cleanly
        with pytest.raises(SystemExit) as stop:
            parse(argv)
        assert stop.value.code in (0, None)
        return
    args, options, _ = parse(argv)
    if getattr(args, "game", None) is not None:
        trickenv.make_spec(args.game, **options)


def test_a_wrong_command_would_fail():
    from trickenv.cli import parse

    with pytest.raises(SystemExit):
        parse(["eval", "four_tricks", "--agents", "rules,random", "--no-such-flag"])


def test_the_env_pages_are_what_the_code_generates():
    """``python -m trickenv.env_pages --check``: regenerate every page's tables and compare (nothing written)."""
    assert env_pages.stale_pages(write=False) == []
    for game in ("farbwechsel", "koenigrufen", "four_tricks"):
        text = env_pages.page_path(game).read_text(encoding="utf-8")
        for part in env_pages.SECTIONS:
            assert f"<!-- generated:{part} -->" in text, (game, part)


def test_a_changed_table_makes_a_page_stale(tmp_path, monkeypatch):
    for game in ("farbwechsel", "koenigrufen", "four_tricks"):
        (tmp_path / f"{game}.md").write_text(env_pages.page_path(game).read_text(encoding="utf-8"))
    assert env_pages.stale_pages(tmp_path) == []
    page = tmp_path / "four_tricks.md"
    page.write_text(page.read_text().replace("| `deck` | `48` |", "| `deck` | `52` |"))
    assert env_pages.stale_pages(tmp_path) == ["four_tricks"]
    assert env_pages.main(["--check", "--docs", str(tmp_path)]) == 1
    assert env_pages.main(["--docs", str(tmp_path)]) == 0 and env_pages.stale_pages(tmp_path) == []


def test_the_generated_tables_come_from_the_code():
    spec_table = env_pages.specs("four_tricks")
    assert "`Discrete(69)`" in spec_table and "-12 .. 4" in spec_table
    assert "| `hand` | 0 | `(48,)` | 48 | bits |" in env_pages.observation("four_tricks")
    assert "`64 .. 67`" in env_pages.actions("koenigrufen")
    assert "`switch_mode`" in env_pages.options("farbwechsel")


@pytest.mark.parametrize("page", USER_PAGES, ids=[p.relative_to(DOCS).as_posix() for p in USER_PAGES])
def test_user_pages_carry_no_measured_history(page):
    """Intervals, run seeds and "shipped before" belong to the results and how-it-was-found pages."""
    text = page.read_text(encoding="utf-8")
    assert not INTERVAL.findall(text), f"{page.name}: intervals {INTERVAL.findall(text)[:3]}"
    assert not HISTORY.findall(text), f"{page.name}: {HISTORY.findall(text)[:3]}"


def test_readme_is_a_landing_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, len(lines)
    first = " ".join(lines[:10]).lower()
    assert "trick-taking" in first and "pettingzoo" in first and "batched" in first
    assert len(INTERVAL.findall("\n".join(lines))) <= 5


def build_site(out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    run = build_site(out)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-6000:]
    return out


def test_the_site_builds_with_warnings_as_errors(site):
    for page in ("index.html", "getting-started/index.html", "envs/farbwechsel/index.html",
                 "api/agents/index.html", "results/strength/index.html", "how-it-was-found/training/index.html"):
        assert (site / page).exists(), page
    api = (site / "api" / "agents" / "index.html").read_text(encoding="utf-8")
    assert "make_agent" in api  # the reference is generated from the docstrings


def test_a_broken_link_fails_the_build(tmp_path):
    """The build's strictness is real: a page with a link to a missing page fails it."""
    import shutil

    shutil.copytree(DOCS, tmp_path / "docs", ignore=shutil.ignore_patterns("data", "training"))
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copy(ROOT / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    for name in ("trickenv", "agents", "training"):  # the API pages read the sources
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "docs" / "training").mkdir()
    for png in (DOCS / "training").glob("*.png"):
        shutil.copy(png, tmp_path / "docs" / "training" / png.name)
    page = tmp_path / "docs" / "getting-started.md"
    page.write_text(page.read_text() + "\n[gone](no-such-page.md)\n")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode != 0 and "no-such-page.md" in run.stdout + run.stderr


@pytest.fixture(scope="module")
def site_server(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize(("path", "expect"), [
    ("", "trick-taking"),
    ("envs/farbwechsel/", "Discrete(36)"),
    ("envs/koenigrufen/", "Discrete(70)"),
    ("envs/four_tricks/", "Discrete(69)"),
])
def test_site_pages_in_chromium(site_server, browser, path, expect, tmp_path):
    """The home page and each environment page render in Chromium: the title, the text, the navigation,
    and (env pages) the spec table as a table; the browser logs no error."""
    from selenium.webdriver.common.by import By

    driver = browser()
    driver.get(site_server + path)
    assert "trickenv" in driver.title
    body = driver.find_element(By.TAG_NAME, "body").text
    assert expect in body
    assert driver.find_elements(By.CSS_SELECTOR, "nav.md-nav")
    if path:
        cells = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "article table td")]
        assert "Action space" in cells and "Observation" in cells
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    shots = os.environ.get("TRICKENV_DOCS_SCREENSHOTS")
    if shots:
        driver.save_screenshot(str(Path(shots) / f"{path.strip('/').replace('/', '_') or 'home'}.png"))
