"""The parts of a game beyond its rules, each read by one layer above the games.

A game's ``make_spec`` fills in the rules contract (:class:`trickenv.games.base.GameSpec`) and, where it has
something to say, these parts. Every hook takes the spec first. A part's fields default to "the game has
nothing of its own here", so a new game can start with none of them.

- :class:`GameText`, ``spec.text``: what the table says (the terminal table :mod:`trickenv.play`, the web
  page :mod:`trickenv.web`, ``render_mode="ansi"``).
- :class:`GameWorlds`, ``spec.worlds``: what a seat can know, for the world sampler (:mod:`trickenv.sampler`),
  inference from the play (:mod:`trickenv.agents.inference`) and the replay of records (:mod:`trickenv.replay`).
- :class:`GameLearning`, ``spec.learning``: what a learner may use beyond the observation (network features,
  suit symmetry, the privileged observation of critics).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

import numpy as np

from trickenv.engine.state import State
from trickenv.games.table_text import card_reason, render_table

if TYPE_CHECKING:
    from trickenv.games.base import GameSpec


class Words(Protocol):
    """How the table (:class:`trickenv.play.Table`) writes seats, cards and suits; a game's text hooks use it."""

    def label(self, p: int, start: bool = False) -> str:
        """``P2``, or ``you`` (``You`` with ``start``) for the person's seat."""

    def card(self, c: int) -> str:
        """A card with its suit symbol, e.g. ``Q♥``."""

    def suit(self, s: int) -> str:
        """A suit's symbol and name, e.g. ``♥ hearts``."""


def _no_lines(*args: Any) -> list[str]:
    return []


def _card_rules_only(spec: "GameSpec", state: State, g: int, seat: int, action: int, moves: list[int],
                     words: Words, legal: str) -> str:
    if action < spec.deck:
        return card_reason(spec, state, g, seat, action, moves, words, legal)
    return f"{spec.action_str(action)} is not possible now{legal}"


def _card_actions(spec: "GameSpec") -> list[tuple[str, str, str]]:
    return [(f"0 .. {spec.deck - 1}", "play card `c` (its id)", "play; follow suit if able")]


def _plain_table(spec: "GameSpec", state: State, g: int) -> str:
    return render_table(spec, state, g)


@dataclass(frozen=True)
class GameText:
    """What the table says about a game (:mod:`trickenv.play`, :mod:`trickenv.web`, ``render_mode="ansi"``).

    - ``describe_action(spec, a)``: the name of a non-card action (``trump hearts``, ``bid 3``, ``call A♥``);
      cards are named by :func:`trickenv.cards.card_str`.
    - ``render(spec, state, g)``: a readable table of game ``g`` (its first line: ``  |  ``-separated facts).
    - ``illegal_reason(spec, state, g, seat, action, moves, words, legal)``: why ``action`` is not legal for
      ``seat`` now, in the person's words, from the game's own rules; ``moves`` are the legal actions and
      ``legal`` the text that lists them (``"; legal: ..."``), which the reason ends with where it helps.
    - ``play_news(spec, state, g, before, words)``: lines after a step that did not end the deal
      (``before``: the scalar row before it).
    - ``turn_notes(spec, view)``: lines at the person's turn (``view``: their decoded observation).
    - ``deal_facts(spec, info, words)``: lines after a deal (``info``: its record).
    - ``action_rows(spec)``: the action ids as the docs list them, ``(ids, action, when)`` per range of ids
      (the action table of the game's docs page, ``python -m trickenv.env_pages``).
    - ``title`` and ``tagline``: the game's name and one line on what makes it special (the web table's start).
    - ``seat_badges(spec, state, g)``: per seat, its public facts as short words (``bid 3``, ``caller``,
      ``partner``), drawn at the seat on the web table; only what every seat may know.
    """

    title: str = ""
    tagline: str = ""
    seat_badges: Callable[["GameSpec", State, int], list[list[str]]] = lambda spec, state, g: [
        [] for _ in range(spec.num_players)]

    describe_action: Callable[["GameSpec", int], str] = lambda spec, a: str(a)
    render: Callable[["GameSpec", State, int], str] = _plain_table
    illegal_reason: Callable[..., str] = _card_rules_only
    play_news: Callable[["GameSpec", State, int, np.ndarray, Words], list[str]] = _no_lines
    turn_notes: Callable[["GameSpec", dict[str, np.ndarray]], list[str]] = _no_lines
    deal_facts: Callable[["GameSpec", dict[str, np.ndarray], Words], list[str]] = _no_lines
    action_rows: Callable[["GameSpec"], list[tuple[str, str, str]]] = _card_actions


