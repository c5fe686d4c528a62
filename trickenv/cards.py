"""Decks, card ids and the text form of docs/rules.md (Shared conventions) (``QH``, ``10S``)."""

from __future__ import annotations

from typing import Iterable, Sequence

SUITS = "CSHD"
SUIT_SYMBOLS = "♣♠♥♦"
SUIT_NAMES = ("clubs", "spades", "hearts", "diamonds")

# Face values of each deck, lowest rank first: rank index = position here.
DECK_RANKS: dict[int, tuple[str, ...]] = {
    32: ("7", "8", "9", "10", "J", "Q", "K", "A"),
    48: ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"),
    52: ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"),
}


def check_deck(deck: int) -> int:
    """Return the deck size if it is one of 32, 48, 52, else raise ValueError."""
    if deck not in DECK_RANKS:
        raise ValueError(f"deck must be one of {sorted(DECK_RANKS)}, got {deck!r}")
    return deck


def num_ranks(deck: int) -> int:
    """Ranks per suit (R) of a deck."""
    return len(DECK_RANKS[check_deck(deck)])


def card_id(suit: int, rank: int, deck: int) -> int:
    """Card id ``suit * R + rank``."""
    r = num_ranks(deck)
    if not 0 <= suit < 4 or not 0 <= rank < r:
        raise ValueError(f"suit must be 0..3 and rank 0..{r - 1}, got suit={suit}, rank={rank}")
    return suit * r + rank


def suit_of(card: int, deck: int) -> int:
    """Suit index (0..3) of a card id."""
    return check_card(card, deck) // num_ranks(deck)


def rank_of(card: int, deck: int) -> int:
    """Rank index (0 = lowest face value) of a card id."""
    return check_card(card, deck) % num_ranks(deck)


def check_card(card: int, deck: int) -> int:
    """Return ``card`` as int if it is a valid id of ``deck``, else raise ValueError."""
    if isinstance(card, bool) or not isinstance(card, (int,)) and not hasattr(card, "__index__"):
        raise ValueError(f"card id must be an integer, got {card!r}")
    c = int(card)
    if not 0 <= c < check_deck(deck):
        raise ValueError(f"card id {c} is out of range for a {deck}-card deck (0..{deck - 1})")
    return c


def card_str(card: int, deck: int) -> str:
    """Text form of a card id, e.g. ``21 -> 'QH'`` in the 32-card deck."""
    c = check_card(card, deck)
    r = num_ranks(deck)
    return DECK_RANKS[deck][c % r] + SUITS[c // r]


def card_symbol(card: int, deck: int) -> str:
    """Text form with a suit symbol, e.g. ``'Q♥'``."""
    c = check_card(card, deck)
    r = num_ranks(deck)
    return DECK_RANKS[deck][c % r] + SUIT_SYMBOLS[c // r]


def parse_card(text: str, deck: int) -> int:
    """Card id of a text form such as ``'QH'``, ``'10s'`` or ``'T♠'``."""
    if not isinstance(text, str):
        raise ValueError(f"card text must be a string, got {text!r}")
    t = text.strip().upper()
    if len(t) < 2:
        raise ValueError(f"cannot parse card {text!r}: expected rank then suit, e.g. 'QH' or '10S'")
    face, suit_ch = t[:-1], t[-1]
    suit_ch = {"♣": "C", "♠": "S", "♥": "H", "♦": "D"}.get(suit_ch, suit_ch)
    if face == "T":
        face = "10"
    if suit_ch not in SUITS:
        raise ValueError(f"cannot parse card {text!r}: suit must be one of C, S, H, D")
    ranks = DECK_RANKS[check_deck(deck)]
    if face not in ranks:
        raise ValueError(
            f"cannot parse card {text!r}: rank {face!r} is not in the {deck}-card deck ({', '.join(ranks)})"
        )
    return SUITS.index(suit_ch) * len(ranks) + ranks.index(face)


def parse_cards(text: str | Iterable[str], deck: int) -> list[int]:
    """Card ids of a space/comma separated string or an iterable of card texts."""
    items: Sequence[str] = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t, deck) for t in items]


def cards_str(cards: Iterable[int], deck: int) -> str:
    """Space separated text form of several card ids."""
    return " ".join(card_str(c, deck) for c in cards)
