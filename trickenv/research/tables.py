"""Numbers into words for tables and sentences: an estimate with its interval (:func:`fmt`), the verdict of
an interval of a difference (:func:`verdict`) and a p-value (:func:`p_text`)."""

from __future__ import annotations


def fmt(m: float, lo: float, hi: float, digits: int = 1, pct: bool = False) -> str:
    """``"12.3 [11.8, 12.9]"`` (``pct``: values times 100 with a % sign)."""
    if pct:
        return f"{100 * m:.{digits}f}% [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def verdict(lo: float, hi: float, good: str = "helps", bad: str = "hurts", none: str = "no effect measured") -> str:
    """The word for an interval of a difference: above 0, below 0, or containing 0."""
    if lo > 0:
        return good
    if hi < 0:
        return bad
    return none


def p_text(p: float) -> str:
    """A p-value for a table: two digits, or ``< 1e-15`` where it is below what a double resolves near 1."""
    return "< 1e-15" if p < 1e-15 else f"{p:.2g}"
