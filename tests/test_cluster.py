"""The two-node Ray cluster cases (tests/ray_cluster_cases.py), each reported here, run in a child pytest process.

The child is the Ray driver, so a crash of Ray there (Ray ends a driver whose raylet is gone with ``os._exit``)
fails these tests with the child's output and the tail of Ray's logs instead of ending this test run without a
report. The child runs every case once, on one cluster (marker cluster).
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the cluster extra (pip install 'trickenv[cluster]'); CI installs it")

pytestmark = pytest.mark.cluster

HERE = Path(__file__).parent
CASES_FILE = HERE / "ray_cluster_cases.py"
CASES = sorted(line.split("(")[0][len("def "):] for line in CASES_FILE.read_text().splitlines()
               if line.startswith("def test_"))
CHILD_TIMEOUT = 1500  # seconds; the cases take about 1 minute with a warm numba cache, 4 cold


def tail(text: str, n: int = 4000) -> str:
    return text if len(text) <= n else "..." + text[-n:]


def ray_logs(newer_than: float) -> str:
    """The end of the Ray logs that say why a process died (driver, raylets), from sessions started by the child."""
    out = []
    for pattern in ("python-core-driver-*.log", "raylet*.err", "raylet*.out", "gcs_server*.err"):
        for path in sorted(glob.glob(f"/tmp/ray/session_*/logs/{pattern}")):
            if "session_latest" not in path and os.path.getmtime(path) >= newer_than:
                out.append(f"--- {path}\n{tail(Path(path).read_text(errors='replace'), 1500)}")
    return "\n".join(out[-8:])


@pytest.fixture(scope="module")
def child(tmp_path_factory):
    """Run every case in one child pytest; ``(returncode, output, {case: (outcome, message)}, logs)``."""
    import time

    xml = tmp_path_factory.mktemp("cluster") / "cases.xml"
    started = time.time()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(CASES_FILE),
                           f"--junitxml={xml}"], capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                          cwd=HERE.parent, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    outcomes = {}
    if xml.exists():
        for case in ET.parse(xml).getroot().iter("testcase"):
            problems = [e for e in case if e.tag in ("failure", "error", "skipped")]
            outcome = problems[0].tag if problems else "passed"
            message = "\n".join((e.get("message") or "") + "\n" + (e.text or "") for e in problems)
            outcomes[case.get("name")] = (outcome, message)
    else:  # the child died before writing its report: the cases it reported as passed (-v, unbuffered) did pass
        for case in CASES:
            if f"::{case} PASSED" in proc.stdout:
                outcomes[case] = ("passed", "")
    logs = ray_logs(started) if proc.returncode != 0 else ""
    return proc.returncode, proc.stdout + proc.stderr, outcomes, logs


def test_the_cases_are_found():
    assert len(CASES) >= 7, CASES


@pytest.mark.parametrize("case", CASES)
def test_on_a_two_node_cluster(child, case):
    returncode, output, outcomes, logs = child
    if case not in outcomes:
        pytest.fail(f"{case} has no result: the child pytest ended with exit code {returncode}\n"
                    f"{tail(output)}\n{logs}")
    outcome, message = outcomes[case]
    assert outcome == "passed", f"{case}: {outcome}\n{tail(message)}\n{logs}"
