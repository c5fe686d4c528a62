"""trickenv's games as OpenSpiel games (the ``openspiel`` extra).

Importing this module registers each game with OpenSpiel, so OpenSpiel's algorithms and tools run on it::

    import pyspiel
    import trickenv.openspiel  # registers trickenv_four_tricks, trickenv_farbwechsel, trickenv_koenigrufen

    game = pyspiel.load_game("trickenv_four_tricks", {"deck": 52, "bidding": True})
    state = game.new_initial_state()

Every option of a game's option table is a game parameter of the same name. An option whose default is an
int, a bool or a string is a parameter of that type with the same default. The others are string parameters:
a sequence as its items separated by spaces (``switch_ranks="Q J"``, ``target_schedule="1 2 3"``; OpenSpiel
reads parentheses and commas in a parameter as structure, and a lone number as an int, so a schedule needs
two targets or more) and ``"none"`` for None; ``"default"`` for an option whose default depends on others
(Four Tricks' ``trump``). An integer option whose default is None (Four Tricks' ``target``, ``rounds``,
``win_at``, given or derived from the others) is an int parameter with ``-1`` for "not given". The values
are checked by the game itself, with its own messages.

A state runs on trickenv's engine (the same kernels as the AEC and batched envs; no rule is written here):

- **Chance**: the deal, one card at a time, to seat 0's hand first, then seat 1's, ..., each card drawn
  uniformly from those not dealt yet (so ``chance_outcomes`` are exact: ``1 / cards left``); the cards no
  seat gets are the game's undealt rest. Then the dealer, uniformly among the seats. In a match
  (``rounds`` > 1, ``win_at``, ``target_schedule``) each later deal is dealt the same way when the one before
  ends, without the dealer, who moves on as the rules say.
- **Decisions**: the same action ids, legal actions, seat to act, rewards (each deal's scores when it ends,
  still there at the next decision after a match's chance nodes, where OpenSpiel reads them) and returns as
  trickenv's AEC env, for the same deal (tested move by move).
- **What a player knows**: ``observation_tensor(p)`` is trickenv's observation of seat ``p``
  (``trickenv.decode`` reads it); ``information_state_tensor(p)`` is the same vector. The strings read the
  observation by name, and the information state string adds which seat played which card in which trick,
  so two states a player can tell apart never share it. ``resample_from_infostate(p, sampler)`` draws a
  world with :mod:`trickenv.sampler`, uniform over the deals consistent with what seat ``p`` saw.

:func:`from_engine` makes a state of a position of the batched engine (the OpenSpiel bots of
:mod:`trickenv.agents.openspiel_bots` play from it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from trickenv import cards
from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import DEALER, TO_ACT
from trickenv.engine.state import State
from trickenv.games import GAMES, make_spec
from trickenv.games.base import GameSpec
from trickenv.games.option_text import parse_value
from trickenv.games.variants import VARIANTS
from trickenv.sampler import sample_worlds

_ONE = np.ones(1, np.bool_)  # the step kernel's "step this game" (it only reads it)
PREFIX = "trickenv_"
DEFAULT = "default"  # a string parameter's "the game's default"
TEXTS_KEPT = 100_000  # observation texts a game keeps (observation_text)
MATCH_LIMIT = 1000  # deals a match with ``win_at`` and no ``rounds`` may last, for OpenSpiel's max_game_length


def short_name(game: str) -> str:
    """The OpenSpiel name of trickenv's ``game``: ``trickenv_<game>``."""
    return PREFIX + game


NOT_GIVEN = -1  # an int parameter's "not given" (an option whose default is None and whose values are ints)


def _takes_int(game: str, option: Any) -> bool:
    """Whether an option whose default is None takes an integer (Four Tricks' ``target``, ``rounds``, ``win_at``)."""
    try:
        make_spec(game, **{option.name: 1})
    except ValueError:
        return False
    return True


def _parameter(game: str, option: Any) -> Any:
    """An option's OpenSpiel parameter default (see the module docstring)."""
    default = option.default
    if callable(default):
        return DEFAULT
    if isinstance(default, (bool, int, str)):
        return default
    if default is None and _takes_int(game, option):
        return NOT_GIVEN
    return value_text(default)


