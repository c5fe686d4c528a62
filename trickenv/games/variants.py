"""Every game variant worth checking one by one: ``(game, options)`` pairs, each game's default first.

The generic tests run over this list (``tests/variants.py``), and ``benchmarks/fingerprint.py``
hashes the play of each entry, so a new option that changes play gets an entry here.
"""

from __future__ import annotations

from typing import Any

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("four_tricks", {}),
    ("four_tricks", {"deck": 52}),
    ("four_tricks", {"trump": "none"}),
    ("four_tricks", {"deck": 52, "trump": "dealer"}),
    ("four_tricks", {"bidding": True}),
    ("four_tricks", {"target_schedule": "default"}),
    ("four_tricks", {"rounds": 3, "target": 2}),
    ("four_tricks", {"win_at": 12, "bidding": True, "rounds": 4}),
    ("farbwechsel", {}),
    ("farbwechsel", {"ranking": "natural"}),
    ("farbwechsel", {"ranking": "trump_ten"}),
    ("farbwechsel", {"switch_ranks": ("Q", "J")}),
    ("farbwechsel", {"switch_ranks": ()}),
    ("farbwechsel", {"switch_mode": "cycle"}),
    ("farbwechsel", {"num_players": 4}),
    ("farbwechsel", {"num_players": 4, "partnership": True}),
    ("farbwechsel", {"rounds": 3}),
    ("koenigrufen", {}),
    ("koenigrufen", {"partner_from": "full_hand"}),
    ("koenigrufen", {"rounds": 2}),
]
