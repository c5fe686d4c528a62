"""What each browser session holds on the server: its table and its replays (no HTTP here).

A :class:`PlayTable` is a :class:`trickenv.play.Table` (the terminal's table: the
same engine, rules, narration and checks) driven one move at a time; the
agents' moves run in a worker thread of the web server, one table at a time
under the table's lock, so one session's thinking bot never blocks another
session. A :class:`Replay` holds the records a session opened and the frames of
the deals it looked at (:mod:`trickenv.replay`).

Everything that can be wrong in a request raises :class:`RequestError` (a 4xx
with a message) before anything changes.
"""

from __future__ import annotations

import importlib.util
import io
import secrets
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

import trickenv
from trickenv.games.option_text import parse_value
from trickenv.play import HINT, MATCH_OPTIONS, Table, agent_names, seat_names

# Agents a page may seat: names only. "model:PATH" would read a file the server was not given.
BUNDLED_AGENTS = ("random", "rules", "pimc", "search", "model")
OPENSPIEL_AGENTS = ("ismcts", "mcts", "openspiel-random")  # with the openspiel extra installed
MAX_SESSIONS = 256  # sessions open at once; a new browser beyond this is answered 503 until one expires
IDLE_SECONDS = 30 * 60  # a session not heard from for this long expires (its table and replays go)
EXPIRED_KEPT = 4096  # expired session ids remembered, to tell their browser why its table is gone
MAX_REPLAYS = 4  # record files a session keeps open
MAX_FRAMES_CACHED = 32  # replayed deals a session keeps
MAX_DEALS = 100  # deals of one table
LOG_LINES = 400  # narration lines a state carries
ANALYSES = 2  # hints and reviews computed at once (each is a search); more wait for a turn
ANALYSIS_WAIT = 30.0  # seconds a hint or review waits for its turn before the server says it is busy
_analysis_slots = threading.BoundedSemaphore(ANALYSES)


def web_agents() -> tuple[str, ...]:
    """The agents a page can seat, by their names alone: the bundled ones, and OpenSpiel's bots where the
    ``openspiel`` extra is installed."""
    return BUNDLED_AGENTS + (OPENSPIEL_AGENTS if importlib.util.find_spec("pyspiel") else ())


