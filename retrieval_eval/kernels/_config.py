"""The one place where numba compilation flags and threading are set.

``cache=True`` keeps the first-call compile cost off every process but the first;
``fastmath`` stays off because results must be reproducible to the bit.
"""

from __future__ import annotations

import types
from typing import Any, Callable, TypeVar

import numba
import numpy as np

F = TypeVar("F", bound=Callable)

_FLAGS = {"cache": True, "nogil": True, "fastmath": False}
# Below this many elements in the largest input array a parallel kernel runs its serial build:
# waking the thread pool costs microseconds on an idle machine and milliseconds on a busy one,
# more than the whole computation of a few thousand rows.
SERIAL_BELOW = 50_000


def jit(function: F) -> F:
    """Compile a serial kernel."""
    return numba.njit(**_FLAGS)(function)


class ParallelKernel:
    """A kernel whose outer loop is a ``prange`` over independent queries, compiled twice.

    Inputs whose largest array has fewer than ``SERIAL_BELOW`` elements run the serial build
    (``prange`` is ``range`` there): same code, same results, none of the thread pool's cost.
    The serial build gets its own name so that the two never share a cache entry.
    """

    def __init__(self, function: Callable) -> None:
        serial = types.FunctionType(
            function.__code__, function.__globals__, function.__name__, function.__defaults__, function.__closure__
        )
        serial.__qualname__ = function.__qualname__ + "_serial"
        self.serial = numba.njit(**_FLAGS)(serial)
        self.parallel = numba.njit(parallel=True, **_FLAGS)(function)
        self.__doc__ = function.__doc__
        self.__name__ = function.__name__
        self.__wrapped__ = function

    def __call__(self, *args: Any) -> Any:
        size = max((a.shape[0] for a in args if isinstance(a, np.ndarray) and a.ndim), default=0)
        return (self.parallel if size >= SERIAL_BELOW else self.serial)(*args)


def parallel_jit(function: Callable) -> ParallelKernel:
    """Compile a kernel whose outer loop is a ``prange`` over independent queries."""
    return ParallelKernel(function)
