"""Two sets of judgments of the same collection side by side: people's and a judge's.

Both are read as :class:`~retrieval_eval.Qrels` (any file, table, frame or dict the library reads;
integer labels) under trec_eval's rule for a document judged twice within one file: an error naming
its rows (judgments built with a policy of their own keep it). Ids are compared as the pooling and
merging of judgments compare them: query ids and document ids as strings, or as integers when both
sides hold integers; strings on one side and integers on the other are an error, not a guess.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..data import Qrels
from ..errors import ConfigError, InputError
from ..io.arrays import numpy_view

_KEYS = ["query_id", "doc_id"]


class PairedLabels(NamedTuple):
    """The (query, document) pairs both sides judge, with each side's label (int64), in no particular order.

    ``n_human_only`` / ``n_judge_only``: the pairs only one side judges (counted, not compared).
    """

    query_id: pa.Array
    doc_id: pa.Array
    human: np.ndarray
    judge: np.ndarray
    n_human_only: int
    n_judge_only: int


def read_judgments(source: Any, role: str) -> Qrels:
    """``source`` as qrels with one label per (query, document); ``role`` ("human qrels", "judge labels") names it in errors."""
    qrels = Qrels.read(source, duplicates="raise").for_policy("raise", explicit=False)
    if qrels.judgments != "qrels":
        raise ConfigError(f"the {role} ({qrels.source}) are laid out as {qrels.judgments!r}; agreement compares plain "
                          "qrels (one label per query and document)")  # fmt: skip
    return qrels


def paired_labels(human: Qrels, judge: Qrels) -> PairedLabels:
    """The labels of the pairs both ``human`` and ``judge`` judge (one hash join of the two tables)."""
    left, right = _labelled(human, "human"), _labelled(judge, "judge")
    same_id_kinds(left, right, human.source, judge.source)
    joined = left.join(right, _KEYS, join_type="inner")
    n = joined.num_rows
    return PairedLabels(
        joined["query_id"].combine_chunks(),
        joined["doc_id"].combine_chunks(),
        numpy_view(joined["human"].combine_chunks()),
        numpy_view(joined["judge"].combine_chunks()),
        left.num_rows - n,
        right.num_rows - n,
    )


def common_queries(human: Qrels, judge: Qrels) -> pa.Array:
    """The query ids both judge, in the order ``human`` first lists them."""
    human_ids, judge_ids = _one_type(human.query_ids), _one_type(judge.query_ids)
    if pa.types.is_integer(human_ids.type) != pa.types.is_integer(judge_ids.type):
        same_id_kinds(pa.table({"query_id": human_ids}), pa.table({"query_id": judge_ids}), human.source, judge.source)
    return human_ids.filter(pc.is_in(human_ids, value_set=judge_ids))


def restricted(qrels: Qrels, queries: pa.Array) -> Qrels:
    """``qrels`` with only the judgments of ``queries`` (under its own duplicate policy)."""
    keep = pc.is_in(_one_type(qrels.table["query_id"].combine_chunks()), value_set=queries)
    return Qrels(qrels.table.filter(keep), source=qrels.source, duplicates=qrels.duplicates)


def same_id_kinds(table: pa.Table, other: pa.Table, source: str, other_source: str) -> None:
    """Refuse ids that are integers in one table and strings in the other (for each id column both have)."""
    for field in (name for name in _KEYS if name in table.column_names and name in other.column_names):
        if pa.types.is_integer(table[field].type) != pa.types.is_integer(other[field].type):
            kinds = ["integers" if pa.types.is_integer(t[field].type) else "strings" for t in (table, other)]
            raise InputError(f"{field}s are {kinds[0]} in {source} but {kinds[1]} in {other_source}; convert one side "
                             "so that both are strings or both integers", field=field)  # fmt: skip


def _labelled(qrels: Qrels, label: str) -> pa.Table:
    """``query_id``, ``doc_id`` and the label as column ``label``: one row per judged pair, ids of one type.

    A pair judged twice in qrels built with a policy of their own is the one row and label that policy kept.
    """
    fractional = qrels.first_non_integer_label()
    if fractional is not None:
        # Agreement (kappa, confusion matrices) counts labels as categories: whole grades only.
        raise InputError(
            f"label agreement needs integer relevance labels (categories), got {qrels.describe_label(fractional)}",
            source=qrels.source, row=fractional + 1, field="relevance",
        )
    rows, labels = None, qrels.labels
    if qrels.repeated_judgments:
        # The index holds each query's distinct documents in slots offsets[q] .. offsets[q] + n_judged[q].
        starts = qrels.queries.offsets[:-1]
        firsts = np.cumsum(qrels.n_judged) - qrels.n_judged
        slots = np.repeat(starts - firsts, qrels.n_judged) + np.arange(int(qrels.n_judged.sum()))
        rows, labels = qrels.judged_rows[slots], qrels.judged_labels[slots]
    table = qrels.table if rows is None else qrels.table.take(pa.array(rows))
    return pa.table({
        "query_id": _one_type(table["query_id"].combine_chunks()),
        "doc_id": _one_type(table["doc_id"].combine_chunks()),
        label: pa.array(labels, pa.int64()),
    })


def _one_type(ids: pa.Array) -> pa.Array:
    """Ids as string or int64 whatever their source's type (large_string, int32...), so that two tables join."""
    return ids.cast(pa.int64() if pa.types.is_integer(ids.type) else pa.string())
