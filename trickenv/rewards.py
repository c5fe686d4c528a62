"""Score scales of the games: the learner's reward scale and the illegal-action penalty.

The engines pay each seat its **deal score** (Farbwechsel, Four Tricks) or
**payment** (King Calling) when a deal ends (docs/rules.md). The adapters for
RL libraries use two numbers derived from it:

- ``reward_scale(spec)``: the factor the single-seat envs (:mod:`trickenv.single_seat`)
  multiply the deal score with, so that a typical good deal is worth about +1:

  | game | factor | a typical deal | extremes |
  |---|---|---|---|
  | Four Tricks | 1/4 | target hit: +4 -> +1 | -12 .. +4 (-3 .. +1); bidding: up to bid + 10 |
  | Farbwechsel | 1/120 | 3 players: 40 card points (par) -> 40 -> 0.33; 60 (bonus) -> 100 -> 0.83 | 3 players: -80 .. +280 (-0.67 .. +2.33) |
  | King Calling | 1 | a plain 2-against-2 win: +1 | -15 .. +15 |

- ``worst_score(spec)``: the lowest score one seat can get in one deal under the
  game's options. It is the default penalty for an illegal action
  (``illegal_action="penalize"``, raw score units), so no illegal action is ever
  worth more than some legal play, the way PettingZoo's classic games give -1,
  a lost game, for one.

Each game sets both on its spec (``GameSpec.reward_scale``, ``GameSpec.worst_score``,
computed from its options in the game's ``make_spec``); the table above describes them.
"""

from __future__ import annotations

from trickenv.games.base import GameSpec


def reward_scale(spec: GameSpec) -> float:
    """The documented factor from a deal score to the single-seat reward (see the module table)."""
    return spec.reward_scale


def worst_score(spec: GameSpec) -> float:
    """The lowest deal score (payment) one seat can get in ``spec``'s game and options."""
    return spec.worst_score
