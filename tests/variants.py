"""Every game variant the generic tests run over: (game, options)."""

from __future__ import annotations

import importlib

ALL_VARIANTS = [
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


def _available(game: str) -> bool:
    try:
        importlib.import_module(f"trickenv.games.{game}")
    except ModuleNotFoundError:
        return False
    return True


VARIANTS = [(g, o) for g, o in ALL_VARIANTS if _available(g)]
IDS = [g + "".join(f"-{k}={v}" for k, v in o.items()) for g, o in VARIANTS]
GAMES = sorted({g for g, _ in VARIANTS})
