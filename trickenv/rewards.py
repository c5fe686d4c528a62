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
"""

from __future__ import annotations

from trickenv.games.base import GameSpec

REWARD_SCALE = {"four_tricks": 1 / 4, "farbwechsel": 1 / 120, "koenigrufen": 1.0}


def reward_scale(spec: GameSpec) -> float:
    """The documented factor from a deal score to the single-seat reward (see the module table)."""
    return REWARD_SCALE[spec.name]


def worst_score(spec: GameSpec) -> float:
    """The lowest deal score (payment) one seat can get in ``spec``'s game and options."""
    o = spec.options
    if spec.name == "four_tricks":
        hand = spec.hand_size
        if o.get("bidding"):
            return -float(hand)  # bid 0 and take every trick, or bid them all and take none
        targets = o.get("target_schedule") or (o.get("target", 4),)
        return -float(max(max(t, hand - t) for t in targets))  # -|tricks - target|
    if spec.name == "farbwechsel":
        sides = 2 if o.get("partnership") else spec.num_players
        par = 120 / sides
        return -2.0 * par  # no card points: p - 2 * (par - p) at p = 0
    if spec.name == "koenigrufen":
        return -15.0  # alone against three, stake 5 (all tricks declared and missed): 3 * 5
    raise ValueError(f"no score scale for game {spec.name!r}")
