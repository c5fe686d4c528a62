"""The play loop of an evaluation: every game of one chunk played in a batched env until its first deal ends.

Used for the chunks of a local run (:func:`trickenv.agents.evaluation.play_deals`) and inside each Ray task
(:func:`trickenv.agents.ray_chunks.chunk_task`), so both play the same games.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import numpy as np

from trickenv.agents.base import AgentError, act_rows
from trickenv.agents.progress import Clock, Progress
from trickenv.agents.tables import Chunk
from trickenv.vector import VecEnv

__all__ = ["play_chunk", "check_actions", "ask"]


def play_chunk(vec: VecEnv, chunk: Chunk, agents: list[Any], clock: Clock, progress: Progress,
               timeout: float | None = None) -> None:
    """Play every game of ``chunk`` in ``vec`` until its first deal ends, storing the records in ``chunk``.

    One ``act_batch`` call per agent per step with the rows where its seat is to act. An agent that raises,
    returns what is not one legal action per row, or (with ``timeout``) takes longer than ``timeout`` seconds a
    decision stops the play with an :class:`AgentError` naming it, the deal and the seat.
    """
    b = vec.num_envs
    rows_all = np.arange(b)
    obs, mask, player = vec.reset(deals=chunk.deals, dealers=chunk.dealers)
    active = np.ones(b, bool)
    actions = np.zeros(b, np.int64)
    deals_done = 0
    max_steps = 4 * (vec.spec.deck + 16)  # far above any deal's number of decisions
    for step in range(max_steps):
        owner = chunk.seat_agent[rows_all, player]
        for a, agent in enumerate(agents):
            rows = np.flatnonzero(active & (owner == a))
            if rows.size == 0:
                continue
            t0 = time.perf_counter()
            where = places(chunk, player)
            act = ask(agent, clock.names[a], obs[rows], mask[rows], vec.state, rows, timeout, where)
            clock.add_agent(a, time.perf_counter() - t0, rows.size)
            actions[rows] = check_actions(act, mask, rows, clock.names[a], where)
        t0 = time.perf_counter()
        obs, mask, player, _, _ = vec.step(actions, where=active)
        if vec.deal_end.any():
            rec = vec.deal_records()
            chunk.store(rec)
            active[rec["game"]] = False
            now = int(chunk.deals_done().sum())
            progress.deals(now - deals_done)
            deals_done = now
        clock.env += time.perf_counter() - t0
        progress.step(step + 1)
        if not active.any():
            return
    raise RuntimeError(f"{int(active.sum())} games did not finish their deal in {max_steps} steps")


def places(chunk: Chunk, player: np.ndarray) -> Callable[[int], str]:
    """Row -> "deal d, seat s" of a chunk's game at this step (for messages)."""
    return lambda row: f"deal {chunk.first_deal + row // chunk.num_seatings}, seat {int(player[row])}"


def ask(agent: Any, name: str, obs: np.ndarray, mask: np.ndarray, state: Any, rows: np.ndarray,
        timeout: float | None, where: Callable[[int], str]) -> Any:
    """``agent``'s actions for ``rows`` (:func:`act_rows`); AgentError if it raises or runs out of time."""
    def call() -> Any:
        return act_rows(agent, obs, mask, state, rows)

    try:
        if timeout is None:
            return call()
        return within(call, timeout * rows.size, f"agent {name} took longer than {timeout:g} s a decision "
                                                  f"(--agent-timeout), asked for {rows.size} at {where(rows[0])}")
    except AgentError:
        raise
    except Exception as e:
        first = where(int(rows[0])) + (f" and {rows.size - 1} more" if rows.size > 1 else "")
        raise AgentError(f"agent {name} raised {type(e).__name__}: {e} (asked at {first})") from e


def within(call: Callable[[], Any], seconds: float, message: str) -> Any:
    """``call()``, or AgentError(message) when it has not returned after ``seconds`` (it runs on in a daemon
    thread, which the process leaves behind when it ends)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = call()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AgentError(message)
    if "error" in box:
        raise box["error"]
    return box["out"]


def check_actions(act: Any, mask: np.ndarray, rows: np.ndarray, name: str,
                  where: Callable[[int], str] | None = None) -> np.ndarray:
    """``act`` as int64 if it holds one legal action per row, else AgentError naming the agent, what it
    returned and (with ``where``, row -> "deal d, seat s") where."""
    where = where or (lambda row: f"game {row}")
    act = np.asarray(act)
    if act.shape != rows.shape or act.dtype.kind not in "iu":
        got = f"{act.tolist()!r} ({act.dtype}, shape {act.shape})" if act.size <= 8 else f"{act.dtype} {act.shape}"
        raise AgentError(f"agent {name} returned {got} from act_batch at {where(int(rows[0]))}: expected "
                         f"{rows.size} integer action{'s' if rows.size > 1 else ''}, shape ({rows.size},)")
    act = act.astype(np.int64)
    ok = (act >= 0) & (act < mask.shape[1])
    ok[ok] = mask[rows[ok], act[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        kind = "illegal" if 0 <= act[i] < mask.shape[1] else f"out-of-range (actions are 0..{mask.shape[1] - 1})"
        raise AgentError(f"agent {name} chose {kind} action {int(act[i])} at {where(int(rows[i]))}; legal: "
                         f"{np.flatnonzero(mask[rows[i]]).tolist()}")
    return act
