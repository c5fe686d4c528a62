"""The perfect-information solver: equal to brute-force minimax on small endgames, and its line plays out to its value."""

from __future__ import annotations

import numpy as np
import pytest

import trickenv
from trickenv.engine.layout import PH_PLAY, PHASE, TO_ACT
from trickenv.engine.state import State
from trickenv.games import koenigrufen as kc
from trickenv.solver import Solver, random_endgames
from trickenv.agents.search_defaults import search_defaults
from tests.variants import IDS, VARIANTS


def endgames(game: str, options: dict, tricks_left: int, n: int, seed: int):
    v, mask = random_endgames(game, tricks_left, n, seed, **options)
    assert (v.state.s[:, PHASE] == PH_PLAY).all()
    return v, mask


def same_side(spec, s_row: np.ndarray, me: int, q: int) -> bool:
    """Whether seat q plays for seat me, read from the rules (not from the solver's hooks)."""
    if spec.name == "koenigrufen":
        calling = {int(s_row[kc.CALLER]), int(s_row[kc.PARTNER])}
        return (q in calling) == (me in calling)
    if spec.options.get("partnership"):
        return q % 2 == me % 2
    return q == me


def step_one(spec, state: State, mask: np.ndarray, a: int) -> tuple[State, np.ndarray, np.ndarray, bool]:
    """A copy of one game after action ``a`` through the step kernel: (state, its mask [1, A], rewards, deal ended)."""
    child = state.copy()
    m = mask[None].copy()
    obs = np.zeros((1, spec.obs_size), np.int8)
    rewards = np.zeros((1, spec.num_players), np.float32)
    done, deal_end = np.zeros(1, bool), np.zeros(1, bool)
    bad = spec.step_kernel(*child.arrays(), spec.cfg, spec.tab, np.array([a]), np.ones(1, bool), m, obs, rewards,
                           done, deal_end, False)
    assert bad == 0
    return child, m, rewards[0], bool(deal_end[0])


def brute_force(spec, state: State, mask: np.ndarray, me: int, tiebreak: float) -> tuple[float, np.ndarray]:
    """Plain minimax over the step kernel (no pruning, no table): the position's value for ``me`` and each legal
    action's. ``state`` holds one game."""
    values = np.full(spec.num_actions, np.nan)
    maximize = same_side(spec, state.s[0], me, int(state.s[0, TO_ACT]))
    for a in np.flatnonzero(mask):
        child, m, rewards, ended = step_one(spec, state, mask, a)
        if ended:
            value = float(rewards[me])
            if tiebreak:
                rec = spec.records(spec, child, np.array([0]))
                value += tiebreak * float(spec.side_points(spec, rec, np.array([me]))[0]) / 120.0
        else:
            value = brute_force(spec, child, m[0], me, tiebreak)[0]
        values[a] = value
    legal = values[mask]
    return (legal.max() if maximize else legal.min()), values


CASES = VARIANTS  # matches of several deals too: a deal's end is the end of the search
CASE_IDS = IDS


@pytest.mark.parametrize("game,options", CASES, ids=CASE_IDS)
def test_solver_equals_brute_force_minimax_on_small_endgames(game, options):
    """Every legal move's value, with the table and merging on and off, against plain minimax, in the last
    2-3 tricks (some positions mid-trick), for a seat to act and for another seat."""
    spec = trickenv.make_spec(game, **options)
    tiebreak = search_defaults(spec).tiebreak
    for tricks_left, n in ((2, 6), (3, 3)):
        v, mask = endgames(game, options, tricks_left, n, seed=11 + tricks_left)
        games = np.arange(n)
        to_act = v.state.s[:, TO_ACT].astype(np.int64)
        for me in (to_act, (to_act + 1) % spec.num_players):
            expected = np.array([brute_force(spec, v.state.take([g]), mask[g], int(me[g]), tiebreak)[1]
                                 for g in games])
            for merge, use_tt in ((True, True), (False, True), (True, False), (False, False)):
                solver = Solver(spec, tiebreak=tiebreak, merge=merge, use_tt=use_tt, tt_bits=12)
                got = solver.move_values(v.state, games, me)
                assert np.array_equal(np.isnan(got), np.isnan(expected))
                np.testing.assert_allclose(got[mask], expected[mask], atol=1e-9)
                best = [np.nanmax(row) if same_side(spec, v.state.s[g], int(me[g]), int(to_act[g]))
                        else np.nanmin(row) for g, row in zip(games, got, strict=True)]
                np.testing.assert_allclose(solver.position_values(v.state, games, me), best, atol=1e-9)


