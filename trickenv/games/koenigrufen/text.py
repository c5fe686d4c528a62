"""What the table says in King Calling: action names, the table, the sides once public, why a move is illegal, the
facts of a deal."""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv import cards
from trickenv.engine.layout import PH_CALL, PH_PLAY, PHASE, TRICK_NO
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
    Words,
)
from trickenv.games.koenigrufen.rules import (
    A_ALL_TRICKS,
    A_CALL,
    A_HUNDRED,
    A_MARRIAGE,
    BIG_BY,
    BIG_KIND,
    BIG_NAMES,
    CALLED,
    CALLER,
    DECK,
    MARR,
    NUM_PLAYERS,
    PARTNER,
    RANK_K,
    RANK_O,
    RANKS,
    REVEALED,
)
from trickenv.games.parts import GameText
from trickenv.games.table_text import card_reason, render_table


def play_news(spec: GameSpec, state: State, g: int, before: np.ndarray, words: Words) -> list[str]:
    """The table's line once the called card is out: the sides are public from then on."""
    s = state.s[g]
    if before[REVEALED] or not s[REVEALED]:
        return []
    called = words.card(int(s[CALLED]))
    if s[PARTNER] < 0:
        return [f"the called card {called} is out: the caller plays alone"]
    return [f"the called card {called} is out: {words.label(int(s[PARTNER]))} is the caller's partner"]


# What a seat knows privately about its side, by the bits of its "own_status" block.
OWN_STATUS_NOTES = ("you are the caller's secret partner",
                    "you hold the called card but are not the partner: the caller is alone",
                    "you called your own card: you play alone")


def turn_notes(spec: GameSpec, view: dict[str, np.ndarray]) -> list[str]:
    """The table's lines at the person's turn: what they know privately about their side."""
    return [text for k, text in enumerate(OWN_STATUS_NOTES) if view["own_status"][k]]


def deal_facts(spec: GameSpec, info: dict[str, Any], words: Words) -> list[str]:
    """The table's lines after a deal: the call and sides, a big declaration, the result."""
    out = []
    caller = int(info["caller"])
    partner = int(info["partner"])
    side = f"with partner {words.label(partner)}" if partner >= 0 else "alone"
    out.append(f"{words.label(caller, True)} called {words.card(int(info['called_card']))} "
               f"and played {side}")
    big = int(info["big_declaration"])
    if big:
        out.append(f"{words.label(int(info['big_declared_by']), True)} declared "
                   f"{('the hundred', 'all tricks')[big - 1]}")
    tt = info["team_totals"]
    won = "won" if info["calling_wins"] else "lost"
    out.append(f"calling side {int(tt[0])} (needed {int(info['threshold'])}), defenders {int(tt[1])}: "
               f"the calling side {won}, stake {int(info['stake'])}")
    return out


# ------------------------------------------------------------ text and infos


def describe_action(spec: GameSpec, a: int) -> str:
    """Name of a non-card action: a call, a marriage, the hundred or all tricks."""
    if A_CALL <= a < A_MARRIAGE:
        return f"call {cards.card_str(a - A_CALL, DECK)}"
    if A_MARRIAGE <= a < A_HUNDRED:
        return f"marriage {cards.SUIT_NAMES[a - A_MARRIAGE]}"
    if a == A_HUNDRED:
        return "hundred"
    if a == A_ALL_TRICKS:
        return "all tricks"
    return f"action {a}"


