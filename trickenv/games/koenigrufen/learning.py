"""King Calling for learners: the privileged observation's game block (the batches to come and the partner), and
the call as a decision a learned value model can make."""

from __future__ import annotations

import numpy as np

from trickenv.engine.bitsets import card_bits, relative_seats
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
)
from trickenv.games.koenigrufen.rules import (
    A_CALL,
    DECK,
    PARTNER,
    RANKS,
    N,
)
from trickenv.games.hand_features import hand_from_suit
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
    off, _ = spec.obs_offsets["hand"]
    hand = np.asarray(obs)[:, off:off + DECK] != 0
    calls = np.arange(DECK)
    out = np.zeros((len(hand), DECK, DECK + RANKS), np.float32)
    by_suit = hand_from_suit(hand, np.broadcast_to(np.arange(4), (len(hand), 4)))  # [B, 4, DECK], once a suit
    out[:, :, :DECK] = by_suit[:, calls // RANKS]
    out[:, calls, DECK + calls % RANKS] = 1.0
    return out


def decisions(spec: GameSpec) -> tuple[Decision, ...]:
    return (Decision("call", A_CALL, DECK, _call_features),)


GAME_LEARNING = GameLearning(action_features=trick_facts, action_feature_names=TRICK_FACTS,
                             privileged_extra=privileged_extra,
                             privileged_extra_size=PRIVILEGED_EXTRA_SIZE, decisions=decisions)
