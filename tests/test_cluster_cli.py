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
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    env.pop("RAY_AUTH_MODE", None)  # the command as a user types it: trickenv finds the head's token itself
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


def test_token_auth_is_asked_for_when_a_token_exists(tmp_path, monkeypatch):
    from trickenv.cluster import token_auth_if_available

    token = tmp_path / "auth_token"
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(token))
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    token_auth_if_available()
    assert "RAY_AUTH_MODE" not in os.environ  # no token: Ray's default
    token.write_text("x" * 32)
    token_auth_if_available()
    assert os.environ["RAY_AUTH_MODE"] == "token"
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    token_auth_if_available()
    assert os.environ["RAY_AUTH_MODE"] == "disabled"  # the user's choice stands


def test_a_cluster_that_cannot_be_joined_is_a_clear_error(monkeypatch):
    # Ray itself takes minutes to give up on an address with nothing behind it; its ConnectionError is
    # raised here at once to check what trickenv makes of it.
    import ray

    from trickenv import cluster

    def refuse(*args, **kwargs):
        raise ConnectionError("Failed to connect to Ray cluster at 10.0.0.9:6379")

    monkeypatch.setenv("RAY_AUTH_MODE", "token")  # restored afterwards (connect may set it)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(ConnectionError, match=r"could not join the Ray cluster at '10.0.0.9:6379'.*ray start --head"):
        cluster.connect("10.0.0.9:6379")
