"""Farbwechsel in a player's words: readable features of every legal move, for the playbook.

:func:`move_features` describes each position and each of its legal moves by what a person sees at the table
(:class:`trickenv.games.parts.MoveFeatures`): the trick number, how often trump changed, the queens already
out, the points taken, the cards held in a suit, whether a card is trump, changes trump, wins the trick for
sure. It reads the observation alone (docs/envs/farbwechsel.md), so a rule stated in these words reads only
what the seat may know.
"""

from __future__ import annotations

import numpy as np

from trickenv.engine.layout import TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH
from trickenv.games.base import GameSpec
from trickenv.games.farbwechsel.rules import TAB_SWITCH
from trickenv.games.hand_features import obs_block
from trickenv.games.parts import MoveFeatures
from trickenv.games.trick_facts import trick_facts

KINDS = ("first trump", "lead", "follow suit", "discard")

# (is, is not) for a fact that is 0 or 1; (noun,) for a count. "It" is the move's card, or the suit it declares.
WORDS: dict[str, tuple[str, ...]] = {
    "trick": ("tricks already played",),
    "on_table": ("cards already on the table",),
    "dealer": ("you are the dealer", "you are not the dealer"),
    "changes": ("trump changes so far",),
    "changed_last": ("trump changed after the last trick", "trump did not change after the last trick"),
    "queens_out": ("trump-changing cards already played",),
    "my_trumps": ("trumps you hold",),
    "my_queens": ("trump-changing cards you hold",),
    "my_points": ("card points you have taken",),
    "ahead": ("your points minus the best opponent's",),
    "table_points": ("card points on the table",),
    "trump_led": ("trump was led", "trump was not led"),
    "is_trump": ("it is trump", "it is not trump"),
    "is_switch": ("it changes trump", "it does not change trump"),
    "points": ("its card points",),
    "beats_now": ("it beats the cards on the table", "it does not beat the cards on the table"),
    "sure_win": ("it wins the trick whatever the others hold", "it may lose the trick"),
    "higher_out": ("higher cards of its suit still out",),
    "suit_len": ("cards you hold in its suit",),
    "suit_points": ("card points you hold in its suit",),
    "has_ace": ("you hold the ace of its suit", "you do not hold the ace of its suit"),
    "has_ten": ("you hold the ten of its suit", "you do not hold the ten of its suit"),
    "has_queen": ("you hold the queen of its suit", "you do not hold the queen of its suit"),
    "longest": ("its suit is your longest", "its suit is not your longest"),
    "top": ("it is your highest card of its suit", "it is not your highest card of its suit"),
    "bottom": ("it is your lowest card of its suit", "it is not your lowest card of its suit"),
}
NAMES = tuple(WORDS)
_ACE, _TEN, _QUEEN = 7, 3, 5  # rank ids within a suit: 7 8 9 10 J Q K A


