"""Compact float features of an observation, for neural players (trainers and ``PolicyAgent``).

The engine's observation is all 0/1 one-hot blocks. Most of it is what a
network wants (which cards are where); but a count written one-hot over a wide
range, like Farbwechsel's card points (121 values per seat) or Four Tricks'
tricks and bids (17), makes the network learn each value separately. The
transform keeps every block as it is except those counts: a one-hot block
whose range is wider than ``MAX_ONEHOT`` and does not index cards becomes, per
row, two numbers: the value divided by the largest value, and a flag that the
block is set at all (a bid not yet made reads 0 and 0). For Farbwechsel with 3
players that is 639 features instead of 996.

``Features(spec)(obs)`` maps ``[B, obs_size]`` int8 to ``[B, size]`` float32
with two gathers and one small matrix product, no loop over rows.

``Features(spec, actions=True)`` (a player's ``meta["features"] == "actions"``)
appends the game's per-card facts (``GameSpec.learning.action_features``,
:mod:`trickenv.games.trick_facts`: whether a card beats the table now, how many
unseen cards outrank it, whether it wins the trick for sure), which a network would otherwise have to compose
from several blocks. They are computed from the observation alone, but they are
not linear in it: :meth:`Features.matrix` exists only without them.
"""

from __future__ import annotations

import numpy as np

from trickenv.games.base import GameSpec

MAX_ONEHOT = 12  # one-hot counts up to this wide stay one-hot
# A player file's ``meta["features"]``: what its network reads (``"raw"``: the observation as it is).
FEATURE_SETS = ("compact", "actions", "raw")


class Features:
    """The observation -> float features map of one game spec (module docstring)."""

    def __init__(self, spec: GameSpec, actions: bool = False) -> None:
        if actions and spec.learning.action_features is None:
            raise ValueError(f"{spec.name} has no per-action features (GameSpec.learning.action_features); use the "
                             f"compact features alone (features='compact')")
        self.spec = spec
        self.actions = bool(actions)
        keep: list[int] = []
        counts: list[tuple[int, int, int, int]] = []  # (offset, groups, width, one-hot axis) per wide block
        kept_names: list[str] = []
        count_names: list[str] = []
        off = 0
        for b in spec.obs_blocks:
            width = b.shape[b.axis] if b.kind == "onehot" else 0
            if b.kind == "onehot" and width > MAX_ONEHOT and width != spec.deck:
                counts.append((off, b.size // width, width, b.axis % len(b.shape)))
                count_names += [f"{b.name}[{i}]{part}" for i in range(b.size // width) for part in (".value", ".set")]
            else:
                keep.extend(range(off, off + b.size))
                kept_names += [f"{b.name}:{i}" for i in range(b.size)]
            off += b.size
        self._keep = np.array(keep, np.int64)
        # Each wide block: a [groups * width] slice -> value and flag per group via one matrix product.
        self._counts = []
        for offset, groups, width, axis in counts:
            if axis != len(self._shape_of(offset)) - 1:
                raise ValueError("wide one-hot counts must be one-hot along their last axis")
            weights = np.zeros((groups * width, 2 * groups), np.float32)
            for g in range(groups):
                weights[g * width:(g + 1) * width, 2 * g] = np.arange(width) / (width - 1)
                weights[g * width:(g + 1) * width, 2 * g + 1] = 1.0
            self._counts.append((offset, groups * width, weights))
        action_names = [f"{fact}:{c}" for fact in spec.learning.action_feature_names for c in range(spec.deck)] if actions else []
        self.names = kept_names + count_names + action_names  # in the order of the output columns
        self.size = len(self.names)

    @property
    def linear(self) -> bool:
        """Whether the map is linear in the observation (:meth:`matrix` exists): without the per-card facts."""
        return not self.actions

    def _shape_of(self, offset: int) -> tuple[int, ...]:
        off = 0
        for b in self.spec.obs_blocks:
            if off == offset:
                return b.shape
            off += b.size
        raise KeyError(offset)

    @property
    def linear_size(self) -> int:
        """How many of the columns, the first ones, are linear in the observation (all but the per-card facts)."""
        return self.size - (len(self.spec.learning.action_feature_names) * self.spec.deck if self.actions else 0)

    def matrix(self) -> np.ndarray:
        """The map as a matrix ``[obs_size, size]``: ``Features(spec)(obs) == obs @ matrix()`` (it is linear), so
        a network's first layer can take the observation directly (``matrix() @ W1``). Only without the
        per-action features, which are not linear (:meth:`linear_matrix` gives the columns before them)."""
        if not self.linear:
            raise ValueError("the per-action features are not a linear map of the observation: no matrix")
        return self.linear_matrix()

    def linear_matrix(self) -> np.ndarray:
        """The first :attr:`linear_size` columns of the map as a matrix ``[obs_size, linear_size]``:
        ``self(obs)[:, :linear_size] == obs @ linear_matrix()``; the per-card facts follow them."""
        m = np.zeros((self.spec.obs_size, self.linear_size), np.float32)
        m[self._keep, np.arange(len(self._keep))] = 1.0
        col = len(self._keep)
        for offset, size, weights in self._counts:
            m[offset:offset + size, col:col + weights.shape[1]] = weights
            col += weights.shape[1]
        return m

    def many(self, obs: np.ndarray, rows: int = 65536) -> np.ndarray:
        """Features ``[B, size]`` float32 of a large batch, ``rows`` observations at a time into one array.

        The same values as ``self(obs)`` at the memory of the result alone: ``self(obs)`` holds its parts
        and their concatenation at once, about twice the result, too much for millions of rows."""
        x = np.asarray(obs)
        if x.ndim != 2:
            raise ValueError(f"observations must be a [B, {self.spec.obs_size}] array, got shape {x.shape}")
        if rows < 1:
            raise ValueError(f"rows must be positive, got {rows}")
        out = np.empty((len(x), self.size), np.float32)
        for start in range(0, len(x), rows):
            out[start:start + rows] = self(x[start:start + rows])
        return out

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Features ``[B, size]`` float32 of observations ``[B, obs_size]`` (or one row)."""
        x = np.asarray(obs)
        single = x.ndim == 1
        if single:
            x = x[None]
        if x.shape[1] != self.spec.obs_size:
            raise ValueError(f"observations must have {self.spec.obs_size} values for {self.spec.name}, "
                             f"got shape {np.shape(obs)}")
        parts = [x[:, self._keep].astype(np.float32)]
        for offset, size, weights in self._counts:
            parts.append(x[:, offset:offset + size].astype(np.float32) @ weights)
        if self.actions:
            parts.append(self.spec.learning.action_features(self.spec, x))
        out = np.concatenate(parts, axis=1)
        return out[0] if single else out


def features_of(spec: GameSpec, name: str | None) -> Features | None:
    """The feature map a player file names in ``meta["features"]`` (None: ``"compact"``); None for ``"raw"``."""
    name = "compact" if name is None else name
    if name not in FEATURE_SETS:
        raise ValueError(f"unknown features {name!r}: allowed {', '.join(FEATURE_SETS)}")
    return None if name == "raw" else Features(spec, actions=name == "actions")
