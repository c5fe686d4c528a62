"""Research tools: what the notebooks (notebooks/*.ipynb) and the strength experiments share.

- **Budget** (:mod:`~trickenv.research.budget`): ``TRICKENV_BUDGET=small`` (CI) or the full budget;
  :func:`budget` picks the number for the budget in force. :func:`repo_root` finds the checkout.
- **Players** (:mod:`~trickenv.research.players`): agents by name, the shipped model where there is one.
- **Play** (:mod:`~trickenv.research.deals`): :func:`play` plays given deals with a given agent in each
  seat of each game on the batched engine and returns the deal records (docs/records.md);
  :func:`rotations` and :func:`substitution` build the two duplicate designs; :func:`trick_play`
  replays the tricks from the records.
- **Advice** (:mod:`~trickenv.research.advice`): :class:`Override` and :func:`advice_test` measure a piece
  of advice at the decisions where it applies; :func:`advice_values` reads what a search agent values
  following each rule at (:class:`ValueProbe`). :class:`View` reads Farbwechsel observations by name.
- **Statistics** (:mod:`~trickenv.research.stats`, :mod:`~trickenv.research.tables`): intervals that treat
  the deal as the independent unit, the variance decomposition, p-values and their adjustment, and
  the helpers that turn an interval into words.
- **Findings as data** (:mod:`~trickenv.research.findings`): :func:`finding`, :func:`save_findings`
  (``notebooks/findings/<notebook>.json``) and :func:`findings_markdown` (``docs/findings.md``, written by
  ``python -m trickenv.research findings``).
- **Timing** (:mod:`~trickenv.research.timing`) and **where a player loses**
  (:mod:`trickenv.research.where_it_loses`, imported on its own).
- **The playbooks** (imported on their own): :mod:`trickenv.research.mining` records a search's decisions in
  self-play; :mod:`trickenv.research.playbook` fits shallow trees to them (scikit-learn, the ``research`` extra),
  reads their leaves as rules in a player's words and keeps the rules that measure better in play;
  :mod:`trickenv.research.playbook_pages` writes the "How to play X well" pages.

Nothing here imports matplotlib or openskill: the package imports with trickenv's base dependencies (the
notebooks draw their own plots).
"""

from __future__ import annotations

from trickenv.research.advice import Override, ValueProbe, advice_test, advice_values, values_markdown
from trickenv.research.budget import BUDGET, SMALL, budget
from trickenv.research.deals import make_deals, play, position_means, rotations, substitution, trick_play
from trickenv.research.findings import FINDING_KEYS, finding, findings_markdown, load_findings, save_findings
from trickenv.research.players import make_players, model_or_note
from trickenv.research.repo import repo_root
from trickenv.research.stats import (adjust_p, decompose, decompose_ci, mean_ci, ols, p_from_ci, ratio_ci,
                                     share_ci)
from trickenv.research.tables import fmt, p_text, verdict
from trickenv.research.timing import Timer
from trickenv.research.view import View

__all__ = [
    "BUDGET", "SMALL", "budget", "repo_root", "Timer", "make_players", "model_or_note",
    "make_deals", "play", "rotations", "position_means", "substitution", "trick_play",
    "Override", "advice_test", "ValueProbe", "advice_values", "values_markdown", "View",
    "mean_ci", "share_ci", "ratio_ci", "ols", "decompose", "decompose_ci", "p_from_ci", "adjust_p",
    "fmt", "verdict", "p_text",
    "FINDING_KEYS", "finding", "save_findings", "load_findings", "findings_markdown",
]