def brute_force_selfish(spec, state: State, mask: np.ndarray, me: int, tiebreak: float) -> np.ndarray:
    """Plain max^n over the step kernel: every seat's value ``[4]`` of the position, each seat choosing the move best
    for itself, and among equals the one worse for ``me`` unless it is on ``me``'s side."""
    mover = int(state.s[0, TO_ACT])
    ally = same_side(spec, state.s[0], me, mover)
    best = None
    for a in np.flatnonzero(mask):
        child, m, rewards, ended = step_one(spec, state, mask, a)
        if ended:
            value = np.zeros(4)
            value[:spec.num_players] = rewards
            if tiebreak:
                rec = spec.records(spec, child, np.zeros(spec.num_players, np.int64))
                value[:spec.num_players] += tiebreak * spec.side_points(spec, rec, np.arange(spec.num_players)) / 120
        else:
            value = brute_force_selfish(spec, child, m[0], me, tiebreak)
        if best is None or value[mover] > best[mover] or (
                value[mover] == best[mover] and not ally and value[me] < best[me]):
            best = value
    return best


@pytest.mark.parametrize("game,options", [v for v in VARIANTS if v[0] != "koenigrufen"],
                         ids=[i for v, i in zip(VARIANTS, IDS, strict=True) if v[0] != "koenigrufen"])
def test_selfish_solver_equals_brute_force_max_n(game, options):
    """``opponents="selfish"`` (every seat for itself) against plain max^n, with and without the table and merging."""
    spec = trickenv.make_spec(game, **options)
    v, mask = endgames(game, options, 2, 6, seed=5)
    games = np.arange(6)
    me = v.state.s[:, TO_ACT].astype(np.int64)
    expected = [brute_force_selfish(spec, v.state.take([g]), mask[g], int(me[g]), 0.0)[me[g]] for g in games]
    for merge, use_tt in ((True, True), (False, False)):
        solver = Solver(spec, merge=merge, use_tt=use_tt, opponents="selfish", tt_bits=12)
        np.testing.assert_allclose(solver.position_values(v.state, games, me), expected, atol=1e-9)
        values = solver.move_values(v.state, games, me)
        np.testing.assert_allclose(np.nanmax(values, axis=1), expected, atol=1e-9)


@pytest.mark.parametrize("game", ["four_tricks", "farbwechsel", "koenigrufen"])
def test_solver_line_plays_out_to_its_value(game):
    """Every seat playing the solver's choice (its side maximizing seat 0's value, the others minimizing it) ends the
    deal with exactly the value the solver gave at the start of the endgame."""
    spec = trickenv.make_spec(game)
    v, mask = endgames(game, {}, 4, 8, seed=3)
    solver = Solver(spec, tiebreak=search_defaults(spec).tiebreak)
    me = np.zeros(8, np.int64)
    start = solver.position_values(v.state, np.arange(8), me)
    state = v.state.copy()
    final = np.full(8, np.nan)
    for g in range(8):
        game_state, m = state.take([g]), mask[g][None].copy()
        while True:
            values = solver.move_values(game_state, [0], [0])[0]
            side = same_side(spec, game_state.s[0], 0, int(game_state.s[0, TO_ACT]))
            a = int(np.nanargmax(values) if side else np.nanargmin(values))
            assert m[0, a]
            game_state, m, rewards, ended = step_one(spec, game_state, m[0], a)
            if ended:
                rec = spec.records(spec, game_state, np.array([0]))
                final[g] = rewards[0] + search_defaults(spec).tiebreak * spec.side_points(spec, rec, np.array([0]))[0] / 120
                break
    np.testing.assert_allclose(final, start, atol=1e-6)


def test_solver_rejects_bad_input():
    spec = trickenv.make_spec("four_tricks")
    v, _ = endgames("four_tricks", {}, 2, 2, seed=0)
    solver = Solver(spec)
    with pytest.raises(ValueError, match="one seat per game"):
        solver.move_values(v.state, [0, 1], [0])
    with pytest.raises(ValueError, match="below the batch size 2"):
        solver.move_values(v.state, [2], [0])
    with pytest.raises(ValueError, match="seats must be from 0 to 2"):
        solver.position_values(v.state, [0], [3])
    with pytest.raises(ValueError, match="tt_bits must be an integer from 4 to 28"):
        Solver(spec, tt_bits=40)
    with pytest.raises(ValueError, match="opponents must be one of paranoid, selfish"):
        Solver(spec, opponents="kind")
