"""Farbwechsel (docs/rules.md, Farbwechsel): trump changes after every trick that holds a queen.

Options (allowed values, [default]):

- ``num_players`` 3 | 4 [3]: 10 cards to each seat and 2 set aside with 3
  players, 8 each with 4.
- ``partnership`` True | False [False]: 4 players only: seats 0+2 play against
  1+3 and score their card points together.
- ``ranking`` "skat" | "natural" | "trump_ten" ["skat"]: the card order:
  "skat" A > 10 > K > Q > J > 9 > 8 > 7 in every suit; "natural" A > K > Q > J
  > 10 > ...; "trump_ten" natural except in the trump suit, where the 10 ranks
  just below the ace.
- ``switch_ranks`` ("Q",) | ("Q", "J") | () [("Q",)]: the ranks whose cards change
  trump (with the jacks: Double Farbwechsel; (): none, the dealer's trump stays, a
  control variant for measuring what switching is worth).
- ``switch_mode`` "last_suit" | "cycle" ["last_suit"]: the suit of the trick's
  last switching card becomes trump, or each switching card moves trump one
  suit along C, S, H, D (Fixed Farbwechsel).
- ``rounds`` an integer >= 1 [1]: deals per episode.

``OPTIONS`` declares them (``trickenv info farbwechsel`` prints it).

Every trump change is recorded in the scalar state (the ``REC`` records, ``R_*`` fields)
and reported three ways: the ``change_*`` fields of the deal records (and AEC
infos), one event per change from :func:`step_events`, and the counters of
``GameSpec.counters``. docs/envs/farbwechsel.md describes the
observation and these reports.

The package: ``rules`` (options, phases, kernels, scoring, records), ``text`` (what the table says,
why a move is illegal), ``worlds`` (what a seat can know: the world sampler's hooks, replay) and
``solver`` (the perfect-information solver's hooks). :func:`make_spec` puts them together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv.games.base import GameSpec, card_table, resolve_options, write_offsets
from trickenv.games.farbwechsel import learning, rules, solver, text, worlds
from trickenv.games.farbwechsel.rules import *  # noqa: F403  (the rules' names, as this module had them)


def make_spec(**options: Any) -> GameSpec:
    """Validate Farbwechsel options (``OPTIONS``) and build its spec."""
    resolved = resolve_options(rules.NAME, rules.OPTIONS, options)
    n, partnership, ranking = resolved["num_players"], resolved["partnership"], resolved["ranking"]
    switch_ranks, switch_mode, rounds = resolved["switch_ranks"], resolved["switch_mode"], resolved["rounds"]

    hand = rules.DECK // n if n == 4 else 10
    sides = 2 if partnership else n
    par = rules.MAX_POINTS // sides
    num_actions = rules.DECK + 4
    plain, in_trump = rules.STRENGTHS[ranking]
    ids = np.arange(rules.DECK)
    rank = ids % rules.RANKS
    tab = card_table(ids // rules.RANKS, np.asarray(plain)[rank], np.asarray(rules.CARD_POINTS)[rank],
                     trump_strength=np.asarray(in_trump)[rank], game_rows=1)
    for r in switch_ranks:
        tab[rules.TAB_SWITCH, ids % rules.RANKS == rules.RANK_INDEX[r]] = 1
    cfg = np.zeros(rules.NUM_CFG, np.int32)
    cfg[[rules.C_N, rules.C_HAND, rules.C_PARTNER, rules.C_CYCLE, rules.C_ROUNDS, rules.C_ACTIONS, rules.C_PAR]] = [
        n, hand, partnership, switch_mode == "cycle", rounds, num_actions, par,
    ]
    blocks = rules.obs_blocks(n, hand)
    write_offsets(cfg, rules.C_OFF_TRICK, rules.OBS_SLOTS, blocks)
    obs_size = sum(b.size for b in blocks)

    return GameSpec(
        name=rules.NAME, options=resolved, num_players=n, deck=rules.DECK, hand_size=hand, num_tricks=hand,
        num_actions=num_actions, obs_size=obs_size, num_fields=rules.NUM_FIELDS, num_aux=1, cfg=cfg, tab=tab,
        reset_kernel=rules.reset_kernel, step_kernel=rules.step_kernel, observe_kernel=rules.observe_kernel,
        mask_kernel=rules.mask_kernel, deal_kernel=rules.deal_kernel,
        obs_blocks=blocks, records=rules.deal_records, step_events=rules.step_events,
        event_counter=rules.CHANGES_TOTAL,
        counters={
            "trump_changes": rules.CHANGES,
            "trump_changes_total": rules.CHANGES_TOTAL,
            "last_deal_trump_changes": rules.LAST_CHANGES,
            "switch_cards": rules.SWITCH_CARDS,
            "switch_cards_total": rules.SWITCH_TOTAL,
        },
        option_table=rules.OPTIONS, reward_scale=rules.REWARD_SCALE, worst_score=-2.0 * (rules.MAX_POINTS / sides),
        best_score=3.0 * rules.MAX_POINTS - 2.0 * (rules.MAX_POINTS / sides),
        card_sets={"switch": tab[rules.TAB_SWITCH] != 0}, seat_metrics=rules.seat_metrics,
        solve_kernel=solver.solve_kernel,
        text=text.GAME_TEXT,
        worlds=worlds.GAME_WORLDS,
        learning=learning.GAME_LEARNING,
    )
