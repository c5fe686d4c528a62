"""Test ordering: the notebooks run last.

Numba compiles every kernel on first use and caches it on disk. The notebooks use kernels of all
three games and all agents; run after the other tests, they find them compiled and cost only
their own run time (about a minute at the small budget), not the compilation.
"""


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: item.nodeid.split("::")[0].endswith("test_notebooks.py"))  # stable sort
