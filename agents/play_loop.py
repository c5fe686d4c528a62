"""The play loop of an evaluation: every game of one chunk played in a batched env until its first deal ends.

Used for the chunks of a local run (:func:`trickenv.agents.evaluation.play_deals`) and inside each Ray task
(:func:`trickenv.agents.ray_chunks.chunk_task`), so both play the same games.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from trickenv.agents.base import act_rows
from trickenv.agents.progress import Clock, Progress
from trickenv.agents.tables import Chunk
from trickenv.vector import VecEnv

__all__ = ["play_chunk", "check_actions"]


def play_chunk(vec: VecEnv, chunk: Chunk, agents: list[Any], clock: Clock, progress: Progress) -> None:
    """Play every game of ``chunk`` in ``vec`` until its first deal ends, storing the records in ``chunk``.

    One ``act_batch`` call per agent per step with the rows where its seat is to act.
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
            act = act_rows(agent, obs[rows], mask[rows], vec.state, rows)
            clock.add_agent(a, time.perf_counter() - t0, rows.size)
            actions[rows] = check_actions(act, mask, rows, clock.names[a])
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


def check_actions(act: Any, mask: np.ndarray, rows: np.ndarray, name: str) -> np.ndarray:
    """``act`` as int64 if it holds one legal action per row, else ValueError naming the agent."""
    act = np.asarray(act)
    if act.shape != rows.shape or act.dtype.kind not in "iu":
        raise ValueError(f"agent {name} returned {act.dtype} {act.shape} from act_batch; expected "
                         f"{rows.size} integer actions")
    act = act.astype(np.int64)
    ok = (act >= 0) & (act < mask.shape[1])
    ok[ok] = mask[rows[ok], act[ok]]
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"agent {name} chose illegal action {int(act[i])} in game {int(rows[i])}; legal: "
                         f"{np.flatnonzero(mask[rows[i]]).tolist()}")
    return act
