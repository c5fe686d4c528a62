"""What a game gives the adapters: sizes, config arrays, kernels, deal records and text helpers."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np
from numba import njit

from trickenv import cards
from trickenv.engine.layout import (
    DEALER, PHASE_NAMES, TAB_GAME, TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH,
)
from trickenv.engine.kernels import hand_ids_into
from trickenv.engine.state import State

UNDEALT = -1


@dataclass
class GameSpec:
    """A configured game: everything the AEC and batched adapters need.

    Kernels share one signature per role (see ``trickenv.games.four_tricks``):
    ``reset(*state, cfg, tab, deal_rows, use_deal, dealers, mask, obs)``,
    ``step(*state, cfg, tab, actions, where, mask, obs, rewards, done, deal_end, autoreset) -> n_illegal``
    (``step_parallel``: the same over threads, identical results) and
    ``observe(*state[:-1], cfg, tab, seats, obs)``; ``state`` is ``State.arrays()``.
    ``records(spec, state, games)`` returns the records of the last finished deal of
    each game in ``games`` as named arrays (docs/records.md).
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
    obs_blocks: Sequence["Block"]
    records: Callable[["GameSpec", State, np.ndarray], dict[str, np.ndarray]]
    # Cards per batch of a seat's deal (King Calling: (4, 4)); empty = one batch of hand_size.
    batch_sizes: Sequence[int] = ()
    describe_action: Callable[[int], str] | None = None
    render_text: Callable[[State, int], str] | None = None
    # Optional: events of one AEC step, from the scalar row before it and the state after
    # (Farbwechsel's trump changes). Called as step_events(spec, state, g, s_before).
    step_events: Callable[["GameSpec", State, int, np.ndarray], list[dict]] | None = None
    # Optional, with step_events: a column of State.s that grows with every event (Farbwechsel's
    # trump changes since the env was created); the AEC env calls step_events only when it changed.
    event_counter: int | None = None
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

    def deal_row(self, deal: Any, dealer: Any = None) -> tuple[np.ndarray, int]:
        """Validate one user deal; return (seat code of every card, dealer or -1 for random).

        The seat code is the seat, plus 4 for cards of a seat's second batch
        (King Calling), or -1 for the undealt rest.
        """
        n = self.num_players
        dealer = -1 if dealer is None else check_dealer(dealer, n)
        if isinstance(deal, np.ndarray) and deal.dtype.kind in "iu" and deal.ndim == 2:
            return self.deal_rows(deal[None])[0], dealer
        if isinstance(deal, (str, bytes)) or not hasattr(deal, "__len__") or len(deal) != n:
            raise ValueError(f"deal must list the cards of each of the {n} seats, got {deal!r}")
        per_seat = self.cards_per_seat
        first = self.first_batch
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
                row[c] = seat + 4 * (k >= first)
        return row, int(dealer)

    @property
    def cards_per_seat(self) -> int:
        """Cards dealt to each seat."""
        return sum(self.batch_sizes) or self.hand_size

    @property
    def first_batch(self) -> int:
        """Cards of a seat's first batch (all of them unless the game deals in two batches)."""
        return self.batch_sizes[0] if self.batch_sizes else self.cards_per_seat

    def deal_rows(self, deals: np.ndarray) -> np.ndarray:
        """Validate integer deals ``[B, players, cards]`` (card ids) at once; return their seat-code rows."""
        d = np.asarray(deals)
        b, n, h = len(d), self.num_players, self.cards_per_seat
        if d.dtype.kind not in "iu":
            raise ValueError(f"deals must hold integer card ids, got dtype {d.dtype}")
        if d.ndim != 3 or d.shape[1] != n:
            raise ValueError(f"a deal must list the cards of each of the {n} seats: deals must have shape "
                             f"(games, {n}, {h}) for {self.name}, got {d.shape}")
        if d.shape[2] != h:
            raise ValueError(f"deals give {d.shape[2]} cards to each seat; {self.name} deals {h} cards to each seat")
        bad = (d < 0) | (d >= self.deck)
        if bad.any():
            g, seat, k = (int(x[0]) for x in np.nonzero(bad))
            raise ValueError(f"deals[{g}]: seat {seat}: card id {int(d[g, seat, k])} is out of range for a "
                             f"{self.deck}-card deck (0..{self.deck - 1})")
        flat = d.reshape(b, n * h).astype(np.int64)
        srt = np.sort(flat, axis=1)
        twice = srt[:, 1:] == srt[:, :-1]
        if twice.any():
            g, k = (int(x[0]) for x in np.nonzero(twice))
            c = int(srt[g, k])
            seats = np.nonzero((d[g] == c).any(axis=1))[0].tolist()
            seats = seats if len(seats) > 1 else seats * 2
            raise ValueError(f"deals[{g}]: card {cards.card_str(c, self.deck)} (id {c}) is dealt twice "
                             f"(seats {seats[0]} and {seats[1]})")
        code = np.arange(n)[:, None] + 4 * (np.arange(h)[None, :] >= self.first_batch)
        rows = np.full((b, self.deck), UNDEALT, np.int8)
        rows[np.arange(b)[:, None], flat] = np.broadcast_to(code.reshape(1, -1), (b, n * h))
        return rows

    def dealt_cards(self, dealt: np.ndarray) -> np.ndarray:
        """Deals as card ids ``[k, players, cards]`` from ``State.dealt``-style bitsets ``[k, 8]``.

        Each seat's cards are ascending, its first batch first (King Calling), the
        form ``reset(deals=...)`` accepts; ``-1`` pads a seat that holds fewer.
        """
        d = np.ascontiguousarray(dealt, np.uint64)
        out = np.empty((len(d), self.num_players, self.cards_per_seat), np.int8)
        _dealt_cards(d, self.deck, self.first_batch, out)
        return out

    def current_deals(self, state: State, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(deals [k, players, cards], dealers [k])`` of the deals now in play in ``games``."""
        return self.dealt_cards(state.dealt[games, 0]), state.s[games, DEALER].astype(np.int8)


@njit(cache=True)
def _dealt_cards(dealt, deck, first_batch, out):
    """out[i, p] = the ids of the cards dealt to seat p in ``dealt[i]`` (see GameSpec.dealt_cards)."""
    for i in range(out.shape[0]):
        for p in range(out.shape[1]):
            hand_ids_into(dealt[i, p], dealt[i, 4 + p], deck, out[i, p], first_batch)


RecordFields = tuple[tuple[str, type, tuple[int, ...]], ...]  # (name, dtype, shape after the games axis)


def common_fields(spec: GameSpec) -> RecordFields:
    """The record fields every game has, in the order ``engine.kernels.write_common_record`` takes them
    (docs/records.md)."""
    return _common_fields(spec.num_players, spec.deck, spec.cards_per_seat, spec.num_tricks)


@lru_cache(maxsize=None)
def _common_fields(n: int, deck: int, per_seat: int, num_tricks: int) -> RecordFields:
    return (
        ("dealer", np.int8, ()),
        ("deal", np.int8, (n, per_seat)),
        ("undealt", np.int8, (deck - n * per_seat,)),
        ("round", np.int16, ()),
        ("trump", np.int8, ()),
        ("trick_trump", np.int8, (num_tricks,)),
        ("played_by", np.int8, (deck,)),
        ("played_in", np.int8, (deck,)),
        ("tricks", np.int8, (n,)),
        ("points", np.int16, (n,)),
        ("scores", np.int16, (n,)),
        ("totals", np.int32, (n,)),
        ("match_over", np.bool_, ()),
    )


def fill_records(spec: GameSpec, state: State, games: np.ndarray, kernel: Callable,
                 extra: RecordFields) -> dict[str, np.ndarray]:
    """Records of the last finished deal of ``games``: the common fields, then the game's ``extra`` ones.

    ``kernel(dealt, last_play, s, games, first_batch, common, extra)`` is the game's compiled
    record writer; it fills one row of every output array per game (each array is new).
    """
    games = np.ascontiguousarray(games, np.int64)
    fields = common_fields(spec) + extra
    k = len(games)
    outs = [np.empty((k,) + shape, dtype) for _, dtype, shape in fields]
    split = len(fields) - len(extra)
    kernel(state.dealt, state.last_play, state.s, games, spec.first_batch, tuple(outs[:split]), tuple(outs[split:]))
    return {name: out for (name, _, _), out in zip(fields, outs)}


def empty_record(record: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A record of the same keys, shapes and dtypes with nothing in it: -1 (False for flags)."""
    return {k: np.zeros_like(v) if v.dtype == np.bool_ else np.full_like(v, -1) for k, v in record.items()}


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


@dataclass(frozen=True)
class Block:
    """One named block of an observation (:mod:`trickenv.decode` reads and writes them).

    ``kind="bits"``: ``prod(shape)`` 0/1 values, decoded as a bool array of ``shape``.
    ``kind="onehot"``: at most one 1 along ``axis`` of ``shape``; decoded as the
    index of that 1 (int16, ``-1`` when all are 0) times ``scale``, with the axis
    removed. ``none_index``: that index decodes to ``-1`` (e.g. trump index 4 = none).
    """

    name: str
    shape: tuple[int, ...]
    kind: str = "bits"
    axis: int = -1
    scale: int = 1
    none_index: int | None = None

    @property
    def size(self) -> int:
        """Number of observation entries of the block."""
        return int(np.prod(self.shape))


BLOCK_KINDS = ("bits", "onehot")


def block_offsets(blocks: Sequence[Block]) -> dict[str, tuple[int, int]]:
    """Consecutive observation blocks -> ``{name: (offset, size)}``."""
    out, off = {}, 0
    for b in blocks:
        if b.kind not in BLOCK_KINDS:
            raise ValueError(f"block {b.name}: kind must be one of {BLOCK_KINDS}, got {b.kind!r}")
        out[b.name] = (off, b.size)
        off += b.size
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
