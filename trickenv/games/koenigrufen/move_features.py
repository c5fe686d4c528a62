"""King Calling in a player's words: readable features of every legal move, for the playbook.

:func:`move_features` describes each position and each legal move by what a person sees at the table
(:class:`trickenv.games.parts.MoveFeatures`): the card play's shared words (:mod:`trickenv.games.move_words`)
and King Calling's own: whether you are the caller or the partner, whether the trick is now won by your side
or by an opponent (as far as you know the sides), the call (the rank of the card called, calling your
own card) and the declarations (which one, the marriages your side has declared). The declarations stand
beside the first trick's cards: a rule of the card play leaves them alone, a rule of "declaring" weighs them
against playing a card (:attr:`MoveFeatures.beside`). It reads the observation alone
(docs/envs/koenigrufen.md), so a rule stated in these words reads only what the seat may know.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from trickenv.engine.layout import TAB_STRENGTH, TAB_TRUMP_STRENGTH
from trickenv.games.base import GameSpec
from trickenv.games.hand_features import obs_block
from trickenv.games.koenigrufen.rules import A_ALL_TRICKS, A_CALL, A_HUNDRED, A_MARRIAGE, DECK, RANKS
from trickenv.games.move_words import PLAY_KINDS, assemble, card_play, onehot, words_for
from trickenv.games.parts import MoveFeatures

KINDS = ("calling a card",) + PLAY_KINDS + ("declaring",)

OWN_WORDS: dict[str, tuple[str, ...]] = {
    "caller": ("you are the caller", "you are not the caller"),
    "partner": ("you are the caller's partner", "you are not the caller's partner"),
    "side_wins": ("your side wins the trick so far", "your side does not (as far as you know) win the trick so far"),
    "opponent_wins": ("an opponent wins the trick so far", "no known opponent wins the trick so far"),
    "calls_ace": ("it calls an ace", "it does not call an ace"),
    "calls_ten": ("it calls a ten", "it does not call a ten"),
    "calls_king": ("it calls a king", "it does not call a king"),
    "calls_own": ("it calls a card you hold (you play alone)", "it calls a card you do not hold"),
    "hand_points": ("card points in your hand",),
    "side_marriages": ("marriages your side has declared (as far as you know)",),
    "marriage": ("it declares a marriage", "it does not declare a marriage"),
    "trump_marriage": ("it declares the marriage in trump", "it does not declare the marriage in trump"),
    "marriage_len": ("cards you hold in the marriage's suit",),
    "marriage_ace": ("you hold the ace of the marriage's suit", "you do not hold the ace of the marriage's suit"),
    "hundred": ("it declares the hundred", "it does not declare the hundred"),
    "all_tricks": ("it declares all tricks", "it does not declare all tricks"),
}
# facts of the calls and of the declarations
_MOVE_WORDS = ("calls_ace", "calls_ten", "calls_king", "calls_own", "marriage", "trump_marriage", "marriage_len",
               "marriage_ace", "hundred", "all_tricks")
# What a rule of "declaring" speaks of: the position, the declaration and its suit, not the card played instead.
_DECLARING_WORDS = ("on_table", "dealer", "my_trumps", "table_points", "trump_led", "caller", "partner", "side_wins",
                    "opponent_wins", "hand_points", "side_marriages", "marriage", "trump_marriage",
                    "marriage_len", "marriage_ace", "hundred", "all_tricks")
_TEN, _KING, _ACE = 3, 6, 7  # rank ids within a suit: 7 8 9 10 U O K A


def move_features(spec: GameSpec, obs: np.ndarray, mask: np.ndarray) -> MoveFeatures:
    """:class:`MoveFeatures` of a batch: ``obs [B, obs_size]``, ``mask [B, num_actions]`` (the legal moves)."""
    obs, mask = np.asarray(obs), np.asarray(mask, bool)
    b, actions = len(obs), spec.num_actions
    play = card_play(spec, obs, mask)
    side = _sides(spec, obs)
    winner = _trick_winner(spec, play)
    rows = np.arange(b)
    won_by = np.where(winner >= 0, side[rows, np.maximum(winner, 0)], 0)
    status = obs_block(spec, obs, "own_status") != 0
    marriages = obs_block(spec, obs, "marriages").reshape(b, spec.num_players, 4).sum(axis=2)
    play.context.update({"caller": onehot(obs_block(spec, obs, "caller")) == 0, "partner": status[:, 0],
                         "side_wins": (winner >= 0) & (won_by == 1), "opponent_wins": (winner >= 0) & (won_by == -1),
                         "hand_points": (play.hand * play.card_points).sum(axis=1),
                         "side_marriages": (marriages * (side == 1)).sum(axis=1)})
    others = {name: np.zeros((b, actions), np.float32) for name in _MOVE_WORDS}
    calls = np.arange(DECK)
    for name, rank in (("calls_ace", _ACE), ("calls_ten", _TEN), ("calls_king", _KING)):
        others[name][:, A_CALL + calls] = calls % RANKS == rank
    others["calls_own"][:, A_CALL:A_CALL + DECK] = play.hand
    others["marriage"][:, A_MARRIAGE:A_MARRIAGE + 4] = 1
    others["trump_marriage"][:, A_MARRIAGE:A_MARRIAGE + 4] = np.arange(4)[None, :] == play.trump[:, None]
    others["marriage_len"][:, A_MARRIAGE:A_MARRIAGE + 4] = play.by_suit["suit_len"]
    others["marriage_ace"][:, A_MARRIAGE:A_MARRIAGE + 4] = play.by_suit["has_ace"]
    others["hundred"][:, A_HUNDRED] = 1
    others["all_tricks"][:, A_ALL_TRICKS] = 1
    named = np.full((b, actions - DECK), -1)
    named[:, :DECK] = calls // RANKS  # a call names its card's suit (the trump to be)
    calling = mask[:, A_CALL:A_CALL + DECK].any(axis=1)
    kind = np.where(calling, 0, 1 + play.kind)
    # A rule of the card play speaks of the cards, a rule of the call of the calls: the declarations beside the
    # first trick's cards are a decision of their own, "declaring", which weighs them against playing a card.
    scope = np.zeros((b, actions), bool)
    scope[:, :DECK] = ~calling[:, None]
    scope[:, A_CALL:A_CALL + DECK] = calling[:, None]
    declaring = mask[:, A_MARRIAGE:A_ALL_TRICKS + 1].any(axis=1)
    beside = np.where(declaring, KINDS.index("declaring"), -1)
    features = assemble(spec, mask, play, KINDS, kind, {**words_for(spec), **OWN_WORDS}, {"suit": named, **others},
                        scope)
    return replace(features, beside=beside, kind_words={"declaring": _DECLARING_WORDS})


def _sides(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """int ``[B, n]`` by relative seat (0 = me): +1 on my side, -1 against me, 0 not known to me."""
    n = spec.num_players
    status = obs_block(spec, obs, "own_status") != 0  # I am the partner; I hold the called card (caller alone) x2
    public = onehot(obs_block(spec, obs, "sides"))  # the partner's relative seat, n: alone, -1: not public yet
    caller = onehot(obs_block(spec, obs, "caller"))
    partner = np.where(public >= 0, np.where(public == n, -1, public), np.where(status[:, 0], 0, -1))
    known = (public >= 0) | status[:, 0] | status[:, 1] | status[:, 2]
    seats = np.arange(n)[None, :]
    calling = (seats == caller[:, None]) | (seats == partner[:, None])  # the calling side, where known
    side = np.where(calling == calling[:, :1], 1, -1)
    unknown = np.where(seats == 0, 1, np.where((seats == caller[:, None]) & (caller[:, None] != 0), -1, 0))
    return np.where(known[:, None], side, unknown)


def _trick_winner(spec: GameSpec, play) -> np.ndarray:
    """The relative seat whose card now wins the trick in play, -1 with an empty table."""
    deck = spec.deck
    card = np.where(play.trick.any(axis=2), play.trick.argmax(axis=2), -1)  # [B, n], -1: no card yet
    at = np.maximum(card, 0)
    suit = np.where(card >= 0, play.suit[at], -1)
    strength = np.where(suit == play.trump[:, None], 100 + spec.tab[TAB_TRUMP_STRENGTH, :deck][at],
                        np.where(suit == play.led_suit[:, None], spec.tab[TAB_STRENGTH, :deck][at], -1))
    strength = np.where(card >= 0, strength, -2)
    return np.where(play.on_table > 0, strength.argmax(axis=1), -1)
