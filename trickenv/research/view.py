"""Reading batches of Farbwechsel observations by name: the blocks the advice rules of the notebooks use."""

from __future__ import annotations

import numpy as np


class View:
    """The parts of a batch of Farbwechsel observations that the advice players read (relative seats, 0 = me).

    Reads the blocks through ``spec.obs_offsets`` (docs/envs/farbwechsel.md);
    ``trickenv.decode`` gives the same arrays (and more) at a higher cost per call.
    """

    def __init__(self, spec, obs: np.ndarray) -> None:
        off = spec.obs_offsets
        n, t = spec.num_players, spec.num_tricks
        b = obs.shape[0]

        def block(name):
            o, size = off[name]
            return obs[:, o:o + size]

        def onehot(name):
            x = block(name)
            return np.where(x.any(axis=1), x.argmax(axis=1), -1)

        self.n, self.tricks = n, t
        self.hand = block("hand") != 0  # [B, 32]
        trick = block("trick").reshape(b, n, 32) != 0
        self.trick = np.where(trick.any(axis=2), trick.argmax(axis=2), -1)  # [B, n] card per relative seat, -1
        self.played = (block("played").reshape(b, n, 32) != 0).any(axis=1)  # [B, 32] played by anyone
        trump = onehot("trump")
        self.trump = np.where(trump == 4, -1, trump)  # -1 before the dealer declares
        tt = block("trick_trump").reshape(b, t, 4)
        self.trick_trump = np.where(tt.any(axis=2), tt.argmax(axis=2), -1)  # [B, T]
        self.done = (self.trick_trump >= 0).sum(axis=1)  # completed tricks = index of the trick in play
        self.dealer = onehot("dealer")  # relative seat of the dealer (0: I deal)
        self.leader = onehot("leader")  # relative seat that leads the trick in play
        self.unseen = ~self.hand & ~self.played
        rows = np.arange(b)
        self.led = np.where(self.leader >= 0, self.trick[rows, np.maximum(self.leader, 0)], -1)  # card led, -1
        self.on_table = (self.trick >= 0).sum(axis=1)
