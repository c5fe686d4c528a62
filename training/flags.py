"""Command-line arguments generated from a settings dataclass (:mod:`trickenv.training.config`): one argument
per field, ``--field-name`` (or a positional one), its help the field's doc, its type the field's.

Every flag's argparse default is None, so that what the command line gave can be told from what it left
alone (:func:`given`): a recipe's settings and a resumed run's own hold for the flags not given.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Callable

# How a flag's text is read, by the type its field is declared with (a field can say otherwise: ``parse``).
READERS: dict[str, Callable[[str], Any]] = {"int": int, "float": float, "str": str, "int | None": int,
                                           "str | None": str}


def flag(name: str) -> str:
    """The flag of a field: ``bc_samples`` -> ``--bc-samples``."""
    return "--" + name.replace("_", "-")


def default_of(f: dataclasses.Field) -> Any:
    """A field's default value (MISSING when it has none)."""
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default


def shown(value: Any) -> str:
    """A default as it would be typed on the command line (``256,256``, ``rules=3,random=1``)."""
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def help_of(f: dataclasses.Field) -> str:
    """The field's doc with its default (argparse formats ``%``: doubled)."""
    text = f.metadata["doc"]
    default = default_of(f)
    unset = default is dataclasses.MISSING or default is None or default is False or default == ""
    if not unset and not f.metadata["positional"]:
        text += f" (default {shown(default)})"
    if f.metadata["resume"]:
        text += "; --resume may change it"
    return text.replace("%", "%%")


def reader(f: dataclasses.Field) -> Callable[[str], Any]:
    """How the field's flag reads its text. A field's own parser raises ValueError with a message meant for the
    user; argparse shows only an ArgumentTypeError's message (of a ValueError only the type's name)."""
    parse = f.metadata["parse"]
    if parse is None:
        return READERS[f.type]

    def read(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    read.__name__ = f.name  # argparse names it in "invalid ... value"
    return read


def add_arguments(parser: argparse.ArgumentParser, settings: type) -> None:
    """One argument of ``parser`` per field of the dataclass ``settings``: a bool field is a switch
    (``--augment-suits``), a positional field an argument by place, every other field a flag with a value."""
    for f in dataclasses.fields(settings):
        keywords = dict(f.metadata["argparse"])
        if f.metadata["positional"]:
            parser.add_argument(f.name, help=help_of(f), **keywords)
        elif f.type == "bool":
            parser.add_argument(flag(f.name), dest=f.name, action="store_const", const=True, default=None,
                                help=help_of(f), **keywords)
        else:
            parser.add_argument(flag(f.name), dest=f.name, type=reader(f), default=None, help=help_of(f), **keywords)


def given(args: argparse.Namespace, settings: type) -> dict[str, Any]:
    """The flags of ``settings`` the command line gave (positional fields aside), by field name."""
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(settings)
            if not f.metadata["positional"] and getattr(args, f.name) is not None}
