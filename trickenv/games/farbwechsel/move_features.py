"""Farbwechsel in a player's words: readable features of every legal move, for the playbook.

:func:`move_features` describes each position and each legal move by what a person sees at the table
(:class:`trickenv.games.parts.MoveFeatures`): the card play's shared words (:mod:`trickenv.games.move_words`:
the trick number, a card is trump, wins the trick for sure, cards held in its suit) and Farbwechsel's own: how
often trump changed, the queens out and held, the points against the best opponent, whether a card changes
trump, and the ten and queen of a suit. The first trump's moves are described by the suit they declare. It reads
the observation alone (docs/envs/farbwechsel.md), so a rule stated in these words reads only what the seat may
know.
"""

from __future__ import annotations

import numpy as np

from trickenv.games.base import GameSpec
from trickenv.games.farbwechsel.rules import TAB_SWITCH
from trickenv.games.hand_features import obs_block
from trickenv.games.move_words import PLAY_KINDS, assemble, card_play, onehot, words_for
from trickenv.games.parts import MoveFeatures

KINDS = ("declaring the first trump",) + PLAY_KINDS

OWN_WORDS: dict[str, tuple[str, ...]] = {
    "changes": ("trump changes so far",),
    "changed_last": ("trump changed after the last trick", "trump did not change after the last trick"),
    "queens_out": ("trump-changing cards already played",),
    "my_queens": ("trump-changing cards you hold",),
    "ahead": ("your points minus the best opponent's (teams: your team's minus theirs)",),
    "is_switch": ("it changes trump", "it does not change trump"),
    "has_ten": ("you hold the ten of its suit", "you do not hold the ten of its suit"),
    "has_queen": ("you hold the queen of its suit", "you do not hold the queen of its suit"),
}
_TEN, _QUEEN = 3, 5  # rank ids within a suit: 7 8 9 10 J Q K A


def move_features(spec: GameSpec, obs: np.ndarray, mask: np.ndarray) -> MoveFeatures:
    """:class:`MoveFeatures` of a batch: ``obs [B, obs_size]``, ``mask [B, num_actions]`` (the legal moves)."""
    obs, mask = np.asarray(obs), np.asarray(mask, bool)
    b, n, deck = len(obs), spec.num_players, spec.deck
    play = card_play(spec, obs, mask)
    past = onehot(obs_block(spec, obs, "trick_trump").reshape(b, spec.num_tricks, 4))  # trump of each trick, -1
    done = (past >= 0).sum(axis=1)
    changed_last = (done > 0) & (play.trump != past[np.arange(b), np.maximum(done - 1, 0)])
    switch = spec.tab[TAB_SWITCH, :deck] != 0
    points = onehot(obs_block(spec, obs, "points").reshape(b, n, -1))
    held = play.hand.reshape(b, 4, deck // 4)
    play.context.update({
        "changes": ((past[:, 1:] != past[:, :-1]) & (past[:, 1:] >= 0)).sum(axis=1) + changed_last,
        "changed_last": changed_last, "queens_out": (play.played & switch).sum(axis=1),
        "my_queens": (play.hand & switch).sum(axis=1), "ahead": _ahead(points, spec.options["partnership"]),
    })
    cycle = spec.options["switch_mode"] == "cycle"
    play.cards["is_switch"] = switch[None, :] & (cycle | ~play.cards["is_trump"])
    play.by_suit.update({"has_ten": held[:, :, _TEN], "has_queen": held[:, :, _QUEEN]})
    declares = mask[:, deck:deck + 4].any(axis=1)
    kind = np.where(declares, 0, 1 + play.kind)
    named = np.broadcast_to(np.arange(4), (b, 4))  # the first trump's moves name their suit
    return assemble(spec, mask, play, KINDS, kind, {**words_for(spec), **OWN_WORDS}, {"suit": named})


def _ahead(points: np.ndarray, partnership: bool) -> np.ndarray:
    """My points (my team's: relative seats 0 + 2) minus the best opponent's (the other team's)."""
    if partnership:
        return points[:, 0] + points[:, 2] - points[:, 1] - points[:, 3]
    return points[:, 0] - points[:, 1:].max(axis=1)