@dataclass(frozen=True)
class GameWorlds:
    """What a seat can know, for the world sampler, inference and replay; every hook is optional (``None``).

    World sampler (:mod:`trickenv.sampler`):

    - ``hide_private(spec, info, seats, undealt)`` does the game's part of ``information_state`` after the
      common erasure (``undealt``: the undealt rest before it);
    - ``required_cards(spec, info, i, others) -> {seat: bitset}`` names cards a seat is known to hold;
    - ``deal_worlds(spec, info, worlds, i, seat, k, rng) -> bool`` deals decision i's ``k`` worlds itself when
      the common dealing does not apply (True if it did);
    - ``settle_worlds(spec, worlds, rows, k, coin_seeds)`` fills in the game's fields the dealt worlds imply.

    Inference from the play (:mod:`trickenv.agents.inference`): ``history_actions(spec, info, rows, sim,
    games)``: for each k, the action that the seat to act in ``sim`` game ``games[k]`` (a replay of the deal)
    took in ``info`` game ``rows[k]`` (the real deal, as a seat knows it) when that decision is not a card
    (trump, a bid), else -1; ``None``: the game's other decisions cannot be replayed from what a seat knows.
    ``replay_deal(spec, worlds, rows)`` fixes in place the deal the replays start from, where the game deals
    in parts (``rows [B, deck]``: every card with the seat that holds or played it, as if dealt at once);
    ``unweighed(spec, sim, games) -> bool`` marks replayed decisions of other seats that a world cannot
    weigh (made from cards the worlds do not keep apart).

    Replay of a record (:mod:`trickenv.replay`): ``record_action(spec, rec, state, g)`` is the action of game
    g's seat to act that record ``rec`` implies when it is not simply the card that seat played in the
    current trick (trump, a bid, the call, a declaration), else None; ``record_options(spec, rec)`` the
    options that play that deal alone (a deal of a match).
    """

    hide_private: Callable[["GameSpec", State, np.ndarray, np.ndarray], None] | None = None
    required_cards: Callable[["GameSpec", State, int, list[int]], dict[int, int]] | None = None
    deal_worlds: Callable[["GameSpec", State, State, int, int, int, np.ndarray], bool] | None = None
    settle_worlds: Callable[["GameSpec", State, np.ndarray, int, np.ndarray], None] | None = None
    history_actions: Callable[["GameSpec", State, np.ndarray, State, np.ndarray], np.ndarray] | None = None
    replay_deal: Callable[["GameSpec", State, np.ndarray], None] | None = None
    unweighed: Callable[["GameSpec", State, np.ndarray], np.ndarray] | None = None
    record_action: Callable[["GameSpec", dict[str, np.ndarray], State, int], int | None] | None = None
    record_options: Callable[["GameSpec", dict[str, np.ndarray]], dict[str, Any]] | None = None


@dataclass(frozen=True)
class Decision:
    """A decision before the card play whose choices a learned value model can weigh
    (:mod:`trickenv.training.decisions` makes the model, :mod:`trickenv.agents.decisions` plays it).

    ``name`` (``"trump"``, ``"call"``); its actions are ``first .. first + count - 1``; the decision is pending
    in a row whose mask allows one of them. ``features(spec, obs) -> float32 [B, count, F]``: for every choice,
    what the seat to act knows, seen from that choice (e.g. its hand with the suit the choice makes trump
    first), computed from the observation alone; the game's suit symmetry goes here, so that hands alike
    but for the names of the suits give the same rows. ``turns``: how many times a deal asks it (Four Tricks'
    bid: once a seat); the simulation learns from each turn in turn. ``decline``: the seat may take none of
    the choices and go on (King Calling's declarations: play a card instead); the choices then have one more,
    the last, "none" (the agent's own move among the other actions), which ``features`` gives a row too
    (``[B, count + 1, F]``).
    """

    name: str
    first: int
    count: int
    features: Callable[["GameSpec", np.ndarray], np.ndarray]
    turns: int = 1
    decline: bool = False

    @property
    def choices(self) -> int:
        """The choices a value model weighs: the actions, and "none" where the seat may decline."""
        return self.count + int(self.decline)


