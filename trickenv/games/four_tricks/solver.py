"""What the perfect-information solver (``trickenv.engine.alphabeta``) needs to know of Four Tricks.

Each seat plays for its own target, so the solver's value is one seat's score with the
two others against it (paranoid); no card has points and none plays a special part, so
any two cards of a suit with none in play between them are one move.
"""

from __future__ import annotations

from numba import njit

from trickenv.engine.alphabeta import solve_positions
from trickenv.engine.layout import LAST_POINTS
from trickenv.games.four_tricks.rules import BIDS, LAST_BIDS, NUM_BIDS, TARGET, apply_action, write_mask

COMPILE_LABEL = "the Four Tricks solver"  # trickenv.engine.first_run

# Fields of State.s beyond the common ones that decide the rest of a deal: the target and the bids.
KEY_FIELDS = (TARGET, BIDS, BIDS + 1, BIDS + 2, NUM_BIDS)

# The fields of State.s its rules read (the rest are records): what the solver copies from ply to ply.
COPY_FIELDS = LAST_BIDS


@njit
def _allied(s, d, cfg, me, q):
    """Only ``me`` plays for ``me``'s score."""
    return q == me


@njit
def _side_total(s, d, me):
    """Card points of ``me`` (always 0: the tie-break has nothing to add)."""
    return s[d, LAST_POINTS + me]


@njit
def _card_kind(s, d, tab, c):
    """Every card is of one kind: only its suit and strength matter."""
    return 0


@njit(cache=True, nogil=True)
def solve_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, games, me,
                 per_move, tiebreak, cards_only, merge, use_tt, maxn, tt_keys, tt_lo, tt_hi, tt_move, tt_vec, values,
                 nodes):
    """``trickenv.engine.alphabeta.solve_positions`` with the rules of Four Tricks."""
    solve_positions(apply_action, write_mask, _allied, _side_total, _card_kind, KEY_FIELDS, COPY_FIELDS,
                    (hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng), cfg, tab, games, me,
                    per_move, tiebreak, (cards_only, merge, use_tt, maxn), (tt_keys, tt_lo, tt_hi, tt_move, tt_vec),
                    values, nodes)
