"""A run (retrieved documents with scores) as columnar arrays grouped by query."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..errors import ConfigError, InputError
from ..io import read_run_table, source_label
from ..io.arrays import numpy_view
from ..io.ecosystem import ranx_kind
from ..io.sources import file_identity
from ..kernels.core.bundles import RunArrays
from ..progress import phase
from ._grouped import GroupedTable
from ._table import describe_row, first_true
from .ids import QueryGroups, read_only
from .join_source import JoinSource

if TYPE_CHECKING:
    from .join_source import JoinBuilder
    from .qrels import Qrels


class Run(GroupedTable, JoinSource):
    """Retrieved documents ``(query_id, doc_id, score)`` grouped by query.

    Scores are float64; NaN is an error (it has no place in an order), infinities are ordered
    like any other score. ``name`` labels the run in results (defaults to the source).
    ``in_ranx_order``: each query's rows are already in the order a ``ranx.Run`` sorts them into
    (a ranx Run read as the source), which ``ties="ranx"`` then keeps rather than sorting again.
    """

    def __init__(
        self,
        table: pa.Table,
        *,
        source: str = "<run>",
        name: str | None = None,
        queries: QueryGroups | None = None,
        in_ranx_order: bool = False,
    ) -> None:
        super().__init__(table, "score", source, queries=queries)
        self.name = name if name is not None else source
        self.scores = rankable_scores(self.table, source)
        self.in_ranx_order = in_ranx_order

    @classmethod
    def read(
        cls,
        source: Any,
        *,
        columns: Mapping[str, str] | None = None,
        format: str | None = None,
        name: str | None = None,
    ) -> "Run":
        """Read a run from any source :func:`~retrieval_eval.io.read_run_table` reads (files, frames, tables, dicts, peers' objects)."""
        if isinstance(source, Run):
            return source
        if name is not None and not isinstance(name, str):
            raise ConfigError(f"name= must be a string (the run's name in results), got {name!r}")
        with phase(f"reading {source_label(source)}"):
            table = read_run_table(source, columns=columns, format=format)
            # labelled again once read: an iterator's label names the type of its first row
            return cls(table, source=source_label(source), name=name, in_ranx_order=ranx_kind(source) == "Run")

    @cached_property
    def arrays(self) -> RunArrays:
        """The rows grouped by query, their id keys and bytes and their scores, as the join kernels take them (built once)."""
        groups = self.queries
        return RunArrays(groups.offsets, groups.order, self.doc_ids.keys, self.doc_ids.offsets, self.doc_ids.data, self.scores)

    def join(self, kind: JoinBuilder, qrels: Qrels, duplicates: str, ties: str) -> Any:
        """The join ``kind`` of this run against ``qrels``, computed from its rows."""
        return kind(qrels, self, duplicates, ties)

    def __repr__(self) -> str:
        return f"Run({self.name!r}, queries={self.n_queries}, rows={len(self)})"


def distinct_files(runs: Iterable[Run]) -> Iterator[Run]:
    """The runs, one at a time; one read from the file an earlier one was read from, under any spelling
    of its path (``run.trec`` and its absolute path, a link), is a :class:`ConfigError`: it would count
    twice, as two runs."""
    files: dict[tuple[int, int], str] = {}
    for run in runs:
        identity = file_identity(run.source)
        if identity is not None and files.setdefault(identity, run.source) != run.source:
            raise ConfigError(f"runs must be distinct files, {files[identity]!r} and {run.source!r} are the same file")
        yield run


def rankable_scores(table: pa.Table, source: str, first_row: int = 0) -> np.ndarray:
    """The scores of a canonical run table as float64; an error names a missing or NaN one.

    ``first_row``: the 0-based row of ``source`` the table starts at (errors give 1-based rows).
    """
    column = table["score"]
    if not (pa.types.is_floating(column.type) or pa.types.is_integer(column.type)):
        raise InputError(f"scores must be numbers, found {column.type}", source=source, field="score")
    if column.null_count:
        row = first_true(column.is_null().to_numpy(zero_copy_only=False))
        raise InputError("missing score", source=source, row=first_row + row + 1, field="score")
    scores = read_only(numpy_view(column.cast(pa.float64())))
    nan = np.isnan(scores)
    if nan.any():
        row = first_true(nan)
        raise InputError(
            f"{int(nan.sum())} NaN score(s), first at {describe_row(table, row)}; NaN cannot be ranked",
            source=source,
            row=first_row + row + 1,
            field="score",
        )
    return scores
