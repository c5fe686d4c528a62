"""The page of ``trickenv serve`` in a real browser: Debian's chromium driven by Selenium (marker ``browser``).

A uvicorn server runs the real app in a thread on a free port; each test opens
headless Chromium (a profile of its own, so a session of its own) and clicks
through the page as a person would. ``.ci/run`` installs chromium and
chromium-driver; without them these tests fail with the command to install them
(deselect them with ``-m "not browser"``; the fixture ``browser`` is in conftest.py). ``TRICKENV_SCREENSHOT=PATH`` keeps the
screenshot of a Farbwechsel table (the README's picture).
"""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

import trickenv
from trickenv.agents.evaluation import evaluate
from trickenv.engine.layout import DEALER

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def server():
    import uvicorn

    from trickenv.web import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    thread.join(10)


def by_id(driver, name):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, name)


def wait(driver, condition, what, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.03)
    raise AssertionError(f"timed out waiting for {what}; status: {by_id(driver, 'status').text!r}, "
                         f"message: {by_id(driver, 'message').text!r}")


def idle(driver):
    """Wait until no request of the page is in flight."""
    wait(driver, lambda: "busy" not in (driver.find_element("tag name", "body").get_attribute("class") or ""), "idle")


def open_page(driver, url):
    driver.get(url)
    wait(driver, lambda: driver.find_element("tag name", "body").get_attribute("data-ready") == "1", "the page")


def choose(driver, element_id, value):
    from selenium.webdriver.support.ui import Select

    Select(by_id(driver, element_id)).select_by_value(value)


def seats_ready(driver):
    """Wait until the page has the seats and agents of the game and options chosen (its /api/spec answered)."""
    wait(driver, lambda: driver.find_element("tag name", "body").get_attribute("data-seats") == "ready", "the seats")


def pick_game(driver, game):
    driver.find_element("css selector", f'.game-card[data-game="{game}"]').click()
    wait(driver, lambda: "chosen" in driver.find_element("css selector", f'.game-card[data-game="{game}"]')
         .get_attribute("class"), "the game")
    seats_ready(driver)


def start_table(driver, url, game, seat=0, opponents=("rules",), seed=None, deals=1, options=None, watch=False):
    open_page(driver, url)
    pick_game(driver, game)
    if watch:
        by_id(driver, "mode-watch").click()
        seats_ready(driver)
    for name, value in (options or {}).items():
        choose(driver, f"opt-{name}", value)
        seats_ready(driver)
    wait(driver, lambda: len(driver.find_elements("css selector", "#seat option")) == trickenv.make_spec(
        game, **{k: eval(v) for k, v in (options or {}).items()}).num_players, "the seats")
    if not watch:
        choose(driver, "seat", str(seat))
    selects = driver.find_elements("css selector", "#opponents select")
    for k in range(1, len(selects) + 1):  # the agents given, repeated round the table
        choose(driver, f"opponent-{k}", opponents[(k - 1) % len(opponents)])
    seed_box = by_id(driver, "seed")
    seed_box.clear()
    if seed is not None:
        seed_box.send_keys(str(seed))
    deals_box = by_id(driver, "deals")
    deals_box.clear()
    deals_box.send_keys(str(deals))
    by_id(driver, "start").click()
    wait(driver, lambda: by_id(driver, "status").get_attribute("data-your-turn") in ("0", "1")
         and by_id(driver, "status").get_attribute("data-game") == game, "the table")
    idle(driver)


def click_legal(driver):
    """Click a decision (trump, bid, call, declaration) if there is one, else the first legal card."""
    moves = driver.find_elements("css selector", "#moves button")
    cards = driver.find_elements("css selector", "#hand button.legal")
    target = (moves or cards)[0]
    text = target.text
    target.click()
    idle(driver)
    return text


def play_to_the_end(driver, limit=120):
    clicked = []
    for _ in range(limit):
        status = by_id(driver, "status")
        if status.get_attribute("data-finished") == "1":
            return clicked
        assert status.get_attribute("data-your-turn") == "1", status.text
        clicked.append(click_legal(driver))
        assert by_id(driver, "message").text == "", by_id(driver, "message").text
    raise AssertionError("the deal did not end")


def log_text(driver):
    """The table talk (folded away under its summary: its text, shown or not)."""
    return by_id(driver, "log").get_attribute("textContent")


def first_dealer(game, seed, **options):
    env = trickenv.make(game, **options).unwrapped
    env.reset(seed=seed)
    return int(env.game.s[0, DEALER])


def test_a_whole_deal_of_farbwechsel_by_clicks(server, browser):
    d = browser()
    dealer = first_dealer("farbwechsel", 21)
    start_table(d, server, "farbwechsel", seat=dealer, opponents=("rules", "pimc"), seed=21)
    clicked = play_to_the_end(d)
    assert clicked[0].startswith("trump"), clicked  # the person deals: they declare trump by a click
    assert len(clicked) == 11  # the declaration and ten cards
    assert "Final scores" in by_id(d, "results").text and "deal 1 over" in log_text(d)


