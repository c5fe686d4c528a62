"""What each move was worth, by the search: the hint of the web table and ``trickenv review``.

A *hint* (:func:`move_values`) is the ``search`` agent's value of every legal move of the seat to act: the
mean deal score (plus the search's tie-break) over the worlds it samples, with the spread over those worlds.
A *review* (:func:`review_record`) replays a deal record and asks the same question at every decision of one
seat: the value of the move played against the best one, so a player sees where points were lost; the moves
that changed trump are marked.

Both read only what the seat could know at the time: the search draws its worlds from the seat's view
(:func:`trickenv.sampler.sample_worlds`) and never reads the real hidden cards (``tests/test_review.py``
checks it). A fresh search with the given ``seed`` values each decision, so a decision's values are the
``search`` agent's own for that position and seed, whatever came before.

    from trickenv.agents.review import review_record
    for move in review_record("farbwechsel", record, seat=0):
        print(move.text())
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trickenv.agents.search import SearchAgent
from trickenv.engine.layout import TO_ACT, TRICK_NO
from trickenv.engine.state import State
from trickenv.games.base import GameSpec

__all__ = ["MoveValues", "ReviewedMove", "move_values", "review_record", "review_records"]


@dataclass(frozen=True)
class MoveValues:
    """The search's values of the legal moves of ``seat``: ``actions`` (ids), ``values`` and ``spread`` (one
    each, NaN where the search leaves a move unsearched: a forced move, a decision the game's search leaves to
    the rule-based agent), and ``best``, the search's own choice."""

    seat: int
    actions: np.ndarray
    values: np.ndarray
    spread: np.ndarray
    best: int

    @property
    def searched(self) -> bool:
        """Whether the search valued these moves (else only ``best`` says anything)."""
        return not np.isnan(self.values).all()

    def value(self, action: int) -> float:
        """The value of ``action`` (NaN if it was not searched); ValueError if it is not legal here."""
        where = np.flatnonzero(self.actions == action)
        if not len(where):
            raise ValueError(f"action {action} is not legal here; legal: {self.actions.tolist()}")
        return float(self.values[where[0]])

    def as_dict(self, spec: GameSpec) -> dict[str, Any]:
        """JSON-ready: each move's id, name, value and spread (None where not searched), and the best move."""
        def num(x: float) -> float | None:
            return None if np.isnan(x) else round(float(x), 4)

        return {"seat": self.seat, "best": self.best, "best_text": spec.action_str(self.best),
                "searched": self.searched,
                "moves": [{"action": int(a), "text": spec.action_str(int(a)), "value": num(v), "spread": num(s)}
                          for a, v, s in zip(self.actions, self.values, self.spread, strict=True)]}


def move_values(spec: GameSpec, state: State, game: int, obs: np.ndarray, mask: np.ndarray, seed: int = 0,
                **search: Any) -> MoveValues:
    """The hint: the ``search`` agent's values of the legal moves of the seat to act in game ``game`` of
    ``state``, given that seat's observation ``obs`` and action mask ``mask``. ``seed`` seeds the search as
    ``SearchAgent(spec, seed=seed)``; ``search`` are its keywords (``worlds=...``)."""
    agent = SearchAgent(spec, seed=seed, **search)
    mask = np.asarray(mask, np.bool_).reshape(1, -1)
    actions, values, spread = agent.analyse(np.asarray(obs)[None] if np.ndim(obs) == 1 else np.asarray(obs), mask,
                                            state, np.array([game]))
    legal = np.flatnonzero(mask[0])
    return MoveValues(int(state.s[game, TO_ACT]), legal, values[0, legal].astype(np.float64),
                      spread[0, legal].astype(np.float64), int(actions[0]))


