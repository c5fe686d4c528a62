"""The JSON API of ``trickenv serve`` (trickenv/web), through Starlette's TestClient: play, replay, bad requests."""

from __future__ import annotations

import json

import numpy as np
import pytest
from starlette.testclient import TestClient

import trickenv
from trickenv.play import seat_names
from trickenv.web import create_app

from .test_replay import played_records
from trickenv.replay import records_document


@pytest.fixture()
def client():
    with TestClient(create_app()) as c:
        c.get("/")  # the session cookie
        yield c


def play_out(client, state, limit=200):
    """Play the person's first legal move until the deals are over; the states seen."""
    seen = [state]
    for _ in range(limit):
        if state["finished"]:
            return seen
        assert state["your_turn"]
        legal = [c["card"] for c in state["hand"] if c["legal"]] + [m["action"] for m in state["moves"]]
        r = client.post("/api/play/move", json={"action": legal[0]})
        assert r.status_code == 200, r.text
        state = r.json()
        seen.append(state)
    raise AssertionError("the deal did not end")


@pytest.mark.parametrize("game, options", [("farbwechsel", {}), ("koenigrufen", {}), ("four_tricks", {"bidding": "True"})])
def test_a_whole_deal_through_the_api(client, game, options):
    r = client.post("/api/play", json={"game": game, "options": options, "seat": 1, "opponents": ["rules", "random"],
                                       "seed": 3})
    assert r.status_code == 200, r.text
    seen = play_out(client, r.json())
    final = seen[-1]
    assert final["finished"] and len(final["scores"]) == 1
    assert "deal 1 over" in " ".join(final["log"])
    n = trickenv.make_spec(game).num_players
    expected = seat_names(n, 1, ["rules", "random"])  # clockwise from the person's left, as trickenv play seats them
    assert [s["name"] for s in final["seats"]] == ["you" if x is None else x for x in expected]
    for state in seen:  # the person's view: their hand only, no one else's
        assert "hands" not in state and state["you"] == 1


def test_the_api_tells_the_games_and_checks_options(client):
    info = client.get("/api/games").json()
    assert set(info["games"]) == set(trickenv.GAMES) and "search" in info["agents"]
    fw = {o["name"]: o for o in info["games"]["farbwechsel"]["options"]}
    assert fw["num_players"]["allowed"] == "3 | 4" and fw["num_players"]["value"] == "3"
    assert client.post("/api/spec", json={"game": "farbwechsel", "options": {"num_players": "4"}}).json()["players"] == 4


def test_a_page_seats_openspiels_bots_where_the_extra_is_installed(client):
    pytest.importorskip("pyspiel", reason="the openspiel extra")
    assert {"ismcts", "mcts", "openspiel-random"} <= set(client.get("/api/games").json()["agents"])
    r = client.post("/api/play", json={"game": "koenigrufen", "seat": 0, "seed": 2,
                                       "opponents": ["ismcts", "mcts", "openspiel-random"]})
    assert r.status_code == 200, r.text
    final = play_out(client, r.json())[-1]
    assert final["finished"] and [s["name"] for s in final["seats"]][1:] == ["ismcts", "mcts", "openspiel-random"]


def test_without_the_openspiel_extra_a_page_offers_the_bundled_agents(monkeypatch):
    from trickenv.web import sessions

    real = sessions.importlib.util.find_spec
    monkeypatch.setattr(sessions.importlib.util, "find_spec", lambda name: None if name == "pyspiel" else real(name))
    with TestClient(create_app()) as client:
        assert client.get("/api/games").json()["agents"] == list(sessions.BUNDLED_AGENTS)
        r = client.post("/api/play", json={"game": "koenigrufen", "opponents": ["ismcts", "rules", "rules"]})
        assert r.status_code == 400 and "choose from random, rules, pimc, search, model" in r.json()["error"]


BAD_TABLES = [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({"game": "farbwechsel", "options": {"colour": 1}}, "colour"),
    ({"game": "farbwechsel", "options": {"num_players": "7"}}, "num_players must be one of"),
    ({"game": "farbwechsel", "options": [1]}, "options must be an object"),
    ({"game": "farbwechsel", "seat": 5}, "--seat must be a seat 0..2"),
    ({"game": "farbwechsel", "seat": "x"}, "seat must be"),
    ({"game": "farbwechsel", "opponents": ["rules", "rules", "rules"]}, "2 opponent seats"),
    ({"game": "farbwechsel", "opponents": ["genius"]}, "unknown agent 'genius'"),
    ({"game": "farbwechsel", "opponents": ["model:/etc/passwd"]}, "by their names alone"),
    ({"game": "farbwechsel", "opponents": []}, "opponents must be a list"),
    ({"game": "farbwechsel", "deals": 0}, "deals must be 1..100"),
    ({"game": "farbwechsel", "deals": 2, "options": {"rounds": 3}}, "already makes a match"),
]