def move_features(spec: GameSpec, obs: np.ndarray, mask: np.ndarray) -> MoveFeatures:
    """:class:`MoveFeatures` of a batch: ``obs [B, obs_size]``, ``mask [B, num_actions]`` (the legal moves)."""
    obs, mask = np.asarray(obs), np.asarray(mask, bool)
    b, n, deck, ranks = len(obs), spec.num_players, spec.deck, spec.deck // 4
    suit = spec.tab[TAB_SUIT, :deck].astype(np.int64)
    hand = obs_block(spec, obs, "hand") != 0
    trick = (obs_block(spec, obs, "trick").reshape(b, n, deck) != 0)
    played = (obs_block(spec, obs, "played").reshape(b, n, deck) != 0).any(axis=1)
    trump = _onehot(obs_block(spec, obs, "trump"))
    trump = np.where(trump == 4, -1, trump)
    past = obs_block(spec, obs, "trick_trump").reshape(b, spec.num_tricks, 4)
    past = np.where(past.any(axis=2), past.argmax(axis=2), -1)
    done = (past >= 0).sum(axis=1)
    rows = np.arange(b)
    last = past[rows, np.maximum(done - 1, 0)]
    changed_last = (done > 0) & (trump != last)
    changes = ((past[:, 1:] != past[:, :-1]) & (past[:, 1:] >= 0)).sum(axis=1) + changed_last
    on_table = trick.any(axis=2).sum(axis=1)
    leader = _onehot(obs_block(spec, obs, "leader"))
    led = np.where(on_table > 0, trick[rows, np.maximum(leader, 0)].argmax(axis=1), -1)
    led_suit = np.where(led >= 0, suit[np.maximum(led, 0)], -1)
    points = _onehot(obs_block(spec, obs, "points").reshape(b * n, -1)).reshape(b, n)
    card_points = spec.tab[TAB_POINTS, :deck].astype(np.float32)
    switch = spec.tab[TAB_SWITCH, :deck] != 0
    cycle = spec.options["switch_mode"] == "cycle"

    held = hand.reshape(b, 4, ranks)
    suit_len = held.sum(axis=2)  # [B, 4]
    suit_points = (hand * card_points).reshape(b, 4, ranks).sum(axis=2)
    is_trump_suit = np.arange(4)[None, :] == trump[:, None]  # [B, 4]
    strength = np.where(is_trump_suit[:, suit], spec.tab[TAB_TRUMP_STRENGTH, :deck], spec.tab[TAB_STRENGTH, :deck])
    rank_held = np.where(hand, strength, -1).reshape(b, 4, ranks)
    rank_low = np.where(hand, strength, 99).reshape(b, 4, ranks)

    context = {
        "trick": done, "on_table": on_table, "dealer": _onehot(obs_block(spec, obs, "dealer")) == 0,
        "changes": changes, "changed_last": changed_last, "queens_out": (played & switch).sum(axis=1),
        "my_trumps": np.where(trump >= 0, suit_len[rows, np.maximum(trump, 0)], 0), "my_queens": (hand & switch).sum(axis=1),
        "my_points": points[:, 0], "ahead": points[:, 0] - points[:, 1:].max(axis=1),
        "table_points": (trick.any(axis=1) * card_points).sum(axis=1), "trump_led": (led_suit >= 0) & (led_suit == trump),
    }
    facts = trick_facts(spec, obs).reshape(b, 3, deck)
    cards = {  # [B, deck]: facts of playing each card
        "is_trump": is_trump_suit[:, suit], "is_switch": switch[None, :] & (cycle | ~is_trump_suit[:, suit]),
        "points": np.broadcast_to(card_points, (b, deck)), "beats_now": facts[:, 0] > 0, "sure_win": facts[:, 2] > 0,
        "higher_out": np.rint(facts[:, 1] * (ranks - 1)),
        "top": strength == rank_held.max(axis=2)[:, suit], "bottom": strength == rank_low.min(axis=2)[:, suit],
    }
    by_suit = {  # [B, 4]: facts of a suit, for a card of it or the trump declaring it
        "suit_len": suit_len, "suit_points": suit_points, "has_ace": held[:, :, _ACE], "has_ten": held[:, :, _TEN],
        "has_queen": held[:, :, _QUEEN], "longest": suit_len == suit_len.max(axis=1, keepdims=True),
    }
    values = np.full((b, spec.num_actions, len(NAMES)), np.nan, np.float32)
    for f, name in enumerate(NAMES):
        if name in context:
            values[:, :, f] = np.asarray(context[name], np.float32)[:, None]
        elif name in cards:
            values[:, :deck, f] = cards[name]
            values[:, deck:deck + 4, f] = 0.0
        else:
            values[:, :deck, f] = by_suit[name][:, suit]
            values[:, deck:deck + 4, f] = by_suit[name]
    values[~mask] = np.nan
    can_follow = (mask[:, :deck] & (suit[None, :] == led_suit[:, None])).any(axis=1)
    kind = np.where(mask[:, deck:deck + 4].any(axis=1), 0, np.where(on_table == 0, 1, np.where(can_follow, 2, 3)))
    return MoveFeatures(KINDS, kind.astype(np.int64), NAMES, values, WORDS)


def _onehot(x: np.ndarray) -> np.ndarray:
    """The index of the set bit of each row, -1 where none is set."""
    x = np.asarray(x) != 0
    return np.where(x.any(axis=1), x.argmax(axis=1), -1)
