"""Table text shared by the games: a hand, the table (``render_mode="ansi"`` / ``"human"``) and why a card
cannot be played under the trick rules every game has (follow suit, and the duties to trump and to beat)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from trickenv import cards
from trickenv.engine.layout import (
    DEALER, LEADER, PHASE, PH_DONE, PH_TRUMP, POINTS, ROUND, TO_ACT, TOTALS, TRICK, TRICK_LEN, TRICK_NO, TRICKS, TRUMP,
)
from trickenv.engine.state import State

if TYPE_CHECKING:
    from trickenv.games.base import GameSpec
    from trickenv.games.parts import Words


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


# Where the dealer names trump before play (Farbwechsel, Four Tricks), what comes before the cards.
TRUMP_FIRST = "choose trump first, before any card is played"


def trump_reason(spec: "GameSpec", state: State, g: int, a: int, legal: str) -> str:
    """Why the trump action ``a`` is not legal now: the dealer names trump, before play."""
    if int(state.s[g, PHASE]) != PH_TRUMP:
        return "trump is chosen by the dealer before play" + legal
    return f"{spec.action_str(a)} is not possible{legal}"


def card_reason(spec: "GameSpec", state: State, g: int, seat: int, c: int, moves: list[int], words: "Words",
                legal: str, before_cards: dict[int, str] | None = None) -> str:
    """Why card ``c`` cannot be played by ``seat`` in game ``g`` now: not held, a decision of the phase
    ``before_cards`` names comes first (``{phase: what to do first}``), or the trick rules (follow suit; where
    the game has them, the duties to beat the winning card and to trump)."""
    s = state.s[g]
    deck, sym = spec.deck, words.card(c)
    if not (int(state.hands[g, seat]) >> c) & 1:
        return f"you do not hold {sym}"
    phase = int(s[PHASE])
    if before_cards and phase in before_cards:
        return f"{before_cards[phase]}{legal}"
    cards_legal = [a for a in moves if a < deck]
    if not cards_legal or s[TRICK_LEN] == 0:
        return f"{sym} cannot be played now{legal}"
    suit, led, trump = cards.suit_of(c, deck), cards.suit_of(int(s[TRICK]), deck), int(s[TRUMP])
    suits = {cards.suit_of(a, deck) for a in cards_legal}
    sym_led = cards.SUIT_SYMBOLS[led]
    if suit != led and led in suits:
        return f"you must follow suit: {sym_led} was led and you hold {sym_led}{legal}"
    if suit == led:
        return f"you must beat the card winning the trick if you can: play a higher {sym_led}{legal}"
    if trump >= 0 and suits == {trump} and suit != trump:
        return f"you have no {sym_led}, so you must play a trump ({cards.SUIT_SYMBOLS[trump]}){legal}"
    if suit == trump:
        return f"you must play a higher trump than the one winning the trick{legal}"
    return f"{sym} cannot be played now{legal}"
