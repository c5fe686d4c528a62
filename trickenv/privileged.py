"""Privileged observations: what every seat holds, for training signals only.

A player may not read these. They exist for what only training may see: a critic
that sees every hand (asymmetric actor-critic, as PerfectDou trains: perfect
information in training, imperfect in play) and labels computed from the full deal.
``VecEnv.privileged()`` gives them row-aligned with the normal observation of the
seat to act, ``SeatEnv.privileged()`` with the learner's.

The vector for seat ``p`` of one game, ``int8`` 0/1 like the normal observation, is, in this order:

- ``hands``: ``num_players`` x ``deck`` bits, the cards each seat holds now, seat
  ``p`` first and then clockwise (relative seats, like the normal observation);
- ``undealt``: ``deck`` bits, the cards dealt to no seat (Four Tricks' rest and
  turned-up card, King Calling's talon);
- then the game's own block, ``GameSpec.learning.privileged_extra`` (King Calling: the
  second batch each seat is still to get, and the partner), ``privileged_extra_size``
  numbers; a game without hidden facts beyond the cards has none.

:func:`privileged_blocks` names the blocks with their offsets.
"""

from __future__ import annotations

import numpy as np

from trickenv.engine.bitsets import card_bits, relative_seats  # noqa: F401  (re-exported)
from trickenv.engine.state import State
from trickenv.games.base import GameSpec


def privileged_size(spec: GameSpec) -> int:
    """Length of one privileged observation of ``spec``."""
    return (spec.num_players + 1) * spec.deck + spec.learning.privileged_extra_size


def privileged_blocks(spec: GameSpec) -> dict[str, tuple[int, int]]:
    """``{block: (offset, size)}`` of the privileged observation (module docstring)."""
    n, d = spec.num_players, spec.deck
    out = {"hands": (0, n * d), "undealt": (n * d, d)}
    if spec.learning.privileged_extra_size:
        out["game"] = ((n + 1) * d, spec.learning.privileged_extra_size)
    return out


def privileged_obs(spec: GameSpec, state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``int8 [len(games), privileged_size(spec)]``: the privileged observation of ``seats[i]`` in game
    ``games[i]`` (module docstring)."""
    games = np.asarray(games, np.int64).reshape(-1)
    seats = np.asarray(seats, np.int64).reshape(-1)
    if len(seats) != len(games):
        raise ValueError(f"seats must name one seat per game ({len(games)}), got {len(seats)}")
    if len(seats) and (seats.min() < 0 or seats.max() >= spec.num_players):
        raise ValueError(f"seats must be from 0 to {spec.num_players - 1}, got {seats.min()}..{seats.max()}")
    n, d = spec.num_players, spec.deck
    out = np.zeros((len(games), privileged_size(spec)), np.int8)
    order = relative_seats(seats, n)
    held = state.hands[games[:, None], order]
    out[:, :n * d] = card_bits(held, d).reshape(len(games), n * d)
    out[:, n * d:(n + 1) * d] = card_bits(state.aux[games, 0], d)
    if spec.learning.privileged_extra_size:
        extra = spec.learning.privileged_extra(spec, state, games, seats)
        if extra.shape != (len(games), spec.learning.privileged_extra_size):
            raise RuntimeError(f"{spec.name}: privileged_extra gave {extra.shape}, expected "
                               f"{(len(games), spec.learning.privileged_extra_size)}")
        out[:, (n + 1) * d:] = extra
    return out


def privileged_relabel(spec: GameSpec, card_src: np.ndarray) -> np.ndarray:
    """Column sources of the privileged observation of a deal whose card ``card_src[c]`` is renamed ``c``
    (a suit relabelling, ``GameSpec.learning.suit_relabel``): the relabelled rows are ``privileged[..., sources]``."""
    if spec.learning.privileged_extra_size:
        raise ValueError(f"{spec.name}: its own privileged block (privileged_extra) has no card relabelling")
    d = spec.deck
    card_src = np.asarray(card_src, np.int64)
    return np.concatenate([k * d + card_src for k in range(spec.num_players + 1)])
