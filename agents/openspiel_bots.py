"""OpenSpiel's bots as trickenv agents: ``ismcts[:SIMS]``, ``mcts[:SIMS]`` and ``openspiel-random``.

They play trickenv's games through :mod:`trickenv.openspiel` (the ``openspiel`` extra), so they can be
named wherever agents are (``trickenv eval GAME --agents search,ismcts:500``, tournaments, play, serve).
Each decision makes the OpenSpiel state of the position (:func:`trickenv.openspiel.from_engine`) and asks
the bot; the bot sees only what the seat knows, because it searches worlds drawn by the state's
``resample_from_infostate`` (trickenv's world sampler), never the real hidden cards.

- ``ismcts``: OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``) with random
  rollouts. The Python bot: OpenSpiel's C++ ``ISMCTSBot`` crashes (a segmentation fault) when it resamples a
  state of a game written in Python, as trickenv's are. Its worlds come from a generator seeded from the
  agent's seed, so a run repeats exactly.
- ``mcts``: OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts``) on one world drawn per decision, with
  random rollouts: determinized search, a baseline.

Both evaluate a new leaf as OpenSpiel's ``RandomRolloutEvaluator`` does, by one playout of uniformly random
legal moves to the end, with the same uniform prior; :class:`EnginePlayouts` plays it in compiled code (one
call into the game's step kernel a playout instead of a Python round trip a move), and ISMCTS's worlds are
drawn from :mod:`trickenv.sampler` many at a time. ``playouts=openspiel`` keeps OpenSpiel's own evaluator.
- ``openspiel-random``: OpenSpiel's uniform random bot.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from numba import njit

from trickenv.engine.kernels import seed_states, uniform_int
from trickenv.games.base import GameSpec

SIMULATIONS = 500  # OpenSpiel's ISMCTS examples search 500 to 2000 simulations a move
UCT_C = 2.0
COMPILE_LABEL = "the random playouts of OpenSpiel's bots"  # trickenv.engine.first_run
COMPILE_NOTE = "in every process: numba cannot keep a kernel that takes another kernel on disk"
PLAYOUTS = ("engine", "openspiel")  # who plays the random playouts: EnginePlayouts, or OpenSpiel's evaluator
WORLDS_AT_ONCE = 64  # worlds ISMCTS draws in one call of the sampler


@njit(nogil=True)
def _random_playout(step, hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, mask,
                    obs, rewards, done, deal_end, totals, chooser):
    """Play uniformly random legal actions in the one game of the state until it ends; add the rewards to
    ``totals``. ``step`` is the game's step kernel (so this loop compiles once a game and process)."""
    actions = np.zeros(1, np.int64)
    where = np.ones(1, np.bool_)
    while not done[0]:
        k = uniform_int(chooser, 0, np.sum(mask[0]))
        for a in range(mask.shape[1]):
            if mask[0, a]:
                if k == 0:
                    actions[0] = a
                    break
                k -= 1
        step(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, actions, where, mask,
             obs, rewards, done, deal_end, False)
        totals += rewards[0]


def _game(spec: GameSpec) -> Any:
    try:
        from trickenv import openspiel
    except ImportError as e:
        raise ImportError(f"OpenSpiel's bots need the openspiel extra (pip install 'trickenv[openspiel]'): {e}") from None
    return openspiel.game_for_spec(spec)


class OpenSpielAgent:
    """Base: a bot of OpenSpiel asked for every decision of a trickenv game (``needs_state``)."""

    name = "openspiel"
    needs_state = True

    def __init__(self, spec: GameSpec, seed: int | None = None) -> None:
        self.spec = spec
        self.game = _game(spec)
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray, state: Any = None, games: Any = None) -> np.ndarray:
        """One action per row; ``games[i]`` is row i's game in the engine ``state``."""
        from trickenv import openspiel

        if state is None or games is None:
            raise ValueError(f"{self.name} plays from the engine state: call act_batch(obs, mask, state=, games=)")
        out = np.empty(len(games), np.int64)
        for i, g in enumerate(np.asarray(games)):
            position = openspiel.from_engine(self.game, state, int(g), mask[i])
            legal = position.legal_actions()
            action = legal[0] if len(legal) == 1 else int(self.choose(position))
            if not mask[i, action]:
                raise RuntimeError(f"{self.name} chose action {action}, which is not legal here")
            out[i] = action
        return out

    def act(self, observation: dict[str, np.ndarray], state: Any = None, game: int = 0) -> int:
        """One action for the AEC env: pass ``state=env.unwrapped.game``."""
        if state is None:
            raise ValueError(f"{self.name} needs the engine state: act(observation, state=env.unwrapped.game)")
        obs = np.asarray(observation["observation"], np.int8)[None, :]
        mask = np.asarray(observation["action_mask"]).astype(np.bool_)[None, :]
        return int(self.act_batch(obs, mask, state=state, games=np.array([game]))[0])

    def choose(self, position: Any) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def _sampler(self) -> Any:
        return lambda: float(self.rng.random())


