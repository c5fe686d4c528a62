"""Search over solved worlds: PIMC whose worlds are solved exactly in the endgame.

``search`` is :class:`trickenv.agents.pimc.PIMCAgent` with the perfect-information
solver (:class:`trickenv.solver.Solver`) in the place where it can be afforded. For
each decision it samples ``worlds`` deals of the hidden cards consistent with what the
seat knows (:func:`trickenv.sampler.sample_worlds`), and values each legal action in
each world:

- once at most ``solve_tricks`` tricks are left (the endgame), by solving the world:
  every seat plays perfectly with every hand open (the solver's paranoid value);
- earlier, by playing the rest of the deal out with the ``rollout`` policy (the
  rule-based agent; in Four Tricks a trained player, :mod:`trickenv.agents.search_defaults`) *until* the endgame
  starts, and solving the position reached.

The action with the best mean over the worlds is played; with ``refine`` = k the k best are first
valued again in fresh worlds (a second look; Four Tricks' default, ``SearchDefaults.refine``).
``inference`` says how the worlds
are drawn: uniformly (``"none"``), weighted by a card-location model (``"cards"``), or by the
likelihood of the other seats' moves so far under a policy, replayed in every world
(``"policy"``, :mod:`trickenv.agents.inference`; with a pool of ``inference_pool x worlds``
worlds from which ``worlds`` are drawn by weight). The game's default is
``SearchDefaults.inference`` (Farbwechsel: ``"policy"`` with the shipped player where
it fits the variant). With ``solve_tricks`` at the
number of tricks in a deal every world is solved from the start (exact PIMC, as GIB and
Jack search bridge); the defaults (:data:`SOLVE_TRICKS`) are what measured best within
a few milliseconds a decision (docs/guides/search.md).

The agent never reads a card of the real game it cannot see: the solver only sees the
sampled worlds (``tests/test_search.py`` checks it).
"""

from __future__ import annotations

import numpy as np

from trickenv.agents.base import make_agent
from trickenv.agents.card_model import CardModel
from trickenv.agents.inference import check_policy_inference, history_log_likelihood
from trickenv.agents.pimc import PIMCAgent, play_until
from trickenv.agents.policy import shipped_model_path
from trickenv.agents.search_defaults import search_defaults
from trickenv.engine.layout import PHASE, PH_PLAY, TO_ACT, TRICK_NO
from trickenv.engine.state import State
from trickenv.games.base import GameSpec
from trickenv.sampler import sample_worlds
from trickenv.solver import Solver

# Tricks left at which the solver takes over from the playouts: 3 tricks cost about as much to solve as the
# playouts they replace; 4 cost King Calling 6x the time a decision (docs/how-it-was-found/search.md).
SOLVE_TRICKS = 3
WORLDS = 64  # 16 (pimc's default) measured weaker in every game: docs/how-it-was-found/search.md
# How worlds are weighted: "none" (equally, as pimc), "cards" (by the learned card-location model) or
# "policy" (by the likelihood of the other seats' moves under a policy: trickenv.agents.inference).
INFERENCE = ("none", "cards", "policy")
INFERENCE_EPSILON = 0.3  # how often a player is taken to leave the inference policy
POLICY_POOL = 4  # inference="policy" weighs 4 x worlds worlds and keeps worlds of them by weight


