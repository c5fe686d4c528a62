"""`trickenv eval ... --ray HEAD:PORT` against a head started with `ray start --head`, as a user runs it (marker cluster).

The head runs with ``--block`` in a subprocess of the test, so ending that process stops this head only (``ray
stop`` would stop every Ray instance of the machine).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the cluster extra (pip install 'trickenv[cluster]'); CI installs it")

pytestmark = pytest.mark.cluster


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_eval_against_a_ray_start_head_equals_the_local_run(tmp_path):
    ray_cmd = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    port = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token"}
    env.pop("RAY_ADDRESS", None)
    head = subprocess.Popen([ray_cmd, "start", "--head", f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
                             "--disable-usage-stats", "--block"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    try:
        command = [sys.executable, "-m", "trickenv.cli", "eval", "koenigrufen", "--agents", "rules,random", "--deals",
                   "300", "--seed", "61", "--no-progress"]
        out = None
        for _ in range(60):  # the head takes a few seconds to accept drivers
            out = subprocess.run(command + ["--ray", f"127.0.0.1:{port}", "--json", str(tmp_path / "ray.json")],
                                 capture_output=True, text=True, env=env, timeout=300)
            if out.returncode == 0 or head.poll() is not None:
                break
            time.sleep(1)
        assert out is not None and out.returncode == 0, (out.stderr[-2000:] if out else "", head.poll())
        local = subprocess.run(command + ["--json", str(tmp_path / "local.json")], capture_output=True, text=True,
                               env=env, timeout=300)
        assert local.returncode == 0, local.stderr[-2000:]
        a = json.loads((tmp_path / "ray.json").read_text())
        b = json.loads((tmp_path / "local.json").read_text())
        assert a["pairs"] == b["pairs"] and a["agents"] == b["agents"] and a["deals"] == 300
    finally:
        head.terminate()
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            head.kill()