def test_every_bad_request_gets_a_4xx_and_changes_nothing(client):
    r = client.post("/api/play", json={"game": "koenigrufen", "seed": 1, "opponents": ["rules"]})
    assert r.status_code == 200
    state = client.get("/api/play").json()
    for body, message in BAD_TABLES:
        r = client.post("/api/play", json=body)
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)
    assert client.get("/api/play").json() == state  # the table is still the one it was

    # moves
    hand = state["hand"]
    illegal = [c["card"] for c in hand if not c["legal"]]
    held = {c["card"] for c in hand}
    cases = [({"action": "x"}, 400, "action must be an action id"), ({}, 400, "needs 'action'"),
             ({"action": 1000}, 409, "not an action of koenigrufen"),
             ({"action": next(c for c in range(32) if c not in held)}, 409, "you do not hold"),
             ({"action": True}, 400, "action must be")]
    if illegal:
        cases.append(({"action": illegal[0]}, 409, "; legal: "))  # the reason, then the legal moves
    for body, status, message in cases:
        r = client.post("/api/play/move", json=body)
        assert r.status_code == status and message in r.json()["error"], (body, r.text)
    assert client.get("/api/play").json() == state

    # broken bodies, routes and sizes
    r = client.post("/api/play/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/play", content=b"[1, 2]", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "must be a JSON object" in r.json()["error"]
    r = client.post("/api/play", content=b"x" * 100, headers={"content-length": str(64 * 1024 * 1024)})
    assert r.status_code == 413
    assert client.get("/api/nothing").status_code == 404
    for path in ("/0", "/static/none.js", "/api/../../x"):  # outside the API too: a JSON error, not plain text
        r = client.get(path)
        assert r.status_code == 404 and r.json()["error"].startswith("no such page"), (path, r.text)
    r = client.delete("/api/play")
    assert r.status_code in (404, 405) and "error" in r.json()
    assert client.get("/static/../pyproject.toml").status_code == 404
    assert client.get("/static/%2e%2e/%2e%2e/pyproject.toml").status_code == 404
    assert client.get("/api/play").json() == state
    # the same table plays on after all of that
    assert play_out(client, state)[-1]["finished"]
    r = client.post("/api/play/move", json={"action": 0})
    assert r.status_code == 409 and "the deals are over" in r.json()["error"]


def test_without_a_table_the_api_says_so():
    with TestClient(create_app()) as c:
        for r in (c.get("/api/play"), c.post("/api/play/move", json={"action": 0})):
            assert r.status_code == 404 and "start a game first" in r.json()["error"]


def test_two_sessions_have_their_own_tables():
    app = create_app()
    with TestClient(app) as a, TestClient(app) as b:
        a.get("/"), b.get("/")
        assert a.cookies.get("trickenv_session") != b.cookies.get("trickenv_session")
        sa = a.post("/api/play", json={"game": "farbwechsel", "seed": 1}).json()
        sb = b.post("/api/play", json={"game": "four_tricks", "seed": 2}).json()
        play_out(a, sa)
        assert b.get("/api/play").json() == sb and a.get("/api/play").json()["game"] == "farbwechsel"
        assert a.get("/api/play").json()["finished"] and not sb["finished"]


def test_replay_through_the_api(client):
    rec = played_records("farbwechsel", {}, games=3, seed=9)
    doc = records_document("farbwechsel", {}, rec, [["x", "y", "z"]] * 3)
    r = client.post("/api/replay", json={"file": json.dumps(doc)})
    assert r.status_code == 200, r.text
    summary = r.json()
    assert summary["game"] == "farbwechsel" and len(summary["deals"]) == 3
    rid = summary["id"]
    first = client.get(f"/api/replay/{rid}/1/0").json()
    count = first["frames"]
    last = client.get(f"/api/replay/{rid}/1/{count - 1}").json()
    assert last["finished"] and last["scores"][-1] == rec["scores"][1].tolist()
    assert [len(h) for h in first["hands"]] == [10, 10, 10] and first["trick_starts"][0] == 0
    for path, message in [(f"/api/replay/{rid}/1/{count}", "step"), (f"/api/replay/{rid}/7/0", "deal 7 is out of range"),
                          (f"/api/replay/{rid}/1/-1", "step must be a number"), ("/api/replay/99/0/0", "no replay 99")]:
        r = client.get(path)
        assert r.status_code == 404 and message in r.json()["error"], (path, r.text)
    bad = {k: np.asarray(v[0]).tolist() for k, v in rec.items() if k != "game"}
    bad["scores"] = [0, 0, 0]
    for body, status, message in [
        ({"file": "{nope"}, 400, "not JSON"),
        ({}, 400, "'file' must hold"),
        ({"file": json.dumps({"dealer": 0})}, 422, "do not say their game"),
        ({"file": json.dumps({"dealer": 0}), "game": "farbwechsel"}, 422, "has no 'deal'"),
        ({"file": json.dumps(doc), "game": "koenigrufen"}, 422, "not 'koenigrufen'"),
        ({"file": json.dumps([1])}, 422, "do not say their game"),
    ]:
        r = client.post("/api/replay", json=body)
        assert r.status_code == status and message in r.json()["error"], (body, r.text)
    # a record the rules cannot produce opens, and its frames say why they cannot be drawn
    r = client.post("/api/replay", json={"file": json.dumps(bad), "game": "farbwechsel"})
    assert r.status_code == 200
    r = client.get(f"/api/replay/{r.json()['id']}/0/0")
    assert r.status_code == 422 and "does not replay: its 'scores'" in r.json()["error"]
    assert client.get(f"/api/replay/{rid}/1/0").json() == first  # the good replay is still there


def test_trickenv_serve_answers_the_page_on_its_port():
    """The command itself: `trickenv serve --port P` serves GET / (the page) on 127.0.0.1 until stopped."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "trickenv.cli", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = None
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    page = r.read().decode()
                    break
            except OSError:
                time.sleep(0.1)
        assert page is not None and "<title>trickenv: play and watch trick-taking games</title>" in page and "/static/app.js" in page
    finally:
        proc.terminate()
        out = proc.communicate(timeout=20)[0]
    assert f"serving on http://127.0.0.1:{port}/" in out


def test_serve_refuses_a_bad_port(capsys):
    from trickenv.cli import main

    with pytest.raises(SystemExit, match="--port must be 1..65535"):
        main(["serve", "--port", "70000"])


def test_a_thinking_agent_does_not_block_other_sessions(monkeypatch):
    """A's agents are held mid-move (they wait for an event); meanwhile B is served and A's second click is 409.

    The real server (uvicorn in a thread, real sockets): if A's thinking blocked the event loop, B's request
    would never be answered and the event would never be set (the test would fail on its timeouts).
    """
    import http.cookiejar
    import socket
    import threading
    import time
    import urllib.error
    import urllib.request

    import uvicorn

    from trickenv.play import Table

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.02)
    base = f"http://127.0.0.1:{port}"

    def browser():
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def call(method, path, body=None):
            data = None if body is None else json.dumps(body).encode()
            req = urllib.request.Request(base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
            try:
                with opener.open(req, timeout=30) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())
        return call

    a, b = browser(), browser()
    try:
        status, state = a("POST", "/api/play", {"game": "farbwechsel", "seed": 4, "seat": 0})
        assert status == 200 and state["your_turn"]
        assert b("POST", "/api/play", {"game": "four_tricks", "seed": 2})[0] == 200

        release, thinking = threading.Event(), threading.Event()
        original = Table.bot_action

        def slow(self):
            thinking.set()
            assert release.wait(30), "never released"
            return original(self)

        monkeypatch.setattr(Table, "bot_action", slow)
        legal = [c["card"] for c in state["hand"] if c["legal"]] + [m["action"] for m in state["moves"]]
        result = {}
        mover = threading.Thread(target=lambda: result.update(move=a("POST", "/api/play/move", {"action": legal[0]})))
        mover.start()
        assert thinking.wait(30)
        status, other = b("GET", "/api/play")  # answered while A's agent thinks
        assert status == 200 and other["game"] == "four_tricks"
        status, busy = a("POST", "/api/play/move", {"action": legal[0]})
        assert status == 409 and "busy" in busy["error"]
        release.set()
        mover.join(30)
        assert result["move"][0] == 200 and result["move"][1]["your_turn"]
    finally:
        release_all = locals().get("release")
        if release_all is not None:
            release_all.set()
        srv.should_exit = True


def test_a_hint_only_when_asked_on_your_turn_and_it_changes_nothing(client):
    from trickenv.agents.review import move_values
    from trickenv.play import Table

    r = client.post("/api/play", json={"game": "koenigrufen", "seat": 0, "opponents": ["rules"], "seed": 4})
    state = r.json()
    assert "value" not in json.dumps(state) and "spread" not in json.dumps(state)  # never shown unasked
    # the same table, built here, for the search's own values at the same position and seed
    table = Table("koenigrufen", seat_names(4, 0, ["rules"]), seed=4, output=__import__("io").StringIO())
    table.start()
    while table.players[table.to_act] is not None:
        table.apply(table.bot_action())
    checked = 0
    for _ in range(40):
        if state["finished"]:
            break
        hint = client.post("/api/play/hint", json={})
        assert hint.status_code == 200, hint.text
        h = hint.json()
        assert client.get("/api/play").json() == state  # asking changes nothing
        obs = table.observation()
        mine = move_values(table.spec, table.env.game, 0, obs["observation"], obs["action_mask"], seed=4)
        assert [m["action"] for m in h["moves"]] == mine.actions.tolist() and h["best"] == mine.best
        assert [m["value"] for m in h["moves"]] == [None if np.isnan(v) else round(float(v), 4) for v in mine.values]
        checked += h["searched"]
        action = h["moves"][-1]["action"]
        state = client.post("/api/play/move", json={"action": action}).json()
        table.apply(action)
        while not table.finished and table.players[table.to_act] is not None:
            table.apply(table.bot_action())
    assert checked >= 3 and state["finished"]
    r = client.post("/api/play/hint", json={})
    assert r.status_code == 409 and "the deals are over" in r.json()["error"]


def test_a_review_of_a_finished_deal_and_of_a_replayed_one(client):
    from trickenv.agents.review import review_record

    r = client.post("/api/play/review", json={})
    assert r.status_code == 404 and "start a game first" in r.json()["error"]
    state = client.post("/api/play", json={"game": "farbwechsel", "seat": 1, "opponents": ["rules"], "seed": 2}).json()
    r = client.post("/api/play/review", json={})
    assert r.status_code == 409 and "no deal is finished yet" in r.json()["error"]
    play_out(client, state)
    review = client.post("/api/play/review", json={}).json()
    assert review["seat"] == 1 and review["deal"] == 0 and len(review["moves"]) == 10
    for m in review["moves"]:
        assert m["seat"] == 1 and (m["loss"] is None or m["loss"] >= 0)
    other = client.post("/api/play/review", json={"seat": 0, "deal": 0}).json()
    assert other["seat"] == 0 and {m["seat"] for m in other["moves"]} == {0}
    for body, status, message in [({"deal": 1}, 404, "finished deal 0..0"), ({"seat": 3}, 400, "seat must be 0..2"),
                                  ({"seat": "x"}, 400, "seat must be"), ({"deal": [1]}, 400, "deal must be")]:
        r = client.post("/api/play/review", json=body)
        assert r.status_code == status and message in r.json()["error"], (body, r.text)

    rec = played_records("farbwechsel", {}, games=2, seed=9)
    doc = records_document("farbwechsel", {}, rec, [["x", "y", "z"]] * 2)
    rid = client.post("/api/replay", json={"file": json.dumps(doc)}).json()["id"]
    r = client.post(f"/api/replay/{rid}/1/review", json={"seat": 2, "seed": 5})
    assert r.status_code == 200, r.text
    mine = review_record("farbwechsel", {k: np.asarray(v[1]) for k, v in rec.items()}, 2, seed=5)
    assert [m["played"] for m in r.json()["moves"]] == [m.played for m in mine]
    assert [m["loss"] for m in r.json()["moves"]] == [None if not m.valued else round(m.loss, 4) for m in mine]
    for path, body, status, message in [(f"/api/replay/{rid}/5/review", {}, 404, "out of range"),
                                        (f"/api/replay/{rid}/0/review", {"seat": 4}, 400, "seat must be 0..2"),
                                        ("/api/replay/77/0/review", {}, 404, "no replay 77")]:
        r = client.post(path, json=body)
        assert r.status_code == status and message in r.json()["error"], (path, r.text)


def test_a_full_server_says_so_and_an_idle_session_expires(monkeypatch):
    from trickenv.web import sessions

    now = [1000.0]
    monkeypatch.setattr(sessions.time, "monotonic", lambda: now[0])
    app = create_app(max_sessions=2, idle_seconds=60)
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        assert a.post("/api/play", json={"game": "koenigrufen", "seed": 1}).status_code == 200
        b.get("/")
        r = c.get("/api/games")
        assert r.status_code == 503 and "the server is full: 2 sessions are open" in r.json()["error"]
        assert "trickenv_session" not in c.cookies
        now[0] += 30
        assert a.get("/api/play").status_code == 200  # a's table is still there; b has been idle 30 s
        now[0] += 40  # b idle 70 s: expired, a (40 s) not
        r = b.get("/api/play")  # b comes back: a new session, which says why the table is gone
        assert r.status_code == 404 and r.json()["error"].startswith("your session expired after 1 minute without")
        assert b.get("/api/play").json()["error"] == "no table in this session: start a game first"  # said once
        assert c.get("/").status_code == 503 and a.get("/api/play").status_code == 200
        now[0] += 61  # both idle: c gets a place
        assert c.get("/").status_code == 200 and "trickenv_session" in c.cookies


def test_watch_the_agents_play_move_by_move(client):
    spec = client.post("/api/spec", json={"game": "farbwechsel", "options": {"num_players": "4", "partnership": "True"}})
    assert spec.json()["players"] == 4 and "model" not in spec.json()["agents"]  # no shipped player of that variant
    assert "model" in client.post("/api/spec", json={"game": "farbwechsel"}).json()["agents"]
    r = client.post("/api/play", json={"game": "koenigrufen", "watch": True, "agents": ["rules", "random"], "seed": 5})
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["watch"] and state["you"] is None and len(state["hands"]) == 4  # a spectator sees every hand
    assert [s["name"] for s in state["seats"]] == ["rules", "random", "rules", "random"]
    assert client.post("/api/play/move", json={"action": 0}).status_code == 409
    steps = 0
    while not state["finished"]:
        before = state["log"]
        state = client.post("/api/play/step", json={}).json()
        steps += 1
        assert state["log"] != before  # each step is one move, said
    assert steps >= 32 and "deal 1 over" in " ".join(state["log"])
    r = client.post("/api/play/step", json={})
    assert r.status_code == 409 and "the deals are over" in r.json()["error"]
    assert client.post("/api/play/review", json={"seat": 1}).json()["seat"] == 1
    client.post("/api/play", json={"game": "koenigrufen", "seed": 1})
    r = client.post("/api/play/step", json={})
    assert r.status_code == 409 and "a person at it" in r.json()["error"]
    for body, message in [({"game": "koenigrufen", "watch": "yes"}, "watch must be true or false"),
                          ({"game": "koenigrufen", "watch": True, "agents": []}, "agents must be a list"),
                          ({"game": "koenigrufen", "watch": True, "agents": ["nobody"]}, "unknown agent 'nobody'")]:
        r = client.post("/api/play", json=body)
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)


def test_seats_carry_their_public_facts_only(client):
    """A bid at its seat once made; the caller at once, the partner only once the called card showed it (the same
    moment the public facts name it)."""
    state = client.post("/api/play", json={"game": "four_tricks", "options": {"bidding": "True"}, "seat": 0,
                                           "opponents": ["rules"], "seed": 3}).json()
    seen = play_out(client, state)
    assert all(len(s["badges"]) == 1 and s["badges"][0].startswith("bid ") for s in seen[-1]["seats"])
    partners = 0
    for seed in range(6):
        state = client.post("/api/play", json={"game": "koenigrufen", "seat": 0, "opponents": ["rules"],
                                               "seed": seed}).json()
        for st in play_out(client, state):
            badges = {s["seat"]: s["badges"] for s in st["seats"]}
            assert sum("caller" in b for b in badges.values()) == 1
            for q, b in badges.items():
                if "partner" in b:
                    partners += 1
                    assert f"partner P{q}" in st["facts"]
            if not any(f.startswith("partner P") or f == "caller alone" for f in st["facts"]):
                assert not any("partner" in b or "alone" in b for b in badges.values())
    assert partners


def test_the_finished_deals_download_as_records_that_review_and_replay_read(client, tmp_path):
    from trickenv.cli import main

    state = client.post("/api/play", json={"game": "koenigrufen", "seat": 2, "opponents": ["rules"], "seed": 6,
                                           "deals": 2}).json()
    r = client.get("/api/play/records")
    assert r.status_code == 409 and "no deal is finished yet" in r.json()["error"]
    play_out(client, state)
    r = client.get("/api/play/records")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    doc = r.json()
    assert doc["format"] == "trickenv-records" and len(doc["records"]) == 2
    assert doc["records"][0]["seats"][2] == "you"
    rid = client.post("/api/replay", json={"file": json.dumps(doc)}).json()["id"]
    last = client.get(f"/api/replay/{rid}/1/0").json()
    assert client.get(f"/api/replay/{rid}/1/{last['frames'] - 1}").json()["finished"]
    path = tmp_path / "deals.json"
    path.write_text(json.dumps(doc))
    main(["review", str(path), "--seat", "2", "--deal", "1", "--worlds", "8"])
    mine = client.post("/api/play/review", json={"deal": 1}).json()
    assert len(mine["moves"]) == 8 + sum(1 for m in mine["moves"] if m["played"] >= 32)
