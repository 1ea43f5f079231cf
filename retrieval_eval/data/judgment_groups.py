"""Judgment groups: the judgments of a query split by group (and subgroup), as trec_eval's grouped layouts hold them.

trec_eval's ``qrels_jg`` layout gives each query several sets of judgments, one per judgment
group (an assessor, say); its ``prefs`` and ``qrels_prefs`` layouts also split a group into
subgroups. trec_eval sorts the groups of a query by ``strcmp`` of their names (get_qrels_jg.c,
form_prefs_counts.c), so groups and subgroups are numbered here in byte order of their names:
code order is trec_eval's order. A document may be judged in several groups; a document repeated
within one (query, group, subgroup) is what the duplicates policy decides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..io.arrays import numpy_view
from ..kernels.core.judgments import index_judgments
from ._table import describe_row, first_true
from .ids import IdColumn, QueryGroups, read_only


@dataclass(frozen=True, eq=False)
class NamedCodes:
    """A column of names as codes: ``codes[row]`` indexes ``names``, which are sorted in byte order."""

    codes: np.ndarray
    names: pa.Array

    @classmethod
    def of(cls, column: pa.ChunkedArray, *, field: str, source: str) -> "NamedCodes":
        """Number the distinct names of a string column in byte order (integers are taken as their decimal text)."""
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        if column.null_count:
            row = first_true(numpy_view(column.is_null()))
            raise InputError(f"missing judgment {field}", source=source, row=row + 1, field=field)
        if pa.types.is_integer(column.type):
            column = column.cast(pa.string())
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            raise InputError(f"judgment {field}s must be strings, found {column.type}", source=source, field=field)
        distinct = pc.unique(column)
        # Arrow sorts strings by their bytes, as strcmp does.
        names = distinct.take(pc.array_sort_indices(distinct))
        codes = numpy_view(pc.index_in(column, value_set=names)).astype(np.int64)
        return cls(read_only(codes), names.cast(pa.string()))


@dataclass(frozen=True, eq=False)
class JudgmentGroups:
    """The judgments of each query split into segments, one per (group, subgroup) it has, in code order.

    Query ``c``'s segments are ``query_segments[c] : query_segments[c + 1]``; segment ``s`` has
    group code ``group[s]`` and subgroup code ``subgroup[s]`` (0 without subgroups) and owns the
    rows ``order[offsets[s] : offsets[s + 1]]`` (input order kept). Its distinct documents are
    indexed as a Qrels indexes a query's (see :func:`retrieval_eval.kernels.core.judgments.index_judgments`):
    slots ``offsets[s] : offsets[s] + n_judged[s]`` of ``judged_rows``, ``judged_keys`` (sorted)
    and ``judged_labels`` (the label the duplicates policy keeps).
    """

    query_segments: np.ndarray
    group: np.ndarray
    subgroup: np.ndarray
    order: np.ndarray
    offsets: np.ndarray
    judged_rows: np.ndarray
    judged_keys: np.ndarray
    judged_labels: np.ndarray
    n_judged: np.ndarray

    @property
    def n_segments(self) -> int:
        return self.group.shape[0]

    @property
    def segments_per_query(self) -> np.ndarray:
        return np.diff(self.query_segments)

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in self.__dataclass_fields__)


def level_codes(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Order-preserving int64 codes of float relevance levels, and the distinct levels they index.

    The judgment index is compiled for int64 labels: preference levels are indexed as their codes
    (first, last and max keep the same row), then decoded with :func:`decoded_levels`.
    """
    distinct, codes = np.unique(levels, return_inverse=True)
    return read_only(codes.astype(np.int64).reshape(levels.shape)), distinct


def decoded_levels(codes: np.ndarray, distinct: np.ndarray, offsets: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The levels of padded CSR ``codes`` (group g's slots ``offsets[g] : offsets[g] + counts[g]``), 0.0 in the padding."""
    group = np.repeat(np.arange(counts.shape[0]), np.diff(offsets))
    valid = np.arange(codes.shape[0]) - offsets[group] < counts[group]
    levels = np.zeros(codes.shape[0], dtype=np.float64)
    levels[valid] = distinct[codes[valid]]
    return read_only(levels)


def split_by_group(
    queries: QueryGroups,
    doc_ids: IdColumn,
    labels: np.ndarray,
    groups: np.ndarray,
    subgroups: np.ndarray | None,
    policy: int,
    levels: np.ndarray | None = None,
) -> tuple[JudgmentGroups, np.ndarray]:
    """Segment and index the judgments; returns the segments and each segment's first repeated row (-1 if none) under RAISE.

    ``levels``: when ``labels`` are the codes of preference levels (:func:`level_codes`), the distinct
    levels, so that the segments hold the levels themselves.
    """
    n_rows = labels.shape[0]
    query_of_row = np.empty(n_rows, dtype=np.int64)
    query_of_row[queries.order] = np.repeat(np.arange(queries.n_queries, dtype=np.int64), queries.rows_per_query)
    sub = np.zeros(n_rows, dtype=np.int64) if subgroups is None else subgroups
    order = np.lexsort((sub, groups, query_of_row)).astype(np.int64)  # stable: input order within a segment
    q, g, s = query_of_row[order], groups[order], sub[order]
    new = np.ones(n_rows, dtype=np.bool_)
    new[1:] = (q[1:] != q[:-1]) | (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    starts = np.flatnonzero(new)
    offsets = np.append(starts, n_rows).astype(np.int64)
    query_segments = np.searchsorted(q[starts], np.arange(queries.n_queries + 1), side="left").astype(np.int64)
    order = read_only(order)
    offsets = read_only(offsets)
    judged_rows, judged_keys, judged_labels, _, n_judged, duplicate_rows = index_judgments(
        offsets, order, doc_ids.keys, doc_ids.offsets, doc_ids.data, doc_ids.is_string, labels, policy
    )
    if levels is not None:
        judged_labels = decoded_levels(judged_labels, levels, offsets, n_judged)
    segments = JudgmentGroups(
        read_only(query_segments),
        read_only(g[starts]),
        read_only(s[starts]),
        order,
        offsets,
        read_only(judged_rows),
        read_only(judged_keys),
        read_only(judged_labels),
        read_only(n_judged),
    )
    return segments, duplicate_rows


def raise_on_repeats_in_groups(
    duplicate_rows: np.ndarray, table: pa.Table, source: str, groups: NamedCodes, subgroups: NamedCodes | None
) -> None:
    """Raise naming the first row that repeats a document within its (query, group, subgroup), if any."""
    repeated = duplicate_rows[duplicate_rows >= 0]
    if not len(repeated):
        return
    row = int(repeated.min())
    where = f"judgment group {groups.names[int(groups.codes[row])].as_py()!r}"
    if subgroups is not None:
        where += f", subgroup {subgroups.names[int(subgroups.codes[row])].as_py()!r}"
    raise InputError(
        f"{describe_row(table, row)} is judged more than once in {where} (qrels duplicates='raise'; "
        "'last', 'first' or 'max' keeps one label; the same document may be judged in different groups)",
        source=source,
        row=row + 1,
    )