class SearchAgent(PIMCAgent):
    """PIMC over solved endgames: ``worlds`` sampled deals x every legal action per decision.

    ``solve_tricks``: how many tricks before the end the solver takes over (default
    :data:`SOLVE_TRICKS`, capped at the deal's tricks). ``rollout`` (None: the game's
    ``SearchDefaults.rollout`` (:mod:`trickenv.agents.search_defaults`), in Four Tricks a trained player, the
    file ``SearchDefaults.playouts``,
    where it fits the variant, else ``"rules"``), ``search``,
    ``tiebreak``, ``max_games`` and the state it needs are as for ``pimc``, except that
    ``search`` defaults to ``SearchDefaults.search_decisions`` where the game sets it
    (Four Tricks with bids: ``"cards"``), and ``decisions`` to ``SearchDefaults.search_learned`` (Four Tricks
    with bids: the learned bids);
    ``tt_bits`` sizes the solver's transposition table. ``inference`` (None: the game's
    ``SearchDefaults.inference``), ``inference_strength`` (the weights' exponent),
    ``inference_policy`` (an agent name acting from the observation: ``"model"``, ``"rules"``, ``"model:PATH"``;
    None: the game's ``SearchDefaults.likelihood`` file where it names one, else ``"model"``),
    ``inference_epsilon`` (how often a player leaves that policy) and ``inference_pool`` (None: 4 with
    ``"policy"``, else 1) choose the worlds (module docstring). ``refine`` = k > 0 takes a second look:
    the k best actions after the first ``worlds`` worlds are valued again in ``refine_worlds`` (None:
    ``worlds``) fresh worlds, and their values become the mean over all their worlds. ``refine=None``
    takes the game's ``SearchDefaults.refine`` (k, and where ``refine_worlds`` is None its multiple
    of ``worlds``) when the playouts are the game's default ones, else no second look.
    """

    name = "search"

    def __init__(self, spec: GameSpec, seed: int | None = None, worlds: int = WORLDS, solve_tricks: int | None = None,
                 rollout: str | None = None, max_games: int = 16384, tiebreak: float | None = None,
                 search: str | None = None, tt_bits: int = 18, opponents: str = "paranoid",
                 inference: str | None = None, inference_strength: float = 1.0, card_model: str | None = None,
                 inference_policy: str | None = None, inference_epsilon: float = INFERENCE_EPSILON,
                 inference_pool: int | None = None, refine: int | None = None,
                 refine_worlds: int | None = None, decisions: str | None = None) -> None:
        tuning = search_defaults(spec)
        if search is None:
            search = tuning.search_decisions or tuning.decisions
        game_rollout, default = rollout is None, None
        if rollout is None:  # the game's choice (SearchDefaults.rollout) where its player fits the variant
            rollout = tuning.rollout
            if rollout == "model" and tuning.playouts is not None:  # the player it was measured with
                rollout = f"model:{shipped_model_path(tuning.playouts)}"
            default = rollout
            if rollout != "rules":
                try:
                    make_agent(rollout, spec)
                except ValueError:
                    rollout = "rules"
        if refine is None:  # the game's second look comes with the game's playouts it was measured with
            measured = game_rollout and rollout == default
            refine, times = tuning.refine if measured else (0, 0)
            if refine_worlds is None and refine:
                refine_worlds = max(1, round(times * worlds))
        super().__init__(spec, seed=seed, worlds=worlds, rollouts=1, rollout=rollout, max_games=max_games,
                         tiebreak=tiebreak, search=search, decisions=decisions)
        k = SOLVE_TRICKS if solve_tricks is None else solve_tricks
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"solve_tricks must be an integer >= 0, got {solve_tricks!r}")
        self.solve_tricks = min(int(k), spec.num_tricks)
        self.solver = Solver(spec, tiebreak=self.tiebreak, tt_bits=tt_bits, cards_only=self.search == "cards",
                             opponents=opponents)
        game_default = inference is None
        if game_default:
            inference = tuning.inference
        if inference not in INFERENCE:
            raise ValueError(f"inference must be one of {', '.join(INFERENCE)}, got {inference!r}")
        if inference_pool is None:
            inference_pool = POLICY_POOL if inference == "policy" else 1
        self.inference_strength = float(inference_strength)
        self.card_model = CardModel(spec, card_model) if inference == "cards" else None
        if not 0.0 < float(inference_epsilon) < 1.0:
            raise ValueError(f"inference_epsilon must be between 0 and 1 (exclusive), got {inference_epsilon!r}")
        if isinstance(inference_pool, bool) or not isinstance(inference_pool, (int, np.integer)) or inference_pool < 1:
            raise ValueError(f"inference_pool must be a positive integer, got {inference_pool!r}")
        if inference_pool > 1 and inference == "none":
            raise ValueError("inference_pool > 1 draws worlds by their weights: it needs inference='cards' or 'policy'")
        self.inference_epsilon = float(inference_epsilon)
        self.inference_pool = int(inference_pool)
        self.inference_policy = None
        if inference_policy is None:  # the game's choice (SearchDefaults.likelihood), else its player
            inference_policy = ("model" if tuning.likelihood is None
                                else f"model:{shipped_model_path(tuning.likelihood)}")
        if inference == "policy":
            check_policy_inference(spec)
            try:
                self.inference_policy = make_agent(inference_policy, spec, seed=None if seed is None else seed + 13)
            except ValueError:
                if not game_default:
                    raise
                # The game's default where no shipped player fits the variant: the worlds stay unweighted.
                inference, self.inference_pool = "none", 1
            if getattr(self.inference_policy, "needs_state", False):
                raise ValueError(f"inference_policy must act from the observation alone, got {inference_policy!r}")
        self.inference = inference
        if isinstance(refine, bool) or not isinstance(refine, (int, np.integer)) or refine < 0:
            raise ValueError(f"refine must be an integer >= 0 (0: no second look), got {refine!r}")
        self.refine = int(refine)
        if refine_worlds is None:
            refine_worlds = self.worlds
        if isinstance(refine_worlds, bool) or not isinstance(refine_worlds, (int, np.integer)) or refine_worlds < 1:
            raise ValueError(f"refine_worlds must be a positive integer, got {refine_worlds!r}")
        self.refine_worlds = int(refine_worlds)
        self.spreads: list[np.ndarray] | None = None  # collected by analyse() only

    @classmethod
    def default_decisions(cls, spec: GameSpec) -> tuple[str, ...]:
        """The decisions before the play ``search`` takes from the shipped learned values by default
        (``SearchDefaults.search_learned``, else as ``pimc``)."""
        tuning = search_defaults(spec)
        return tuning.learned if tuning.search_learned is None else tuning.search_learned

    def analyse(self, obs: np.ndarray, mask: np.ndarray, state: State,
                games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`search_batch` plus the spread: ``(actions [B], values [B, A], spread [B, A])``, the spread being
        the standard deviation of an action's value over the first look's worlds (weighted as the mean is);
        NaN where an action was not searched. The actions and values are the ones ``search_batch`` gives."""
        self.spreads = []
        try:
            actions, values = self.search_batch(obs, mask, state, games)
            found = iter(self.spreads)
        finally:
            self.spreads = None
        spread = np.full(values.shape, np.nan, np.float32)
        for i in range(len(values)):  # the searched rows, in the order search_batch searched them
            if not np.isnan(values[i]).all():
                legal = np.flatnonzero(~np.isnan(values[i]))
                spread[i, legal] = next(found)
        return actions, values, spread

    def _worlds(self, state: State, games: np.ndarray, seats: np.ndarray,
                look: int = 0) -> tuple[State, np.ndarray | None]:
        """Decision i's worlds (rows ``i * worlds ..``) and their weights ``[len(games), worlds]`` (rows
        summing to 1; None: equal). With ``inference_pool = k > 1``, ``k * worlds`` worlds are weighed and
        ``worlds`` of them drawn by weight (systematic resampling), which then count equally. ``look`` 1 draws
        the second look's worlds (``refine``), from a seed of their own."""
        w, k = self.refine_worlds if look else self.worlds, self.inference_pool
        seed = self.seed * 1_000_003 + self.searched
        if look:
            seed = int(np.random.SeedSequence([self.seed, self.searched, look]).generate_state(1)[0])
        worlds = sample_worlds(self.spec, state, games, seats, w * k, seed=seed)
        if self.inference == "none":
            return worlds, None
        if self.card_model is not None:
            logw = self.card_model.world_log_weights(state, games, worlds, w * k)
        else:
            logw = history_log_likelihood(self.spec, state, games, seats, worlds, w * k, self.inference_policy,
                                          self.inference_epsilon)
        logw = self.inference_strength * logw
        weights = np.exp(logw - logw.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        if k == 1:
            return worlds, weights
        # Systematic resampling with one offset per decision, drawn from the decision's seed.
        offset = np.random.default_rng(seed).random(len(games))
        points = (offset[:, None] + np.arange(w)[None, :]) / w
        # Per decision, the number of cumulative weights below each point (searchsorted, for all rows at once).
        below = (np.cumsum(weights, axis=1)[:, None, :] < points[:, :, None]).sum(axis=2)
        picks = np.minimum(below, w * k - 1)
        return worlds.take((np.arange(len(games))[:, None] * (w * k) + picks).reshape(-1)), None

    def _endgame(self, state: State, games: np.ndarray) -> np.ndarray:
        """Whether each game is in play with at most ``solve_tricks`` tricks left."""
        s = state.s[games]
        return (s[:, PHASE] == PH_PLAY) & (s[:, TRICK_NO] >= self.spec.num_tricks - self.solve_tricks)

    def _search(self, state: State, games: np.ndarray, legal: list[np.ndarray]) -> list[np.ndarray]:
        seats = state.s[games, TO_ACT].astype(np.int64)
        worlds, weights = self._worlds(state, games, seats)
        means = self._values(state, games, seats, legal, worlds, weights, self.worlds)
        if self.spreads is not None:  # analyse(): how far the first look's worlds disagree on each action
            self.spreads += [_spread(b, None if weights is None else weights[i]) for i, b in enumerate(self._blocks)]
        if self.refine:
            # The second look: the `refine` best actions of each decision are valued again in as many fresh worlds,
            # and their means become the mean over both sets of worlds (the others keep the first look's).
            top = [np.sort(np.argsort(-m, kind="stable")[:self.refine]) for m in means]
            worlds, weights = self._worlds(state, games, seats, look=1)
            again = self._values(state, games, seats, [a[t] for a, t in zip(legal, top, strict=True)], worlds, weights,
                                 self.refine_worlds)
            share = self.refine_worlds / (self.worlds + self.refine_worlds)
            for m, t, v in zip(means, top, again, strict=True):
                m[t] = (1.0 - share) * m[t] + share * v
        self.searched += len(games)
        return means

    def _values(self, state: State, games: np.ndarray, seats: np.ndarray, legal: list[np.ndarray], worlds: State,
                weights: np.ndarray | None, w: int) -> list[np.ndarray]:
        """The mean value over decision i's ``w`` worlds of each of its actions ``legal[i]``."""
        means: list[np.ndarray | None] = [None] * len(games)
        self._blocks: list[np.ndarray | None] = [None] * len(games)  # per decision: [actions, worlds] values
        late = self._endgame(state, games)
        # In the endgame, solve every world's every move at once.
        rows = np.flatnonzero(late)
        if len(rows):
            index = (rows[:, None] * w + np.arange(w)[None, :]).reshape(-1)
            values = self.solver.move_values(worlds, index, np.repeat(seats[rows], w))
            for j, i in enumerate(rows):
                block = values[j * w:(j + 1) * w][:, legal[i]]
                means[i] = block.mean(axis=0) if weights is None else weights[i] @ block
                self._blocks[i] = block.T
        # Earlier: apply each action in each world, play out to the endgame, solve what is left.
        rows = np.flatnonzero(~late)
        if len(rows):
            acts = np.concatenate([legal[i] for i in rows]).astype(np.int64)
            decision = np.repeat(rows, [len(legal[i]) for i in rows])
            owner = np.repeat(decision, w)
            index = owner * w + np.tile(np.arange(w), len(acts))
            sim = worlds.take(index)
            sim.rng[:] = worlds.rng[index] + np.arange(len(index), dtype=np.uint64)
            gain = self._play_to_endgame(sim, np.repeat(acts, w), seats[owner])
            pos = 0
            for i in rows:
                size = len(legal[i]) * w
                block = gain[pos:pos + size].reshape(len(legal[i]), w)
                means[i] = block.mean(axis=1) if weights is None else block @ weights[i]
                self._blocks[i] = block
                pos += size
        return means  # type: ignore[return-value]

    def _play_to_endgame(self, sim: State, first: np.ndarray, me: np.ndarray) -> np.ndarray:
        """Apply ``first[j]`` in game j, let the rollout policy play until the endgame (or the deal's end),
        and return the value for ``me[j]``: the deal's score plus tie-break, solved where the endgame came."""
        spec = self.spec
        everyone = np.arange(sim.batch_size)
        rewards, ended = play_until(spec, sim, first, self.policy, stop=lambda st: self._endgame(st, everyone))
        value = np.zeros(sim.batch_size, np.float64)
        done = np.flatnonzero(ended)
        if len(done):
            value[done] = rewards[done, me[done]]
            if self.tiebreak:
                rec = spec.records(spec, sim, done)
                value[done] += self.tiebreak * spec.side_points(spec, rec, me[done]) / 120.0
        rest = np.flatnonzero(~ended)
        if len(rest):
            value[rest] = self.solver.position_values(sim, rest, me[rest])
        return value


def _spread(block: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """The (weighted) standard deviation over the worlds of each action's values ``block [actions, worlds]``."""
    if weights is None:
        return block.std(axis=1)
    mean = block @ weights
    return np.sqrt(np.maximum(((block - mean[:, None]) ** 2) @ weights, 0.0))