def value_text(value: Any) -> str:
    """An option's value as a string parameter: ``none``, or the items separated by spaces (``Q J``, ``1 2 3``).

    OpenSpiel reads ``(``, ``)``, ``,`` and ``=`` in a parameter string as structure, so they cannot appear."""
    if value is None:
        return "none"
    if isinstance(value, (tuple, list)):
        return " ".join(str(x) for x in value)
    return str(value)


def _text_value(option: Any, text: str) -> Any:
    """The option value a string parameter stands for (see :func:`value_text`)."""
    if isinstance(option.default, tuple):
        return tuple(text.split())
    if text == "none":
        return None
    items = [parse_value(x) for x in text.split()]
    return items[0] if len(items) == 1 else items


def parameter_specification(game: str) -> dict[str, Any]:
    """``{option: default}`` of ``game``'s options as OpenSpiel parameters (see the module docstring)."""
    return {o.name: _parameter(game, o) for o in make_spec(game).option_table}


def options_from_parameters(game: str, params: dict[str, Any]) -> dict[str, Any]:
    """trickenv options from OpenSpiel parameters: text values read back, ``"default"`` left out."""
    table = {o.name: o for o in make_spec(game).option_table}
    out = {}
    for name, value in params.items():
        if name not in table:
            raise ValueError(f"{short_name(game)} has no parameter {name!r}; parameters are {list(table)}")
        option = table[name]
        if callable(option.default) and value == DEFAULT or option.default is None and value == NOT_GIVEN:
            continue
        if isinstance(value, str) and not isinstance(option.default, str) and not callable(option.default):
            value = _text_value(option, value)
        out[name] = value
    return out


class TrickGame(pyspiel.Game):
    """One of trickenv's games with its options, as an OpenSpiel game (``pyspiel.load_game``)."""

    game_name = ""  # set by the registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.options = options_from_parameters(self.game_name, params)
        self.spec: GameSpec = make_spec(self.game_name, **self.options)
        spec = self.spec
        rounds = spec.options.get("rounds") or MATCH_LIMIT
        decisions = spec.num_tricks * spec.num_players + spec.num_players + 8  # cards, then bids/trump/call
        super().__init__(_GAME_TYPES[self.game_name], pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=max(spec.deck, spec.num_players),
            num_players=spec.num_players,
            min_utility=float(spec.worst_score * rounds),
            max_utility=float(spec.best_score * rounds),
            utility_sum=None,
            max_game_length=decisions * rounds,
        ), params)
        self.dealt_cards = spec.hand_size * spec.num_players
        self.card_names = [cards.card_str(c, spec.deck) for c in range(spec.deck)]
        self._texts: dict[tuple[int, bytes], str] = {}
        self._plays: dict[bytes, str] = {}
        # What the step kernel writes and no state reads back: a state computes its seats' observations.
        self.obs_scratch = np.zeros((1, spec.obs_size), np.int8)
        self.deal_end_scratch = np.zeros(1, np.bool_)

    def observation_text(self, player: int, obs: np.ndarray) -> str:
        """Seat ``player``'s observation ``obs`` as text: each block by name, cards as text (``QH``).

        Kept per observation: a search asks for the same information states many times."""
        key = (player, obs.tobytes())
        text = self._texts.get(key)
        if text is None:
            if len(self._texts) > TEXTS_KEPT:
                self._texts.clear()
            text = self._texts[key] = _observation_text(self.spec, self.card_names, player, obs)
        return text

    def play_text(self, engine: State) -> str:
        """Who played which card in which trick of the one game of ``engine``: ``trick:P<seat>:<card>`` in the
        order played, kept per play as :meth:`observation_text` is."""
        key = engine.played_by.tobytes() + engine.played_in.tobytes()
        text = self._plays.get(key)
        if text is None:
            if len(self._plays) > TEXTS_KEPT:
                self._plays.clear()
            by, trick = engine.played_by[0], engine.played_in[0]
            played = np.flatnonzero(by >= 0)
            order = played[np.lexsort((by[played], trick[played]))]
            names = self.card_names
            text = self._plays[key] = " ".join(f"{trick[c]}:P{by[c]}:{names[c]}" for c in order)
        return text

    def new_initial_state(self) -> "TrickState":
        return TrickState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "TrickObserver":
        return TrickObserver(self, iig_obs_type)


