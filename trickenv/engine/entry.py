"""Calling the games' entry kernels from Python: without numba's dispatcher, and over threads.

Each game compiles one kernel per entry point (reset, step, observe). The step kernel
releases the GIL (``nogil=True``), so a large batch can be stepped by several Python
threads at once, each on its own slice of the batch: slices along the batch axis of the
C-contiguous state arrays are C-contiguous views of the same types, so they call the
same compiled function. That replaces a second, parfor-compiled copy of every step
kernel, which cost as much compile time again (measured: docs/how-it-was-found/speed.md).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

import numba
import numpy as np
from numba import njit

from trickenv.engine.kernels import count_illegal

COMPILE_LABEL = "the threaded step's check"  # trickenv.engine.first_run


def compiled(kernel: Callable, args: tuple) -> Callable:
    """The compiled function behind the numba kernel ``kernel`` for arguments of exactly the types of
    ``args`` (compiled or loaded from the cache now), to call without numba's dispatcher.

    The dispatcher types every argument on every call: about 1 µs for a step kernel's 19, as
    much as the kernel itself takes for one game. The function returned must only get arguments
    of these same types (it does not check them). A plain Python ``kernel`` is returned as is.
    """
    compile_ = getattr(kernel, "compile", None)
    if compile_ is None:
        return kernel
    return compile_(tuple(numba.typeof(a) for a in args))


@njit(cache=True, nogil=True)
def illegal_count(actions, where, mask, num_actions):
    """How many stepped games' actions are illegal (the check a threaded step makes over the whole batch
    first, so that, as in one call, any illegal action leaves every game unchanged)."""
    return count_illegal(actions, where, mask, num_actions)


def row_slices(batch: int, parts: int) -> list[slice]:
    """``parts`` (at most ``batch``) contiguous slices of ``range(batch)``, as equal as can be."""
    parts = max(1, min(parts, batch))
    bounds = np.linspace(0, batch, parts + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


class ThreadedCall:
    """One compiled kernel called on slices of the batch by several threads at once.

    ``args_per_slice[k]`` are the arguments of slice k (views of the batch arrays). The
    calling thread runs the first slice itself; the rest go to a pool of ``len - 1``
    threads, made on first use. The results (the kernels' return values) are summed.
    """

    def __init__(self, call: Callable, args_per_slice: Sequence[tuple]) -> None:
        self.call = call
        self.args = list(args_per_slice)
        self._pool: ThreadPoolExecutor | None = None

    def __call__(self) -> int:
        if len(self.args) == 1:
            return self.call(*self.args[0])
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=len(self.args) - 1, thread_name_prefix="trickenv-step")
        futures = [self._pool.submit(self.call, *a) for a in self.args[1:]]
        total = self.call(*self.args[0])
        for f in futures:
            total += f.result()
        return total
