"""Solve fully known positions: the value of every legal move when every hand is open.

:class:`Solver` wraps a game's perfect-information solver (``GameSpec.solve_kernel``,
alpha-beta over the game's own rules: :mod:`trickenv.engine.alphabeta` says how). It
reads every hand of the positions it is given, so a player may only give it positions
it made up: the search agent's sampled worlds (:mod:`trickenv.agents.search`), never
the real game.

    >>> from trickenv.vector import VecEnv
    >>> from trickenv.solver import Solver
    >>> vec = VecEnv("farbwechsel", 4, seed=0)
    >>> solver = Solver(vec.spec)
    >>> values = solver.move_values(vec.state, [0, 1], seats=vec.state.s[[0, 1], 2])

A deal's value for a seat is its deal score (King Calling: its payment) plus
``tiebreak`` times its side's card points / 120; the seat's side maximizes it, the
other seats minimize it (paranoid: exact for two sides, pessimistic with three).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from trickenv.engine.layout import PH_DONE, PH_PLAY, PHASE, TRICK_NO
from trickenv.engine.state import State
from trickenv.games.base import GameSpec

if TYPE_CHECKING:
    from trickenv.vector import VecEnv

# How the other seats play in the solved worlds: "paranoid", against the seat's side (exact for two sides);
# "selfish", each for its own value (max^n, no pruning; for three or more sides).
OPPONENTS = ("paranoid", "selfish")


class Solver:
    """Exact alpha-beta values of fully known positions of one game.

    ``tt_bits``: the transposition table holds ``2**tt_bits`` entries (33 bytes each),
    kept from call to call (an entry is keyed by the whole position and the seat, so it
    stays true). ``merge``, ``use_tt``: the solver's tools, on by default (off only to
    measure them or to check the solver against brute force). ``cards_only``: leave
    King Calling's declarations out of the search (play cards only, declare nothing).
    ``opponents``: ``"paranoid"`` (the other sides minimize the seat's value: exact with
    two sides) or ``"selfish"`` (every seat maximizes its own value, max^n: a model of
    three independent players; ties go against the seat).
    ``nodes`` counts the positions visited so far.
    """

    def __init__(self, spec: GameSpec, tiebreak: float = 0.0, tt_bits: int = 18, merge: bool = True,
                 use_tt: bool = True, cards_only: bool = False, opponents: str = "paranoid") -> None:
        if spec.solve_kernel is None:
            raise ValueError(f"{spec.name} has no perfect-information solver (GameSpec.solve_kernel)")
        if isinstance(tt_bits, bool) or not isinstance(tt_bits, (int, np.integer)) or not 4 <= tt_bits <= 28:
            raise ValueError(f"tt_bits must be an integer from 4 to 28, got {tt_bits!r}")
        self.spec = spec
        self.tiebreak = float(tiebreak)
        self.merge = bool(merge)
        self.use_tt = bool(use_tt)
        self.cards_only = bool(cards_only)
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {', '.join(OPPONENTS)}, got {opponents!r}")
        self.opponents = opponents
        size = 1 << int(tt_bits)
        self.tt_keys = np.zeros(size, np.uint64)
        self.tt_lo = np.zeros(size, np.float64)
        self.tt_hi = np.zeros(size, np.float64)
        self.tt_move = np.zeros(size, np.int64)
        self.tt_vec = np.zeros((size if opponents == "selfish" else 1, 4), np.float64)
        self.counter = np.zeros(1, np.int64)

    @property
    def nodes(self) -> int:
        """Positions visited by every call so far."""
        return int(self.counter[0])

    def move_values(self, state: State, games, seats) -> np.ndarray:
        """``[len(games), num_actions]``: for ``seats[i]``, the value of each legal action of the seat to act in
        game ``games[i]`` (NaN for illegal ones)."""
        return self._run(state, games, seats, True)

    def position_values(self, state: State, games, seats) -> np.ndarray:
        """``[len(games)]``: the value of each position for ``seats[i]``, all seats playing perfectly."""
        return self._run(state, games, seats, False)[:, 0]

    def _run(self, state: State, games, seats, per_move: bool) -> np.ndarray:
        games = np.ascontiguousarray(np.asarray(games, np.int64).reshape(-1))
        seats = np.ascontiguousarray(np.asarray(seats, np.int64).reshape(-1))
        if len(seats) != len(games):
            raise ValueError(f"seats must name one seat per game ({len(games)}), got {len(seats)}")
        if len(games) and (games.min() < 0 or games.max() >= state.batch_size):
            raise ValueError(f"games must be indices below the batch size {state.batch_size}")
        if len(seats) and (seats.min() < 0 or seats.max() >= self.spec.num_players):
            raise ValueError(f"seats must be from 0 to {self.spec.num_players - 1}")
        if len(games) and (state.s[games, PHASE] == PH_DONE).any():
            raise ValueError("a position to solve has ended its match (phase 'done')")
        values = np.full((len(games), self.spec.num_actions), np.nan)
        if len(games):
            self.spec.solve_kernel(*state.arrays(), self.spec.cfg, self.spec.tab, games, seats, per_move,
                                   self.tiebreak, self.cards_only, self.merge, self.use_tt,
                                   self.opponents == "selfish", self.tt_keys, self.tt_lo, self.tt_hi, self.tt_move,
                                   self.tt_vec, values, self.counter)
        return values


def random_endgames(game: str, tricks_left: int, n: int, seed: int = 0, **options) -> tuple["VecEnv", np.ndarray]:
    """``n`` games of ``game`` played by random legal moves until ``tricks_left`` tricks are left, some of them
    a few cards into the next trick; returns the batched env (its ``state`` holds the positions) and their
    legal-action masks. Positions to test and time the solver on."""
    from trickenv.envs import make_vec

    v = make_vec(game, n, seed=seed, **options)
    if not 1 <= tricks_left <= v.spec.num_tricks:
        raise ValueError(f"tricks_left must be from 1 to {v.spec.num_tricks}, got {tricks_left!r}")
    obs, mask, _ = v.reset()
    rng = np.random.default_rng(seed)
    goal = v.spec.num_tricks - tricks_left
    into = rng.integers(0, v.spec.num_players, n)  # cards to play into the first trick of the endgame
    played = np.zeros(n, np.int64)
    while True:
        s = v.state.s
        playing = s[:, PHASE] == PH_PLAY
        at_goal = playing & (s[:, TRICK_NO] == goal)
        live = (s[:, PHASE] < PH_PLAY) | (playing & (s[:, TRICK_NO] < goal)) | (at_goal & (played < into))
        played += at_goal
        if not live.any():
            return v, mask.copy()
        obs, mask, _, _, _ = v.step((rng.random(mask.shape) * mask).argmax(axis=1), where=live)
