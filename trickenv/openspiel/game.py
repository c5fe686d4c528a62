"""The OpenSpiel game and state of a trickenv game (:mod:`trickenv.openspiel` says what they do)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from trickenv import cards
from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import DEALER, TO_ACT
from trickenv.engine.state import State
from trickenv.games import make_spec
from trickenv.games.base import GameSpec
from trickenv.games.variants import VARIANTS
from trickenv.openspiel.parameters import (options_from_parameters, parameter_specification, parameters_from_options,
                                           short_name)
from trickenv.openspiel.text import observation_text, play_text
from trickenv.sampler import sample_worlds

_ONE = np.ones(1, np.bool_)  # the step kernel's "step this game" (it only reads it)
TEXTS_KEPT = 100_000  # observation texts and plays a game keeps (TrickGame.observation_text, play_text)
MATCH_LIMIT = 1000  # deals a match with ``win_at`` and no ``rounds`` may last, for OpenSpiel's max_game_length
GAME_TYPES: dict[str, pyspiel.GameType] = {}  # registered games: name -> OpenSpiel game type


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
        super().__init__(GAME_TYPES[self.game_name], pyspiel.GameInfo(
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
            text = self._texts[key] = observation_text(self.spec, self.card_names, player, obs)
        return text

    def play_text(self, engine: State) -> str:
        """:func:`trickenv.openspiel.text.play_text` of ``engine``, kept per play as :meth:`observation_text` is."""
        key = engine.played_by.tobytes() + engine.played_in.tobytes()
        text = self._plays.get(key)
        if text is None:
            if len(self._plays) > TEXTS_KEPT:
                self._plays.clear()
            text = self._plays[key] = play_text(engine, self.card_names)
        return text

    def new_initial_state(self) -> "TrickState":
        return TrickState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "TrickObserver":
        return TrickObserver(self, iig_obs_type)


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

    def information_state_key(self, player: int | None = None) -> bytes:
        """A compact key of seat ``player``'s information state: two states share it exactly when they share
        :meth:`information_state_string` (the observation's bytes and who played which card in which trick),
        without writing the text (a search keys its nodes by it)."""
        player = self.current_player() if player is None else player
        if self.dealing:
            return self.information_state_string(player).encode()
        return (bytes([player]) + self.seat_observation(player).tobytes() + self.engine.played_by.tobytes()
                + self.engine.played_in.tobytes())

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



def register(game: str) -> None:
    """Register ``game`` with OpenSpiel as ``trickenv_<game>`` (its game type and parameters)."""
    players = [make_spec(g, **options).num_players for g, options in VARIANTS if g == game] or [
        make_spec(game).num_players]
    GAME_TYPES[game] = pyspiel.GameType(
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
    pyspiel.register_game(GAME_TYPES[game], cls)
