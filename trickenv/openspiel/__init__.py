"""trickenv's games as OpenSpiel games (the ``openspiel`` extra).

Importing this module registers each game with OpenSpiel, so OpenSpiel's algorithms and tools run on it::

    import pyspiel
    import trickenv.openspiel  # registers trickenv_four_tricks, trickenv_farbwechsel, trickenv_koenigrufen

    game = pyspiel.load_game("trickenv_four_tricks", {"deck": 52, "bidding": True})
    state = game.new_initial_state()

Every option of a game's option table is a game parameter of the same name. An option whose default is an
int, a bool or a string is a parameter of that type with the same default. The others are string parameters:
a sequence as its items separated by spaces (``switch_ranks="Q J"``, ``target_schedule="1 2 3"``; OpenSpiel
reads parentheses and commas in a parameter as structure, and a lone number as an int, so a schedule needs
two targets or more) and ``"none"`` for None; ``"default"`` for an option whose default depends on others
(Four Tricks' ``trump``). An integer option whose default is None (Four Tricks' ``target``, ``rounds``,
``win_at``, given or derived from the others) is an int parameter with ``-1`` for "not given". The values
are checked by the game itself, with its own messages.

A state runs on trickenv's engine (the same kernels as the AEC and batched envs; no rule is written here):

- **Chance**: the deal, one card at a time, to seat 0's hand first, then seat 1's, ..., each card drawn
  uniformly from those not dealt yet (so ``chance_outcomes`` are exact: ``1 / cards left``); the cards no
  seat gets are the game's undealt rest. Then the dealer, uniformly among the seats. In a match
  (``rounds`` > 1, ``win_at``, ``target_schedule``) each later deal is dealt the same way when the one before
  ends, without the dealer, who moves on as the rules say.
- **Decisions**: the same action ids, legal actions, seat to act, rewards (each deal's scores when it ends,
  still there at the next decision after a match's chance nodes, where OpenSpiel reads them) and returns as
  trickenv's AEC env, for the same deal (tested move by move).
- **What a player knows**: ``observation_tensor(p)`` is trickenv's observation of seat ``p``
  (``trickenv.decode`` reads it); ``information_state_tensor(p)`` is the same vector. The strings read the
  observation by name, and the information state string adds which seat played which card in which trick,
  so two states a player can tell apart never share it. ``resample_from_infostate(p, sampler)`` draws a
  world with :mod:`trickenv.sampler`, uniform over the deals consistent with what seat ``p`` saw.

:func:`from_engine` makes a state of a position of the batched engine (the OpenSpiel bots of
:mod:`trickenv.agents.openspiel_bots` play from it).
"""

from __future__ import annotations

import pyspiel

from trickenv.games import GAMES
from trickenv.openspiel.game import (TrickGame, TrickObserver, TrickState, from_engine, game_for_spec, register,
                                     state_from_deal)
from trickenv.openspiel.parameters import (DEFAULT, NOT_GIVEN, options_from_parameters, parameter_specification,
                                           parameters_from_options, short_name, value_text)

__all__ = ["DEFAULT", "NOT_GIVEN", "TrickGame", "TrickObserver", "TrickState", "from_engine", "game_for_spec",
           "options_from_parameters", "parameter_specification", "parameters_from_options", "short_name",
           "state_from_deal", "value_text"]

for _game in GAMES:
    if short_name(_game) not in pyspiel.registered_names():
        register(_game)
