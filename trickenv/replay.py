"""Deal records played back move by move: the replay of the web page (``trickenv serve``) and of code.

A deal record (docs/records.md) says who dealt, what every seat was dealt, and
who played which card in which trick, plus the game's own facts (the trump
declared, the bids, the call and the declarations). :func:`record_actions`
turns it back into the deal's actions by driving the real engine: at each
decision the card is the one the acting seat played in the current trick, and a
decision that is not a card (trump, a bid, the call, a declaration) is the
game's to read from its record (``GameSpec.worlds.record_action``). The replay ends
with the record the engine writes, which must equal the record given in every
field of the deal (:func:`check_same`), so a record that the rules
cannot produce is refused with the field that differs, never drawn wrongly.

:func:`load_records` reads what users have: the file of ``trickenv eval ...
--records FILE`` (:func:`records_document`), one record (an AEC env's info,
with the arrays as lists), a list of them, or the columns of
``vec.deal_records()`` (each value a list with one entry per game).
:func:`trickenv.table_replay.replay_frames` plays one record on the terminal's table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from trickenv.engine.layout import PH_PLAY, PHASE, TO_ACT, TRICK_NO
from trickenv.envs import make
from trickenv.games import GAMES, make_spec
from trickenv.games.base import GameSpec
from trickenv.games.options import MATCH_OPTIONS

__all__ = ["RecordSet", "load_records", "record_actions", "records_document", "FORMAT"]

FORMAT = "trickenv-records"  # the "format" of a records file (trickenv eval --records)
# Fields every record must have to be replayed (docs/records.md).
NEEDED = ("dealer", "deal", "played_by", "played_in")
# Fields that belong to the match, not to the deal: not compared after a replay of the deal alone.
MATCH_FIELDS = ("game", "round", "totals", "match_over", "winners")
MAX_RECORDS = 100_000


@dataclass
class RecordSet:
    """Records of one game and its options, ready to replay: ``records[i]`` as NumPy arrays, ``seats[i]``
    the names of the players per seat (from the file, or ``P0``, ``P1``, ...), ``labels[i]`` a short title."""

    game: str
    options: dict[str, Any]
    spec: GameSpec
    records: list[dict[str, np.ndarray]]
    seats: list[list[str]]
    labels: list[str]


def records_document(game: str, options: dict[str, Any], records: dict[str, np.ndarray],
                     seats: Sequence[Sequence[str]], labels: Sequence[str] | None = None) -> dict[str, Any]:
    """The JSON document of a records file: ``records`` in the columns of ``vec.deal_records()`` (leading
    axis = deals), ``seats[i]`` the players' names per seat of record i."""
    count = len(records["dealer"])
    rows = [{key: np.asarray(value[i]).tolist() for key, value in records.items() if key != "game"}
            for i in range(count)]
    for i, row in enumerate(rows):
        row["seats"] = list(seats[i])
        if labels is not None:
            row["label"] = labels[i]
    return {"format": FORMAT, "version": 1, "game": game, "options": dict(options), "records": rows}


