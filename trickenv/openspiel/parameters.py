"""trickenv's game options as OpenSpiel game parameters, and back (the rules: :mod:`trickenv.openspiel`)."""

from __future__ import annotations

from typing import Any

from trickenv.games import make_spec
from trickenv.games.option_text import parse_value

PREFIX = "trickenv_"
DEFAULT = "default"  # a string parameter's "the game's default"


def short_name(game: str) -> str:
    """The OpenSpiel name of trickenv's ``game``: ``trickenv_<game>``."""
    return PREFIX + game


NOT_GIVEN = -1  # an int parameter's "not given" (an option whose default is None and whose values are ints)


def _takes_int(game: str, option: Any) -> bool:
    """Whether an option whose default is None takes an integer (Four Tricks' ``target``, ``rounds``, ``win_at``)."""
    try:
        make_spec(game, **{option.name: 1})
    except ValueError:
        return False
    return True


def _parameter(game: str, option: Any) -> Any:
    """An option's OpenSpiel parameter default (see the module docstring)."""
    default = option.default
    if callable(default):
        return DEFAULT
    if isinstance(default, (bool, int, str)):
        return default
    if default is None and _takes_int(game, option):
        return NOT_GIVEN
    return value_text(default)


def value_text(value: Any) -> str:
    """An option's value as a string parameter: ``none``, or the items separated by spaces (``Q J``, ``1 2 3``).

    OpenSpiel reads ``(``, ``)``, ``,`` and ``=`` in a parameter string as structure, so they cannot appear."""
    if value is None:
        return "none"
    if isinstance(value, (tuple, list)):
        return " ".join(str(x) for x in value)
    return str(value)


def _text_value(option: Any, text: str) -> Any:
    """The option value a string parameter stands for (see :func:`value_text`)."""
    if isinstance(option.default, tuple):
        return tuple(text.split())
    if text == "none":
        return None
    items = [parse_value(x) for x in text.split()]
    return items[0] if len(items) == 1 else items


def parameter_specification(game: str) -> dict[str, Any]:
    """``{option: default}`` of ``game``'s options as OpenSpiel parameters (see the module docstring)."""
    return {o.name: _parameter(game, o) for o in make_spec(game).option_table}


def options_from_parameters(game: str, params: dict[str, Any]) -> dict[str, Any]:
    """trickenv options from OpenSpiel parameters: text values read back, ``"default"`` left out."""
    table = {o.name: o for o in make_spec(game).option_table}
    out = {}
    for name, value in params.items():
        if name not in table:
            raise ValueError(f"{short_name(game)} has no parameter {name!r}; parameters are {list(table)}")
        option = table[name]
        if callable(option.default) and value == DEFAULT or option.default is None and value == NOT_GIVEN:
            continue
        if isinstance(value, str) and not isinstance(option.default, str) and not callable(option.default):
            value = _text_value(option, value)
        out[name] = value
    return out


def parameters_from_options(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters that make ``game`` with trickenv ``options`` (resolved or as given)."""
    spec = parameter_specification(game)
    out = {}
    for name, value in options.items():
        kind = spec[name]
        if value is None:
            out[name] = NOT_GIVEN if isinstance(kind, int) and not isinstance(kind, bool) else "none"
        elif isinstance(value, (tuple, list)):
            out[name] = value_text(value)
        elif isinstance(kind, str) and not isinstance(value, str):
            out[name] = value_text(value)
        else:
            out[name] = value
    return out
