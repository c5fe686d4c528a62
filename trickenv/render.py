"""Text rendering shared by the games (``render_mode="ansi"`` / ``"human"``)."""

from __future__ import annotations

from typing import Sequence

from trickenv import cards
from trickenv.engine.layout import (
    DEALER, LEADER, PHASE, PH_DONE, POINTS, ROUND, TO_ACT, TOTALS, TRICK, TRICK_LEN, TRICK_NO, TRICKS, TRUMP,
)


def hand_text(bits: int, deck: int) -> str:
    """Cards of a bitset grouped by suit, high cards first: ``♣ A 10 7  ♥ Q``."""
    r = cards.num_ranks(deck)
    parts = []
    for suit in range(4):
        faces = [cards.DECK_RANKS[deck][k] for k in range(r - 1, -1, -1) if (int(bits) >> (suit * r + k)) & 1]
        if faces:
            parts.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(faces))
    return "  ".join(parts) if parts else "(empty)"


def render_table(spec, state, g: int, extra: Sequence[str] = ()) -> str:
    """Trump, current trick, tricks and points per seat, totals and the acting hand."""
    s = state.s[g]
    n, deck = spec.num_players, spec.deck
    trump = int(s[TRUMP])
    head = [
        f"{spec.name}  round {int(s[ROUND]) + (s[PHASE] != PH_DONE)}",
        f"dealer P{int(s[DEALER])}",
        f"phase {spec.phase_name(int(s[PHASE]))}",
        f"trump {cards.SUIT_SYMBOLS[trump] + ' ' + cards.SUIT_NAMES[trump] if trump >= 0 else 'none'}",
        *extra,
    ]
    lines = ["  |  ".join(head)]
    played = [
        f"P{(int(s[LEADER]) + j) % n} {cards.card_symbol(int(s[TRICK + j]), deck)}" for j in range(int(s[TRICK_LEN]))
    ]
    if s[PHASE] == PH_DONE:  # after the last trick: no trick in progress
        lines.append(f"deal over after {int(s[TRICK_NO])} tricks")
    else:
        lines.append(f"trick {int(s[TRICK_NO]) + 1}: " + ("  ".join(played) if played else "(no card yet)"))
    lines.append("seat  tricks  points  total")
    for p in range(n):
        mark = "*" if p == s[TO_ACT] and s[PHASE] != PH_DONE else " "
        lines.append(f"P{p}{mark}   {int(s[TRICKS + p]):>6}  {int(s[POINTS + p]):>6}  {int(s[TOTALS + p]):>5}")
    if s[PHASE] != PH_DONE:
        p = int(s[TO_ACT])
        lines.append(f"hand of P{p}: {hand_text(int(state.hands[g, p]), deck)}")
    return "\n".join(lines)
