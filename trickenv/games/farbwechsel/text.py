"""What the table says in Farbwechsel: action names, the table, why a move is illegal, the facts of a deal."""

from __future__ import annotations

from typing import Any

from trickenv import cards
from trickenv.engine.layout import PH_TRUMP
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
    Words,
)
from trickenv.games.farbwechsel.rules import (
    CHANGES,
    DECK,
    FIRST_TRUMP,
)
from trickenv.games.parts import GameText
from trickenv.games.table_text import TRUMP_FIRST, card_reason, trump_reason, render_table


def deal_facts(spec: GameSpec, info: dict[str, Any], words: Words) -> list[str]:
    """The table's lines after a deal: first and last trump and the changes, team points, the cards set aside."""
    out = []
    k = int(info["trump_changes"])
    out.append(f"first trump {words.suit(int(info['first_trump']))}; trump changed {k} time"
               f"{'' if k == 1 else 's'}; last trump {words.suit(int(info['trump']))}")
    if "team_points" in info:
        tp = info["team_points"]
        out.append(f"teams: P0+P2 {int(tp[0])} points, P1+P3 {int(tp[1])} points")
    if len(info["undealt"]):
        aside = " ".join(words.card(c) for c in info["undealt"])
        out.append(f"set aside: {aside} ({int(info['set_aside_points'])} points)")
    return out


def render(spec: GameSpec, state: State, g: int) -> str:
    """A readable table of game g: trump, first trump, changes, trick, points, the acting hand."""
    s = state.s[g]
    extra = []
    if s[FIRST_TRUMP] >= 0:
        extra.append(f"declared {cards.SUIT_SYMBOLS[int(s[FIRST_TRUMP])]}")
    extra.append(f"changes {int(s[CHANGES])}")
    return render_table(spec, state, g, extra)


def describe_action(spec: GameSpec, a: int) -> str:
    """Name of a non-card action: the dealer's trump."""
    if DECK <= a < DECK + 4:
        return f"trump {cards.SUIT_NAMES[a - DECK]}"
    return f"action {a}"


def action_rows(spec: GameSpec) -> list[tuple[str, str, str]]:
    """The action ids, range by range: ``(ids, action, when)``."""
    return [(f"0 .. {DECK - 1}", "play card `c = suit * 8 + rank`", "play; follow suit if able, else any card"),
            (f"{DECK} .. {DECK + 3}", f"declare suit `a - {DECK}` (C S H D) the first trump", "the dealer, before "
             "the first card")]


# What comes before the cards, by phase.
BEFORE_CARDS = {PH_TRUMP: TRUMP_FIRST}


def illegal_reason(spec: GameSpec, state: State, g: int, seat: int, a: int, moves: list[int], words: Words,
                   legal: str) -> str:
    """Why ``a`` is not legal now: the trick rules for a card; the dealer names trump before play."""
    if a < spec.deck:
        return card_reason(spec, state, g, seat, a, moves, words, legal, BEFORE_CARDS)
    return trump_reason(spec, state, g, a, legal)


GAME_TEXT = GameText(
    title="Farbwechsel",
    tagline="Skat cards, 3 or 4 players: the last queen played in a trick makes her suit trump.",
    describe_action=describe_action, action_rows=action_rows, render=render, illegal_reason=illegal_reason,
    deal_facts=deal_facts)
