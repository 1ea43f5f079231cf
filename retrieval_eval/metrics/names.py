"""Metric names: the ``Metric`` value and the name grammar.

Grammar: ``name[(param=value, ...)][@k]`` with a lowercase name (``ndcg_exp@10``, ``fidelity``,
``xdcg@5``). A definition may also accept alias templates such as ``top{k}_max_relevance``.
``str(metric)`` is the canonical name and ``parse(str(m)) == m``. Integers (the cutoff, ``rel``)
must fit the kernels' int64.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass

from ..errors import ConfigError

_GRAMMAR = re.compile(
    r"^(?P<name>[a-z][a-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[^@]*))?$"
)
_PARAM = re.compile(r"^\s*(?P<key>[a-z_][a-z0-9_]*)\s*=\s*(?P<value>[^=,\s]+)\s*$")
#: The largest integer option or parameter (a cutoff, ``rel``, ``max_docs``): the kernels count in int64.
MAX_INTEGER = 2**63 - 1


@dataclass(frozen=True, order=True)
class Metric:
    """A metric with its cutoff ``k`` (None for metrics without one) and parameters."""

    name: str
    k: int | None = None
    params: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{key}={value}" for key, value in self.params) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text


@dataclass(frozen=True)
class ParsedName:
    """The parts of a metric name before it is checked against the registry."""

    name: str
    k: int | None
    params: tuple[tuple[str, str], ...]
    has_cutoff: bool


def split_name(text: str) -> ParsedName | None:
    """Split ``text`` into name, parameters and cutoff; None when it does not follow the grammar.

    A cutoff that is not a positive integer is reported by raising ``ValueError``; a parameter
    given twice is kept twice, for the registry to refuse.
    """
    match = _GRAMMAR.match(text.strip().lower())
    if match is None:
        return None
    params: list[tuple[str, str]] = []
    if match["params"]:
        for item in match["params"].split(","):
            param = _PARAM.match(item)
            if param is None:
                return None
            params.append((param["key"], param["value"]))
    k = None
    if match["k"] is not None:
        k = parse_cutoff(match["k"])
    # By key only: a repeated parameter keeps the order it was written in, for the registry's message.
    return ParsedName(match["name"], k, tuple(sorted(params, key=lambda pair: pair[0])), match["k"] is not None)


def parse_cutoff(text: str) -> int:
    """A cutoff k: a positive integer up to :data:`MAX_INTEGER`."""
    return positive_integer("the cutoff k", text)


def documents_per_query(name: str, value: object, *, optional: bool = False) -> int:
    """A count of documents per query given as an argument: an int (not a bool) from 1 to :data:`MAX_INTEGER`
    (the kernels index with int64), else a ConfigError naming ``name``; ``optional``: the caller takes None
    too (the message says so)."""
    number = None if isinstance(value, bool) or not hasattr(value, "__index__") else operator.index(value)  # type: ignore[arg-type]
    if number is None or not 1 <= number <= MAX_INTEGER:
        shown = repr(value) if number is None else number_text(number)
        none = " or None" if optional else ""
        raise ConfigError(f"{name} must be a positive integer (documents per query) up to 2^63 - 1{none}, got {shown}")
    return number


def positive_integer(name: str, value: int | str) -> int:
    """``value`` (an int, or its digits) when 1 <= value <= :data:`MAX_INTEGER`, else ``ValueError`` naming ``name``."""
    if isinstance(value, str):
        digits = value.strip()
        if not re.fullmatch(r"\d+", digits):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
        # Python refuses to convert more than 4300 digits; past 19 the number is past int64 anyway.
        number = int(digits) if len(digits.lstrip("0")) <= 19 else MAX_INTEGER + 1
    else:
        number = value
    if number <= 0:
        raise ValueError(f"{name} must be a positive integer, got {number}")
    if number > MAX_INTEGER:
        raise ValueError(f"{name} must be a positive integer up to 2^63 - 1 = {MAX_INTEGER}, got {number_text(value)}")
    return number


def number_text(value: int | str) -> str:
    """A number as the message shows it: whole up to 40 digits, else its length (Python prints no int of 4300+)."""
    text = value.strip() if isinstance(value, str) else (str(value) if value.bit_length() <= 128 else "")
    return text if text and len(text) <= 40 else "a number of more than 40 digits"


def relevance_level_value(name: str, value: int | str) -> int:
    """A relevance level (an int, or its digits with an optional sign) that fits int64, else a ConfigError naming ``name``."""
    if isinstance(value, str):
        text = value.strip()
        if not re.fullmatch(r"[+-]?\d+", text):
            raise ConfigError(f"{name} must be an integer, got {value!r}")
        digits = text.lstrip("+-").lstrip("0")
        number = int(text) if len(digits) <= 19 else MAX_INTEGER + 1
    else:
        number = value
    if not -MAX_INTEGER - 1 <= number <= MAX_INTEGER:
        raise ConfigError(f"{name} must be an integer from -2^63 to 2^63 - 1, got {number_text(value)}")
    return int(number)