@dataclass(frozen=True)
class ReviewedMove:
    """One decision of the reviewed seat: the move played, the search's best, their values and the loss
    (best − played, in the game's reward units; NaN where the search did not value the decision)."""

    step: int  # the decision's index in the deal (0: its first action)
    trick: int  # 0-based
    seat: int
    played: int
    played_text: str
    hint: MoveValues = field(repr=False)
    trump_change: str | None = None  # "♠ -> ♥" where this move changed trump

    @property
    def best(self) -> int:
        return self.hint.best

    @property
    def loss(self) -> float:
        """Best − played; NaN where the played move was not valued (a forced move, an unsearched decision)."""
        if not self.hint.searched:
            return float("nan")
        return float(np.nanmax(self.hint.values) - self.hint.value(self.played))

    @property
    def valued(self) -> bool:
        """Whether the search valued the move played (then ``loss`` is a number)."""
        return not np.isnan(self.loss)

    def as_dict(self, spec: GameSpec) -> dict[str, Any]:
        loss = self.loss
        return {"step": self.step, "trick": self.trick, "seat": self.seat, "played": self.played,
                "played_text": self.played_text, "loss": None if np.isnan(loss) else round(loss, 4),
                "trump_change": self.trump_change, **{k: v for k, v in self.hint.as_dict(spec).items()
                                                       if k != "seat"}}

    def text(self, spec: GameSpec) -> str:
        """One line: ``trick 3  P0 played QH  (best JD +1.25, played +0.75, lost 0.50)  trump ♠ -> ♥``."""
        head = f"trick {self.trick + 1:>2}  P{self.seat} played {self.played_text:<8}"
        if not self.valued:
            why = "the only legal move" if len(self.hint.actions) == 1 else "not searched"
            body = f"({why})"
        else:
            body = (f"(best {spec.action_str(self.best)} {np.nanmax(self.hint.values):+.2f}, played "
                    f"{self.hint.value(self.played):+.2f}, lost {self.loss:.2f})")
        return f"{head} {body}" + (f"  trump {self.trump_change}" if self.trump_change else "")


def review_record(game: str, rec: dict[str, np.ndarray], seat: int, options: dict[str, Any] | None = None,
                  seed: int = 0, **search: Any) -> list[ReviewedMove]:
    """Every decision of ``seat`` in the deal record ``rec`` (docs/records.md; a record of ``trickenv eval
    --records``, of the web table or of an env), valued by :func:`move_values` from what ``seat`` could know
    then. ``options``: the game's options the deal was played with. ValueError where the record does not
    follow the rules or ``seat`` is not a seat."""
    from trickenv.envs import make
    from trickenv.games import make_spec
    from trickenv.replay import play_options, record_actions

    options = dict(options or {})
    spec = make_spec(game, **options)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < spec.num_players:
        raise ValueError(f"seat must be 0..{spec.num_players - 1}, got {seat!r}")
    actions = record_actions(game, rec, options)
    env = make(game, illegal_action="raise", **play_options(spec, rec, options)).unwrapped
    env.reset(options={"deal": rec["deal"], "dealer": int(rec["dealer"])})
    found = []
    for step, action in enumerate(actions):
        s = env.game.s[0]
        if int(s[TO_ACT]) == seat:
            ob = env.observe(env.agent_selection)
            hint = move_values(env.spec, env.game, 0, ob["observation"], ob["action_mask"], seed=seed, **search)
            found.append((step, int(s[TRICK_NO]), action, hint))
        env.step(action)
    # A trump change is an event of the step that ends its trick; it names the seat and the card that made it.
    changes = {(int(e["seat"]), int(e["card"])): f"{_suit(e['old_trump'])} -> {_suit(e['new_trump'])}"
               for e in env.events if e.get("event") == "trump_change"}
    return [ReviewedMove(step, trick, seat, action, spec.action_str(action), hint, changes.get((seat, action)))
            for step, trick, action, hint in found]


def _suit(name: Any) -> str:
    from trickenv.cards import SUIT_SYMBOLS, SUITS

    return SUIT_SYMBOLS[SUITS.index(name)] if name in SUITS else str(name)


def review_records(records: Any, deal: int, seat: int, seed: int = 0, **search: Any) -> list[ReviewedMove]:
    """:func:`review_record` of deal ``deal`` of a :class:`trickenv.replay.RecordSet` (``load_records``)."""
    if isinstance(deal, bool) or not isinstance(deal, (int, np.integer)) or not 0 <= deal < len(records.records):
        raise ValueError(f"deal must be 0..{len(records.records) - 1}, got {deal!r}")
    return review_record(records.game, records.records[deal], seat, records.options, seed, **search)
