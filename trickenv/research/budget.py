"""The budget in force: ``TRICKENV_BUDGET=small`` (CI) or the full budget whose results the notebooks show.

Under ``small`` every notebook plays a few thousand deals and searches with a few worlds; unset (or
anything else) is the full budget. :func:`budget` picks the number for the budget in force.
"""

from __future__ import annotations

import os
from typing import Any

BUDGET = os.environ.get("TRICKENV_BUDGET", "full").strip().lower() or "full"
SMALL = BUDGET == "small"


def budget(full: Any, small: Any) -> Any:
    """``small`` under ``TRICKENV_BUDGET=small``, else ``full``."""
    return small if SMALL else full