def _observation_text(spec: GameSpec, names: list[str], player: int, obs: np.ndarray) -> str:
    """Each block of the observation by name (:mod:`trickenv.decode`'s blocks): cards by their names (a hand, the
    cards of each seat, the card each seat put in the trick, ``-`` for none), other values as numbers.

    Written over a Python list rather than with :func:`trickenv.decode.decode`: a search makes one for every new
    node, and numpy's per-call cost made them most of ISMCTS's time."""
    deck = spec.deck
    values = obs.tolist()
    parts = []
    off = 0
    for b in spec.obs_blocks:
        part = values[off:off + b.size]
        off += b.size
        width = b.shape[-1]
        rows = [part[i:i + width] for i in range(0, len(part), width)]
        if b.kind == "bits" and width == deck:  # cards: a hand, or the cards of each seat
            text = " / ".join(" ".join(names[c] for c, x in enumerate(row) if x) for row in rows)
        elif b.kind == "bits":
            text = ",".join("1" if x else "0" for x in part)
        else:
            if b.axis % len(b.shape) != len(b.shape) - 1:  # one-hot along another axis: read it as the last
                rows = np.moveaxis(np.asarray(part).reshape(b.shape), b.axis, -1).reshape(-1, b.shape[b.axis]).tolist()
            picked = [row.index(1) if 1 in row else -1 for row in rows]
            if b.none_index is not None:
                picked = [-1 if i == b.none_index else i for i in picked]
            if width == deck and b.axis % len(b.shape) == len(b.shape) - 1:  # a card, or none
                text = " ".join(names[i] if i >= 0 else "-" for i in picked)
            else:
                text = ",".join(str(i * b.scale if i >= 0 else i) for i in picked)
        parts.append(f"{b.name}: {text}")
    return f"P{player} | " + " | ".join(parts)


