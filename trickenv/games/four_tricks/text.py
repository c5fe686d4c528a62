"""What the table says in Four Tricks: action names, the table, why a move is illegal, the facts of a deal."""

from __future__ import annotations

from typing import Any

from trickenv import cards
from trickenv.engine.layout import DEALER, PH_BID, PH_TRUMP, PHASE
from trickenv.engine.state import State
from trickenv.games.base import (
    GameSpec,
    Words,
)
from trickenv.games.four_tricks.rules import (
    BIDS,
    TARGET,
    TURNED_UP,
)
from trickenv.games.parts import GameText
from trickenv.games.table_text import TRUMP_FIRST, card_reason, trump_reason, render_table


def deal_facts(spec: GameSpec, info: dict[str, Any], words: Words) -> list[str]:
    """The table's lines after a deal: the target or the bids."""
    out = []
    if int(info["target"]) >= 0:
        out.append(f"target: exactly {int(info['target'])} tricks")
    if (info["bids"] >= 0).any():
        out.append("bids: " + ", ".join(f"{words.label(p)} {int(b)}" for p, b in
                                          enumerate(info["bids"][:spec.num_players])))
    return out


def render(spec: GameSpec, state: State, g: int) -> str:
    """A readable table of game g: trump, trick, tricks won, scores, the acting hand."""
    s = state.s[g]
    extra = []
    if s[TURNED_UP] >= 0:
        extra.append(f"turned up {cards.card_symbol(int(s[TURNED_UP]), spec.deck)}")
    if spec.options["bidding"]:
        extra.append("bids " + " ".join("-" if b < 0 else str(b) for b in s[BIDS:BIDS + spec.num_players]))
    elif s[TARGET] >= 0:
        extra.append(f"target {s[TARGET]}")
    return render_table(spec, state, g, extra)


def seat_badges(spec: GameSpec, state: State, g: int) -> list[list[str]]:
    """Each seat's bid (bids are public once made) or the target all seats share."""
    s = state.s[g]
    if spec.options["bidding"]:
        return [[] if b < 0 else [f"bid {int(b)}"] for b in s[BIDS:BIDS + spec.num_players]]
    return [[f"target {int(s[TARGET])}"] if s[TARGET] >= 0 else [] for _ in range(spec.num_players)]


def describe_action(spec: GameSpec, a: int) -> str:
    """Name of a non-card action: the dealer's trump or a bid."""
    deck = spec.deck
    if deck <= a < deck + 4:
        return f"trump {cards.SUIT_NAMES[a - deck]}"
    if deck + 4 <= a < spec.num_actions:
        return f"bid {a - deck - 4}"
    return f"action {a}"


def action_rows(spec: GameSpec) -> list[tuple[str, str, str]]:
    """The action ids, range by range, for ``spec``'s deck: ``(ids, action, when)``."""
    deck, hand = spec.deck, spec.hand_size
    return [(f"0 .. {deck - 1}", f"play card `c = suit * {deck // 4} + rank`", "play; follow suit if able"),
            (f"{deck} .. {deck + 3}", f"make suit `a - {deck}` (C S H D) trump", "`trump=\"dealer\"`: the "
             "dealer, after seeing the hand"),
            (f"{deck + 4} .. {deck + 4 + hand}", f"bid `a - {deck + 4}` tricks (0 .. {hand})", "`bidding=True`: "
             "each seat from the dealer's left; the dealer may not make the bids add up to the tricks")]


# What comes before the cards, by phase.
BEFORE_CARDS = {PH_TRUMP: TRUMP_FIRST,
                PH_BID: "bid first (e.g. 'bid 4'), cards are played after the bidding"}


def illegal_reason(spec: GameSpec, state: State, g: int, seat: int, a: int, moves: list[int], words: Words,
                   legal: str) -> str:
    """Why ``a`` is not legal now: the trick rules for a card; the dealer names trump; bids come after trump,
    and the dealer's bid may not make the bids add up to the tricks."""
    if a < spec.deck:
        return card_reason(spec, state, g, seat, a, moves, words, legal, BEFORE_CARDS)
    if a < spec.deck + 4:
        return trump_reason(spec, state, g, a, legal)
    s, name = state.s[g], spec.action_str(a)
    if int(s[PHASE]) != PH_BID:
        return "bids are made after trump is fixed and before play" + legal
    k = a - spec.deck - 4
    bids = s[BIDS:BIDS + spec.num_players]
    if seat == int(s[DEALER]) and int(bids[bids >= 0].sum()) + k == spec.num_tricks:
        return f"the dealer may not bid {k}: the bids would add up to the {spec.num_tricks} tricks{legal}"
    return f"{name} is not possible now{legal}"


GAME_TEXT = GameText(
    title="Four Tricks",
    tagline="3 players: take exactly your target number of tricks, no more and no fewer.",
    describe_action=describe_action, action_rows=action_rows, render=render, illegal_reason=illegal_reason,
    deal_facts=deal_facts, seat_badges=seat_badges)
