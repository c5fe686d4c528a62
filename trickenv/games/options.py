"""A game's options, declared once in a table (as OpenSpiel's ``parameter_specification``).

Each game module lists its options as :class:`Option` rows (``OPTIONS``, also
``GameSpec.option_table``); :func:`resolve_options` validates what a user gave against
the table and fills in the defaults, ``trickenv info GAME`` prints it, and
:func:`options_doc` writes the options paragraph of the game's docstring (a test checks
it is there). The ``check_*`` functions are the validators the rows use; their messages
name the option and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

# Options that make one episode a match of several deals (the table then plays one episode).
MATCH_OPTIONS = ("rounds", "win_at", "target_schedule")


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """Return value if it is one of allowed, else raise ValueError naming the option."""
    if isinstance(value, bool) and not any(isinstance(a, bool) for a in allowed):
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """Return value as int if it is an integer in [lo, hi], else raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise ValueError(f"{name} must be {rng}, got {value}")
    return int(value)


def check_bool(name: str, value: Any) -> bool:
    """Return value if it is a bool, else raise ValueError."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_unknown(game: str, given: dict, known: Sequence[str]) -> None:
    """Raise ValueError for options the game does not have."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"{game} has no option {', '.join(map(repr, unknown))}; options are {', '.join(known)}")


OptionCheck = Callable[[str, Any, "OptionValues"], Any]


@dataclass(frozen=True)
class Option:
    """One option of a game, declared once (as OpenSpiel's ``parameter_specification``).

    A game's table of options (``OPTIONS``, ``GameSpec.option_table``) feeds the validation
    in ``make_spec`` (:func:`resolve_options`), the defaults, ``trickenv info GAME`` and the
    options paragraph of the game's docstring (:func:`options_doc`; a test checks it is there).

    ``default`` is the value an option takes when it is not given, or a function of the
    options (:class:`OptionValues`) when it depends on others; ``default_text`` then says how
    it reads. ``check(name, value, opts)`` returns the resolved value or raises ValueError;
    it may read other options, resolved (``opts[name]``) or as given (``opts.given``), and
    reading one resolves it first, so the order of the checks follows what they read.
    ``values`` are the values allowed and ``comment`` what the option does, as the docs say them.
    ``label`` names the option in a person's words (the web table's form), and ``choices`` gives each value of
    a closed set its words, ``((value, words), ...)`` (empty: the value is typed).
    """

    name: str
    default: Any
    values: str
    comment: str
    check: OptionCheck
    default_text: str | None = None
    label: str = ""
    choices: tuple[tuple[Any, str], ...] = ()

    @property
    def default_doc(self) -> str:
        """The default as the docs write it."""
        if self.default_text is not None:
            return self.default_text
        if callable(self.default):
            raise ValueError(f"option {self.name}: a default that depends on other options needs default_text")
        return literal(self.default)


class OptionValues:
    """The options of one ``make_spec`` call, each validated when first read (see :class:`Option`)."""

    def __init__(self, game: str, table: Sequence[Option], given: dict[str, Any]) -> None:
        check_unknown(game, given, [o.name for o in table])
        self.given = dict(given)
        self._table = {o.name: o for o in table}
        self._resolved: dict[str, Any] = {}
        self._reading: set[str] = set()

    def __getitem__(self, name: str) -> Any:
        if name not in self._resolved:
            if name in self._reading:
                raise RuntimeError(f"option {name} depends on itself")
            self._reading.add(name)
            option = self._table[name]
            if name in self.given:
                value = self.given[name]
            else:
                value = option.default(self) if callable(option.default) else option.default
            self._resolved[name] = option.check(name, value, self)
            self._reading.discard(name)
        return self._resolved[name]


def resolve_options(game: str, table: Sequence[Option], given: dict[str, Any]) -> dict[str, Any]:
    """Validate ``given`` against ``table`` and fill in the defaults: every option's value, in table order.

    Raises ValueError for an unknown option or a value an option's check refuses.
    """
    opts = OptionValues(game, table, given)
    return {o.name: opts[o.name] for o in table}


def one_of(*allowed: Any) -> OptionCheck:
    """A check: the value must be one of ``allowed``."""
    return lambda name, value, opts: check_choice(name, value, allowed)


def a_bool(name: str, value: Any, opts: OptionValues) -> bool:
    """A check: the value must be True or False."""
    return check_bool(name, value)


def at_least(lo: int) -> OptionCheck:
    """A check: the value must be an integer >= ``lo``."""
    return lambda name, value, opts: check_int(name, value, lo)


def literal(value: Any) -> str:
    """A value as the docs write it: strings in double quotes, tuples of them too."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def options_doc(table: Sequence[Option]) -> str:
    """The options paragraph of a game's docstring, generated from its table."""
    lines = ["Options (allowed values, [default]):", ""]
    lines += [f"- ``{o.name}`` {o.values} [{o.default_doc}]: {o.comment}" for o in table]
    return "\n".join(lines)
