"""A frozen benchmark: any agent against the bundled reference agents on a fixed, versioned set of deals.

    trickenv benchmark my_agents.py:MyAgent --games four_tricks --out cards/

Version ``v1`` (:data:`trickenv.benchmark.sets.V1`) holds 500 deals (with their dealers) of each game's default
variant and of one variant each (Four Tricks with bids, Farbwechsel four players in partnerships, King Calling
with the partner drawn from the full hand), shipped in the package. The agent plays them against ``rules``
and the shipped ``model`` (all 500; ``model`` where it fits the variant), ``pimc`` (the first 200) and ``search``
(the first 50), every deal in every seating, seeded as the version says, 25 deals a chunk (``--ray`` plays the
chunks in parallel, with the same results). The **results card** (JSON and Markdown) holds, for each game variant and reference, the
agent's mean score minus the reference's with its paired 95% CI and each side's milliseconds a decision; its
score (the mean of those differences in each game's reward units); its place among the bundled agents, whose
cards ship with the package; trickenv's version and the machine. Two cards of one version compare: the same
deals, the same opponents.

A version is frozen: a change to its deals or to a reference agent's play makes a new version.
"""

from trickenv.benchmark.card import bundled_cards, card_markdown, place, run_benchmark, write_card
from trickenv.benchmark.sets import BENCHMARKS, V1, BenchmarkSet, Entry, benchmark_set

__all__ = ["BENCHMARKS", "V1", "BenchmarkSet", "Entry", "benchmark_set", "bundled_cards", "card_markdown", "place",
           "run_benchmark", "write_card"]
