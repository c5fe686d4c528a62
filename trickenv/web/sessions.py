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
from typing import Any

import trickenv
from trickenv.games.option_text import parse_value
from trickenv.play import HINT, MATCH_OPTIONS, Table, agent_names, seat_names

# Agents a page may seat: names only. "model:PATH" would read a file the server was not given.
BUNDLED_AGENTS = ("random", "rules", "pimc", "search", "model")
OPENSPIEL_AGENTS = ("ismcts", "mcts", "openspiel-random")  # with the openspiel extra installed
MAX_SESSIONS = 256  # the least recently used session is dropped beyond this
MAX_REPLAYS = 4  # record files a session keeps open
MAX_FRAMES_CACHED = 32  # replayed deals a session keeps
MAX_DEALS = 100  # deals of one table
LOG_LINES = 400  # narration lines a state carries


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
    if game not in trickenv.GAMES:
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
    except (ValueError, TypeError) as e:
        raise RequestError(f"{game}: {e}") from None
    return out


def games_info(extra_agents: tuple[str, ...] = ()) -> dict[str, Any]:
    """Each game's options (the game's option table: name, default, allowed values, meaning) and the agents."""
    from trickenv.games.base import literal

    out = {}
    for game in trickenv.GAMES:
        spec = trickenv.make_spec(game)
        out[game] = {
            "players": spec.num_players,
            "options": [{"name": o.name, "value": literal(spec.options[o.name]), "default": o.default_doc,
                         "allowed": o.values, "comment": o.comment, "match": o.name in MATCH_OPTIONS}
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
        opponents = body.get("opponents", ["rules"])
        if isinstance(opponents, str):
            opponents = [x.strip() for x in opponents.split(",") if x.strip()]
        if not isinstance(opponents, list) or not opponents or not all(isinstance(x, str) for x in opponents):
            raise RequestError("opponents must be a list of agent names, e.g. [\"rules\", \"pimc\"]")
        allowed = web_agents() + tuple(extra_agents)
        bad = [x for x in opponents if x not in allowed]
        if bad:
            known = set(agent_names())
            why = "" if bad[0].partition(":")[0] not in known else " (a page seats agents by their names alone)"
            raise RequestError(f"unknown agent {bad[0]!r}{why}; choose from {', '.join(allowed)}")
        self.out = io.StringIO()
        try:
            names = seat_names(spec.num_players, seat, opponents)
            self.table = Table(game, names, deals=deals, seed=seed, options=options, output=self.out)
        except ValueError as e:
            raise RequestError(str(e)) from None
        self.game, self.options = game, options
        self.lock = threading.Lock()
        self.log: list[str] = []
        self.error: str | None = None
        with self.lock:
            self.table.start()
            self._bots()

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
        if not self.lock.acquire(blocking=False):
            raise RequestError("the table is busy: the agents are still thinking", 409)
        try:
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
        finally:
            self.lock.release()

    def state(self) -> dict[str, Any]:
        """The person's view (``Table.view``), the narration so far and, when over, the summary."""
        with self.lock:
            view = self.table.view()
        view.update(log=list(self.log), options={k: _plain(v) for k, v in self.options.items()})
        return view


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
            raise RequestError(f"no replay {rid} in this session: open a record file first", 404)
        return self.replays[rid]


class Sessions:
    """Sessions by their cookie; a new id for a browser without one (or with one the server forgot)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self.items: OrderedDict[str, Session] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, sid: str | None) -> tuple[str, Session]:
        with self.lock:
            if sid is None or sid not in self.items:
                sid = secrets.token_urlsafe(18)
                self.items[sid] = Session()
                while len(self.items) > self.limit:
                    self.items.popitem(last=False)
            self.items.move_to_end(sid)
            session = self.items[sid]
            session.seen = time.monotonic()
            return sid, session