def test_a_whole_deal_of_king_calling_with_the_call_by_clicks(server, browser):
    d = browser()
    caller = (first_dealer("koenigrufen", 8) + 1) % 4
    start_table(d, server, "koenigrufen", seat=caller, opponents=("rules", "random", "rules"), seed=8)
    clicked = play_to_the_end(d)
    assert clicked[0].startswith("call"), clicked
    assert "called" in log_text(d) and "Final scores" in by_id(d, "results").text


def test_a_whole_deal_of_four_tricks_with_bids_by_clicks(server, browser):
    d = browser()
    start_table(d, server, "four_tricks", seat=1, opponents=("random",), seed=4, options={"bidding": "True"})
    clicked = play_to_the_end(d)
    assert any(x.startswith("bid") for x in clicked), clicked
    assert len([x for x in clicked if not x.startswith(("bid", "trump"))]) == 16
    assert "Final scores" in by_id(d, "results").text


def test_an_illegal_click_shows_the_reason_and_changes_nothing(server, browser):
    d = browser()
    start_table(d, server, "farbwechsel", seat=0, opponents=("rules",), seed=5, deals=3)
    for _ in range(60):
        illegal = d.find_elements("css selector", "#hand button.illegal")
        trick = d.find_elements("css selector", "#trick .card")
        if by_id(d, "status").get_attribute("data-your-turn") == "1" and illegal and trick:
            break
        click_legal(d)
    else:
        raise AssertionError("no position with an illegal card in three deals")
    before = (by_id(d, "hand").text, log_text(d), by_id(d, "status").text)
    illegal[0].click()
    idle(d)
    message = wait(d, lambda: by_id(d, "message").text, "the reason")
    assert "you must" in message and "legal:" in message, message
    assert (by_id(d, "hand").text, log_text(d), by_id(d, "status").text) == before
    shot = os.environ.get("TRICKENV_SCREENSHOT")
    if shot:
        d.save_screenshot(shot)
    click_legal(d)  # and the game goes on
    assert by_id(d, "message").text == ""


def test_two_sessions_are_independent(server, browser):
    a, b = browser(), browser()
    start_table(a, server, "farbwechsel", seed=2)
    start_table(b, server, "four_tricks", seed=3)
    b_status = by_id(b, "status").text
    for _ in range(4):
        click_legal(a)
    b.refresh()  # the page asks the server for b's table again
    open_page(b, server)
    wait(b, lambda: by_id(b, "status").text, "b's table")
    assert by_id(b, "status").text == b_status
    assert by_id(a, "status").get_attribute("data-game") == "farbwechsel"


def test_replay_a_record_file_step_by_step(server, browser, tmp_path):
    results = evaluate("farbwechsel", ["rules", "random"], deals=4, seed=12, progress=False, ratings=False, records=True)
    path = tmp_path / "records.json"
    results.save_records(str(path))
    changes = results.table_data.records["trump_changes"]
    k = int(next(i for i, x in enumerate(changes) if x > 0))
    d = browser()
    open_page(d, server)
    by_id(d, "tab-replay").click()
    by_id(d, "record-file").send_keys(str(path))
    by_id(d, "open-record").click()
    wait(d, lambda: by_id(d, "step-label").get_attribute("data-step") == "0", "the first frame")
    choose(d, "replay-deal", str(k))
    wait(d, lambda: "seating" in by_id(d, "replay-status").text and by_id(d, "step-label").text.startswith("step 0"),
         "the deal")
    hands = d.find_elements("css selector", "#replay-hands .hand-row")
    assert len(hands) == 3 and all(len(h.find_elements("css selector", ".card")) == 10 for h in hands)

    def step():
        return int(by_id(d, "step-label").get_attribute("data-step"))

    def go(button):
        old = by_id(d, "step-label").text
        by_id(d, button).click()
        wait(d, lambda: by_id(d, "step-label").text != old, f"after {button}")

    seen_change = False
    for _ in range(12):  # trick by trick until trump changes
        go("next-trick")
        if "changed" in (by_id(d, "replay-change").get_attribute("class") or ""):
            seen_change = True
            break
    if not seen_change:  # the change is marked at the step that made it: look step by step
        go("first")
        for _ in range(40):
            go("next")
            if "changed" in (by_id(d, "replay-change").get_attribute("class") or ""):
                seen_change = True
                break
    assert seen_change and "TRUMP CHANGES" in by_id(d, "replay-change").text
    here = step()
    go("prev")
    assert step() == here - 1
    go("next")
    assert step() == here
    go("prev-trick")
    assert step() < here
    go("last")
    assert "deal over" in by_id(d, "replay-status").text
    assert all(len(h.find_elements("css selector", ".card")) == 0 for h in d.find_elements("css selector", "#replay-hands .hand-row"))
    go("first")
    assert step() == 0
    choose(d, "replay-seat", "1")  # the review of a recorded deal, for any seat
    by_id(d, "replay-review-button").click()
    rows = wait(d, lambda: d.find_elements("css selector", "#replay-review tr[data-step]"), "the replay's review")
    assert len(rows) >= 10 and "Review of P1" in by_id(d, "replay-review").text


