"""What a game gives the adapters: sizes, config arrays, kernels, deal records, its options and text helpers."""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from numba import njit

from trickenv import cards
from trickenv.engine.layout import (
    DEALER, PHASE_NAMES, TAB_GAME, TAB_POINTS, TAB_STRENGTH, TAB_SUIT, TAB_TRUMP_STRENGTH,
)
from trickenv.engine.kernels import hand_ids_into
from trickenv.engine.state import State
from trickenv.games.options import (  # noqa: F401  (re-exported: the games' option helpers)
    Option, OptionValues, a_bool, at_least, check_bool, check_choice, check_int, check_unknown, literal, one_of,
    options_doc, resolve_options,
)
from trickenv.games.parts import GameLearning, GameText, GameWorlds, Words  # noqa: F401  (Words: re-exported)

UNDEALT = -1
COMPILE_LABEL = "the deal helpers"  # trickenv.engine.first_run

SeatMetrics = dict[str, tuple[np.ndarray, np.ndarray]]  # name -> (value [G, n], weight [G, n] bool)


def seat_points(spec: "GameSpec", rec: dict[str, np.ndarray], seats: np.ndarray) -> np.ndarray:
    """Card points of ``seats[j]`` in deal record j (the default ``GameSpec.side_points``)."""
    return rec["points"][np.arange(len(seats)), seats].astype(np.float32)


def no_seat_metrics(spec: "GameSpec", rec: dict[str, np.ndarray]) -> SeatMetrics:
    """No game-specific facts (the default ``GameSpec.seat_metrics``)."""
    return {}


@dataclass
class GameSpec:
    """A configured game: its rules, as the AEC and batched adapters need them, and its parts.

    Kernels share one signature per role (see ``trickenv.games.four_tricks.rules``):
    ``reset(*state, cfg, tab, deal_rows, use_deal, dealers, mask, obs)``,
    ``step(*state, cfg, tab, actions, where, mask, obs, rewards, done, deal_end, autoreset) -> n_illegal``
    (it releases the GIL: ``VecEnv(threads=k)`` runs it on k slices of the batch at once) and
    ``observe(*state[:-1], cfg, tab, seats, obs)`` and ``mask(*state[:-1], cfg, tab, mask)`` (the legal actions of
    the seat to act, which ``reset`` and ``step`` write themselves: for a state made another way, as a sampled
    world); ``deal(*state, cfg, tab, deal_rows, mask, obs)`` deals a match's next deal from given rows (``step``
    deals it from the game's generator); ``state`` is ``State.arrays()``.
    ``records(spec, state, games)`` returns the records of the last finished deal of
    each game in ``games`` as named arrays (docs/records.md).

    What the other layers know of a game they ask its spec; no module outside
    ``trickenv.games`` tests a game's name. Hooks take the spec first, as ``records`` does.

    - ``option_table``: the game's options (:class:`Option`), the one place they are
      declared; ``options`` are their resolved values. ``trickenv info GAME`` prints it.
    - ``reward_scale``: the factor from a deal score to a single-seat reward, and
      ``worst_score`` and ``best_score``: the lowest and highest deal score one seat can get under ``options``
      (:mod:`trickenv.rewards`).
    - ``obs_offsets``: ``{block: (offset, size)}``, derived from ``obs_blocks``.
    - ``step_events(spec, state, g, s_before)``: events of one AEC step (Farbwechsel's trump changes), called
      only when the ``event_counter`` column of ``State.s`` changed; ``counters``: per-game counters the
      batched env exposes, name -> column of ``State.s``.
    - ``duties``: ``(must_trump, must_beat)``, the play duties beyond following suit
      (a seat void in the suit led must trump; it must beat the winning card if it can);
      the world sampler infers hidden cards from them.
    - ``card_sets``: the game's own named card masks, added to :func:`trickenv.card_sets`.
    - ``solve_kernel``: the game's perfect-information solver (``trickenv.engine.alphabeta``, called through
      :class:`trickenv.solver.Solver`; ``None`` if the game has none); ``side_points(spec, rec, seats)``,
      the card points of each seat's side in records.
    - ``seat_metrics(spec, rec)``: the game's facts per seat of finished deals,
      ``name -> (value [G, n], weight [G, n] bool)`` (:mod:`trickenv.agents.evaluation`).
    - The parts (:mod:`trickenv.games.parts`): ``text`` (what the table says), ``worlds`` (what a seat can
      know: the world sampler's hooks, inference and replay), ``learning`` (network features, suit symmetry,
      the privileged observation).
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
    observe_kernel: Callable
    mask_kernel: Callable
    deal_kernel: Callable
    obs_blocks: Sequence["Block"]
    records: Callable[["GameSpec", State, np.ndarray], dict[str, np.ndarray]]
    option_table: Sequence["Option"]
    reward_scale: float
    worst_score: float
    best_score: float
    # Cards per batch of a seat's deal (King Calling: (4, 4)); empty = one batch of hand_size.
    batch_sizes: Sequence[int] = ()
    step_events: Callable[["GameSpec", State, int, np.ndarray], list[dict]] | None = None
    event_counter: int | None = None
    counters: dict[str, int] = field(default_factory=dict)
    duties: tuple[bool, bool] = (False, False)
    card_sets: dict[str, np.ndarray] = field(default_factory=dict)
    solve_kernel: Callable | None = None
    side_points: Callable[["GameSpec", dict[str, np.ndarray], np.ndarray], np.ndarray] = seat_points
    seat_metrics: Callable[["GameSpec", dict[str, np.ndarray]], SeatMetrics] = no_seat_metrics
    text: GameText = field(default_factory=GameText)
    worlds: GameWorlds = field(default_factory=GameWorlds)
    learning: GameLearning = field(default_factory=GameLearning)
    obs_offsets: dict[str, tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.obs_offsets = block_offsets(self.obs_blocks)
        if sum(size for _, size in self.obs_offsets.values()) != self.obs_size:
            raise ValueError(f"{self.name}: obs_size {self.obs_size} is not the size of obs_blocks")

    @property
    def extra(self) -> Mapping[str, Any]:
        """``obs_offsets``, and ``duties`` and ``card_sets`` where the game has them, by name and read-only, for
        code that reads ``spec.extra[...]``."""
        out: dict[str, Any] = {"obs_offsets": self.obs_offsets}
        if any(self.duties):
            out["duties"] = self.duties
        if self.card_sets:
            out["card_sets"] = self.card_sets
        return MappingProxyType(out)

    def new_state(self, batch: int) -> State:
        """Zeroed state arrays for ``batch`` games of this game."""
        return State.allocate(batch, self.deck, self.num_tricks, self.num_fields, self.num_aux)

    def action_str(self, action: int) -> str:
        """Human-readable name of an action id."""
        if 0 <= action < self.deck:
            return cards.card_str(action, self.deck)
        return self.text.describe_action(self, action)

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
    return {name: out for (name, _, _), out in zip(fields, outs, strict=True)}


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
    ``doc``: what the block says, in the game's words (the observation table of the game's docs page,
    ``python -m trickenv.env_pages``).
    """

    name: str
    shape: tuple[int, ...]
    kind: str = "bits"
    axis: int = -1
    scale: int = 1
    none_index: int | None = None
    doc: str = ""

    @property
    def size(self) -> int:
        """Number of observation entries of the block."""
        return math.prod(self.shape)


