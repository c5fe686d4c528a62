"""The game-independent rules core: batched state arrays and shared numba kernels."""

from trickenv.engine.state import State

__all__ = ["State"]
