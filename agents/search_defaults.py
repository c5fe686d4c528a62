"""The defaults of the searching agents in each game: ``pimc`` and ``search`` own their tuning.

What the rules leave open (which decisions to search, who plays the playouts, how the worlds are weighed, a
second look) was chosen by measurement; docs/how-it-was-found/search.md has the runs.
A game without an entry here gets :class:`SearchDefaults`' field defaults, the settings that need nothing of
a game: search every decision, the rule-based agent's playouts, uniform worlds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from trickenv.games.base import GameSpec


@dataclass(frozen=True)
class SearchDefaults:
    """One game's defaults for :class:`~trickenv.agents.pimc.PIMCAgent` and
    :class:`~trickenv.agents.search.SearchAgent` (an argument given to the agent overrides them).

    - ``decisions``: what ``pimc`` searches, ``"all"`` or ``"cards"`` (the rule-based agent makes the other
      decisions); ``search_decisions``: the same for ``search`` where it differs (None: as ``pimc``).
    - ``tiebreak``: the weight of the side's card points (share of 120) added to a deal score.
    - ``rollout``: who plays ``search``'s playouts (an agent name: ``"rules"``, or ``"model"``, the game's
      shipped player where it fits the variant; where it does not, the rule-based agent); ``playouts``: the
      player file (``agents/models/<name>.npz``) whose moves play them where ``rollout`` is ``"model"`` (None:
      the game's shipped player), so that a newer shipped player does not change the search measured with
      an older one.
    - ``refine``: ``search``'s second look, ``(k, m)``: the k best actions valued again in m x its worlds fresh
      worlds (``(0, 0)``: none), taken only together with the default playouts, the pair it was measured as.
    - ``learned``: the decisions before the play ``pimc`` takes from the shipped learned values
      (:mod:`trickenv.agents.decisions`) instead of deciding them itself; ``search_learned``: the same for
      ``search`` (None: as ``pimc``).
    - ``inference``: how ``search`` weighs its worlds (``"none"``, ``"cards"`` or ``"policy"``);
      ``likelihood``: the player file whose moves the policy inference assumes (None: the game's shipped
      player).
    """

    decisions: str = "all"
    tiebreak: float = 0.0
    search_decisions: str | None = None
    rollout: str = "rules"
    playouts: str | None = None
    refine: tuple[int, float] = (0, 0.0)
    learned: tuple[str, ...] = ()
    search_learned: tuple[str, ...] | None = None
    inference: str = "none"
    likelihood: str | None = None


def _four_tricks(options: dict[str, Any]) -> SearchDefaults:
    # Searched bids were weaker than the rule-based agent's: with bids, search plays the cards only, and bids
    # by the learned values, which beat the rule-based bids under it; the learned trump did not measure better
    # with the search, so the dealer's trump stays the rule-based agent's. Without bids the search searches its
    # trump, which measured better than the learned one. The playouts by the player the search was measured
    # with, and with them a second look at the 3 best moves.
    bidding = bool(options["bidding"])
    return SearchDefaults(search_decisions="cards" if bidding else None, rollout="model",
                          playouts="four_tricks_rollout", refine=(3, 2.0),
                          search_learned=("bid",) if bidding else None)


def _farbwechsel(options: dict[str, Any]) -> SearchDefaults:
    # The worlds weighed by how likely the others' moves were under the player the search was measured with.
    return SearchDefaults(inference="policy", likelihood="farbwechsel_likelihood")


def _koenigrufen(options: dict[str, Any]) -> SearchDefaults:
    # Every sampled world knows the partner, so searching the call and the declarations is blindly optimistic:
    # the rule-based agent makes them. Payments come in whole stake units, so most moves tie on payment
    # alone; the side's card points break those ties.
    return SearchDefaults(decisions="cards", tiebreak=1.0)


GAMES: dict[str, Callable[[dict[str, Any]], SearchDefaults]] = {
    "four_tricks": _four_tricks,
    "farbwechsel": _farbwechsel,
    "koenigrufen": _koenigrufen,
}


def search_defaults(spec: GameSpec) -> SearchDefaults:
    """The searching agents' defaults for ``spec``'s game and options."""
    make = GAMES.get(spec.name)
    return SearchDefaults() if make is None else make(spec.options)
