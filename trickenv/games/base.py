"""What a game gives the adapters: sizes, config arrays, kernels and text helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from trickenv import cards
from trickenv.engine.layout import (
    PHASE_NAMES, TAB_GAME, TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH,
)
from trickenv.engine.state import State

UNDEALT = -1


@dataclass
class GameSpec:
    """A configured game: everything the AEC and batched adapters need.

    Kernels share one signature per role (see ``trickenv.games.four_tricks``):
    ``reset(*state, cfg, tab, deal_rows, use_deal, dealers, mask, obs)``,
    ``step(*state, cfg, tab, actions, mask, obs, rewards, done, autoreset) -> n_illegal``
    (``step_parallel``: the same over threads, identical results) and
    ``observe(*state[:-1], cfg, tab, seats, obs)``; ``state`` is ``State.arrays()``.
    """

    name: str
    options: dict[str, Any]
    num_players: int
    deck: int
    hand_size: int
    num_tricks: int
    num_actions: int
    obs_size: int
    num_fields: int
    num_aux: int
    cfg: np.ndarray
    tab: np.ndarray
    reset_kernel: Callable
    step_kernel: Callable
    step_kernel_parallel: Callable
    observe_kernel: Callable
    # Cards per batch of a seat's deal (King Calling: (4, 4)); empty = one batch of hand_size.
    batch_sizes: Sequence[int] = ()
    describe_action: Callable[[int], str] | None = None
    infos: Callable[[State, int], dict] | None = None
    render_text: Callable[[State, int], str] | None = None
    # Optional: events of one AEC step, from the scalar row before it and the state after
    # (Farbwechsel's trump changes). Called as step_events(spec, state, g, s_before).
    step_events: Callable[["GameSpec", State, int, np.ndarray], list[dict]] | None = None
    # Optional: per-game counters the batched env exposes, name -> column of State.s.
    counters: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def new_state(self, batch: int) -> State:
        """Zeroed state arrays for ``batch`` games of this game."""
        return State.allocate(batch, self.deck, self.num_tricks, self.num_fields, self.num_aux)

    def action_str(self, action: int) -> str:
        """Human-readable name of an action id."""
        if 0 <= action < self.deck:
            return cards.card_str(action, self.deck)
        if self.describe_action is not None:
            return self.describe_action(action)
        return str(action)

    def phase_name(self, phase: int) -> str:
        """Name of a phase code."""
        return PHASE_NAMES[phase]

    def deal_row(self, deal: Any, dealer: Any) -> tuple[np.ndarray, int]:
        """Validate a user deal; return (seat code of every card, dealer).

        The seat code is the seat, plus 4 for cards of a seat's second batch
        (King Calling), or -1 for the undealt rest.
        """
        n = self.num_players
        dealer = check_dealer(dealer, n)
        if isinstance(deal, (str, bytes)) or not hasattr(deal, "__len__") or len(deal) != n:
            raise ValueError(f"deal must list the cards of each of the {n} seats, got {deal!r}")
        batches = tuple(self.batch_sizes) or (self.hand_size,)
        per_seat = sum(batches)
        row = np.full(self.deck, UNDEALT, np.int8)
        for seat, hand in enumerate(deal):
            if isinstance(hand, str):
                hand = cards.parse_cards(hand, self.deck)
            hand = list(hand)
            if len(hand) != per_seat:
                raise ValueError(
                    f"seat {seat} is dealt {len(hand)} cards; {self.name} deals {per_seat} cards to each seat"
                )
            for k, c in enumerate(hand):
                try:
                    c = cards.check_card(c, self.deck)
                except ValueError as e:
                    raise ValueError(f"seat {seat}: {e}") from None
                if row[c] != UNDEALT:
                    raise ValueError(
                        f"card {cards.card_str(c, self.deck)} (id {c}) is dealt twice (seats {row[c] % 4} and {seat})"
                    )
                row[c] = seat + 4 * (k >= batches[0])
        return row, int(dealer)


def card_table(
    suit: np.ndarray,
    strength: np.ndarray,
    points: np.ndarray,
    trump_strength: np.ndarray | None = None,
    game_rows: int = 0,
    width: int | None = None,
) -> np.ndarray:
    """The int32 card table every kernel reads (rows ``engine.layout.TAB_*``, one column per card).

    ``trump_strength`` defaults to ``strength`` (the order is the same in trump);
    ``game_rows`` zeroed rows follow from ``TAB_GAME`` on; ``width`` (>= deck) leaves
    room for a game's own per-column data.
    """
    deck = len(suit)
    tab = np.zeros((TAB_GAME + game_rows, width or deck), np.int32)
    tab[TAB_SUIT, :deck] = suit
    tab[TAB_STRENGTH, :deck] = strength
    tab[TAB_POINTS, :deck] = points
    tab[TAB_TRUMP_STRENGTH, :deck] = strength if trump_strength is None else trump_strength
    return tab


def block_offsets(blocks: Sequence[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Consecutive observation blocks ``[(name, size), ...]`` -> ``{name: (offset, size)}``."""
    out, off = {}, 0
    for name, size in blocks:
        out[name] = (off, size)
        off += size
    return out


def check_dealer(dealer: Any, num_players: int) -> int:
    """Return dealer as int if it is a seat, else raise ValueError."""
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < num_players:
        raise ValueError(f"dealer must be a seat 0..{num_players - 1}, got {dealer!r}")
    return int(dealer)


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """Return value if it is one of allowed, else raise ValueError naming the option."""
    if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """Return value as int if it is an integer in [lo, hi], else raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{name} must be {rng}, got {value}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """Return value if it is a bool, else raise ValueError."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_unknown(game: str, given: dict, known: Sequence[str]) -> None:
    """Raise ValueError for options the game does not have."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"{game} has no option {', '.join(map(repr, unknown))}; options are {', '.join(known)}")
