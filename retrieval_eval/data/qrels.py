"""Relevance judgments (qrels) as columnar arrays, indexed once and reused for every run."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from ..constraints import check_choice
from ..errors import ConfigError, InputError
from ..io import read_qrels_table, source_label
from ..io.arrays import numpy_view
from ..io.coerce import labels_column
from ..kernels.core.bundles import JudgmentArrays
from ..kernels.core.duplicate_policy import KEEP_MAX
from ..kernels.core.judgments import index_judgments
from ..policies import JUDGMENT_FORMATS
from ..progress import phase
from ._grouped import GroupedTable
from ._table import describe_row, duplicate_policy_code, first_true, raise_on_duplicates, require_columns
from .ids import IdLookup, QueryGroups, read_only
from .judgment_groups import (
    JudgmentGroups,
    NamedCodes,
    decoded_levels,
    level_codes,
    raise_on_repeats_in_groups,
    split_by_group,
)

#: The layouts whose judgments are preferences: relevance levels are numbers (trec_eval's double).
_PREFERENCE_LAYOUTS = ("qrels_prefs", "prefs")


class Qrels(GroupedTable):
    """Judgments ``(query_id, doc_id, relevance)`` grouped by query, in one of trec_eval's layouts.

    Relevance labels are numbers: ``labels`` is int64 when every label is a whole number (the
    exact integer path, whatever type the input gave them: ``1.0`` is 1), else float64 (a
    mean of several assessors, a judge's probability); ``integer_labels`` says which. A metric
    that needs integers refuses float labels when scored (:attr:`MetricDefinition.float_labels`).
    When a (query, document) pair is judged more than once,
    ``duplicates`` says which label counts: ``"last"`` (Azure's rule), ``"first"``, ``"max"``, or
    ``"raise"``; None (the default) leaves it to the evaluation, which applies the rule of the
    metrics it computes, as it does to qrels given as a path: trec_eval's (``"raise"``) for
    the TREC measures, Azure's (``"last"``) for its metrics (see :meth:`for_policy`; until then
    the last label counts). ``repeated_judgments`` counts the rows that judge a document their
    query (and judgment group) judged before. Row counts per query still include the repeated
    rows (Azure's ``total_ground_truth_documents``).

    ``judgments`` is the layout (trec_eval's ``-R``, see
    :data:`~retrieval_eval.policies.JUDGMENT_FORMATS`). The grouped layouts (``"qrels_jg"``,
    ``"qrels_prefs"``, ``"prefs"``) have a ``group`` column and the preference layouts a
    ``subgroup`` column too; the preference layouts' labels are relevance levels (float64, any
    finite number; 0 and below are non-relevant, as trec_eval reads them). For them:

    - ``groups`` / ``subgroups``: int64 per row (``subgroups`` None for ``qrels_jg``), codes of
      the row's group / subgroup in ``group_names`` / ``subgroup_names``, numbered in byte order
      of the names (trec_eval's ``strcmp`` order);
    - ``segments``: the judgments of each query split per (group, subgroup), each indexed on its
      own (:class:`~retrieval_eval.data.judgment_groups.JudgmentGroups`); ``duplicates`` decides
      a document repeated within one (query, group, subgroup), while the same document may be
      judged in several groups;
    - the per-query index (``judged_rows``, ``judged_keys``, ``n_judged``, ...) holds the pool:
      each document judged in any group of the query once, with the highest label any group
      gives it.

    Build with :meth:`read` (any file or table) or from a canonical Arrow table with the
    constructor.
    """

    def __init__(
        self,
        table: pa.Table,
        *,
        source: str = "<qrels>",
        duplicates: str | None = None,
        queries: QueryGroups | None = None,
        judgments: str = "qrels",
    ) -> None:
        policy = duplicate_policy_code("last" if duplicates is None else duplicates, what="qrels duplicates")
        self.duplicates = duplicates
        check_choice("judgments", judgments, JUDGMENT_FORMATS, bracketed=True)
        super().__init__(table, "relevance", source, queries=queries)
        self.judgments = judgments
        preferences = judgments in _PREFERENCE_LAYOUTS
        self.labels = (_level_labels if preferences else _labels)(table["relevance"], source)
        self.integer_labels = self.labels.dtype.kind == "i"
        self.groups: np.ndarray | None = None
        self.subgroups: np.ndarray | None = None
        self.group_names: pa.Array | None = None
        self.subgroup_names: pa.Array | None = None
        self.segments: JudgmentGroups | None = None
        # Preference levels are indexed as order-preserving int64 codes: one build of the index kernel.
        labels, levels = level_codes(self.labels) if preferences else (self.labels, None)
        if judgments != "qrels":
            policy = self._split_by_group(table, policy, labels, levels, subgroups=preferences)
        index = index_judgments(
            self.queries.offsets,
            self.queries.order,
            self.doc_ids.keys,
            self.doc_ids.offsets,
            self.doc_ids.data,
            self.doc_ids.is_string,
            labels,
            policy,
        )
        (self.judged_rows, self.judged_keys, self.judged_labels, self.ideal_labels, self.n_judged, duplicate_rows) = map(
            read_only, index
        )
        if levels is not None:
            bounds = (levels, self.queries.offsets, self.n_judged)
            self.judged_labels, self.ideal_labels = decoded_levels(self.judged_labels, *bounds), decoded_levels(self.ideal_labels, *bounds)
        raise_on_duplicates(duplicate_rows, self.table, source,
                            "is judged more than once (qrels_duplicates='raise'; 'last', 'first' or 'max' keeps one label)")
        distinct = self.segments.n_judged if self.segments is not None else self.n_judged
        self.repeated_judgments = len(self) - int(distinct.sum())

    def for_policy(self, duplicates: str, *, explicit: bool) -> "Qrels":
        """These judgments under an evaluation's duplicate policy ``duplicates``.

        Qrels read without a policy take it: themselves when no document is judged twice or the
        policy is ``"last"`` (their index), else indexed again under it (``"raise"`` raises the
        error a path would). Qrels read with a policy keep theirs, unless the evaluation's was
        given ``explicit``-ly and differs: a :class:`ConfigError`, since one of the two would
        be ignored.
        """
        if self.duplicates is None:
            if self.repeated_judgments == 0 or duplicates == "last":
                return self
            return Qrels(self.table, source=self.source, duplicates=duplicates, queries=self.queries, judgments=self.judgments)
        if explicit and duplicates != self.duplicates:
            raise ConfigError(
                f"the qrels were read with duplicates={self.duplicates!r} and the evaluation asks "
                f"qrels_duplicates={duplicates!r}: give one (Qrels.read(..., duplicates=None) leaves it to the evaluation)"
            )
        return self

    def _split_by_group(
        self, table: pa.Table, policy: int, labels: np.ndarray, levels: np.ndarray | None, *, subgroups: bool
    ) -> int:
        """Code the groups, index each (query, group, subgroup); returns the policy of the per-query pool."""
        names = ("group", "subgroup") if subgroups else ("group",)
        require_columns(table, names, self.source)
        self.table = table.select(["query_id", "doc_id", "relevance", *names])
        groups = NamedCodes.of(table["group"], field="group", source=self.source)
        subgroup_codes = NamedCodes.of(table["subgroup"], field="subgroup", source=self.source) if subgroups else None
        self.groups, self.group_names = groups.codes, groups.names
        if subgroup_codes is not None:
            self.subgroups, self.subgroup_names = subgroup_codes.codes, subgroup_codes.names
        self.segments, repeated = split_by_group(
            self.queries, self.doc_ids, labels, self.groups, self.subgroups, policy, levels
        )
        raise_on_repeats_in_groups(repeated, self.table, self.source, groups, subgroup_codes)
        # A document judged in several groups is one document of the pool.
        return KEEP_MAX

    @classmethod
    def read(
        cls,
        source: Any,
        *,
        columns: Mapping[str, str] | None = None,
        format: str | None = None,
        duplicates: str | None = None,
        judgments: str = "qrels",
    ) -> "Qrels":
        """Read qrels from any source :func:`~retrieval_eval.io.read_qrels_table` reads (files, frames, tables, dicts, peers' objects).

        ``duplicates``: the policy for a document judged twice (see :class:`Qrels`); None leaves it
        to the evaluation, so that ``Evaluator(Qrels.read(path), metrics)`` follows the same rule as
        ``Evaluator(path, metrics)``.

        ``judgments``: the layout, as :func:`~retrieval_eval.io.read_qrels_table` reads it. A
        :class:`Qrels` given as ``source`` is returned as it is, in the layout it was built in
        (a metric that cannot read that layout refuses it when scored).
        """
        if isinstance(source, Qrels):
            return source
        with phase(f"reading {source_label(source)}"):
            table = read_qrels_table(source, columns=columns, format=format, judgments=judgments)
            # labelled again once read: an iterator's label names the type of its first row
            return cls(table, source=source_label(source), duplicates=duplicates, judgments=judgments)

    @cached_property
    def judgment_arrays(self) -> JudgmentArrays:
        """The judgment index and the id bytes as the join kernels take them (built once)."""
        return JudgmentArrays(
            self.queries.offsets, self.judged_rows, self.judged_keys, self.judged_labels, self.n_judged,
            self.doc_ids.offsets, self.doc_ids.data,
        )

    @cached_property
    def query_lookup(self) -> IdLookup:
        """Where a run's query ids are among the judged queries (built on first use)."""
        return IdLookup.of(self.query_ids)

    @property
    def nbytes(self) -> int:
        """Bytes held in memory: the table and the index built over it."""
        arrays = (
            self.labels,
            self.judged_rows,
            self.judged_keys,
            self.judged_labels,
            self.ideal_labels,
            self.n_judged,
            self.doc_ids.keys,
            self.doc_ids.offsets,
            self.queries.order,
            self.queries.offsets,
            *(array for array in (self.groups, self.subgroups) if array is not None),
        )
        segments = 0 if self.segments is None else self.segments.nbytes
        return self.table.nbytes + sum(array.nbytes for array in arrays) + segments

    def __repr__(self) -> str:
        layout = "" if self.judgments == "qrels" else f", judgments={self.judgments!r}"
        return f"Qrels({self.source!r}, queries={self.n_queries}, rows={len(self)}{layout})"

    def check_label_range(self, label_min: float, label_max: float, *, option: str = "label range") -> None:
        """Raise :class:`InputError` naming the first label outside ``[label_min, label_max]``."""
        outside = (self.labels < label_min) | (self.labels > label_max)
        if outside.any():
            row = first_true(outside)
            raise InputError(
                f"{int(outside.sum())} label(s) outside the {option} [{label_min}, {label_max}], first "
                f"{label_text(self.labels[row])} ({describe_row(self.table, row)}); set the {option} to match your data",
                source=self.source,
                row=row + 1,
                field="relevance",
            )

    def first_non_integer_label(self) -> int | None:
        """The 0-based row of the first label that is not a whole number, or None when every one is."""
        if self.integer_labels:
            return None
        fractional = np.floor(self.labels) != self.labels
        return first_true(fractional) if fractional.any() else None

    def describe_label(self, row: int) -> str:
        """The label of 0-based ``row`` and where it is, for messages: ``0.5 (query 'q1', doc 'd3')``."""
        return f"{label_text(self.labels[row])} ({describe_row(self.table, row)})"


def label_text(label: float) -> str:
    """A label as messages write it: ``2`` for a whole number, ``0.5`` (its repr) for another."""
    value = float(label)
    return str(int(value)) if value.is_integer() else repr(value)


def _level_labels(column: pa.ChunkedArray, source: str) -> np.ndarray:
    """Preference levels as float64: numbers, none missing, none NaN."""
    if not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type)):
        raise InputError(f"relevance levels must be numbers, found {column.type}", source=source, field="relevance")
    if column.null_count:
        row = first_true(column.is_null().to_numpy(zero_copy_only=False))
        raise InputError("missing relevance level", source=source, row=row + 1, field="relevance")
    levels = numpy_view(column.cast(pa.float64()))
    if np.isnan(levels).any():
        raise InputError("relevance level must be a number, got NaN", source=source, row=first_true(np.isnan(levels)) + 1,
                         field="relevance")
    return read_only(levels)


def _labels(column: pa.ChunkedArray, source: str) -> np.ndarray:
    """Relevance labels as :func:`~retrieval_eval.io.read_qrels_table` types them: int64, or float64 when one is not whole."""
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        raise InputError(f"relevance labels must be numbers, found {column.type}", source=source, field="relevance")
    if column.null_count:
        row = first_true(column.is_null().to_numpy(zero_copy_only=False))
        raise InputError("missing relevance label", source=source, row=row + 1, field="relevance")
    if pa.types.is_integer(column.type):
        return read_only(numpy_view(column.cast(pa.int64())))
    # A table built by hand may hold whole floats or NaN: the reader's rule, once more.
    return read_only(numpy_view(labels_column(column, source=source, field="relevance")))
