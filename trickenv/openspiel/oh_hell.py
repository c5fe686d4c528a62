"""OpenSpiel's own ``oh_hell`` is trickenv's Four Tricks with ``deck=52, bidding=True, trump="turn_up"``.

With these OpenSpiel parameters (:data:`OH_HELL_PARAMETERS`) the two are the same game, move for move (tested
on random deals: the same legal actions at every decision and the same returns):

- 3 players, 17 cards each, 17 tricks; the 52nd card is turned up and its suit is trump;
- each player bids 0..17, starting left of the dealer; the dealer may not make the bids sum to 17;
- left of the dealer leads; follow suit if able; the highest trump, else the highest card of the suit led wins;
- exactly the bid scores bid + 10, otherwise minus the difference (``off_bid_penalty=True``).

Only the numbering differs: OpenSpiel's card ``rank * 4 + suit`` (suits C, D, S, H; rank 0 = 2) and its bid
``52 + k``; trickenv's card ``suit * 13 + rank`` (suits C, S, H, D) and bid ``56 + k``. This module translates
states and actions, so trickenv's agents play in OpenSpiel's game (``python
notebooks/experiments/oh_hell_match.py``: ``search`` against OpenSpiel's C++ ISMCTS).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from trickenv import cards
from trickenv.openspiel.game import TrickGame, TrickState, state_from_deal
from trickenv.openspiel.parameters import parameters_from_options, short_name

OH_HELL_PARAMETERS = {"players": 3, "num_suits": 4, "num_cards_per_suit": 13, "num_tricks_fixed": 17,
                      "off_bid_penalty": True, "points_per_trick": 1}
GAME = "four_tricks"  # the trickenv game oh_hell is, with these options
FOUR_TRICKS_OPTIONS = {"deck": 52, "bidding": True, "trump": "turn_up"}
DECK = 52
OH_HELL_SUITS = "CDSH"  # OpenSpiel's suit order: card = rank * 4 + suit
_RANKS = cards.DECK_RANKS[DECK]


def load_oh_hell() -> Any:
    """OpenSpiel's ``oh_hell`` with :data:`OH_HELL_PARAMETERS`."""
    return pyspiel.load_game("oh_hell", OH_HELL_PARAMETERS)


def load_four_tricks() -> TrickGame:
    """trickenv's Four Tricks with :data:`FOUR_TRICKS_OPTIONS`, as an OpenSpiel game."""
    return pyspiel.load_game(short_name(GAME), parameters_from_options(GAME, FOUR_TRICKS_OPTIONS))


def _card_maps() -> tuple[np.ndarray, np.ndarray]:
    to_trickenv = np.empty(DECK, np.int64)
    for c in range(DECK):
        rank, suit = divmod(c, 4)
        to_trickenv[c] = cards.card_id(cards.SUITS.index(OH_HELL_SUITS[suit]), rank, DECK)
    to_oh_hell = np.empty(DECK, np.int64)
    to_oh_hell[to_trickenv] = np.arange(DECK)
    return to_trickenv, to_oh_hell


CARD_TO_TRICKENV, CARD_TO_OH_HELL = _card_maps()
BID_OH_HELL, BID_TRICKENV = DECK, DECK + 4  # the action of bid 0 in each game


def action_to_trickenv(action: int) -> int:
    """trickenv's action for OpenSpiel's ``oh_hell`` action (a card or a bid)."""
    if not 0 <= action <= BID_OH_HELL + 17:
        raise ValueError(f"oh_hell action {action} is neither a card (0..51) nor a bid (52..69)")
    return int(CARD_TO_TRICKENV[action]) if action < DECK else action - BID_OH_HELL + BID_TRICKENV


def action_to_oh_hell(action: int) -> int:
    """OpenSpiel's ``oh_hell`` action for trickenv's action (a card or a bid; trickenv's trump actions have none:
    the trump is turned up)."""
    if 0 <= action < DECK:
        return int(CARD_TO_OH_HELL[action])
    if BID_TRICKENV <= action <= BID_TRICKENV + 17:
        return action - BID_TRICKENV + BID_OH_HELL
    raise ValueError(f"trickenv action {action} is neither a card (0..51) nor a bid (56..73)")


def to_four_tricks(state: Any, game: TrickGame | None = None) -> TrickState:
    """The trickenv state of an ``oh_hell`` state (dealt, with the trump card turned up): its deal and dealer,
    then every bid and card played since, applied in trickenv's engine (which checks each)."""
    game = game or load_four_tricks()
    history = state.history()
    players = OH_HELL_PARAMETERS["players"]
    dealt = players * OH_HELL_PARAMETERS["num_tricks_fixed"]
    if len(history) < 2 + dealt + 1:
        raise ValueError("to_four_tricks needs an oh_hell state whose deal is over (trump card turned up)")
    dealer = int(history[1])
    hands: list[list[int]] = [[] for _ in range(players)]
    for k, card in enumerate(history[2:2 + dealt]):  # OpenSpiel deals card k to player k % players
        hands[k % players].append(int(CARD_TO_TRICKENV[card]))
    out = state_from_deal(game, hands, dealer)
    for action in history[2 + dealt + 1:]:
        out.apply_action(action_to_trickenv(int(action)))
    return out