def action_rows(spec: GameSpec) -> list[tuple[str, str, str]]:
    """The action ids, range by range: ``(ids, action, when)``."""
    return [(f"0 .. {DECK - 1}", "play card `c = suit * 8 + rank`", "play, under the duties (follow suit, else "
             "trump; beat the trick if able)"),
            (f"{A_CALL} .. {A_MARRIAGE - 1}", f"call card `a - {A_CALL}`: its suit is trump", "the caller (forehand), "
             "after the first batch"),
            (f"{A_MARRIAGE} .. {A_HUNDRED - 1}", f"marriage (K and O) in suit `a - {A_MARRIAGE}`", "first trick, own "
             "turn, before playing; holding both"),
            (f"{A_HUNDRED}", "hundred: the side will reach 100", "first trick, own turn, before playing; no big "
             "declaration yet"),
            (f"{A_ALL_TRICKS}", "all tricks: the side will take all 8", f"as {A_HUNDRED}")]


def seat_badges(spec: GameSpec, state: State, g: int) -> list[list[str]]:
    """The caller, and the partner (or that the caller is alone) once the called card has shown it."""
    s = state.s[g]
    out: list[list[str]] = [[] for _ in range(NUM_PLAYERS)]
    if s[CALLER] >= 0:
        out[int(s[CALLER])].append("caller")
        if s[CALLED] >= 0 and s[REVEALED]:
            if s[PARTNER] < 0:
                out[int(s[CALLER])].append("alone")
            else:
                out[int(s[PARTNER])].append("partner")
    return out


def render(spec: GameSpec, state: State, g: int) -> str:
    """A readable table of game g: call, public sides, declarations, trick and the acting hand."""
    s = state.s[g]
    extra = [f"caller P{int(s[CALLER])}"]
    if s[CALLED] >= 0:
        extra.append(f"called {cards.card_symbol(int(s[CALLED]), DECK)}")
        if s[REVEALED]:
            extra.append("caller alone" if s[PARTNER] < 0 else f"partner P{int(s[PARTNER])}")
    decl = [f"P{q} marriage {cards.SUITS[su]}" for q in range(NUM_PLAYERS) for su in range(4)
            if (int(s[MARR + q]) >> su) & 1]
    if s[BIG_BY] >= 0:
        decl.append(f"P{int(s[BIG_BY])} {BIG_NAMES[int(s[BIG_KIND])].replace('_', ' ')}")
    if decl:
        extra.append(", ".join(decl))
    return render_table(spec, state, g, extra)


# What comes before the cards, by phase.
BEFORE_CARDS = {PH_CALL: "call a card first"}


def illegal_reason(spec: GameSpec, state: State, g: int, seat: int, a: int, moves: list[int], words: Words,
                   legal: str) -> str:
    """Why ``a`` is not legal now: the trick rules for a card (with the duties to trump and to beat); only the
    caller calls; declarations come in the first trick, a marriage needs its K and O, one big declaration."""
    if a < spec.deck:
        return card_reason(spec, state, g, seat, a, moves, words, legal, BEFORE_CARDS)
    s = state.s[g]
    if A_CALL <= a < A_MARRIAGE:
        return "only the caller calls a card, before play" + legal
    if int(s[PHASE]) != PH_PLAY or int(s[TRICK_NO]) > 0:
        return "declarations are made only in the first trick, on your turn, before your card" + legal
    if A_MARRIAGE <= a < A_HUNDRED:
        suit = a - A_MARRIAGE
        king, ober = suit * RANKS + RANK_K, suit * RANKS + RANK_O
        hand = int(state.hands[g, seat])
        if not ((hand >> king) & 1 and (hand >> ober) & 1):
            return f"a marriage in {words.suit(suit)} needs its K and O (Q) in your hand{legal}"
        return f"you declared the marriage in {words.suit(suit)} already{legal}"
    return f"{spec.action_str(a)} is not possible: only one hundred or all tricks may be declared in a deal{legal}"


GAME_TEXT = GameText(
    title="King Calling (Königrufen)",
    tagline="4 players: the caller names a card; its holder becomes a secret partner, unknown until the card is played.",
    describe_action=describe_action, action_rows=action_rows, render=render, illegal_reason=illegal_reason,
    play_news=play_news, turn_notes=turn_notes, deal_facts=deal_facts, seat_badges=seat_badges)