class RequestError(Exception):
    """A request the server refuses: ``status`` (4xx) and a message that says what was wrong."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def game_options(game: Any, raw: Any) -> dict[str, Any]:
    """The options of a request: ``{name: value}``, a string value read as the CLI reads it (``52``, ``True``)."""
    if not isinstance(game, str) or game not in trickenv.GAMES:
        raise RequestError(f"unknown game {game!r}; games are {', '.join(trickenv.GAMES)}")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RequestError(f"options must be an object of name: value, got {type(raw).__name__}")
    out = {}
    for key, value in raw.items():
        if isinstance(value, str):
            value = parse_value(value.strip())
        if isinstance(value, list):
            value = tuple(value)
        out[str(key)] = value
    try:
        trickenv.make_spec(game, **out)
    except (ValueError, TypeError, OverflowError) as e:
        raise RequestError(f"{game}: {e}") from None
    return out


def games_info(extra_agents: tuple[str, ...] = ()) -> dict[str, Any]:
    """Each game's options (the game's option table: name, default, allowed values, meaning) and the agents."""
    from trickenv.games.base import literal

    out = {}
    for game in trickenv.GAMES:
        spec = trickenv.make_spec(game)
        out[game] = {
            "title": spec.text.title, "tagline": spec.text.tagline, "players": spec.num_players,
            "options": [{"name": o.name, "label": o.label, "value": literal(spec.options[o.name]),
                         "default": o.default_doc, "allowed": o.values, "comment": o.comment,
                         "choices": [{"value": literal(v), "text": t} for v, t in o.choices],
                         "match": o.name in MATCH_OPTIONS}
                        for o in spec.option_table],
        }
    return {"games": out, "agents": list(web_agents()) + [a for a in extra_agents if a not in web_agents()]}


def _int(body: dict[str, Any], key: str, default: Any, what: str) -> Any:
    value = body.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{key} must be {what}, got {value!r}")
    return value


class PlayTable:
    """One session's table: a person's seat against agents (``Table``), played one move at a time."""

    def __init__(self, body: dict[str, Any], extra_agents: tuple[str, ...] = ()) -> None:
        """``extra_agents``: names the server was started with (``trickenv serve --agents``) that a page may
        seat besides :func:`web_agents`."""
        game = body.get("game")
        options = game_options(game, body.get("options"))
        spec = trickenv.make_spec(game, **options)
        seat = _int(body, "seat", 0, f"a seat 0..{spec.num_players - 1}")
        deals = _int(body, "deals", 1, f"a number of deals 1..{MAX_DEALS}")
        seed = _int(body, "seed", None, "an integer or empty")
        if not 1 <= deals <= MAX_DEALS:
            raise RequestError(f"deals must be 1..{MAX_DEALS}, got {deals}")
        self.watch = body.get("watch", False)
        if not isinstance(self.watch, bool):
            raise RequestError(f"watch must be true or false, got {self.watch!r}")
        key = "agents" if self.watch else "opponents"
        opponents = _agent_list(body.get(key, ["rules"]), key, web_agents() + tuple(extra_agents))
        self.out = io.StringIO()
        try:
            if self.watch:  # every seat an agent, in turn from seat 0
                names: list[str | None] = [opponents[q % len(opponents)] for q in range(spec.num_players)]
            else:
                names = seat_names(spec.num_players, seat, opponents)
            self.table = Table(game, names, deals=deals, seed=seed, options=options, output=self.out)
        except ValueError as e:
            raise RequestError(str(e)) from None
        self.game, self.options = game, options
        self.seed = 0 if seed is None else seed  # the hints' and reviews' search seed
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.error: str | None = None
        with self.lock:
            self.table.start()
            if not self.watch:
                self._bots()
            self._read()

    def step(self) -> None:
        """Watching: the next agent's move (the page asks for them one at a time, to show each)."""
        if not self.watch:
            raise RequestError("this table has a person at it: the agents move after your move", 409)
        with self._turn():
            if self.table.finished:
                raise RequestError("the deals are over: start a new table", 409)
            self.table.apply(self.table.bot_action())
            self._read()

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """The table's lock for a change of the table, or a 409 while the agents are still thinking."""
        if not self.lock.acquire(blocking=False):
            raise RequestError("the table is busy: the agents are still thinking", 409)
        try:
            yield
        finally:
            self.lock.release()

    def _read(self) -> None:
        text = self.out.getvalue()
        self.out.seek(0)
        self.out.truncate()
        self.log.extend(x for x in text.splitlines() if x.strip() and x != HINT)  # HINT: the keyboard's
        del self.log[:-LOG_LINES]

    def _bots(self) -> None:
        """Let the agents move until it is the person's turn or the deals are over (under the lock)."""
        t = self.table
        while not t.finished and t.players[t.to_act] is not None:
            t.apply(t.bot_action())
        self._read()

    def move(self, action: Any) -> None:
        """The person's move, then the agents' until the person's next turn; RequestError changes nothing."""
        with self._turn():
            t = self.table
            if t.finished:
                raise RequestError("the deals are over: start a new table", 409)
            if t.to_act != t.human:
                raise RequestError(f"it is P{t.to_act}'s turn, not yours", 409)
            if isinstance(action, str) and action.strip().isdigit():
                action = int(action)
            if isinstance(action, bool) or not isinstance(action, int):
                raise RequestError(f"action must be an action id (an integer), got {action!r}")
            try:
                t.apply(action)  # checks legality first: an illegal action changes nothing
            except ValueError as e:
                raise RequestError(str(e), 409) from None
            self._bots()

    def hint(self) -> dict[str, Any]:
        """The search's value of each of the person's legal moves now (:func:`trickenv.agents.review.move_values`,
        seeded by the table's seed); only on the person's turn."""
        from trickenv.agents.review import move_values

        with self._turn():
            t = self.table
            if t.finished:
                raise RequestError("the deals are over: a hint is for a move still to play", 409)
            if t.to_act != t.human:
                raise RequestError(f"it is P{t.to_act}'s turn: a hint is for your own move", 409)
            obs = t.observation()
            with analysis_slot():
                hint = move_values(t.spec, t.env.game, 0, obs["observation"], obs["action_mask"], seed=self.seed)
        return {**hint.as_dict(t.spec), "seed": self.seed}

    def records(self) -> dict[str, Any]:
        """The finished deals as a records file (docs/records.md): ``trickenv review FILE --seat N`` reads it,
        and so does Replay."""
        from trickenv.replay import records_document

        with self.lock:
            records = list(self.table.records)
            names = [name if name is not None else "you" for name in self.table.names]
        if not records:
            raise RequestError("no deal is finished yet: the records hold finished deals", 409)
        columns = {k: np.stack([r[k] for r in records]) for k in records[0]}
        labels = [f"deal {k + 1} (seed {self.seed})" for k in range(len(records))]
        return records_document(self.game, {k: _plain(v) for k, v in self.options.items()}, columns,
                                [names] * len(records), labels)

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        """``{deal, seat}``: every decision of ``seat`` (default yours) in finished deal ``deal`` (default the
        last), with the search's value of the move played against the best."""
        t = self.table
        with self.lock:
            records = list(t.records)
        if not records:
            raise RequestError("no deal is finished yet: a review is of a finished deal", 409)
        deal = _int(body, "deal", len(records) - 1, f"a finished deal 0..{len(records) - 1}")
        seat = _int(body, "seat", t.human if t.human is not None else 0, f"a seat 0..{t.spec.num_players - 1}")
        if not 0 <= deal < len(records):
            raise RequestError(f"deal must be a finished deal 0..{len(records) - 1}, got {deal}", 404)
        return review_json(self.game, records[deal], seat, self.options, t.spec, self.seed, deal)

    def state(self) -> dict[str, Any]:
        """The person's view (``Table.view``), the narration so far and, when over, the summary."""
        with self.lock:
            view = self.table.view(reveal=self.watch)  # a spectator sees every hand
        view.update(log=list(self.log), options={k: _plain(v) for k, v in self.options.items()}, watch=self.watch)
        return view


