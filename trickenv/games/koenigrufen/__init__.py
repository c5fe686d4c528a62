"""King Calling / Königrufen (docs/rules.md, King Calling): the caller names a card and a secret partner.

Options (allowed values, [default]):

- ``partner_from`` "first_batch" | "full_hand" ["first_batch"]: whose hand
  decides the partner: the holder of the called card among the other seats'
  first 4 cards, or its holder after the full deal.
- ``rounds`` an integer >= 1 [1]: deals per episode.

``OPTIONS`` declares them (``trickenv info koenigrufen`` prints it).

Actions (Discrete(70)): ``c`` plays card c (0..31); ``32 + c`` calls card c;
``64 + s`` declares the marriage (K + O) in suit s; ``68`` declares the hundred,
``69`` all tricks (the two "big" declarations: at most one per deal).
The observation layout is in docs/envs/koenigrufen.md.

The package: ``rules`` (options, phases, kernels, scoring, records), ``text`` (what the table says,
why a move is illegal), ``worlds`` (what a seat can know: the world sampler's hooks, replay), ``learning``
(the privileged observation's block), and
``solver`` (the perfect-information solver's hooks). :func:`make_spec` puts them together.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trickenv.games.base import GameSpec, resolve_options
from trickenv.games.koenigrufen import learning, rules, solver, text, worlds
from trickenv.games.koenigrufen.rules import *  # noqa: F403  (the rules' names, as this module had them)


def make_spec(**options: Any) -> GameSpec:
    """Validate King Calling options (``OPTIONS``) and build its spec."""
    resolved = resolve_options(rules.NAME, rules.OPTIONS, options)
    partner_from, rounds = resolved["partner_from"], resolved["rounds"]
    cfg = np.zeros(3, np.int32)
    cfg[rules.C_ROUNDS] = rounds
    cfg[rules.C_PARTNER_MODE] = rules.PARTNER_MODES.index(partner_from)
    cfg[rules.C_ACTIONS] = rules.NUM_ACTIONS

    return GameSpec(
        name=rules.NAME, options=resolved, num_players=rules.NUM_PLAYERS, deck=rules.DECK, hand_size=rules.HAND,
        num_tricks=rules.HAND, num_actions=rules.NUM_ACTIONS, obs_size=rules.OBS_SIZE, num_fields=rules.NUM_FIELDS,
        num_aux=rules.NUM_AUX, cfg=cfg, tab=rules.card_table(), reset_kernel=rules.reset_kernel,
        step_kernel=rules.step_kernel, observe_kernel=rules.observe_kernel,
        mask_kernel=rules.mask_kernel, deal_kernel=rules.deal_kernel, obs_blocks=rules.obs_blocks(),
        records=rules.deal_records, batch_sizes=(rules.BATCH, rules.BATCH), option_table=rules.OPTIONS,
        reward_scale=rules.REWARD_SCALE, worst_score=rules.WORST_SCORE, best_score=rules.BEST_SCORE, duties=(rules.MUST_TRUMP, rules.MUST_BEAT),
        side_points=rules.side_points, seat_metrics=rules.seat_metrics, solve_kernel=solver.solve_kernel,
        text=text.GAME_TEXT,
        worlds=worlds.GAME_WORLDS,
        learning=learning.GAME_LEARNING,
    )
