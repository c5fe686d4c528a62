"""The first run says what it compiles (trickenv.engine.first_run)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from numba import njit
from numba.core import event

import trickenv.games.farbwechsel  # noqa: F401  (their COMPILE_LABEL is read from the loaded module)
import trickenv.games.four_tricks  # noqa: F401
from trickenv.engine.first_run import _Announcer


def _fresh(module: str, inner=None):
    """A kernel that has never been compiled, as if defined in ``module`` (it calls ``inner`` if given)."""
    if inner is None:
        def kernel(x):
            return x + 1
    else:
        def kernel(x):
            return inner(x) * 2
    kernel.__module__ = module
    return njit(kernel)


def test_one_line_per_module_named_by_its_label_and_helpers_are_not_announced():
    out = io.StringIO()
    listener = _Announcer(out)
    event.register("numba:compile", listener)
    try:
        helper = _fresh("trickenv.engine.kernels")
        assert _fresh("trickenv.games.four_tricks", helper)(1) == 4  # compiles helper inside it
        assert _fresh("trickenv.games.four_tricks")(1) == 2  # same module again: said once
        assert _fresh("some_other_package.mod")(1) == 2  # not trickenv's: not said
        assert _fresh("trickenv.games.farbwechsel")(1) == 2
    finally:
        event.unregister("numba:compile", listener)
    lines = out.getvalue().splitlines()
    assert lines == [
        "trickenv: compiling the Four Tricks kernels (first run only; numba keeps the machine code on disk)",
        "trickenv: compiling the Farbwechsel kernels (first run only; numba keeps the machine code on disk)",
    ]
    assert listener.depth == 0


def test_a_module_numba_cannot_cache_says_so_instead_of_first_run_only():
    import trickenv.agents.openspiel_bots as bots

    out = io.StringIO()
    listener = _Announcer(out)
    event.register("numba:compile", listener)
    try:
        assert _fresh("trickenv.agents.openspiel_bots")(1) == 2
    finally:
        event.unregister("numba:compile", listener)
    assert out.getvalue().splitlines() == [f"trickenv: compiling {bots.COMPILE_LABEL} ({bots.COMPILE_NOTE})"]
    assert "every process" in bots.COMPILE_NOTE


def test_the_command_line_says_it_compiles_on_an_empty_cache(tmp_path):
    """With an empty numba cache, `trickenv eval` announces the kernels it compiles, on standard error."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "trickenv.cli", "eval", "four_tricks", "--agents", "random,random",
                          "--deals", "2", "--no-progress", "--no-ratings"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "trickenv: compiling the Four Tricks kernels (first run only" in run.stderr
    assert "trickenv: compiling" not in run.stdout