class analysis_slot:
    """One of the :data:`ANALYSES` slots for a search, or a 503 after :data:`ANALYSIS_WAIT` seconds."""

    def __enter__(self) -> None:
        if not _analysis_slots.acquire(timeout=ANALYSIS_WAIT):
            raise RequestError(f"the server is busy with other hints and reviews ({ANALYSES} at a time): "
                               "try again in a moment", 503)

    def __exit__(self, *exc: Any) -> None:
        _analysis_slots.release()


def review_json(game: str, record: dict[str, Any], seat: int, options: dict[str, Any], spec: Any, seed: int,
                deal: int) -> dict[str, Any]:
    """The review of one deal record for ``seat`` as the page reads it (RequestError on a bad seat)."""
    from trickenv.agents.review import review_record

    if not 0 <= seat < spec.num_players:
        raise RequestError(f"seat must be 0..{spec.num_players - 1}, got {seat}")
    try:
        with analysis_slot():
            moves = review_record(game, record, seat, options, seed=seed)
    except ValueError as e:
        raise RequestError(f"deal {deal}: {e}", 422) from None
    searched = [m.loss for m in moves if m.valued]
    return {"deal": deal, "seat": seat, "seed": seed, "lost": round(float(sum(searched)), 4),
            "searched": len(searched), "moves": [m.as_dict(spec) for m in moves]}


def _agent_list(value: Any, key: str, allowed: tuple[str, ...]) -> list[str]:
    """A request's list of agent names (a list, or one comma-separated string), each one the page may seat."""
    if isinstance(value, str):
        value = [x.strip() for x in value.split(",") if x.strip()]
    if not isinstance(value, list) or not value or not all(isinstance(x, str) for x in value):
        raise RequestError(f"{key} must be a list of agent names, e.g. [\"rules\", \"pimc\"]")
    bad = [x for x in value if x not in allowed]
    if bad:
        known = set(agent_names())
        why = "" if bad[0].partition(":")[0] not in known else " (a page seats agents by their names alone)"
        raise RequestError(f"unknown agent {bad[0]!r}{why}; choose from {', '.join(allowed)}")
    return value


def fitting_agents(spec: Any, extra_agents: tuple[str, ...] = ()) -> list[str]:
    """The agents a page may seat that can play ``spec`` (the shipped ``model`` plays the variants it was
    trained on)."""
    from trickenv.agents import make_agent

    out = []
    for name in web_agents() + tuple(a for a in extra_agents if a not in web_agents()):
        try:
            make_agent(name, spec, seed=0)
        except (ValueError, OSError, ImportError):
            continue
        out.append(name)
    return out


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