@dataclass(frozen=True)
class MoveFeatures:
    """What a person sees at the table, for every legal move of a batch of positions: the words a playbook
    (:mod:`trickenv.research.playbook`) states its rules in.

    ``kinds`` names the game's kinds of decision (Farbwechsel: the first trump, a lead, following suit, a
    discard) and ``kind`` int64 ``[B]`` is each position's. ``names`` are the features and ``values`` float32
    ``[B, actions, len(names)]`` their values for every move (NaN for an illegal move): facts of the position
    (the trick number, the trump changes so far) repeat on every move, facts of the move (it is trump, it wins
    the trick for sure) differ. ``words[name]`` says a feature in plain words: ``(is, is not)`` for a fact that
    is 0 or 1, ``(noun,)`` for a count (a rule then says "noun >= k"). ``scope`` bool ``[B, actions]``: the
    moves a position's kind is about, where other legal moves stand beside them that a rule leaves alone (King
    Calling's declarations beside the cards of the first trick); ``None``: every legal move. ``beside`` int64
    ``[B]``: the kind of a decision that stands beside the position's own, -1 where none (King Calling's
    "declaring" in the first trick: declare, or play a card); a rule of that kind weighs every legal move, a
    rule of the position's own kind its ``scope``. ``kind_words``: per kind, the features its rules may speak of
    (a kind not named: all); "declaring" weighs declarations against playing a card, and the card's own facts
    (its rank, whether it wins the trick) are not what the choice is about. Computed from the observation alone.
    """

    kinds: tuple[str, ...]
    kind: np.ndarray
    names: tuple[str, ...]
    values: np.ndarray
    words: dict[str, tuple[str, ...]]
    scope: np.ndarray | None = None
    beside: np.ndarray | None = None
    kind_words: dict[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class GameLearning:
    """What a learner may use beyond the observation.

    - Per-card features for networks (:class:`trickenv.agents.features.Features` with ``actions=True``):
      ``action_features(spec, obs) -> float32 [B, len(action_feature_names) * deck]``, fact-major, computed
      from the observation alone; ``None``: the game has none (only the compact features).
    - Suit symmetry (more training data, :mod:`trickenv.training.augment`): ``suit_relabel(spec, perm) ->
      (obs_src, action_src)`` where the rules treat the four suits alike, so that renaming suit ``s`` as
      ``perm[s]`` in a whole deal gives a deal played the same way: its observations are ``obs[..., obs_src]``
      and its masks and per-action rows ``row[..., action_src]``; ``None``: the rules tell suits apart.
    - Privileged observations (:mod:`trickenv.privileged`, for training signals only): the common part is
      every seat's hand and the undealt cards; ``privileged_extra(spec, state, games, seats) -> int8
      [len(games), privileged_extra_size]`` adds the game's own hidden facts (King Calling: the second
      batches to come and the partner).
    - Decisions before the play that a learned value model can make: ``decisions(spec)`` -> the variant's
      :class:`Decision` s (``None``: none).
    - Readable features of every legal move, for the playbook: ``move_features(spec, obs, mask)`` ->
      :class:`MoveFeatures` (``None``: the game has none yet).
    """

    action_features: Callable[["GameSpec", np.ndarray], np.ndarray] | None = None
    action_feature_names: tuple[str, ...] = ()
    suit_relabel: Callable[["GameSpec", np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    privileged_extra: Callable[["GameSpec", State, np.ndarray, np.ndarray], np.ndarray] | None = None
    privileged_extra_size: int = 0
    decisions: Callable[["GameSpec"], tuple[Decision, ...]] | None = None
    move_features: Callable[["GameSpec", np.ndarray, np.ndarray], MoveFeatures] | None = None
