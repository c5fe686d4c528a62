"""The batched game state: a handful of NumPy arrays with a leading batch axis."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trickenv.engine.layout import GAME_FIELDS


@dataclass
class State:
    """State of ``B`` games; every array has the batch as its first axis.

    Where each card is follows from ``hands`` (held), ``played_by`` (played:
    in the current trick when ``played_in == TRICK_NO``, else taken) and
    ``aux[:, 0]`` (the undealt rest); :meth:`card_locations` derives the
    OpenSpiel-style single array from them.
    """

    hands: np.ndarray  # uint64 [B, 4]   bitset of the cards each seat holds
    aux: np.ndarray  # uint64 [B, K]     bitsets: 0 = undealt rest, then game-specific
    played_by: np.ndarray  # int8 [B, D] seat that played the card, -1 = not played
    played_in: np.ndarray  # int8 [B, D] trick index in which it was played, -1
    trick_trump: np.ndarray  # int8 [B, T] trump in force at each trick, -1 = none
    # The record of the deal: [g, 0] this deal, [g, 1] the last finished deal (for deal records).
    # dealt[g, k, p] = the hand dealt to seat p; dealt[g, k, 4 + p] = the part of it dealt in
    # the second batch (King Calling; 0 elsewhere).
    dealt: np.ndarray  # uint64 [B, 2, 8]
    # played_by, played_in and (first T entries) the trump of each trick, of the last finished deal
    last_play: np.ndarray  # int8 [B, 3, D]
    s: np.ndarray  # int32 [B, F]        scalar fields, see engine.layout
    rng: np.ndarray  # uint64 [B]        per-game splitmix64 state

    @classmethod
    def allocate(cls, batch: int, deck: int, num_tricks: int, num_fields: int, num_aux: int = 1) -> "State":
        """Zeroed state for ``batch`` games."""
        if num_fields < GAME_FIELDS:
            raise ValueError(f"num_fields must be at least {GAME_FIELDS}")
        return cls(
            hands=np.zeros((batch, 4), np.uint64),
            aux=np.zeros((batch, max(1, num_aux)), np.uint64),
            played_by=np.full((batch, deck), -1, np.int8),
            played_in=np.full((batch, deck), -1, np.int8),
            trick_trump=np.full((batch, num_tricks), -1, np.int8),
            dealt=np.zeros((batch, 2, 8), np.uint64),
            last_play=np.full((batch, 3, max(deck, num_tricks)), -1, np.int8),
            s=np.zeros((batch, num_fields), np.int32),
            rng=np.zeros(batch, np.uint64),
        )

    @property
    def batch_size(self) -> int:
        """Number of games."""
        return self.s.shape[0]

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order every kernel takes them (``observe`` takes all but ``rng``)."""
        return (self.hands, self.aux, self.played_by, self.played_in, self.trick_trump, self.dealt, self.last_play,
                self.s, self.rng)

    def take(self, games: np.ndarray) -> "State":
        """A new state holding copies of the games ``games`` (indices or a bool mask), in that order."""
        return State(*(a[games].copy() for a in self.arrays()))

    def copy(self) -> "State":
        """Deep copy (search agents simulate on copies)."""
        return State(*(a.copy() for a in self.arrays()))

    def __deepcopy__(self, memo: dict) -> "State":
        # copy.deepcopy of a dataclass goes field by field through Python's generic reduce; OpenSpiel clones
        # every state of a search that way.
        return self.copy()

    def card_locations(self, g: int = 0) -> np.ndarray:
        """Where every card of game ``g`` is: seat s holds it -> s, in the current
        trick (played by s) -> 4 + s, taken in an earlier trick (played by s) -> 8 + s,
        undealt rest -> 12, elsewhere (a game's own stock) -> 13."""
        from trickenv.engine.layout import TRICK_NO

        deck = self.played_by.shape[1]
        loc = np.full(deck, 13, np.int8)
        for c in range(deck):
            bit = np.uint64(1) << np.uint64(c)
            for seat in range(4):
                if self.hands[g, seat] & bit:
                    loc[c] = seat
            if self.aux[g, 0] & bit:
                loc[c] = 12
            p = self.played_by[g, c]
            if p >= 0:
                loc[c] = (4 if self.played_in[g, c] == self.s[g, TRICK_NO] else 8) + p
        return loc
