"""Suit relabelling: more training rows from the same labels where the rules treat the suits alike.

Fitting a network to searched labels is short of data, not of network: in Four Tricks a 512 x 512 or a
three-layer network fits 300,000 expert labels no better on held-out rows than 256 x 256, while half
the labels fitted with relabelled suits beat all of them fitted without (docs/how-it-was-found/training.md, "Suit
relabelling"). Where a game declares ``GameSpec.learning.suit_relabel`` (Four Tricks), a label stays a
label when the four suits are renamed throughout its deal; :class:`SuitRelabelling` holds the 24
renamings as column sources of every array a fit reads, and
:func:`trickenv.training.bc.behaviour_clone` (``augment=``) fits each epoch to every row under a
renaming drawn at random (``trickenv train --augment-suits``).
"""

from __future__ import annotations

import itertools

import numpy as np

from trickenv.games.base import GameSpec
from trickenv.privileged import privileged_relabel


class SuitRelabelling:
    """The 24 renamings of the four suits of ``spec`` as column sources (module docstring).

    ``obs[k]``, ``actions[k]`` and ``privileged[k]`` are the sources of renaming k
    (``perms[k][s]``: the new name of suit s; renaming 0 is the identity), and ``moved[k][a]`` the action
    that action ``a`` becomes. Raises ``ValueError`` for a game whose rules tell suits apart."""

    def __init__(self, spec: GameSpec) -> None:
        if spec.learning.suit_relabel is None:
            raise ValueError(f"{spec.name}: its rules tell the suits apart (no GameSpec.learning.suit_relabel), so its "
                             f"training rows cannot be relabelled")
        self.perms = np.array(list(itertools.permutations(range(4))), np.int64)
        sources = [spec.learning.suit_relabel(spec, p) for p in self.perms]
        self.obs = np.stack([o for o, _ in sources])
        self.actions = np.stack([a for _, a in sources])
        self.moved = np.argsort(self.actions, axis=1)
        self.privileged = np.stack([privileged_relabel(spec, a[:spec.deck]) for a in self.actions])

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """A renaming for each of ``n`` rows, uniformly."""
        return rng.integers(0, len(self.perms), n)

    def apply(self, which: np.ndarray, **arrays: np.ndarray) -> dict[str, np.ndarray]:
        """Rows ``i`` of each array renamed by renaming ``which[i]``, in new arrays. Keys: ``obs``, ``privileged``
        (observation rows), ``mask`` and ``targets`` (rows over the actions), ``action`` (action ids)."""
        columns = {"obs": self.obs, "privileged": self.privileged, "mask": self.actions, "targets": self.actions}
        which = np.asarray(which, np.int64)
        out = {}
        for key, values in arrays.items():
            if key != "action" and key not in columns:
                raise ValueError(f"cannot relabel {key!r}: allowed obs, privileged, mask, targets, action")
            if len(values) != len(which):
                raise ValueError(f"{key} has {len(values)} rows, which names {len(which)}")
            out[key] = np.empty_like(values)
        for k in np.unique(which):
            rows = np.flatnonzero(which == k)
            for key, values in arrays.items():
                out[key][rows] = (self.moved[k][values[rows]] if key == "action"
                                  else values[rows][:, columns[key][k]])
        return out
