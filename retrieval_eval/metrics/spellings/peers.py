"""The peers' metric names: ir_measures measure objects and name lists, and the spellings of ir_measures and ranx.

The contract with :mod:`retrieval_eval.metrics.selection`: :func:`measure_text` turns an ir_measures
measure object into its name, :func:`split_names` splits a space-separated list of names, and
:func:`parse_peer` maps a peer's spelling to a registry metric (None leaves the name to the registry).

Which peer a spelling is of is decided by its form, never by guessing: ir_measures' names are
case-sensitive and start with a capital or a Greek letter (``nDCG@10``, ``AP(rel=2)``: see
:mod:`~retrieval_eval.metrics.spellings.ir_measures`), ranx's are lowercase with ``-lN`` for the
relevance level (``precision@5-l2``: see :mod:`~retrieval_eval.metrics.spellings.ranx`), and the
registry's own are lowercase. trec_eval's names (``P``, ``ndcg_cut.10``) are read before any
of these, by :mod:`~retrieval_eval.metrics.spellings.trec_eval`.
"""

from __future__ import annotations

import sys

from ...errors import ConfigError
from ..names import Metric
from . import ir_measures as ir_measures_names
from . import ranx as ranx_names

_OPENING, _CLOSING = "({[", ")}]"


def measure_text(item: object) -> str | None:
    """The name of an ir_measures measure object as ir_measures writes it (``str(measure)``: ``nDCG@10``, ``AP(rel=2)``,
    ``P(rel=2)@5``); None for anything else.

    ir_measures is never imported here: an object is one of its measures only when ir_measures is
    already imported and the object is an instance of its ``Measure``.
    """
    base = sys.modules.get("ir_measures.measures.base")
    measure = getattr(base, "Measure", None)
    if isinstance(measure, type) and isinstance(item, measure):
        return str(item)
    return None


def split_names(text: str) -> list[str]:
    """The names of a space-separated list, as ir_measures writes one (``"nDCG@10 P@5 AP(rel=2)"``); one name gives ``[name]``.

    Spaces inside parentheses, braces and brackets do not split (``nDCG(gains={0:0, 1:1})``).
    Text whose brackets do not balance is one name (the parser then says what is wrong with it).
    """
    names: list[str] = []
    depth, start = 0, None
    for index, char in enumerate(text):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth -= 1
            if depth < 0:
                return [text]
        if char.isspace() and depth == 0:
            if start is not None:
                names.append(text[start:index])
                start = None
        elif start is None:
            start = index
    if depth != 0:
        return [text]
    if start is not None:
        names.append(text[start:])
    return names or [text]


def is_peer_only_name(text: str) -> bool:
    """``text`` starts like a trec_eval name but is only a peer's (ranx's ``rbp.95``): read it here, not as trec_eval's."""
    return ranx_names.is_rbp_name(text)


def parse_peer(text: str, *, rel_level: int, default_k: int | None) -> Metric | None:
    """The canonical registry metric an ir_measures or ranx spelling means; None when ``text`` is not a peer's
    spelling that the registry would not read alike (the caller then asks the registry).

    ``rel_level`` is the relevance level of a name that leaves it out, ``default_k`` the cutoff of
    a name that needs one and has none. A peer's measure that no registry metric computes (ERR,
    alpha_nDCG, ranx's ``dcg@k``) is an :class:`~retrieval_eval.errors.UnknownMetricError`; a
    parameter whose value or meaning is not reproduced (``nDCG(gains=...)@10``, ranx's
    ``ndcg-l2``) a :class:`~retrieval_eval.errors.ConfigError` that names it and says what is.
    ir_measures' ``judged_only=True`` is an option of the evaluation (``judged_only=True``,
    trec_eval's ``-J``), not of one metric: a ConfigError here (the ir_measures provider of
    :mod:`retrieval_eval.compat.ir_measures_provider` takes it).
    """
    peer = ir_measures_names.parse(text, rel_level=rel_level, default_k=default_k)
    if peer is not None:
        if peer.judged_only:
            raise ConfigError(
                f"ir_measures measure {text.strip()!r}: judged_only=True ranks only the judged documents, an option of "
                "the whole evaluation here: pass judged_only=True (trec_eval's -J) and leave it out of the name"
            )
        return peer.metric
    return ranx_names.parse(text, rel_level=rel_level, default_k=default_k)
