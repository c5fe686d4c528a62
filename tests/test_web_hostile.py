"""A hostile client of ``trickenv serve``: any JSON in any field of every route gets a 2xx or a 4xx JSON error,
never a 500, and never changes another session's table (hypothesis over the API's inputs)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from trickenv.replay import records_document
from trickenv.web import create_app

from .test_replay import played_records

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
    | st.sampled_from(["farbwechsel", "koenigrufen", "four_tricks", "rules", "search", "3", "-1", "True", "52",
                       "num_players", "bidding", "deck", "0", "1e9", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8)
FIELDS = {
    "/api/spec": ["game", "options"],
    "/api/play": ["game", "options", "seat", "opponents", "deals", "seed", "watch", "agents"],
    "/api/play/move": ["action"],
    "/api/play/step": [],
    "/api/play/hint": [],
    "/api/play/review": ["deal", "seat"],
    "/api/replay": ["file", "game", "options"],
    "/api/replay/1/0/review": ["seat", "seed"],
}
GOOD = {"game": "koenigrufen", "options": {}, "opponents": ["rules"], "seat": 0, "seed": 1}


def bodies(route):
    """A body with the route's fields (each a good value or any JSON) and maybe a stray field."""
    keys = FIELDS[route]
    values = {k: (st.just(GOOD[k]) if k in GOOD else st.nothing()) | JSON for k in keys}
    return st.fixed_dictionaries({}, optional={**values, "zz": JSON})


@pytest.fixture(scope="module")
def app_and_victim():
    app = create_app()
    with TestClient(app) as victim, TestClient(app) as attacker:
        victim.get("/")
        attacker.get("/")
        state = victim.post("/api/play", json={"game": "farbwechsel", "seed": 3, "opponents": ["rules"]}).json()
        rec = played_records("koenigrufen", {}, games=1, seed=2)
        doc = records_document("koenigrufen", {}, rec, [["a", "b", "c", "d"]])
        assert attacker.post("/api/replay", json={"file": json.dumps(doc)}).json()["id"] == 1  # for its review
        yield attacker, victim, state


def check(response):
    assert response.status_code < 500, response.text
    page = response.status_code == 200 and response.url.path == "/"  # a path that normalizes to the page
    assert page or response.headers["content-type"].startswith("application/json"), response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert isinstance(error, str) and error and "Traceback" not in error


@pytest.mark.parametrize("route", list(FIELDS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_json_gets_a_4xx_or_an_answer_never_a_500(app_and_victim, route, data):
    client, victim, state = app_and_victim
    client.post("/api/play", json=GOOD)  # a table, so that moves and reviews reach their checks
    body = data.draw(bodies(route))
    check(client.post(route, json=body))
    raw = data.draw(st.binary(max_size=40) | st.just(b"null") | st.just(b"[]") | st.just(b'"x"'))
    check(client.post(route, content=raw, headers={"content-type": "application/json"}))
    assert victim.get("/api/play").json() == state  # another session's table never changes


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.text(alphabet="0123456789-x%./", min_size=1, max_size=6), min_size=3, max_size=3))
def test_any_replay_path_gets_a_json_answer_or_the_page(app_and_victim, parts):
    client, victim, state = app_and_victim
    check(client.get("/api/replay/" + "/".join(parts)))
