"""What the perfect-information solver (``trickenv.engine.alphabeta``) needs to know of Farbwechsel.

The value is one seat's deal score (its team's with ``partnership=True``, where the
two teams play a zero-sum game of card points), with every other seat against it
(paranoid). The trump changes are the game's ``apply_action``: the solver plays them as the
engine does. Cards that change trump are of their own kind, so a queen is never merged
with a plain card next to it.
"""

from __future__ import annotations

from numba import njit

from trickenv.engine.alphabeta import solve_positions
from trickenv.engine.layout import LAST_POINTS
from trickenv.games.farbwechsel.rules import C_PARTNER, FIRST_TRUMP, REC, TAB_SWITCH, apply_action, write_mask

COMPILE_LABEL = "the Farbwechsel solver"  # trickenv.engine.first_run

# Fields of State.s beyond the common ones that decide the rest of a deal (the trump in force, the points
# taken and the trick are common ones).
KEY_FIELDS = (FIRST_TRUMP,)

# The fields of State.s its rules read (the rest are records): what the solver copies from ply to ply.
COPY_FIELDS = REC


@njit
def _allied(s, d, cfg, me, q):
    """``me`` and, with partnerships, the seat across the table."""
    return q == me or (cfg[C_PARTNER] != 0 and (q - me) % 2 == 0)


@njit
def _side_total(s, d, me):
    """Card points ``me`` took in the deal just finished."""
    return s[d, LAST_POINTS + me]


@njit
def _card_kind(s, d, tab, c):
    """1 for a card that changes trump, 0 for the rest."""
    return tab[TAB_SWITCH, c]


@njit(cache=True, nogil=True)
def solve_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, games, me,
                 per_move, tiebreak, cards_only, merge, use_tt, maxn, tt_keys, tt_lo, tt_hi, tt_move, tt_vec, values,
                 nodes):
    """``trickenv.engine.alphabeta.solve_positions`` with the rules of Farbwechsel."""
    solve_positions(apply_action, write_mask, _allied, _side_total, _card_kind, KEY_FIELDS, COPY_FIELDS,
                    (hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng), cfg, tab, games, me,
                    per_move, tiebreak, (cards_only, merge, use_tt, maxn), (tt_keys, tt_lo, tt_hi, tt_move, tt_vec),
                    values, nodes)
