"""What the perfect-information solver (``trickenv.engine.alphabeta``) needs to know of King Calling.

In a world every hand is known, so the partnership is too: the calling side (caller and
partner, or the caller alone) plays against the defenders, a zero-sum game of payments.
The value is a seat's payment plus ``tiebreak`` times its side's total (card points with
counted marriages) / 120: payments come in whole stakes, and the total says which of
two equal payments came nearer the next one. The called card is never merged with a
card next to it: playing it makes the partnership public.
"""

from __future__ import annotations

from numba import njit

from trickenv.engine.alphabeta import solve_positions
from trickenv.games.koenigrufen.rules import (
    ALONE,
    BIG_BY,
    BIG_KIND,
    CALLED,
    CALLER,
    HOLDER,
    LAST_CALL_TOTAL,
    LAST_CALLER,
    LAST_DEF_TOTAL,
    MARR,
    PARTNER,
    REVEALED,
    apply_action,
    write_mask,
)

COMPILE_LABEL = "the King Calling solver"  # trickenv.engine.first_run

# Fields of State.s beyond the common ones that decide the rest of a deal: the call, the sides and the
# declarations.
KEY_FIELDS = (CALLER, CALLED, PARTNER, HOLDER, ALONE, REVEALED, MARR, MARR + 1, MARR + 2, MARR + 3, BIG_BY, BIG_KIND)


@njit
def _calling(s, d, q):
    return q == s[d, CALLER] or q == s[d, PARTNER]

# The fields of State.s its rules read (the rest are records): what the solver copies from ply to ply.
COPY_FIELDS = LAST_CALLER


@njit
def _allied(s, d, cfg, me, q):
    """The seats on ``me``'s side: the calling side or the defenders."""
    return _calling(s, d, q) == _calling(s, d, me)


@njit
def _side_total(s, d, me):
    """The total of ``me``'s side in the deal just finished (card points and counted marriages)."""
    return s[d, LAST_CALL_TOTAL] if _calling(s, d, me) else s[d, LAST_DEF_TOTAL]


@njit
def _card_kind(s, d, tab, c):
    """-1 (never merged) for the called card, 0 for the rest."""
    return -1 if c == s[d, CALLED] else 0


@njit(cache=True, nogil=True)
def solve_kernel(hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng, cfg, tab, games, me,
                 per_move, tiebreak, cards_only, merge, use_tt, maxn, tt_keys, tt_lo, tt_hi, tt_move, tt_vec, values,
                 nodes):
    """``trickenv.engine.alphabeta.solve_positions`` with the rules of King Calling."""
    solve_positions(apply_action, write_mask, _allied, _side_total, _card_kind, KEY_FIELDS, COPY_FIELDS,
                    (hands, aux, played_by, played_in, trick_trump, dealt, last_play, s, rng), cfg, tab, games, me,
                    per_move, tiebreak, (cards_only, merge, use_tt, maxn), (tt_keys, tt_lo, tt_hi, tt_move, tt_vec),
                    values, nodes)
