"""The rule-based agent of each game, behind one name: ``make_agent("rules", spec)``."""

from __future__ import annotations

import importlib
from typing import Any

from trickenv.games.base import GameSpec

# game -> (module, class) of its rule-based agent
RULES = {
    "four_tricks": ("trickenv.agents.rules_four_tricks", "FourTricksRules"),
    "farbwechsel": ("trickenv.agents.rules_farbwechsel", "FarbwechselRules"),
    "koenigrufen": ("trickenv.agents.rules_koenigrufen", "KoenigrufenRules"),
}


def rules_agent(spec: GameSpec, seed: int | None = None, **kwargs: Any) -> Any:
    """The rule-based agent for ``spec``'s game (docs/guides/your-agent.md)."""
    if spec.name not in RULES:
        raise ValueError(f"no rule-based agent for {spec.name!r}; games with one: {', '.join(RULES)}")
    module, cls = RULES[spec.name]
    return getattr(importlib.import_module(module), cls)(spec, seed=seed, **kwargs)
