"""Read observations by name: ``decode(obs)`` -> named arrays, ``encode`` is its exact inverse.

Every game describes its flat int8 observation as a list of :class:`Block`
(``spec.obs_blocks``); this module turns one row or a batch of rows into a dict
of NumPy arrays, one per block, so that nobody slices ``obs[:, :32]`` by hand::

    spec = trickenv.make_spec("farbwechsel")
    view = trickenv.decode(spec, obs)          # obs: [obs_size] or [B, obs_size]
    view["hand"]        # bool [B, 32]
    view["trump"]       # int  [B], -1 = none yet
    view["trick"]       # int  [B, n]: card played by each relative seat to the trick, -1

``card_sets(spec)`` gives the deck's constants (suit of each card, points,
strength, suit masks, queens, ...). docs/envs/index.md lists every block.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv import cards
from trickenv.engine.layout import TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH
from trickenv.games.base import Block

__all__ = ["Block", "decode", "encode", "card_sets"]


def _spec(game: Any, options: dict):
    if isinstance(game, str):
        from trickenv.games import make_spec

        return make_spec(game, **options)
    if options:
        raise ValueError("game options are only accepted with a game name, not with a spec")
    return getattr(game, "spec", game)  # a GameSpec, or an env / VecEnv that has one


def decode(game: Any, obs: np.ndarray, **options: Any) -> dict[str, np.ndarray]:
    """Named arrays of observation row(s) ``obs`` (``[obs_size]`` or ``[B, obs_size]``).

    ``game`` is a game name (with its options), a ``GameSpec``, or an env that has
    one. Each value has the batch axis first when ``obs`` is a batch.
    """
    spec = _spec(game, options)
    x = np.asarray(obs)
    single = x.ndim == 1
    if single:
        x = x[None]
    if x.ndim != 2 or x.shape[1] != spec.obs_size:
        raise ValueError(f"obs must have shape ({spec.obs_size},) or (B, {spec.obs_size}) for {spec.name}, "
                         f"got {np.shape(obs)}")
    out: dict[str, np.ndarray] = {}
    off = 0
    for b in spec.obs_blocks:
        part = x[:, off:off + b.size].reshape((x.shape[0],) + b.shape)
        off += b.size
        if b.kind == "bits":
            val = part != 0
        else:
            ax = b.axis % len(b.shape) + 1
            hot = part != 0
            idx = hot.argmax(axis=ax).astype(np.int16)
            val = np.where(hot.any(axis=ax), idx, np.int16(-1))
            if b.none_index is not None:
                val[val == b.none_index] = -1
            if b.scale != 1:
                val = np.where(val >= 0, val * np.int16(b.scale), val)
        out[b.name] = val[0] if single else val
    return out


def encode(game: Any, fields: dict[str, np.ndarray], **options: Any) -> np.ndarray:
    """The int8 observation(s) whose :func:`decode` is ``fields`` (its exact inverse)."""
    spec = _spec(game, options)
    first = spec.obs_blocks[0]
    lead = np.asarray(fields[first.name]).ndim - len(first.shape)
    if lead not in (0, 1):
        raise ValueError(f"field {first.name!r} must have shape {first.shape} or (B, *{first.shape})")
    batch = np.asarray(fields[first.name]).shape[0] if lead else 1
    out = np.zeros((batch, spec.obs_size), np.int8)
    off = 0
    for b in spec.obs_blocks:
        if b.name not in fields:
            raise ValueError(f"fields lack block {b.name!r}; {spec.name} has {[x.name for x in spec.obs_blocks]}")
        val = np.asarray(fields[b.name])
        val = val.reshape((batch,) + val.shape[lead:]) if lead else val[None]
        view = out[:, off:off + b.size].reshape((batch,) + b.shape)
        off += b.size
        if b.kind == "bits":
            view[...] = val != 0
            continue
        idx = val.astype(np.int64)
        if b.scale != 1:
            idx = np.where(idx >= 0, idx // b.scale, idx)
        if b.none_index is not None:
            idx = np.where(idx < 0, b.none_index, idx)
        ax = b.axis % len(b.shape) + 1
        hot = np.moveaxis(view, ax, -1)  # a view: writing it writes out
        n = b.shape[ax - 1]
        ok = (idx >= 0) & (idx < n)
        if np.any((idx >= n) | (idx < -1)):
            raise ValueError(f"block {b.name!r}: values must be -1 or 0..{n - 1} (times {b.scale})")
        pos = np.nonzero(ok)
        hot[pos + (idx[pos],)] = 1
    return out[0] if lead == 0 else out


def card_sets(game: Any, **options: Any) -> dict[str, np.ndarray]:
    """Constants of the game's deck, indexed by card id.

    ``suit``, ``rank`` (0 = lowest face value), ``points``, ``strength`` (within a
    suit, outside trump) and ``trump_strength`` (within the trump suit); bool masks
    ``suit_mask[s]``, ``aces``, ``kings``, ``queens``, ``jacks``, ``tens``, and
    Farbwechsel's ``switch`` (cards that change trump).
    """
    spec = _spec(game, options)
    deck = spec.deck
    faces = cards.DECK_RANKS[deck]
    rank = np.arange(deck) % len(faces)
    tab = spec.tab[:, :deck]
    out = {
        "suit": tab[TAB_SUIT].astype(np.int8),
        "rank": rank.astype(np.int8),
        "points": tab[TAB_POINTS].astype(np.int16),
        "strength": tab[TAB_STRENGTH].astype(np.int8),
        "trump_strength": tab[TAB_TRUMP_STRENGTH].astype(np.int8),
        "suit_mask": np.stack([tab[TAB_SUIT] == s for s in range(4)]),
    }
    for name, face in (("aces", "A"), ("kings", "K"), ("queens", "Q"), ("jacks", "J"), ("tens", "10")):
        out[name] = rank == faces.index(face)
    out.update({k: np.asarray(v).copy() for k, v in spec.card_sets.items()})
    return out
