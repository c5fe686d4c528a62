"""The card play in a player's words, for every game whose tricks follow suit: what each game's
``move_features`` (:class:`trickenv.games.parts.MoveFeatures`) shares.

:func:`card_play` reads a batch of observations (blocks ``hand``, ``trick``, ``played``, ``trump``, ``tricks``,
``dealer``, ``leader``, and ``points`` where the game has it) into facts of each position (the trick number,
the cards on the table, trumps held), of each card (it is trump, it wins the trick for sure, cards held in its
suit) and of each suit; :func:`assemble` writes them, with a game's own, as :class:`MoveFeatures`. Everything
is read from the observation, so a rule in these words reads only what the seat may know.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from trickenv.engine.layout import TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH
from trickenv.games.base import GameSpec
from trickenv.games.hand_features import obs_block
from trickenv.games.parts import MoveFeatures
from trickenv.games.trick_facts import trick_facts

__all__ = ["PLAY_KINDS", "CardPlay", "card_play", "assemble", "onehot", "words_for"]

PLAY_KINDS = ("leading", "following suit", "unable to follow suit")

# (is, is not) for a fact that is 0 or 1; (noun,) for a count. "It" is the move's card (or the suit a move names).
WORDS: dict[str, tuple[str, ...]] = {
    "trick": ("tricks already played",),
    "on_table": ("cards already on the table",),
    "dealer": ("you are the dealer", "you are not the dealer"),
    "my_tricks": ("tricks you have taken",),
    "my_trumps": ("trumps you hold",),
    "my_points": ("card points you have taken",),
    "table_points": ("card points on the table",),
    "trump_led": ("trump was led", "trump was not led"),
    "is_trump": ("it is trump", "it is not trump"),
    "points": ("its card points",),
    "beats_now": ("it beats the cards on the table", "it does not beat the cards on the table"),
    "sure_win": ("it wins the trick whatever the others hold", "it may lose the trick"),
    "higher_out": ("higher cards of its suit still out",),
    "suit_len": ("cards you hold in its suit",),
    "suit_points": ("card points you hold in its suit",),
    "has_ace": ("you hold the ace of its suit", "you do not hold the ace of its suit"),
    "longest": ("its suit is your longest", "its suit is not your longest"),
    "top": ("it is your highest card of its suit", "it is not your highest card of its suit"),
    "bottom": ("it is your lowest card of its suit", "it is not your lowest card of its suit"),
}
_POINT_WORDS = ("my_points", "table_points", "points", "suit_points")


def words_for(spec: GameSpec) -> dict[str, tuple[str, ...]]:
    """The shared words that apply to ``spec`` (points only where its cards carry points)."""
    scored = spec.tab[TAB_POINTS, :spec.deck].any()
    return {k: v for k, v in WORDS.items() if scored or k not in _POINT_WORDS}


def onehot(x: np.ndarray) -> np.ndarray:
    """The index of the set bit along the last axis, -1 where none is set."""
    x = np.asarray(x) != 0
    return np.where(x.any(axis=-1), x.argmax(axis=-1), -1)


@dataclass
class CardPlay:
    """A batch of positions read for the card play. ``context`` ``{name: [B]}``, ``cards`` ``{name: [B, deck]}``
    (facts of playing each card), ``by_suit`` ``{name: [B, 4]}`` (facts of a suit, for its cards and for moves
    that name it); ``kind`` int64 ``[B]`` indexes :data:`PLAY_KINDS`; the rest are the readings they came from."""

    hand: np.ndarray
    trick: np.ndarray
    played: np.ndarray
    trump: np.ndarray
    on_table: np.ndarray
    led_suit: np.ndarray
    suit: np.ndarray
    card_points: np.ndarray
    kind: np.ndarray
    context: dict[str, np.ndarray] = field(default_factory=dict)
    cards: dict[str, np.ndarray] = field(default_factory=dict)
    by_suit: dict[str, np.ndarray] = field(default_factory=dict)


def card_play(spec: GameSpec, obs: np.ndarray, mask: np.ndarray) -> CardPlay:
    """The shared facts (:data:`WORDS`) of a batch of observations and legal moves."""
    obs, mask = np.asarray(obs), np.asarray(mask, bool)
    b, n, deck, ranks = len(obs), spec.num_players, spec.deck, spec.deck // 4
    rows = np.arange(b)
    suit = spec.tab[TAB_SUIT, :deck].astype(np.int64)
    card_points = spec.tab[TAB_POINTS, :deck].astype(np.float32)
    hand = obs_block(spec, obs, "hand") != 0
    trick = obs_block(spec, obs, "trick").reshape(b, n, deck) != 0
    played = (obs_block(spec, obs, "played").reshape(b, n, deck) != 0).any(axis=1)
    trump = onehot(obs_block(spec, obs, "trump"))
    trump = np.where(trump == 4, -1, trump)
    taken = onehot(obs_block(spec, obs, "tricks").reshape(b, n, -1))
    on_table = trick.any(axis=2).sum(axis=1)
    leader = onehot(obs_block(spec, obs, "leader"))
    led = np.where(on_table > 0, trick[rows, np.maximum(leader, 0)].argmax(axis=1), -1)
    led_suit = np.where(led >= 0, suit[np.maximum(led, 0)], -1)

    held = hand.reshape(b, 4, ranks)
    suit_len = held.sum(axis=2)
    is_trump_suit = np.arange(4)[None, :] == trump[:, None]
    strength = np.where(is_trump_suit[:, suit], spec.tab[TAB_TRUMP_STRENGTH, :deck], spec.tab[TAB_STRENGTH, :deck])
    best = spec.tab[TAB_STRENGTH, :deck].reshape(4, ranks).argmax(axis=1)  # the ace's rank id in each suit
    facts = trick_facts(spec, obs).reshape(b, 3, deck)
    can_follow = (mask[:, :deck] & (suit[None, :] == led_suit[:, None])).any(axis=1)
    out = CardPlay(hand, trick, played, trump, on_table, led_suit, suit, card_points,
                   np.where(on_table == 0, 0, np.where(can_follow, 1, 2)).astype(np.int64))
    out.context = {
        "trick": taken.sum(axis=1), "on_table": on_table, "dealer": onehot(obs_block(spec, obs, "dealer")) == 0,
        "my_tricks": taken[:, 0], "my_trumps": np.where(trump >= 0, suit_len[rows, np.maximum(trump, 0)], 0),
        "table_points": (trick.any(axis=1) * card_points).sum(axis=1),
        "trump_led": (led_suit >= 0) & (led_suit == trump),
    }
    if "points" in spec.obs_offsets:
        block = next(bl for bl in spec.obs_blocks if bl.name == "points")
        out.context["my_points"] = onehot(obs_block(spec, obs, "points").reshape(b, n, -1))[:, 0] * block.scale
    out.cards = {
        "is_trump": is_trump_suit[:, suit], "points": np.broadcast_to(card_points, (b, deck)),
        "beats_now": facts[:, 0] > 0, "sure_win": facts[:, 2] > 0, "higher_out": np.rint(facts[:, 1] * (ranks - 1)),
        "top": strength == np.where(hand, strength, -1).reshape(b, 4, ranks).max(axis=2)[:, suit],
        "bottom": strength == np.where(hand, strength, 99).reshape(b, 4, ranks).min(axis=2)[:, suit],
    }
    out.by_suit = {
        "suit_len": suit_len, "suit_points": (hand * card_points).reshape(b, 4, ranks).sum(axis=2),
        "has_ace": held[:, np.arange(4), best], "longest": suit_len == suit_len.max(axis=1, keepdims=True),
    }
    return out


def assemble(spec: GameSpec, mask: np.ndarray, play: CardPlay, kinds: tuple[str, ...], kind: np.ndarray,
             words: dict[str, tuple[str, ...]], others: dict[str, np.ndarray] | None = None,
             scope: np.ndarray | None = None) -> MoveFeatures:
    """:class:`MoveFeatures` with the features ``words`` names: each is a fact of the position
    (``play.context``), of a card (``play.cards``, 0 for other moves), of a suit (``play.by_suit``: a card's
    suit, and for the moves in ``others["suit"]`` (``[B, actions - deck]``, -1 for none) the suit they name),
    or one of ``others`` (``[B, actions]``). Illegal moves are NaN. ``scope``: as :class:`MoveFeatures` has it."""
    others = others or {}
    b, deck, actions = len(mask), spec.deck, spec.num_actions
    names = tuple(words)
    named = others.get("suit", np.full((b, actions - deck), -1))
    values = np.zeros((b, actions, len(names)), np.float32)
    for f, name in enumerate(names):
        if name in others:
            values[:, :, f] = others[name]
        elif name in play.context:
            values[:, :, f] = np.asarray(play.context[name], np.float32)[:, None]
        elif name in play.cards:
            values[:, :deck, f] = play.cards[name]
        elif name in play.by_suit:
            values[:, :deck, f] = play.by_suit[name][:, play.suit]
            values[:, deck:, f] = np.where(named >= 0, np.take_along_axis(play.by_suit[name], np.maximum(named, 0),
                                                                           axis=1), 0)
        else:
            raise KeyError(f"no value for the feature {name!r}")
    values[~np.asarray(mask, bool)] = np.nan
    return MoveFeatures(kinds, np.asarray(kind, np.int64), names, values, words, scope)