class EnginePlayouts:
    """OpenSpiel's ``RandomRolloutEvaluator`` with one playout, played by trickenv's engine: a leaf's value is
    the returns at the end of uniformly random legal play from it; the prior is uniform over the legal actions.
    An ``open_spiel.python.algorithms.mcts.Evaluator``."""

    def __init__(self, seed: int) -> None:
        self.chooser = seed_states(seed, 1)

    def evaluate(self, state: Any) -> np.ndarray:
        totals = np.asarray(state.returns(), np.float64)
        if state.is_terminal():
            return totals
        if state.is_chance_node():
            raise ValueError("EnginePlayouts values decision nodes (OpenSpiel's MCTS and ISMCTS ask for no other)")
        game = state.get_game()
        spec = game.spec
        engine = state.engine.copy()
        rewards = np.zeros((1, spec.num_players), np.float32)
        _random_playout(spec.step_kernel, *engine.arrays(), spec.cfg, spec.tab, state.mask.copy(), game.obs_scratch,
                        rewards, np.zeros(1, np.bool_), game.deal_end_scratch, totals, self.chooser)
        return totals

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _evaluator(playouts: str, rng: np.random.Generator, state: np.random.RandomState) -> Any:
    from open_spiel.python.algorithms import mcts

    if playouts not in PLAYOUTS:
        raise ValueError(f"playouts must be one of {PLAYOUTS}, got {playouts!r}")
    if playouts == "openspiel":
        return mcts.RandomRolloutEvaluator(1, state)
    return EnginePlayouts(int(rng.integers(2**62)))


class _Worlds:
    """ISMCTS's resampler: worlds of the position it searches drawn ``WORLDS_AT_ONCE`` at a time (most of the
    sampler's cost is per call), handed out one a simulation."""

    def __init__(self, rng: np.random.Generator, at_once: int) -> None:
        self.rng = rng
        self.at_once = at_once
        self.position: Any = None  # kept, so that a new position is never the same object
        self.player = -1
        self.worlds: list[Any] = []

    def __call__(self, state: Any, player: int) -> Any:
        if state is not self.position or player != self.player or not self.worlds:
            self.position, self.player = state, player
            self.worlds = state.resample_worlds(player, self.at_once, int(self.rng.integers(2**62)))[::-1]
        return self.worlds.pop()


@functools.lru_cache(maxsize=None)
def _keyed_bot_class() -> type:
    from open_spiel.python.algorithms import ismcts

    class KeyedISMCTSBot(ismcts.ISMCTSBot):
        """OpenSpiel's ISMCTS keying its nodes by :meth:`~trickenv.openspiel.TrickState.information_state_key`:
        the same nodes as by the information state string (the same partition of states), without writing the
        text for every node a simulation visits."""

        def get_state_key(self, state: Any) -> tuple[int, bytes]:
            return state.current_player(), state.information_state_key()

    return KeyedISMCTSBot


class ISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's ISMCTS with random rollouts; ``sims`` simulations a decision."""

    name = "ismcts"

    def __init__(self, spec: GameSpec, seed: int | None = None, sims: int = SIMULATIONS, uct_c: float = UCT_C,
                 max_world_samples: int = -1, playouts: str = "engine") -> None:
        super().__init__(spec, seed)
        from open_spiel.python.algorithms import ismcts

        self.sims = _positive("ismcts", sims)
        state = np.random.RandomState(self.rng.integers(2**31))
        self.bot = _keyed_bot_class()(self.game, _evaluator(playouts, self.rng, state), float(uct_c), self.sims,
                                      max_world_samples=int(max_world_samples), random_state=state,
                                      final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        self.bot.set_resampler(_Worlds(self.rng, min(self.sims, WORLDS_AT_ONCE)))

    def choose(self, position: Any) -> int:
        return self.bot.step(position)


class MCTSAgent(OpenSpielAgent):
    """OpenSpiel's MCTS on one world a decision drawn from what the seat knows; ``sims`` simulations."""

    name = "mcts"

    def __init__(self, spec: GameSpec, seed: int | None = None, sims: int = SIMULATIONS, uct_c: float = UCT_C,
                 playouts: str = "engine") -> None:
        super().__init__(spec, seed)
        from open_spiel.python.algorithms import mcts

        self.sims = _positive("mcts", sims)
        state = np.random.RandomState(self.rng.integers(2**31))
        self.bot = mcts.MCTSBot(_ReturnsAtTheEnd(self.game), float(uct_c), self.sims,
                                _evaluator(playouts, self.rng, state), random_state=state, solve=False)

    def choose(self, position: Any) -> int:
        world = position.resample_from_infostate(position.current_player(), self._sampler())
        return self.bot.step(world)


def _positive(name: str, sims: Any) -> int:
    if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or sims < 1:
        raise ValueError(f"{name}: sims must be a positive integer, got {sims!r}")
    return int(sims)


class _ReturnsAtTheEnd:
    """The game as OpenSpiel's MCTS asks for it: with "terminal rewards". trickenv's games pay each deal's scores
    when it ends (a match of several deals pays several times); MCTS searches the returns at the end, which are
    the sum of those, so it plays the same game."""

    def __init__(self, game: Any) -> None:
        import pyspiel

        self._game = game
        self._type = type("GameType", (), {"reward_model": pyspiel.GameType.RewardModel.TERMINAL,
                                           "dynamics": game.get_type().dynamics})()

    def get_type(self) -> Any:
        return self._type

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


class OpenSpielRandomAgent(OpenSpielAgent):
    """OpenSpiel's uniform random bot."""

    name = "openspiel-random"

    def __init__(self, spec: GameSpec, seed: int | None = None) -> None:
        super().__init__(spec, seed)
        import pyspiel

        self.bots = [pyspiel.make_uniform_random_bot(seat, int(self.rng.integers(2**31)))
                     for seat in range(spec.num_players)]

    def choose(self, position: Any) -> int:
        return self.bots[position.current_player()].step(position)
