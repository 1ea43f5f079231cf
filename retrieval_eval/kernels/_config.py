"""The one place where numba compilation flags are set.

``cache=True`` keeps the first-call compile cost off every process but the first;
``fastmath`` stays off because results must be reproducible to the bit.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import numba

F = TypeVar("F", bound=Callable)

_FLAGS = {"cache": True, "nogil": True, "fastmath": False}


def jit(function: F) -> F:
    """Compile a serial kernel."""
    return numba.njit(**_FLAGS)(function)


def parallel_jit(function: F) -> F:
    """Compile a kernel whose outer loop is a ``prange`` over independent queries."""
    return numba.njit(parallel=True, **_FLAGS)(function)