class Replay:
    """Records a session opened (:func:`trickenv.replay.load_records`) and the frames of deals looked at."""

    def __init__(self, records: Any) -> None:
        self.records = records
        self.frames: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self.lock = threading.Lock()

    def summary(self, rid: int) -> dict[str, Any]:
        r = self.records
        return {"id": rid, "game": r.game, "options": {k: _plain(v) for k, v in r.options.items()},
                "deals": [{"index": i, "label": r.labels[i], "seats": r.seats[i]} for i in range(len(r.records))]}

    def review(self, deal: Any, body: dict[str, Any]) -> dict[str, Any]:
        """``{seat, seed}``: every decision of ``seat`` in deal ``deal`` of the records, valued by the search."""
        r = self.records
        deal = _index(deal, "deal")
        if not 0 <= deal < len(r.records):
            raise RequestError(f"deal {deal} is out of range: the file has deals 0..{len(r.records) - 1}", 404)
        seat = _int(body, "seat", 0, f"a seat 0..{r.spec.num_players - 1}")
        seed = _int(body, "seed", 0, "an integer")
        return review_json(r.game, r.records[deal], seat, r.options, r.spec, seed, deal)

    def frame(self, deal: Any, step: Any) -> dict[str, Any]:
        """Frame ``step`` of deal ``deal``, with the deal's frame count and the first frame of each trick."""
        from trickenv.table_replay import replay_frames

        count = len(self.records.records)
        deal = _index(deal, "deal")
        step = _index(step, "step")
        if not 0 <= deal < count:
            raise RequestError(f"deal {deal} is out of range: the file has deals 0..{count - 1}", 404)
        with self.lock:
            frames = self.frames.get(deal)
            if frames is None:
                try:
                    frames = replay_frames(self.records, deal)
                except ValueError as e:
                    raise RequestError(f"deal {deal}: {e}", 422) from None
                self.frames[deal] = frames
                while len(self.frames) > MAX_FRAMES_CACHED:
                    self.frames.popitem(last=False)
            self.frames.move_to_end(deal)
        if not 0 <= step < len(frames):
            raise RequestError(f"step {step} is out of range: deal {deal} has steps 0..{len(frames) - 1}", 404)
        tricks = sorted({k for k, f in enumerate(frames) if k == 0 or f["trick_no"] != frames[k - 1]["trick_no"]})
        return {**frames[step], "frames": len(frames), "trick_starts": tricks, "deal_index": deal,
                "label": self.records.labels[deal]}


def _index(value: Any, what: str) -> int:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{what} must be a number, got {value!r}", 404)
    return value


class Session:
    """One browser session: at most one table and a few replays."""

    def __init__(self) -> None:
        self.table: PlayTable | None = None
        self.replays: OrderedDict[int, Replay] = OrderedDict()
        self.next_replay = 1
        self.seen = time.monotonic()
        self.expired: str | None = None  # why the browser's previous session is gone, if it expired

    def missing(self, what: str) -> str:
        """The message for a table or replay this session does not hold: ``what``, and why if it expired."""
        text = f"{self.expired}: {what}" if self.expired else what
        self.expired = None  # said once
        return text

    def add_replay(self, replay: Replay) -> int:
        rid = self.next_replay
        self.next_replay += 1
        self.replays[rid] = replay
        while len(self.replays) > MAX_REPLAYS:
            self.replays.popitem(last=False)
        return rid

    def replay(self, rid: Any) -> Replay:
        rid = _index(rid, "replay id")
        if rid not in self.replays:
            raise RequestError(self.missing(f"no replay {rid} in this session: open a record file first"), 404)
        return self.replays[rid]


class Sessions:
    """Sessions by their cookie: a new id for a browser without one (or with one the server forgot); at most
    ``limit`` open, each expiring after ``idle`` seconds without a request."""

    def __init__(self, limit: int = MAX_SESSIONS, idle: float = IDLE_SECONDS) -> None:
        self.limit = limit
        self.idle = idle
        self.items: OrderedDict[str, Session] = OrderedDict()  # least recently seen first
        self.expired: OrderedDict[str, None] = OrderedDict()
        self.lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self.items:
            sid, oldest = next(iter(self.items.items()))
            if now - oldest.seen <= self.idle:
                break
            del self.items[sid]
            self.expired[sid] = None
            while len(self.expired) > EXPIRED_KEPT:
                self.expired.popitem(last=False)

    def get(self, sid: str | None) -> tuple[str, Session]:
        """The session of cookie ``sid``, or a new one; RequestError 503 when ``limit`` sessions are open."""
        with self.lock:
            now = time.monotonic()
            self._expire(now)
            if sid is None or sid not in self.items:
                if len(self.items) >= self.limit:
                    raise RequestError(f"the server is full: {self.limit} sessions are open; a session expires "
                                       f"after {_minutes(self.idle)} without a request: try again later",
                                       503)
                session = Session()
                if sid is not None and sid in self.expired:  # said once, on the new session's first miss
                    del self.expired[sid]
                    session.expired = f"your session expired after {_minutes(self.idle)} without a request"
                sid = secrets.token_urlsafe(18)
                self.items[sid] = session
            self.items.move_to_end(sid)
            session = self.items[sid]
            session.seen = now
            return sid, session


def _minutes(seconds: float) -> str:
    m = round(seconds / 60, 1)
    return f"{m:g} minute{'' if m == 1 else 's'}"