class TrickState(pyspiel.State):
    """A position of a trickenv game: the deal while chance deals it, then the engine's state of one game."""

    def __init__(self, game: TrickGame) -> None:
        super().__init__(game)
        self.dealing = True  # chance deals: the first deal (then its dealer), or a match's next deal
        self.deal: list[int] = []  # cards dealt so far, seat 0's first
        self.engine: State | None = None  # the engine's state of the one game, once dealt
        spec = game.spec
        n, a = spec.num_players, spec.num_actions
        self.mask = np.zeros((1, a), np.bool_)
        self.step_rewards = np.zeros((1, n), np.float32)
        self.totals = np.zeros(n, np.float64)
        self.done = np.zeros(1, np.bool_)

    # The game and its spec are looked up, not kept: OpenSpiel clones a state by deep-copying its attributes.
    @property
    def _game(self) -> TrickGame:
        return self.get_game()

    @property
    def spec(self) -> GameSpec:
        return self.get_game().spec

    # ------------------------------------------------------------------ whose turn
    def current_player(self) -> int:
        if self.dealing:
            return pyspiel.PlayerId.CHANCE
        if self.done[0]:
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine.s[0, TO_ACT])

    def is_terminal(self) -> bool:
        return not self.dealing and bool(self.done[0])

    def _legal_actions(self, player: int) -> list[int]:
        if self.dealing or self.done[0] or player != self.current_player():
            return []
        return np.flatnonzero(self.mask[0]).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.dealing:
            return []
        if len(self.deal) < self._game.dealt_cards:
            left = sorted(set(range(self.spec.deck)) - set(self.deal))
            return [(c, 1.0 / len(left)) for c in left]
        n = self.spec.num_players  # the first deal's dealer; a match's later dealers follow the rules
        return [(d, 1.0 / n) for d in range(n)]

    # ------------------------------------------------------------------ moves
    def _apply_action(self, action: int) -> None:
        if self.dealing:
            self._deal_one(action)
            return
        if not (0 <= action < self.spec.num_actions and self.mask[0, action]):
            raise ValueError(f"action {action} is not legal for player {self.current_player()}; legal: "
                             f"{self._legal_actions(self.current_player())}")
        game = self._game
        spec = game.spec
        if spec.step_kernel(*self.engine.arrays(), spec.cfg, spec.tab, np.array([action], np.int64), _ONE, self.mask,
                            game.obs_scratch, self.step_rewards, self.done, game.deal_end_scratch, False):
            raise RuntimeError(f"the engine refused action {action}, which the state's legal actions allowed: "
                               "its mask does not match its position")  # never: a state's mask is its engine's
        self.totals += self.step_rewards[0]
        if game.deal_end_scratch[0] and not self.done[0]:
            # A match goes on. The engine has dealt the next deal from its generator; chance deals it instead.
            self.dealing = True

    def _deal_one(self, outcome: int) -> None:
        spec = self.spec  # step_rewards keep the last deal's scores: OpenSpiel reads rewards at the next decision
        if len(self.deal) < self._game.dealt_cards:
            if outcome in self.deal or not 0 <= outcome < spec.deck:
                raise ValueError(f"chance outcome {outcome} is not a card left to deal")
            self.deal.append(int(outcome))
            if len(self.deal) < self._game.dealt_cards or self.engine is None:
                return  # the first deal's dealer comes next
            dealer = int(self.engine.s[0, DEALER])
        else:
            if not 0 <= outcome < spec.num_players:
                raise ValueError(f"chance outcome {outcome} is not a dealer seat 0..{spec.num_players - 1}")
            dealer = int(outcome)
        h = spec.hand_size
        row, _ = spec.deal_row([self.deal[s * h:(s + 1) * h] for s in range(spec.num_players)], dealer)
        if self.engine is None:
            self.engine = spec.new_state(1)
            self.engine.rng[:] = seed_states(0, 1)
            spec.reset_kernel(*self.engine.arrays(), spec.cfg, spec.tab, row[None, :], _ONE,
                              np.full(1, dealer, np.int32), self.mask, self._game.obs_scratch)
        else:
            spec.deal_kernel(*self.engine.arrays(), spec.cfg, spec.tab, row[None, :], self.mask,
                             self._game.obs_scratch)
        self.deal = []  # from here the engine holds the deal (and a clone copies less)
        self.dealing = False

    def _action_to_string(self, player: int, action: int) -> str:
        if self.dealing:
            if len(self.deal) < self._game.dealt_cards:
                return f"deal {self._game.card_names[action]}"
            return f"dealer P{action}"
        if action < self.spec.deck:
            return self._game.card_names[action]
        return self.spec.text.describe_action(self.spec, action)

    # ------------------------------------------------------------------ results
    def rewards(self) -> list[float]:
        return self.step_rewards[0].astype(float).tolist()

    def returns(self) -> list[float]:
        return self.totals.tolist()

    def __str__(self) -> str:
        if self.dealing:
            h = self.spec.hand_size
            hands = [self.deal[s * h:(s + 1) * h] for s in range(self.spec.num_players)]
            return "dealing: " + " | ".join(f"P{s}: " + " ".join(self._game.card_names[c] for c in hand)
                                            for s, hand in enumerate(hands) if hand)
        return self.spec.text.render(self.spec, self.engine, 0)

    # ------------------------------------------------------------------ what a player knows
    def seat_observation(self, player: int) -> np.ndarray:
        """trickenv's observation of seat ``player`` (int8); zeros while a deal is dealt."""
        out = np.zeros((1, self.spec.obs_size), np.int8)
        if not self.dealing:
            self.spec.observe_kernel(*self.engine.arrays()[:-1], self.spec.cfg, self.spec.tab,
                                     np.array([player], np.int64), out)
        return out[0]

    def observation_string(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        if self.dealing:
            h = self.spec.hand_size
            mine = self.deal[player * h:(player + 1) * h]
            return f"P{player} dealt so far: " + " ".join(self._game.card_names[c] for c in mine)
        return self._game.observation_text(player, self.seat_observation(player))

    def information_state_string(self, player: int | None = None) -> str:
        player = self.current_player() if player is None else player
        text = self.observation_string(player)
        if self.dealing:
            return text
        # Who played which card in which trick (public), so that the key keeps the whole play of the deal.
        return f"{text} | play: {self._game.play_text(self.engine)}"

    def observation_tensor(self, player: int | None = None) -> list[float]:
        player = self.current_player() if player is None else player
        return self.seat_observation(player).astype(float).tolist()

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self.observation_tensor(player)

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> "TrickState":
        """A state seat ``player`` cannot tell from this one, drawn uniformly (:func:`trickenv.sampler.sample_worlds`).

        ``probability_sampler()`` gives a float in [0, 1) (OpenSpiel's ``UniformProbabilitySampler``); it seeds
        the world sampler and the world's generator of later deals."""
        return self.resample_worlds(player, 1, int(probability_sampler() * 2.0 ** 52))[0]

    def resample_worlds(self, player: int, k: int, seed: int) -> list["TrickState"]:
        """``k`` states drawn as :meth:`resample_from_infostate` draws one, in one call of the sampler (a
        search asks for hundreds a decision); ``seed`` seeds the worlds and their generators of later deals."""
        if self.dealing:
            raise ValueError("resample_from_infostate needs a dealt state (a deal is still being dealt)")
        worlds = sample_worlds(self.spec, self.engine, np.zeros(1, np.int64), np.array([player], np.int64), k,
                               seed=seed)
        worlds.rng[:] = seed_states(seed, k)
        spec = self.spec
        masks = np.zeros((k, spec.num_actions), np.bool_)  # the seat to act may not be ``player``: its hand differs
        spec.mask_kernel(*worlds.arrays()[:-1], spec.cfg, spec.tab, masks)
        out = []
        for w in range(k):
            other = self.clone()
            other.engine = State(*(a[w:w + 1] for a in worlds.arrays()))  # row w's views; a clone copies them
            other.mask = masks[w:w + 1]
            out.append(other)
        return out


class TrickObserver:
    """OpenSpiel's observer of a trickenv game: trickenv's observation as the tensor, with its blocks as the dict."""

    def __init__(self, game: TrickGame, iig_obs_type: Any = None) -> None:
        self.spec = game.spec
        self.perfect_recall = bool(iig_obs_type is not None and getattr(iig_obs_type, "perfect_recall", False))
        self.tensor = np.zeros(self.spec.obs_size, np.float32)
        self.dict = {name: self.tensor[off:off + size] for name, (off, size) in self.spec.obs_offsets.items()}

    def set_from(self, state: TrickState, player: int) -> None:
        self.tensor[:] = state.seat_observation(player)

    def string_from(self, state: TrickState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)


def from_engine(game: TrickGame, engine: State, g: int, legal: np.ndarray) -> TrickState:
    """The OpenSpiel state of game ``g`` of an engine state (e.g. ``VecEnv.state``) of ``game``'s spec.

    ``legal``: the legal-action mask of its seat to act (the env's ``mask`` row; the engine writes masks only
    when it steps). The state's history is empty (it starts at this position) and its returns count from
    here."""
    state = TrickState(game)
    state.dealing = False
    state.engine = State(*(a[g:g + 1].copy() for a in engine.arrays()))
    spec = game.spec
    state.mask[0] = np.asarray(legal, np.bool_).reshape(-1)[:spec.num_actions]
    return state


def parameters_from_options(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters that make ``game`` with trickenv ``options`` (resolved or as given)."""
    spec = parameter_specification(game)
    out = {}
    for name, value in options.items():
        kind = spec[name]
        if value is None:
            out[name] = NOT_GIVEN if isinstance(kind, int) and not isinstance(kind, bool) else "none"
        elif isinstance(value, (tuple, list)):
            out[name] = value_text(value)
        elif isinstance(kind, str) and not isinstance(value, str):
            out[name] = value_text(value)
        else:
            out[name] = value
    return out


def game_for_spec(spec: GameSpec) -> TrickGame:
    """The OpenSpiel game of a trickenv spec (its game and options)."""
    return pyspiel.load_game(short_name(spec.name), parameters_from_options(spec.name, spec.options))


def state_from_deal(game: TrickGame, deal: Any, dealer: int) -> TrickState:
    """The state after chance dealt ``deal`` (one card list per seat: ids or text such as ``"QH 10S"``, as
    ``env.reset(options={"deal": ...})`` takes) from ``dealer``; ValueError for a deal the game refuses."""
    spec = game.spec
    row, dealer = spec.deal_row(deal, dealer)
    if dealer < 0:
        raise ValueError(f"state_from_deal needs the dealer, a seat 0..{spec.num_players - 1}")
    state = game.new_initial_state()
    for hand in deal:
        for c in (cards.parse_cards(hand, spec.deck) if isinstance(hand, str) else hand):
            state.apply_action(int(c))
    state.apply_action(dealer)
    return state


_GAME_TYPES: dict[str, pyspiel.GameType] = {}


def _register(game: str) -> None:
    players = [make_spec(g, **options).num_players for g, options in VARIANTS if g == game] or [
        make_spec(game).num_players]
    _GAME_TYPES[game] = pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"trickenv {game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )
    cls = type(f"TrickGame_{game}", (TrickGame,), {"game_name": game})
    pyspiel.register_game(_GAME_TYPES[game], cls)


for _game in GAMES:
    if short_name(_game) not in pyspiel.registered_names():
        _register(_game)
