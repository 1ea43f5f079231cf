"""The rules an option's value must follow, declared once: intervals, choices, flags, one message, one "did you mean".

Every layer checks its options with these (the evaluation options, a sweep's settings, the
fusion methods' parameters, pools, the command line's types), so a rule reads the same
wherever it is broken. The one message is :func:`must_be`::

    <name> must be <what is allowed>, got <the value>[; did you mean <closest>?]

where *what is allowed* is the rule's own phrase (:attr:`Interval.allowed`,
:attr:`Choices.allowed`, "True or False") and the value is shown as Python writes it (a numpy
number as the number it holds). A name that is close to a known one is answered by
:func:`did_you_mean`.

A leaf beside :mod:`retrieval_eval.errors` and :mod:`retrieval_eval.policies`: pure Python,
importing only the errors, so the command line builds its ``--help`` from these rules without
loading the numerical stack.
"""

from __future__ import annotations

import difflib
import math
import numbers
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

#: The largest integer an option takes: 2^63 - 1, the most the kernels index and count with (int64).
MAX_INTEGER = 2**63 - 1
#: Past this many digits (leading zeros aside) an integer is past int64; Python refuses to convert
#: 4300 digits or more, so longer text is never converted.
_INT64_DIGITS = 19


def shown(value: Any) -> Any:
    """A numpy number as the Python number it holds (``inf``, not ``np.float64(inf)``), for messages."""
    return value.item() if isinstance(value, numbers.Number) and hasattr(value, "item") else value


def number_text(value: int | str) -> str:
    """A number as a message shows it: whole up to 40 digits, else its length (Python prints no int of 4300+)."""
    text = value.strip() if isinstance(value, str) else (str(value) if value.bit_length() <= 128 else "")
    return text if text and len(text) <= 40 else "a number of more than 40 digits"


def must_be(name: str, allowed: str, value: Any = None, *, got: str | None = None, hint: str = "") -> ConfigError:
    """The error of every rule: ``<name> must be <allowed>, got <value>`` and the ``hint`` (a :func:`did_you_mean`).

    The value is shown as ``repr`` shows it (:func:`shown` first); ``got`` is the text to show
    instead where the value is not what the user wrote (a number past 40 digits, a count).
    """
    return ConfigError(f"{name} must be {allowed}, got {repr(shown(value)) if got is None else got}{hint}")


# Did you mean --------------------------------------------------------------------------------


def closest(value: Any, known: Iterable[str], *, n: int = 1, cutoff: float = 0.6, casefold: bool = False) -> list[str]:
    """The (up to ``n``) names of ``known`` closest to ``value`` (:func:`difflib.get_close_matches`), best first.

    ``casefold``: compare lowercased, and answer with the known spelling (of names that lowercase
    alike, the last one given).
    """
    if not isinstance(value, str):
        return []
    if not casefold:
        return difflib.get_close_matches(value, list(known), n=n, cutoff=cutoff)
    spelled = {name.lower(): name for name in known}
    return [spelled[name] for name in difflib.get_close_matches(value.lower(), list(spelled), n=n, cutoff=cutoff)]


def did_you_mean(candidates: Sequence[str], *, before: str = "; ", after: str = "") -> str:
    """``<before>did you mean 'a' or 'b'?<after>`` for the candidates (:func:`closest`), or "" for none."""
    if not candidates:
        return ""
    return f"{before}did you mean {' or '.join(map(repr, candidates))}?{after}"


# Flags -------------------------------------------------------------------------------------


