"""Metric names: the ``Metric`` value and the name grammar.

Grammar: ``name[(param=value, ...)][@k]`` with a lowercase name (``ndcg_exp@10``, ``fidelity``,
``xdcg@5``). A definition may also accept alias templates such as ``top{k}_max_relevance``.
``str(metric)`` is the canonical name and ``parse(str(m)) == m``. Integers (the cutoff, ``rel``)
must fit the kernels' int64.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..constraints import integer_at_least

_GRAMMAR = re.compile(
    r"^(?P<name>[a-z][a-z0-9_]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[^@]*))?$"
)
_PARAM = re.compile(r"^\s*(?P<key>[a-z_][a-z0-9_]*)\s*=\s*(?P<value>[^=,\s]+)\s*$")


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
    """A cutoff k: a positive integer up to :data:`~retrieval_eval.constraints.MAX_INTEGER`."""
    return integer_at_least("the cutoff k", text)
