"""Test ordering (the notebooks run last) and where stable-baselines3 writes its logs.

Numba compiles every kernel on first use and caches it on disk. The notebooks use kernels of all
three games and all agents; run after the other tests, they find them compiled and cost only
their own run time (about a minute at the small budget), not the compilation.
"""

import os

import pytest


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: item.nodeid.split("::")[0].endswith("test_notebooks.py"))  # stable sort


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytest_tmp(tmp_path_factory):
    """SB3 makes a log folder for every model that learns without a logger (``/tmp/SB3-<time>`` by
    default); keep them in pytest's temporary folders, which pytest prunes."""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if before is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = before