def load_records(data: Any, game: str | None = None, options: dict[str, Any] | None = None) -> RecordSet:
    """Records from a parsed JSON document; ValueError (naming what is wrong) for anything else.

    ``data``: a records file (``{"format": "trickenv-records", "game", "options", "records": [...]}``), a
    document ``{"game", "options", "record" | "records"}``, one record, a list of records, or columns
    (``vec.deal_records()`` with ``.tolist()`` values). ``game`` and ``options`` are used when the document
    does not name them; a document that names another game than ``game`` is refused.
    """
    if isinstance(data, dict) and ("records" in data or "record" in data):
        named = data.get("game")
        if named is not None and game is not None and named != game:
            raise ValueError(f"the file holds {named!r} records, not {game!r}")
        game = named if named is not None else game
        if "options" in data:
            if not isinstance(data["options"], dict):
                raise ValueError(f"'options' must be an object of game options, got {type(data['options']).__name__}")
            options = data["options"]
        data = data["records"] if "records" in data else [data["record"]]
    if game is None:
        raise ValueError("the records do not say their game: choose one of " + ", ".join(GAMES))
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are {', '.join(GAMES)}")
    options = {k: v for k, v in dict(options or {}).items() if k not in MATCH_OPTIONS}
    if isinstance(data, dict):
        data = _rows(data)
    if not isinstance(data, list) or not data:
        raise ValueError("expected a deal record (an object with dealer, deal, played_by, played_in, ...), "
                         "a list of records or a records file")
    if len(data) > MAX_RECORDS:
        raise ValueError(f"{len(data)} records: at most {MAX_RECORDS:,} can be opened at once")
    base = make_spec(game, **_tuples(options))  # ValueError names a wrong option
    records, seats, labels = [], [], []
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise ValueError(f"record {i} is a {type(row).__name__}, not an object of record fields")
        rec = _arrays(base, row, i)
        records.append(rec)
        names = row.get("seats")
        if names is None:
            names = [f"P{p}" for p in range(base.num_players)]
        if (not isinstance(names, list) or len(names) != base.num_players
                or not all(isinstance(x, str) for x in names)):
            raise ValueError(f"record {i}: 'seats' must list {base.num_players} player names")
        seats.append([str(x) for x in names])
        label = row.get("label")
        labels.append(str(label) if label is not None else f"deal {i + 1}")
    return RecordSet(game, options, base, records, seats, labels)


