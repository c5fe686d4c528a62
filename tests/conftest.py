"""Test ordering (the notebooks run last), where stable-baselines3 writes its logs, and the headless browser of the
browser tests (``browser``: Debian's chromium through chromedriver, Selenium).

Numba compiles every kernel on first use and caches it on disk. The notebooks use kernels of all
three games and all agents; run after the other tests, they find them compiled and cost only
their own run time (about a minute at the small budget), not the compilation.
"""

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1200,1500")




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


@pytest.fixture()
def browser(tmp_path):
    """A function that opens a new headless Chromium (its own profile and cookies); all are closed after the test."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.fail("the browser tests need Debian's chromium and chromium-driver: apt-get install chromium "
                    "chromium-driver (or deselect them: pytest -m 'not browser')")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers = []

    def open_browser():
        options = webdriver.ChromeOptions()
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={tmp_path / f'profile{len(drivers)}'}")
        options.binary_location = CHROMIUM
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        driver.implicitly_wait(0)
        drivers.append(driver)
        return driver

    yield open_browser
    for d in drivers:
        d.quit()
