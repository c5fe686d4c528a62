"""Every game variant the generic tests run over: (game, options), from trickenv.games.variants."""

from __future__ import annotations

from trickenv.games.variants import VARIANTS

IDS = [g + "".join(f"-{k}={v}" for k, v in o.items()) for g, o in VARIANTS]
GAMES = sorted({g for g, _ in VARIANTS})