def _tuples(options: dict[str, Any]) -> dict[str, Any]:
    """JSON has no tuples: lists in options (``switch_ranks``) as the tuples the games expect."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def _rows(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """One record, or the columns of several (``dealer`` a list): a list of record dicts."""
    dealer = columns.get("dealer")
    if not isinstance(dealer, list):
        return [columns]
    count = len(dealer)
    bad = [k for k, v in columns.items() if not isinstance(v, list) or len(v) != count]
    if bad:
        raise ValueError(f"columns of records must all have {count} entries (as 'dealer'); {bad[0]!r} has not")
    return [{k: v[i] for k, v in columns.items()} for i in range(count)]


def _arrays(spec: GameSpec, row: dict[str, Any], i: int) -> dict[str, np.ndarray]:
    """Record i as arrays of the shapes docs/records.md gives; ValueError for a missing or malformed field."""
    missing = [k for k in NEEDED if k not in row]
    if missing:
        raise ValueError(f"record {i} has no {missing[0]!r}: a deal record needs {', '.join(NEEDED)}")
    shapes = {"dealer": (), "deal": (spec.num_players, spec.cards_per_seat), "played_by": (spec.deck,),
              "played_in": (spec.deck,)}
    out: dict[str, np.ndarray] = {}
    for key, value in row.items():
        if key in ("seats", "label"):
            continue
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            raise ValueError(f"record {i}: field {key!r} is not a number or a rectangular list") from None
        if arr.dtype.kind == "b":
            arr = arr.astype(bool)
        elif arr.size and arr.dtype.kind not in "iu":
            raise ValueError(f"record {i}: field {key!r} must hold integers, got {arr.dtype.name} values")
        else:
            arr = arr.astype(np.int64)
        if key in shapes and arr.shape != shapes[key]:
            raise ValueError(f"record {i}: {key!r} has shape {list(arr.shape)}, {spec.name} records have "
                             f"{list(shapes[key])}")
        out[key] = arr
    n, deck = spec.num_players, spec.deck
    if not 0 <= int(out["dealer"]) < n:
        raise ValueError(f"record {i}: dealer {int(out['dealer'])} is not a seat 0..{n - 1}")
    for key, high in (("played_by", n - 1), ("played_in", spec.num_tricks - 1)):
        v = out[key]
        if ((v < -1) | (v > high)).any():
            raise ValueError(f"record {i}: {key!r} values must be -1 or 0..{high}")
    try:
        spec.deal_row(out["deal"], int(out["dealer"]))
    except ValueError as e:
        raise ValueError(f"record {i}: {e}") from None
    if deck and (out["played_by"] >= 0).sum() != n * spec.cards_per_seat:
        raise ValueError(f"record {i}: 'played_by' names {(out['played_by'] >= 0).sum()} played cards, "
                         f"the deal has {n * spec.cards_per_seat}")
    return out


def play_options(spec: GameSpec, rec: dict[str, np.ndarray], options: dict[str, Any]) -> dict[str, Any]:
    """The options that play the record's deal alone (a deal of a match: the game's ``record_options``)."""
    out = {k: v for k, v in options.items() if k not in MATCH_OPTIONS}
    if spec.worlds.record_options is not None:
        out.update(spec.worlds.record_options(spec, rec))
    return _tuples(out)


def record_actions(game: str, rec: dict[str, np.ndarray], options: dict[str, Any] | None = None) -> list[int]:
    """The actions of the deal in ``rec``, in order, found by stepping the engine (see the module doc);
    ValueError where the record leaves the rules (:func:`check_same` is not applied here:
    :func:`trickenv.table_replay.replay_frames` applies it)."""
    options = dict(options or {})
    spec = make_spec(game, **_tuples(options))
    env = make(game, illegal_action="raise", **play_options(spec, rec, options)).unwrapped
    env.reset(options={"deal": rec["deal"], "dealer": int(rec["dealer"])})

    def step(a: int) -> dict[str, Any]:
        agent = env.agent_selection
        env.step(a)
        return env.infos[agent]

    return replay_record(env.spec, rec, env, step)[0]


def replay_record(spec: GameSpec, rec: dict[str, np.ndarray], env: Any,
            step: Any) -> tuple[list[int], dict[str, np.ndarray]]:
    """Step the record's deal in ``env`` (an AEC env at the deal's start) with ``step(action) -> info``;
    return the actions and the record the engine wrote. ValueError where the record leaves the rules."""
    actions: list[int] = []
    limit = 4 * (spec.deck + 16)
    for _ in range(limit):
        s = env.game.s[0]
        seat = int(s[TO_ACT])
        a = spec.worlds.record_action(spec, rec, env.game, 0) if spec.worlds.record_action is not None else None
        if a is None:
            if int(s[PHASE]) != PH_PLAY:
                raise ValueError(f"the record has no decision for phase {spec.phase_name(int(s[PHASE]))} "
                                 f"of seat P{seat}")
            trick = int(s[TRICK_NO])
            held = int(env.game.hands[0, seat])
            due = [c for c in np.flatnonzero((rec["played_by"] == seat) & (rec["played_in"] == trick))
                   if (held >> int(c)) & 1]
            if len(due) != 1:
                raise ValueError(f"the record names {len(due)} cards of P{seat} for trick {trick + 1} that P{seat} "
                                 "still holds; one is needed")
            a = int(due[0])
        mask = env.observe(env.agent_selection)["action_mask"]
        if not 0 <= a < spec.num_actions or not mask[a]:
            legal = ", ".join(spec.action_str(int(x)) for x in np.flatnonzero(mask))
            raise ValueError(f"step {len(actions) + 1}: P{seat} {spec.action_str(int(a))} is not legal there "
                             f"(legal: {legal}): the record does not follow the rules of {spec.name}")
        actions.append(int(a))
        info = step(int(a))
        if info["deal_end"]:
            return actions, {k: np.asarray(v) for k, v in info.items()}
    raise ValueError(f"the deal did not end in {limit} steps")


def check_same(rec: dict[str, np.ndarray], replayed: dict[str, np.ndarray]) -> None:
    """ValueError naming the first field of the deal where ``rec`` differs from what the rules gave."""
    for key, value in rec.items():
        if key in MATCH_FIELDS or key not in replayed:
            continue
        mine = np.asarray(replayed[key])
        if value.shape != mine.shape or not np.array_equal(value.astype(np.int64), mine.astype(np.int64)):
            raise ValueError(f"the record does not replay: its {key!r} is {value.tolist()}, the rules give "
                             f"{mine.tolist()}")


def load_json(text: str | bytes, game: str | None = None, options: dict[str, Any] | None = None) -> RecordSet:
    """:func:`load_records` of a JSON text; ValueError with the position of a syntax error."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not a JSON file: {e}") from None
    return load_records(data, game, options)
