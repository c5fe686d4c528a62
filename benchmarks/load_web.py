"""Load test of ``trickenv serve``: many browser sessions at once, each playing whole deals against bots through
the HTTP API, with hint requests mixed in. On 127.0.0.1 only.

    python benchmarks/load_web.py                       # 50 sessions x 2 deals of King Calling, 5 rounds
    python benchmarks/load_web.py --sessions 80 --game farbwechsel --json load.json

The server runs in its own process (``trickenv serve`` on a free port). Round 0 warms it up (the agents'
first compile and model loads); every round then starts ``sessions`` new sessions at once, each with its own
cookie, playing its seat's first legal move until its deals are over and asking a hint every ``hint_every``
moves of its own. Reported per round: the sessions that finished, moves and hints, the latency of a move (the
person's move and the bots' answers, as the page waits for it) at p50/p95/max, the errors (any status >= 500,
or a 4xx the page would not cause), and the server's resident memory after the round. The docs table is in
docs/results/speed.md.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import numpy as np

HOST = "127.0.0.1"
GAME = "koenigrufen"  # the default game: the quickest deals, so the server, not the bots, is measured


@dataclass
class Round:
    sessions: int = 0
    finished: int = 0
    moves: int = 0
    hints: int = 0
    errors: list[str] = field(default_factory=list)
    move_ms: list[float] = field(default_factory=list)
    hint_ms: list[float] = field(default_factory=list)
    rss_mb: float = 0.0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if k not in ("move_ms", "hint_ms", "errors")}
        for name, xs in (("move", self.move_ms), ("hint", self.hint_ms)):
            a = np.array(xs) if xs else np.zeros(1)
            out[f"{name}_ms"] = {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)),
                                 "max": float(a.max())}
        out["errors"] = len(self.errors)
        out["first_errors"] = self.errors[:5]
        return out


class Client:
    """One browser session: its own cookie jar."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with self.http.open(req, timeout=120) as r:
                raw = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        try:
            return status, json.loads(raw)
        except json.JSONDecodeError:
            return status, raw.decode(errors="replace")


def play_session(base: str, game: str, deals: int, seed: int, hint_every: int, out: Round, lock: threading.Lock) -> None:
    """One session: a table, then its seat's first legal move until the deals are over."""
    c = Client(base)
    errors, moves, hints = [], [], []
    try:
        c.call("GET", "/")
        status, state = c.call("POST", "/api/play", {"game": game, "seat": 0, "opponents": ["rules"],
                                                      "deals": deals, "seed": seed})
        if status != 200:
            errors.append(f"new table: {status} {state}")
            return
        mine = 0
        while not state["finished"]:
            legal = [x["card"] for x in state["hand"] if x["legal"]] + [m["action"] for m in state["moves"]]
            mine += 1
            if hint_every and mine % hint_every == 0:
                t = time.perf_counter()
                status, hint = c.call("POST", "/api/play/hint", {})
                hints.append(1e3 * (time.perf_counter() - t))
                if status != 200 and status != 503:  # 503: the analysis slots were busy, as the page is told
                    errors.append(f"hint: {status} {hint}")
            t = time.perf_counter()
            status, state = c.call("POST", "/api/play/move", {"action": legal[0]})
            moves.append(1e3 * (time.perf_counter() - t))
            if status != 200:
                errors.append(f"move: {status} {state}")
                return
    except Exception as e:  # a broken connection counts as an error of the run, not a crash of the benchmark
        errors.append(f"{type(e).__name__}: {e}")
    finally:
        with lock:
            out.sessions += 1
            out.finished += not errors
            out.moves += len(moves)
            out.hints += len(hints)
            out.move_ms += moves
            out.hint_ms += hints
            out.errors += errors


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """``trickenv serve`` on a free port of 127.0.0.1, in a process of its own."""

    def __init__(self, idle_seconds: float) -> None:
        self.port = free_port()
        argv = ["serve", "--host", HOST, "--port", str(self.port), "--idle-minutes", str(idle_seconds / 60)]
        code = f"from trickenv.cli import main; main({argv!r})"
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.base = f"http://{HOST}:{self.port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((HOST, self.port), timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"trickenv serve stopped: {self.proc.stderr.read().decode()}") from None
                time.sleep(0.2)
        raise RuntimeError("trickenv serve did not open its port in 120 s")

    def stop(self) -> str:
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err.decode(errors="replace")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def run(sessions: int = 50, deals: int = 2, game: str = GAME, rounds: int = 5, hint_every: int = 3,
        warmup: int = 4, idle: float = 3.0) -> dict[str, Any]:
    """Round 0 (``warmup`` sessions), then ``rounds`` rounds of ``sessions`` sessions at once; the summaries.
    The server expires a session after ``idle`` seconds, and each round starts once the last one's expired, so
    the memory after each round says whether finished sessions leave anything behind."""
    out: dict[str, Any] = {"game": game, "sessions": sessions, "deals": deals, "hint_every": hint_every,
                           "idle_seconds": idle, "rounds": []}
    with Server(idle) as server:
        out["rss_start_mb"] = rss_mb(server.proc.pid)
        for r in range(rounds + 1):
            if r:
                time.sleep(idle + 0.5)  # the last round's sessions expire (at this round's first request)
            n = warmup if r == 0 else sessions
            result, lock = Round(), threading.Lock()
            threads = [threading.Thread(target=play_session, args=(server.base, game, deals, 1000 * r + i, hint_every,
                                                                   result, lock)) for i in range(n)]
            t = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            result.seconds = time.perf_counter() - t
            result.rss_mb = rss_mb(server.proc.pid)
            out["rounds"].append(dict(result.summary(), warmup=r == 0))
        time.sleep(idle + 0.5)
        Client(server.base).call("GET", "/api/games")  # a request: every session of the run expires
        out["rss_end_mb"] = rss_mb(server.proc.pid)
        log = server.stop()
    out["server_tracebacks"] = log.count("Traceback")
    return out


def table(result: dict[str, Any]) -> str:
    """The docs table: one row a round."""
    lines = ["| round | sessions | finished | moves | hints | move p50 ms | move p95 ms | move max ms | "
             "hint p95 ms | errors | server MB after |", "|---|" + "---:|" * 10]
    for k, r in enumerate(result["rounds"]):
        lines.append(f"| {'warm-up' if r['warmup'] else k} | {r['sessions']} | {r['finished']} | {r['moves']} | "
                     f"{r['hints']} | {r['move_ms']['p50']:.0f} | {r['move_ms']['p95']:.0f} | "
                     f"{r['move_ms']['max']:.0f} | {r['hint_ms']['p95']:.0f} | {r['errors']} | {r['rss_mb']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=50, help="sessions at once a round")
    ap.add_argument("--deals", type=int, default=2, help="deals each session plays")
    ap.add_argument("--game", default=GAME)
    ap.add_argument("--rounds", type=int, default=5, help="rounds after the warm-up (memory after each)")
    ap.add_argument("--hint-every", type=int, default=3, help="a hint every N of a session's moves (0: none)")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds before the server expires a session")
    ap.add_argument("--json", default=None, metavar="PATH")
    args = ap.parse_args(argv)
    result = run(args.sessions, args.deals, args.game, args.rounds, args.hint_every, idle=args.idle)
    print(table(result))
    print(f"server: {result['rss_start_mb']:.0f} MB at start, {result['rss_end_mb']:.0f} MB once every session "
          f"expired; tracebacks in its log: {result['server_tracebacks']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    bad = sum(r["errors"] for r in result["rounds"]) + result["server_tracebacks"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