def is_integer(value: Any) -> bool:
    """An int or a numpy integer: both register as Integral; a bool does too, but is no number of anything."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_flag(name: str, value: Any) -> bool:
    """``value`` if it is True or False (not 1, not "yes"), else the error naming ``name``."""
    if not isinstance(value, bool):
        raise must_be(name, "True or False", value)
    return value


# Choices -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choices:
    """The names an option takes, in the order ``--help`` and the messages list them.

    ``bracketed`` lists them as a Python list (``one of ['qrels', 'both']``, for options given
    from Python as strings), else plainly (``one of holm, bh``).
    """

    values: tuple[str, ...]
    bracketed: bool = False

    @property
    def allowed(self) -> str:
        return f"one of {list(self.values)}" if self.bracketed else f"one of {', '.join(self.values)}"

    def check(self, name: str, value: Any) -> str:
        """``value`` if it is one of the choices, else the error naming ``name``, the choices and the closest."""
        if isinstance(value, str) and value in self.values:
            return value
        raise must_be(name, self.allowed, value, hint=did_you_mean(closest(value, self.values)))


def check_choice(name: str, value: Any, allowed: Iterable[str], *, bracketed: bool = False) -> str:
    """:meth:`Choices.check` of ``allowed``."""
    return Choices(tuple(allowed), bracketed).check(name, value)


# Intervals ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """The numbers an option takes: an ``integer`` (or a finite real number) within ``low`` and ``high``.

    A bound left None is none; ``low_open``/``high_open`` exclude the bound itself. Booleans,
    text and non-finite numbers are never in an interval; a real interval takes an integer too
    (``0`` is the number 0). :attr:`allowed` says it in one of two notations: ``"interval"``
    (``a number in (0, 1)``) or ``"comparisons"`` (``a finite number >= 0 and <= 1``, and a real
    with one bound or none); an integer's is ``an integer from 1 to 10`` or ``an integer >= 0``.
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    notation: str = "interval"

    @property
    def allowed(self) -> str:
        """What the interval allows, as the messages and ``--help`` say it."""
        low, high = self.low, self.high
        if self.integer:
            if high is None:
                return f"an integer >= {int(low)}" if low is not None else "an integer"
            return f"an integer from {int(low)} to {int(high)}" if low is not None else f"an integer <= {int(high)}"
        if self.notation == "comparisons" or low is None or high is None:
            bounds = [f"{sign} {bound:g}" for bound, sign in ((low, ">" if self.low_open else ">="),
                                                              (high, "<" if self.high_open else "<=")) if bound is not None]
            return "a finite number" + (f" {' and '.join(bounds)}" if bounds else "")
        return f"a number in {'(' if self.low_open else '['}{low:g}, {high:g}{')' if self.high_open else ']'}"

    def contains(self, number: float) -> bool:
        """Whether ``number`` (already a finite int or float) is within the bounds."""
        low_ok = self.low is None or (number > self.low if self.low_open else number >= self.low)
        high_ok = self.high is None or (number < self.high if self.high_open else number <= self.high)
        return low_ok and high_ok

    def check(self, name: str, value: Any, *, unit: str = "") -> int | float:
        """``value`` as an int (an integer interval) or a float within the bounds, else the error naming ``name``
        (and the ``unit`` the number counts in, where given)."""
        kind = numbers.Integral if self.integer else numbers.Real
        # An int is finite (and math.isfinite would overflow on a huge one).
        ok = not isinstance(value, bool) and isinstance(value, kind) and (self.integer or math.isfinite(value))
        number = (int(value) if self.integer else float(value)) if ok else None
        if number is None or not self.contains(number):
            raise must_be(name, f"{self.allowed} ({unit})" if unit else self.allowed, value)
        return number


# Integers written as text ------------------------------------------------------------------


def integer_text(text: str, *, signed: bool = True) -> int | None:
    """The integer ``text`` spells (digits, a sign where ``signed``, spaces around), or None.

    Past 19 digits the number is past int64: it reads as :data:`MAX_INTEGER` + 1 (with its sign)
    rather than being converted, which Python refuses at 4300 digits.
    """
    digits = text.strip()
    if not re.fullmatch(r"[+-]?\d+" if signed else r"\d+", digits):
        return None
    if len(digits.lstrip("+-").lstrip("0")) <= _INT64_DIGITS:
        return int(digits)
    return -MAX_INTEGER - 2 if digits.startswith("-") else MAX_INTEGER + 1


def integer_at_least(name: str, value: Any, least: int = 1) -> int:
    """``value`` (an int or a numpy integer, or its digits) when least <= value <= :data:`MAX_INTEGER`, else a ConfigError naming ``name``.

    ``least`` is 1 (``a positive integer``: a cutoff, a depth) or 0 (``an integer >= 0``: a count).
    """
    allowed = "a positive integer" if least == 1 else f"an integer >= {least}"
    number = integer_text(value, signed=False) if isinstance(value, str) else int(value) if is_integer(value) else None
    if number is None:
        raise must_be(name, allowed, value)
    if number < least:
        raise must_be(name, allowed, got=str(number))
    if number > MAX_INTEGER:
        raise must_be(name, f"{allowed} up to 2^63 - 1 = {MAX_INTEGER}", got=number_text(value))
    return number


def documents_per_query(name: str, value: Any, *, optional: bool = False) -> int:
    """A count of documents per query given as an argument: an int (not a bool) from 1 to :data:`MAX_INTEGER`
    (the kernels index with int64), else a ConfigError naming ``name``; ``optional``: the caller takes None
    too (the message says so)."""
    number = None if isinstance(value, bool) or not hasattr(value, "__index__") else operator.index(value)
    if number is None or not 1 <= number <= MAX_INTEGER:
        none = " or None" if optional else ""
        raise must_be(name, f"a positive integer (documents per query) up to 2^63 - 1{none}", value,
                      got=None if number is None else number_text(number))
    return number


def int64_value(name: str, value: Any, *, why: str = "") -> int:
    """An integer (an int or a numpy integer, or its digits with an optional sign) that fits int64, else a ConfigError naming ``name``.

    ``why`` follows the range in the message (`` (the kernels' int64)``).
    """
    number = integer_text(value) if isinstance(value, str) else int(value) if is_integer(value) else None
    if number is None:
        raise must_be(name, "an integer", value)
    if not -MAX_INTEGER - 1 <= number <= MAX_INTEGER:
        raise must_be(name, f"an integer from -2^63 to 2^63 - 1{why}", got=number_text(value))
    return number
