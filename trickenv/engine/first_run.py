"""What a first run says while numba compiles, so that a newcomer's first wait is not silent.

numba compiles a kernel the first time it is called and keeps the machine code on disk
(``cache=True``); later runs load it in well under a second. :func:`announce_compiles`
listens to numba's ``numba:compile`` event, which numba only raises when nothing usable
is in its cache, and prints one line per module the first time one of its kernels is
compiled (not for the helpers compiled inside it): ``trickenv: compiling the Four Tricks kernels (first run only; ...)``. A module
names itself with ``COMPILE_LABEL``; otherwise its dotted name is shown. A module whose kernels numba
cannot keep on disk says why in ``COMPILE_NOTE``, shown instead of "first run only". ``trickenv``'s
command line turns this on; a script can call it too.
"""

from __future__ import annotations

import sys
from typing import TextIO

from numba.core import event

_PACKAGE = "trickenv."
_installed: list["_Announcer"] = []


class _Announcer(event.Listener):
    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.seen: set[str] = set()
        self.depth = 0  # compiles under way: a kernel's helpers compile inside it, and are not announced

    def on_start(self, ev: event.Event) -> None:
        self.depth += 1
        if self.depth > 1:
            return
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        module = getattr(func, "__module__", "") or ""
        if not module.startswith(_PACKAGE) or module in self.seen:
            return
        self.seen.add(module)
        label = getattr(sys.modules.get(module), "COMPILE_LABEL", module)
        note = getattr(sys.modules.get(module), "COMPILE_NOTE", "first run only; numba keeps the machine code on disk")
        stream = self.stream or sys.stderr
        print(f"trickenv: compiling {label} ({note})", file=stream, flush=True)

    def on_end(self, ev: event.Event) -> None:
        self.depth -= 1


def announce_compiles(stream: TextIO | None = None) -> None:
    """From now on, say on ``stream`` (default: standard error) when a trickenv module's kernels compile.

    Calling it again changes nothing (one line per module and process)."""
    if _installed:
        return
    listener = _Announcer(stream)
    event.register("numba:compile", listener)
    _installed.append(listener)
