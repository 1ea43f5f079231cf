"""C arithmetic as trec_eval 10's binary does it on x86-64, for kernels that must agree with it to the bit.

trec_eval divides by zero, takes ``log2`` of any double and casts doubles to integers without
checks; numba (and Python) would raise or differ instead. These helpers give the IEEE 754 and
x86-64 answers:

- :func:`divide`: ``a / b`` with IEEE semantics: ``x / 0`` is an infinity of the sign of
  ``x`` times that of the zero, ``0 / 0`` is the x86 default NaN, which has its sign bit set
  (glibc prints it ``-nan``; :data:`NEGATIVE_NAN`), a NaN operand passes through.
- :func:`c_log2`: the C library's ``log2`` (numba and Python call the same glibc function for
  positive arguments): ``-inf`` at 0, ``-nan`` below 0, NaN for NaN.
- :func:`lround` (C ``lround``), :func:`long_cast` (C ``(long) x``) and :func:`int_cast`
  (C ``(int) x``, as ``cvttsd2si`` into a 32-bit register): out of the integer type's range,
  or NaN, x86-64 gives the type's smallest value (``LONG_MIN``, ``INT_MIN``), which is what
  the binary computes (the C standard leaves it undefined or unspecified).
"""

from __future__ import annotations

import math

from .._config import jit

#: 0.0 / 0.0 on x86-64: a quiet NaN with the sign bit set (printf's ``-nan``).
NEGATIVE_NAN = -math.nan
LONG_MIN = -(2**63)
INT_MIN = -(2**31)
_TWO_63 = 9223372036854775808.0


@jit
def divide(a: float, b: float) -> float:
    """``a / b`` as IEEE 754 divides on x86-64 (see the module docstring)."""
    if b != 0.0 or b != b:
        return a / b
    if a != a:
        return a
    if a == 0.0:
        return NEGATIVE_NAN
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


@jit
def c_log2(x: float) -> float:
    """glibc's ``log2(x)`` for any double."""
    if x > 0.0:
        return math.log2(x)
    if x == 0.0:
        return -math.inf
    if x != x:
        return x
    return NEGATIVE_NAN


@jit
def lround(x: float) -> int:
    """C's ``lround``: to the nearest integer, halves away from zero; LONG_MIN out of range or for NaN."""
    # -2^63 itself is LONG_MIN too (its magnitude would not fit).
    if not (-_TWO_63 < x < _TWO_63):
        return LONG_MIN
    magnitude = abs(x)
    whole = math.floor(magnitude)
    # magnitude - whole is exact in binary floating point, so the half is decided exactly.
    rounded = int(whole) + (1 if magnitude - whole >= 0.5 else 0)
    return -rounded if x < 0.0 else rounded


@jit
def long_cast(x: float) -> int:
    """C's ``(long) x``: truncated toward zero; LONG_MIN out of range or for NaN."""
    if not (-_TWO_63 <= x < _TWO_63):
        return LONG_MIN
    return int(x)


@jit
def int_cast(x: float) -> int:
    """C's ``(int) x`` as x86-64 computes it: truncated toward zero; INT_MIN out of range or for NaN."""
    if not (-2147483649.0 < x < 2147483648.0):
        return INT_MIN
    return int(x)
