"""King Calling for learners: the privileged observation's game block (the batches to come and the partner), and
the call and the declarations as decisions a learned value model can make."""

from __future__ import annotations

import numpy as np

from trickenv.engine.bitsets import card_bits, relative_seats
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.koenigrufen.rules import (
    A_CALL,
    A_MARRIAGE,
    DECK,
    PARTNER,
    RANKS,
    N,
)
from trickenv.games.hand_features import hand_from_suit, in_order, obs_block, suit_order
from trickenv.games.koenigrufen.move_features import move_features
from trickenv.games.parts import Decision, GameLearning
from trickenv.games.trick_facts import TRICK_FACTS, trick_facts

# The privileged observation's game block (trickenv.privileged): the second batch each seat is still to get
# (relative seats x deck bits; empty after the call) and the partner as a relative seat, or "none" (before
# the call, or the caller alone): the facts a critic needs that the hands alone do not tell.
PRIVILEGED_EXTRA_SIZE = N * DECK + N + 1


def privileged_extra(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """King Calling's block of the privileged observation (``PRIVILEGED_EXTRA_SIZE``)."""
    out = np.zeros((len(games), PRIVILEGED_EXTRA_SIZE), np.int8)
    order = relative_seats(seats, N)
    out[:, :N * DECK] = card_bits(state.aux[games[:, None], 1 + order], DECK).reshape(len(games), N * DECK)
    partner = state.s[games, PARTNER].astype(np.int64)
    slot = np.where(partner >= 0, (partner - seats) % N, N)
    out[np.arange(len(games)), N * DECK + slot] = 1
    return out


def _call_features(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """For each card the caller may call: its first four cards seen from the called card's suit (the trump;
    the suits are alike), and the called card's rank."""
    hand = obs_block(spec, obs, "hand") != 0
    calls = np.arange(DECK)
    out = np.zeros((len(hand), DECK, DECK + RANKS), np.float32)
    by_suit = hand_from_suit(hand, np.broadcast_to(np.arange(4), (len(hand), 4)))  # [B, 4, DECK], once a suit
    out[:, :, :DECK] = by_suit[:, calls // RANKS]
    out[:, calls, DECK + calls % RANKS] = 1.0
    return out


# The declarations' choices: the four marriages, the hundred, all tricks, and "none" (play a card).
DECLARATIONS = 6
# What a declaration depends on beyond the cards, copied as the observation has them (relative seats, no suits).
_PLAIN_BLOCKS = ("own_status", "sides", "big_declaration", "caller", "leader")


def _declaration_features(spec: GameSpec, obs: np.ndarray) -> np.ndarray:
    """For each declaration and "none": what the seat knows in the first trick, its suits seen from the trump
    (the suits are alike; the others ordered by the hand's holdings): its hand, the trick so far, the called card
    and the marriages declared (by relative seat), the big declarations, its side as far as it knows, the caller
    and the leader; and the choice (a marriage by its suit's place in that order)."""
    b = len(obs)
    hand = obs_block(spec, obs, "hand") != 0
    trump = obs_block(spec, obs, "trump")[:, :4].argmax(axis=1)
    order = suit_order(hand, trump[:, None])[:, 0]  # [B, 4]
    cards = [in_order(hand, order), in_order(obs_block(spec, obs, "trick").reshape(b, N, DECK), order).reshape(b, -1),
             in_order(obs_block(spec, obs, "called"), order)]
    marriages = obs_block(spec, obs, "marriages").reshape(b, N, 4)
    cards.append(np.take_along_axis(marriages, np.broadcast_to(order[:, None, :], marriages.shape), axis=2).reshape(b, -1))
    state = np.concatenate(cards + [obs_block(spec, obs, name) for name in _PLAIN_BLOCKS], axis=1).astype(np.float32)
    choices = DECLARATIONS + 1
    out = np.zeros((b, choices, state.shape[1] + choices), np.float32)
    out[:, :, :state.shape[1]] = state[:, None, :]
    place = np.argsort(order, axis=1)  # [B, suit]: the suit's place in the order
    rows = np.arange(b)
    for s in range(4):  # marriage in suit s: the one-hot of its place
        out[rows, s, state.shape[1] + place[:, s]] = 1.0
    out[:, 4:, state.shape[1] + 4:] = np.eye(choices - 4, dtype=np.float32)  # the hundred, all tricks, none
    return out


def decisions(spec: GameSpec) -> tuple[Decision, ...]:
    return (Decision("call", A_CALL, DECK, _call_features),
            Decision("declaration", A_MARRIAGE, DECLARATIONS, _declaration_features, turns=N, decline=True))


GAME_LEARNING = GameLearning(action_features=trick_facts, action_feature_names=TRICK_FACTS,
                             privileged_extra=privileged_extra,
                             privileged_extra_size=PRIVILEGED_EXTRA_SIZE, decisions=decisions,
                             move_features=move_features)
