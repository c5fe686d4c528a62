"""Timing: a block's wall time (:class:`Timer`), CPU and wall clocks (:class:`Clock`), the batched env's
cost a step under random play (:func:`bench_vec`) and a search agent's milliseconds a decision
(:func:`ms_per_decision`). The speed benchmarks (benchmarks/) and the strength experiments share them.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

import trickenv
from trickenv.agents import make_agent
from trickenv.agents.random_agent import RandomAgent


class Timer:
    """``with Timer("label"):`` prints how long the block took."""

    def __init__(self, label: str) -> None:
        self.label = label

    def __enter__(self) -> "Timer":
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.seconds = time.perf_counter() - self.t0
        print(f"[{self.label}: {self.seconds:.1f} s]")


class Clock:
    """CPU and wall time of the timed sections."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0

    def time(self, fn: Callable, *args: Any) -> Any:
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn(*args)
        self.cpu += time.process_time() - c0
        self.wall += time.perf_counter() - w0
        return out


def bench_vec(game: str, options: dict, batch: int, seconds: float, threads: int = 1, kernel: str = "default",
              records: bool = False) -> tuple[float, float, float, float]:
    """(env ns/step cpu, wall, policy ns/decision cpu, wall) of random play in the batched env.

    ``kernel``: "default" (``VecEnv.step``) or "bare" (the compiled kernel called directly, without
    ``VecEnv.step``'s Python).
    """
    v = trickenv.make_vec(game, batch, seed=0, threads=threads, **options)
    agent = RandomAgent(0)
    obs, mask, player = v.reset()
    for _ in range(3):  # warm up
        obs, mask, player, rew, done = v.step(agent.act_batch(obs, mask))
    step = v.step
    if kernel == "bare":
        bound = v._bind()
        fn, fn_args = bound.call, bound.every

        def step(actions: np.ndarray) -> tuple:
            np.copyto(v._actions, actions)
            fn(*fn_args)
            return v._views
    env, pol = Clock(), Clock()
    calls = 0
    while env.cpu + pol.cpu < seconds or calls < 5:
        actions = pol.time(agent.act_batch, obs, mask)
        obs, mask, player, rew, done = env.time(step, actions)
        if records and v.deal_end.any():
            env.time(v.deal_records)
        calls += 1
    n = calls * batch
    return env.cpu / n * 1e9, env.wall / n * 1e9, pol.cpu / n * 1e9, pol.wall / n * 1e9


def ms_per_decision(game: str, agent: str, seconds: float, asked: int, options: dict | None = None,
                    **kwargs) -> float:
    """Milliseconds per decision of a search agent (``pimc`` or ``search``, default budget unless ``kwargs``
    say otherwise) when ``asked`` decisions come at once, in positions the rule-based agents reach in the
    variant ``options``."""
    spec = trickenv.make_spec(game, **(options or {}))
    searcher = make_agent(agent, spec, seed=0, **kwargs)
    rules = make_agent("rules", spec, seed=1)
    vec = trickenv.make_vec(game, 256, seed=3, **(options or {}))
    obs, mask, _ = vec.reset()
    rng = np.random.default_rng(0)
    spent, count = 0.0, 0
    searcher.act_batch(obs[:1], mask[:1], state=vec.state, games=np.arange(1))  # compile / load
    plays = spec.num_tricks * spec.num_players  # about the decisions of a deal
    while spent < seconds:
        # Every batch at a random point of the deal: the batch's games move in step (one vec), and without
        # this a slow agent asked 64 at once would only ever be timed at the first, dearest decisions.
        for _ in range(int(rng.integers(plays))):
            obs, mask, *_ = vec.step(rules.act_batch(obs, mask))
        rows = np.sort(rng.choice(vec.num_envs, size=asked, replace=False))
        t0 = time.perf_counter()
        searcher.act_batch(obs[rows], mask[rows], state=vec.state, games=rows)
        spent += time.perf_counter() - t0
        count += asked
    return spent / count * 1e3