BLOCK_KINDS = ("bits", "onehot")


def card_blocks(players: int, deck: int, hand_doc: str = "`[c]`: the observer holds card `c`") -> list[Block]:
    """The blocks every game's observation opens with: the hand, the trick in progress and the cards played."""
    return [
        Block("hand", (deck,), doc=hand_doc),
        Block("trick", (players, deck), "onehot", doc="`[r, c]`: relative seat `r` played `c` to the trick in "
              "progress"),
        Block("played", (players, deck), doc="`[r, c]`: relative seat `r` played `c` this deal (the trick in "
              "progress included)"),
    ]


def block_offsets(blocks: Sequence[Block]) -> dict[str, tuple[int, int]]:
    """Consecutive observation blocks -> ``{name: (offset, size)}``."""
    out, off = {}, 0
    for b in blocks:
        if b.kind not in BLOCK_KINDS:
            raise ValueError(f"block {b.name}: kind must be one of {BLOCK_KINDS}, got {b.kind!r}")
        out[b.name] = (off, b.size)
        off += b.size
    return out


def write_offsets(cfg: np.ndarray, first: int, names: Sequence[str], blocks: Sequence[Block]) -> None:
    """``cfg[first + i]`` = where the block ``names[i]`` starts in the observation.

    The kernels of a game whose layout depends on its options read the layout there, so
    ``obs_blocks`` is its one source (every block named must exist)."""
    offsets = block_offsets(blocks)
    missing = [name for name in names if name not in offsets]
    if missing:
        raise KeyError(f"no observation block {missing}; blocks are {list(offsets)}")
    cfg[first:first + len(names)] = [offsets[name][0] for name in names]


def check_dealer(dealer: Any, num_players: int) -> int:
    """Return dealer as int if it is a seat, else raise ValueError."""
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < num_players:
        raise ValueError(f"dealer must be a seat 0..{num_players - 1}, got {dealer!r}")
    return int(dealer)
