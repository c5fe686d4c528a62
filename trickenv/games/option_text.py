"""Game options typed as text: an option's value on the command line (``deck=52``) or from the web page."""

from __future__ import annotations

import ast
from typing import Any


def parse_value(text: str) -> Any:
    """An option's value as typed: a Python literal (``52``, ``True``, ``("Q", "J")``) or else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