SHOTS = os.environ.get("TRICKENV_SCREENSHOTS")  # a folder: the docs' pictures of the start, a trump change, a review


def shot(driver, name):
    if SHOTS:
        os.makedirs(SHOTS, exist_ok=True)
        driver.save_screenshot(os.path.join(SHOTS, name))


def test_the_start_screen_speaks_plain_words(server, browser):
    d = browser()
    open_page(d, server)
    cards = d.find_elements("css selector", ".game-card")
    assert [c.get_attribute("data-game") for c in cards] == list(trickenv.GAMES)
    for c in cards:  # a title and a line each, no identifier
        spec = trickenv.make_spec(c.get_attribute("data-game"))
        assert spec.text.title in c.text and spec.text.tagline in c.text
    pick_game(d, "farbwechsel")
    labels = by_id(d, "options").text
    from trickenv.games.options import MATCH_OPTIONS

    for o in trickenv.make_spec("farbwechsel").option_table:  # a match's options: "Deals" plays several instead
        assert (o.label in labels) == (o.name not in MATCH_OPTIONS) and o.name not in labels
    assert "queens and jacks" in labels and '("Q",)' not in labels
    assert [Select_value(d, f"opponent-{k}") for k in (1, 2)] == ["search", "model"]  # the sensible defaults
    shot(d, "start.png")


def Select_value(driver, element_id):
    from selenium.webdriver.support.ui import Select

    return Select(by_id(driver, element_id)).first_selected_option.get_attribute("value")


def test_watch_the_agents_and_see_trump_change(server, browser):
    d = browser()
    seed = next(s for s in range(40) if _changes_early("farbwechsel", s))
    start_table(d, server, "farbwechsel", opponents=("rules", "rules", "rules"), seed=seed, watch=True)
    assert len(d.find_elements("css selector", "#felt .seat")) == 3
    badge = wait(d, lambda: "changed" in (by_id(d, "trump-badge").get_attribute("class") or "") and by_id(d, "trump-badge"),
                 "a trump change", timeout=120)
    assert "TRUMP CHANGES" in by_id(d, "change-banner").text and "trump" in badge.text
    by_id(d, "pause-button").click()
    shot(d, "trump_change.png")
    by_id(d, "pause-button").click()
    wait(d, lambda: by_id(d, "status").get_attribute("data-finished") == "1", "the end of the deal", timeout=120)
    assert "Final scores" in by_id(d, "results").text


def _changes_early(game, seed):
    """Whether rules self-play of the deal of ``seed`` changes trump within its first four tricks."""
    from trickenv.play import Table
    import io

    t = Table(game, ["rules"] * 3, seed=seed, output=io.StringIO())
    t.start()
    while not t.finished:
        t.apply(t.bot_action())
        if t.env.events and t.env.events[0]["trick"] < 4:
            return True
    return False


def test_a_hint_and_a_review_on_the_table(server, browser):
    d = browser()
    start_table(d, server, "koenigrufen", seat=0, opponents=("rules",), seed=3)
    hinted = False
    for _ in range(40):
        if by_id(d, "status").get_attribute("data-finished") == "1":
            break
        legal = d.find_elements("css selector", "#hand button.legal")
        if not hinted and len(legal) > 1 and not d.find_elements("css selector", "#moves button"):
            assert not d.find_elements("css selector", "#hand .value")  # never shown unasked
            by_id(d, "hint-button").click()
            idle(d)
            values = wait(d, lambda: d.find_elements("css selector", "#hand .value"), "the hint")
            assert len(values) == len(legal) and len(d.find_elements("css selector", "#hand .best")) == 1
            assert "The search would play" in by_id(d, "hint-note").text
            hinted = True
        click_legal(d)
    assert hinted and by_id(d, "status").get_attribute("data-finished") == "1"
    by_id(d, "review-button").click()
    idle(d)
    rows = wait(d, lambda: d.find_elements("css selector", "#review tr[data-step]"), "the review")
    assert len(rows) >= 8 and "Review of P0, deal 1" in by_id(d, "review").text
    shot(d, "review.png")
    choose(d, "review-seat", "2")  # any seat of the deal
    by_id(d, "review-button").click()
    wait(d, lambda: "Review of P2, deal 1" in by_id(d, "review").text, "the review of P2")


def test_the_table_fits_a_phone(server, browser):
    d = browser()
    d.set_window_size(390, 844)
    open_page(d, server)
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    start_table(d, server, "four_tricks", seat=0, opponents=("rules",), seed=2)
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, width
    for card in d.find_elements("css selector", "#hand .card")[:3]:
        assert card.size["width"] >= 30 and card.location["x"] + card.size["width"] <= 390
    click_legal(d)
    assert by_id(d, "message").text == ""
