"""Merging new judgments into a qrels: every (query, document) of either, the label chosen by an explicit policy.

A (query, document) judged in both with the same label is no conflict; judged in both with different
labels is a conflict, which ``duplicates`` settles: ``"raise"`` (the default: nothing is chosen
silently; :class:`MergeConflicts` lists every conflict), ``"new"`` (the new label wins: re-judging),
``"old"`` (the old label stays: the new file only fills gaps), ``"max"`` (the higher label). A pair
repeated within one file is an error naming its rows: the merge does not guess which row of a file
meant it. The merged judgments are ordered by query id, then document id, as strings (byte order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..constraints import check_choice
from ..errors import DuplicateError, InputError
from ..io import read_qrels_table, source_label
from ..io.arrays import numpy_view
from ..policies import MERGE_POLICIES

if TYPE_CHECKING:
    import pandas as pd

MERGED_COLUMNS = ("query_id", "doc_id", "relevance")
CONFLICT_COLUMNS = ("query_id", "doc_id", "old_label", "new_label")


class MergeConflicts(InputError):
    """``duplicates="raise"`` and some (query, document) has different labels in the two files.

    ``conflicts``: a DataFrame of every one (``query_id``, ``doc_id``, ``old_label``, ``new_label``).
    """

    def __init__(self, conflicts: pd.DataFrame, old: str, new: str) -> None:
        self.conflicts = conflicts
        first = conflicts.iloc[0]
        super().__init__(
            f"{len(conflicts)} (query, document) pair(s) judged differently in {old} and {new}, first query "
            f"{first['query_id']!r} doc {first['doc_id']!r}: {first['old_label']} vs {first['new_label']}; "
            "choose a policy (duplicates='new', 'old' or 'max')",
            field="relevance",
        )


def merge_qrels(
    old: Any, new: Any, *, duplicates: str = "raise", columns: Mapping[str, str] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Merge the judgments ``new`` into ``old``.

    Parameters
    ----------
    old, new
        Qrels: anything :func:`~retrieval_eval.io.read_qrels_table` reads (TREC qrels, tables,
        frames, dicts). The TREC iteration field is not kept (written back as 0).
    duplicates
        How a conflict (the same query and document with different labels) is settled:
        ``"raise"`` (default), ``"new"``, ``"old"`` or ``"max"``. Identical duplicates are kept
        once and are no conflict.
    columns
        Canonical name -> column name, for tables of both whose names are not among the defaults
        (as :func:`~retrieval_eval.io.read_qrels_table` takes it).

    Returns
    -------
    (merged, conflicts)
        ``merged``: ``query_id``, ``doc_id``, ``relevance``, one row per pair of either input, by
        query id then doc id (as strings, ascending). ``conflicts``: ``query_id``, ``doc_id``,
        ``old_label``, ``new_label`` of each conflict, in the same order (settled by the policy).

    Raises
    ------
    MergeConflicts
        ``duplicates="raise"`` and there are conflicts (``.conflicts`` holds them all).
    InputError
        A pair repeated within one file, or ids that are strings in one file and integers in the other.

    Examples
    --------
    >>> old = {"q1": {"d1": 1, "d2": 0}}
    >>> merged, conflicts = merge_qrels(old, {"q1": {"d2": 2, "d3": 1}}, duplicates="new")
    >>> merged["relevance"].tolist(), conflicts[["doc_id", "old_label", "new_label"]].values.tolist()
    ([1, 2, 1], [['d2', 0, 2]])
    """
    check_choice("duplicates", duplicates, MERGE_POLICIES, bracketed=True)
    old_label, new_label = source_label(old), source_label(new)
    old_table, new_table = _judgments(old, old_label, columns), _judgments(new, new_label, columns)
    for field in ("query_id", "doc_id"):
        if pa.types.is_integer(old_table[field].type) != pa.types.is_integer(new_table[field].type):
            raise InputError(f"{field}s are of different kinds in {old_label} and {new_label} (strings and integers); "
                             "convert one side", field=field)
    joined = old_table.rename_columns(["query_id", "doc_id", "old_label"]).join(
        new_table.rename_columns(["query_id", "doc_id", "new_label"]), ["query_id", "doc_id"], join_type="full outer")
    joined = joined.take(pc.sort_indices(
        pa.table({"q": joined["query_id"].cast(pa.string()), "d": joined["doc_id"].cast(pa.string())}),
        sort_keys=[("q", "ascending"), ("d", "ascending")],
    ))
    frame = joined.to_pandas()
    both = frame["old_label"].notna() & frame["new_label"].notna()
    conflicts = frame.loc[both & (frame["old_label"] != frame["new_label"]), list(CONFLICT_COLUMNS)].reset_index(drop=True)
    conflicts = conflicts.astype({"old_label": "int64", "new_label": "int64"})
    if duplicates == "raise" and len(conflicts):
        raise MergeConflicts(conflicts, old_label, new_label)
    olds, news = frame["old_label"].to_numpy(), frame["new_label"].to_numpy()
    if duplicates == "max":
        label = np.fmax(olds, news)
    elif duplicates == "old":
        label = np.where(np.isnan(olds), news, olds)
    else:  # "new", or "raise" without conflicts: either label where both are equal
        label = np.where(np.isnan(news), olds, news)
    merged = frame[["query_id", "doc_id"]].assign(relevance=label.astype(np.int64)).reset_index(drop=True)
    return merged, conflicts


def _judgments(source: Any, label: str, columns: Mapping[str, str] | None) -> pa.Table:
    """The qrels' (query_id, doc_id, relevance), a pair repeated in the file being an error naming its rows."""
    read = read_qrels_table(source, columns=columns)
    # One type per column (string or int64 ids, int64 labels) whatever the file's, so that the two sides join.
    table = pa.table({
        name: read[name].combine_chunks().cast(pa.int64() if pa.types.is_integer(read[name].type) else pa.string())
        for name in MERGED_COLUMNS
    })
    counts = table.group_by(["query_id", "doc_id"]).aggregate([("relevance", "count")])
    repeated = counts.filter(pc.greater(counts["relevance_count"], 1))
    if repeated.num_rows:
        query, doc = repeated["query_id"][0].as_py(), repeated["doc_id"][0].as_py()
        at = pc.and_(pc.equal(table["query_id"], query), pc.equal(table["doc_id"], doc))
        rows = np.flatnonzero(numpy_view(at.combine_chunks())) + 1
        raise DuplicateError(
            f"{repeated.num_rows} (query, document) pair(s) judged more than once, first query {query!r} doc {doc!r} "
            f"(rows {', '.join(map(str, rows[:5]))}); a qrels lists each pair once",
            source=label, row=int(rows[0]), field="doc_id",
        )
    return table
