"""A deal record played back on the terminal's table: one frame per step, every hand face up (the replay of
the web page, ``trickenv serve``). The record's moves come from :func:`trickenv.replay.record_actions`' replay;
the replayed record must equal the given one in every field of the deal, or the record is refused."""

from __future__ import annotations

import io
from typing import Any

from trickenv.play import Table
from trickenv.replay import RecordSet, check_same, play_options, replay_record


def replay_frames(records: RecordSet, index: int) -> list[dict[str, Any]]:
    """Frames of record ``index``: frame 0 is the deal before the first decision, frame k the table after
    step k. Each frame is :meth:`trickenv.play.Table.view` with every hand (``reveal``) plus ``step``,
    ``lines`` (the terminal's words for that step) and ``trump_change`` (the step changed trump)."""
    if not 0 <= index < len(records.records):
        count = len(records.records)
        raise IndexError(f"record {index} is out of range: there are {count} (0..{count - 1})")
    rec = records.records[index]
    out = io.StringIO()
    n = records.spec.num_players
    table = Table(records.game, records.seats[index], options=play_options(records.spec, rec, records.options),
                  output=out, players=[None] * n,
                  first_deal={"deal": rec["deal"], "dealer": int(rec["dealer"])})
    frames: list[dict[str, Any]] = []

    def frame(step: int, trump_change: bool) -> None:
        text = out.getvalue()
        out.seek(0)
        out.truncate()
        view = table.view(reveal=True)
        view.update(step=step, lines=[x for x in text.splitlines() if x.strip()], trump_change=trump_change)
        frames.append(view)

    table.start()
    frame(0, False)

    def step(action: int) -> dict[str, Any]:
        info = table.apply(action)
        frame(len(frames), any(e.get("event") == "trump_change" for e in table.env.last_events))
        return info

    _, replayed = replay_record(table.spec, rec, table.env, step)
    check_same(rec, replayed)
    return frames
