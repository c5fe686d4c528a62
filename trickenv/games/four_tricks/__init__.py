"""Four Tricks (docs/rules.md, Four Tricks): 3 players try to take exactly 4 tricks.

Options (allowed values, [default]):

- ``deck`` 48 | 52 [48]: the deck; 16 cards to each seat, or 17 and one card
  left undealt.
- ``trump`` "dealer" | "none" | "turn_up" ["dealer" with 48 cards, "turn_up"
  with 52]: the dealer names trump, there is none, or the undealt card is turned
  up and its suit is trump (deck=52 only).
- ``bidding`` True | False [False]: every seat bids a number of tricks, and its
  bid is its target.
- ``target`` 0 .. cards per seat [4; none with bidding or target_schedule]: the
  number of tricks to take exactly.
- ``target_schedule`` "default" (1, 2, 3, 4, 5, 4, 3, 2, 1) | a list of
  targets [None]: one target per deal, in turn.
- ``rounds`` an integer >= 1 [1, the schedule's length, or unlimited with
  win_at]: deals per episode.
- ``win_at`` an integer >= 1 [None]: the match ends once a total reaches it.

``OPTIONS`` declares them (``trickenv info four_tricks`` prints it).

The package: ``rules`` (options, phases, kernels, scoring, records), ``text`` (what the table says,
why a move is illegal), ``worlds`` (what a seat can know: the world sampler's hooks, replay), ``learning``
(suit symmetry), and
``solver`` (the perfect-information solver's hooks). :func:`make_spec` puts them together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv import cards
from trickenv.games.base import GameSpec, card_table, resolve_options, write_offsets
from trickenv.games.four_tricks import learning, rules, solver, text, worlds
from trickenv.games.four_tricks.rules import *  # noqa: F403  (the rules' names, as this module had them)


def make_spec(**options: Any) -> GameSpec:
    """Validate Four Tricks options (``OPTIONS``) and build its spec."""
    resolved = resolve_options(rules.NAME, rules.OPTIONS, options)
    deck, trump, bidding = resolved["deck"], resolved["trump"], resolved["bidding"]
    schedule, win_at = resolved["target_schedule"], resolved["win_at"]
    target = rules.DEFAULT_TARGET if resolved["target"] is None else resolved["target"]
    rounds = resolved["rounds"] or 0  # 0: no limit
    hand = deck // rules.NUM_PLAYERS

    ranks = cards.num_ranks(deck)
    num_actions = deck + 4 + hand + 1
    width = max(deck, len(schedule) if schedule else 0)
    ids = np.arange(deck)
    # A > K > Q > J > 10 > ...: face order; no card points.
    tab = card_table(ids // ranks, ids % ranks, np.zeros(deck), game_rows=1, width=width)
    if schedule:
        tab[rules.TAB_GAME, : len(schedule)] = schedule
    cfg = np.zeros(rules.NUM_CFG, np.int32)
    cfg[[rules.C_DECK, rules.C_RANKS, rules.C_HAND, rules.C_TRUMP_MODE, rules.C_BIDDING, rules.C_TARGET,
         rules.C_ROUNDS, rules.C_WIN_AT, rules.C_SCHED_LEN, rules.C_ACTIONS]] = [
        deck, ranks, hand, rules.TRUMP_MODES.index(trump), bidding, target, rounds, win_at or 0,
        len(schedule) if schedule else 0, num_actions,
    ]
    blocks = rules.obs_blocks(deck, hand)
    write_offsets(cfg, rules.C_OFF_TRICK, rules.OBS_SLOTS, blocks)
    obs_size = sum(b.size for b in blocks)

    return GameSpec(
        name=rules.NAME, options=resolved, num_players=rules.NUM_PLAYERS, deck=deck, hand_size=hand,
        num_tricks=hand, num_actions=num_actions, obs_size=obs_size, num_fields=rules.NUM_FIELDS, num_aux=1,
        cfg=cfg, tab=tab, reset_kernel=rules.reset_kernel, step_kernel=rules.step_kernel,
        observe_kernel=rules.observe_kernel,
        mask_kernel=rules.mask_kernel, deal_kernel=rules.deal_kernel, obs_blocks=blocks, records=rules.deal_records,
        option_table=rules.OPTIONS, reward_scale=rules.REWARD_SCALE, worst_score=rules.worst_score(resolved, hand),
        best_score=rules.best_score(resolved, hand),
        seat_metrics=rules.seat_metrics, solve_kernel=solver.solve_kernel,
        text=text.GAME_TEXT,
        worlds=worlds.GAME_WORLDS,
        learning=learning.GAME_LEARNING,
    )
