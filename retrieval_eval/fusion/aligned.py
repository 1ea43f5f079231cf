"""The runs of a fusion lined up: the union of their documents per query, each run's score and rank of each.

Every fusion method reads this one structure (:class:`AlignedRuns`), built once by
:func:`align` and reused by every normalization and method of a sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..constraints import documents_per_query
from ..data import Run, duplicate_policy_code
from ..errors import ConfigError, DuplicateError, InputError
from ..io.arrays import arrow_array, numpy_view, read_only, string_buffers
from ..kernels.fusion.bundles import StackedRuns
from ..kernels.fusion.fusion_align import align_runs
from ..progress import phase

#: What a missing ``top_k_in`` passes the kernel: no cut.
_ALL = np.iinfo(np.int64).max


@dataclass(frozen=True)
class AlignedRuns:
    """n runs fused, the union of their documents per query.

    Attributes
    ----------
    query_ids
        The union of the runs' queries, in order of first appearance (run 0's queries first,
        then those only later runs have).
    offsets
        int64[n_queries + 1]: query q owns aligned rows ``offsets[q]:offsets[q + 1]``.
    doc_ids
        The document of each aligned row. Within a query the rows are in ranx's candidate
        order: run 0's documents in its ranked order, then run 1's documents not yet seen, in
        its order, and so on.
    scores
        float64[n_rows, n_runs]: run r's score of the document, NaN where r lacks it.
    ranks
        int64[n_rows, n_runs]: the document's 1-based rank in run r (ranx's order of run r:
        score descending, ties as ranx's quicksort leaves them), 0 where r lacks it.
    depths
        int64[n_queries, n_runs]: how many documents run r has for query q (0 when it lacks
        the query).
    run_names
        The runs' names, in run order.

    Every array is read-only.
    """

    query_ids: pa.Array
    offsets: np.ndarray
    doc_ids: pa.Array
    scores: np.ndarray
    ranks: np.ndarray
    depths: np.ndarray
    run_names: tuple[str, ...]

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def n_runs(self) -> int:
        return len(self.run_names)

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @property
    def rows_per_query(self) -> np.ndarray:
        """int64[n_queries]: the documents of each query (the union over the runs)."""
        return np.diff(self.offsets)

    def __repr__(self) -> str:
        return f"AlignedRuns(runs={list(self.run_names)}, queries={self.n_queries}, rows={self.n_rows})"


def align(
    runs: Sequence[Any],
    *,
    top_k_in: int | None = None,
    duplicates: str = "last",
    names: Sequence[str] | None = None,
) -> AlignedRuns:
    """Line up two or more runs for fusion: each query's documents in every run, ranked as ranx ranks them.

    Parameters
    ----------
    runs
        Two or more runs: :class:`~retrieval_eval.Run` objects or anything ``Run.read`` reads
        (files, data frames, Arrow tables, nested dicts ``{query: {doc: score}}``, ``ranx.Run``).
    top_k_in
        Keep only each run's first ``top_k_in`` documents of each query (in ranx's order)
        before anything else: what feeding ranx the truncated runs gives. None keeps all.
    duplicates
        A document repeated within a query of one run: ``"last"`` (the default: ranx's reading,
        the first position and the last score), ``"first"``, ``"max"`` (the first position
        with that score), or ``"raise"``, as the evaluations' ``run_duplicates``.
    names
        The runs' names (default: each run's ``name``).

    Queries: ranx refuses runs whose query sets differ; here the union is fused, and a run
    lacking a query contributes no document to it (as if it had the query with no documents,
    which ranx accepts). Query and document ids must be of one kind (strings or integers)
    across the runs; documents are matched within a query by a 64-bit hash of their bytes,
    confirmed on the bytes (integers: by value).

    Examples
    --------
    >>> aligned = align([{"q1": {"a": 2.0, "b": 1.0}}, {"q1": {"b": 3.0, "c": 1.0}}])
    >>> aligned.doc_ids.to_pylist(), aligned.ranks.tolist()
    (['a', 'b', 'c'], [[1, 0], [2, 1], [0, 2]])
    >>> align([{"q1": {"a": 1.0}}])
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: fusion needs at least two runs, got 1
    """
    runs = _read_runs(runs)
    run_names = _run_names(runs, names)
    policy = duplicate_policy_code(duplicates, what="duplicates")
    top_k = _ALL if top_k_in is None else documents_per_query("top_k_in", top_k_in, optional=True)

    with phase(f"aligning {len(runs)} runs ({sum(len(run) for run in runs):,} rows)"):
        query_ids, query_of_run = _query_union(runs)
        doc_values = _concatenated_ids(runs, "doc_id", [run.doc_ids.values for run in runs])
        is_string = not pa.types.is_integer(doc_values.type)
        keys = read_only(np.concatenate([run.doc_ids.keys for run in runs]))
        if is_string:
            id_offsets, id_data = string_buffers(doc_values)
        else:
            id_offsets, id_data = read_only(np.zeros(1, dtype=np.int64)), read_only(np.empty(0, dtype=np.uint8))
        scores = read_only(np.concatenate([run.scores for run in runs]))
        row_bases = np.concatenate(([0], np.cumsum([len(run) for run in runs]))).astype(np.int64)
        order = read_only(np.concatenate([run.queries.order + base for run, base in zip(runs, row_bases)]))
        starts, stops = _slices(runs, query_of_run, row_bases)
        capacity_offsets = read_only(np.concatenate(([0], np.cumsum((stops - starts).sum(axis=1)))).astype(np.int64))
        in_ranx_order = read_only(np.array([run.in_ranx_order for run in runs], dtype=np.bool_))

        stacked = StackedRuns(starts, stops, order, keys, id_offsets, id_data, scores, in_ranx_order, capacity_offsets)
        slot_rows, slot_scores, slot_ranks, depths, counts, repeated = align_runs(stacked, is_string, policy, top_k)
        _raise_on_duplicates(repeated, runs, row_bases)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        kept = np.arange(offsets[-1], dtype=np.int64) + np.repeat(capacity_offsets[:-1] - offsets[:-1], counts)
        return AlignedRuns(
            query_ids=query_ids,
            offsets=read_only(offsets),
            doc_ids=doc_values.take(arrow_array(slot_rows[kept])),
            scores=read_only(slot_scores[kept]),
            ranks=read_only(slot_ranks[kept]),
            depths=read_only(depths),
            run_names=run_names,
        )


def _read_runs(runs: Sequence[Any]) -> list[Run]:
    if isinstance(runs, (str, bytes, dict)) or not isinstance(runs, Sequence):
        raise ConfigError(f"runs must be a list of two or more runs, got {type(runs).__name__}")
    if len(runs) < 2:
        raise ConfigError(f"fusion needs at least two runs, got {len(runs)}")
    return [Run.read(run) for run in runs]


def _run_names(runs: list[Run], names: Sequence[str] | None) -> tuple[str, ...]:
    if names is None:
        return tuple(str(run.name) for run in runs)
    if isinstance(names, str) or len(names) != len(runs) or not all(isinstance(name, str) for name in names):
        raise ConfigError(f"names must be {len(runs)} strings (one per run), got {names!r}")
    return tuple(names)


def _concatenated_ids(runs: list[Run], field: str, columns: list[pa.Array]) -> pa.Array:
    """The runs' id columns as one array; an error names the first run whose ids are of another kind."""
    integer = [pa.types.is_integer(column.type) for column in columns]
    for r, column in enumerate(columns):
        if integer[r] != integer[0]:
            kinds = ("strings", "integers")
            raise InputError(
                f"{field}s are {kinds[integer[r]]} here but {kinds[integer[0]]} in the first run ({runs[0].source}): "
                "fusion matches ids of one kind",
                source=runs[r].source,
                field=field,
            )
    if not integer[0] and len({column.type for column in columns}) > 1:
        columns = [column.cast(pa.large_string()) for column in columns]
    elif integer[0]:
        columns = [column.cast(pa.int64()) for column in columns]
    return pa.concat_arrays(columns)


def _query_union(runs: list[Run]) -> tuple[pa.Array, np.ndarray]:
    """The union of the runs' query ids (first appearance) and int64[n_queries, n_runs]: run r's query code, -1 if none."""
    all_ids = _concatenated_ids(runs, "query_id", [run.query_ids for run in runs])
    query_ids = pc.unique(all_ids)
    query_of_run = np.full((len(query_ids), len(runs)), -1, dtype=np.int64)
    start = 0
    for r, run in enumerate(runs):
        # Each run's query ids are distinct, so each lands on its own union position.
        codes = numpy_view(pc.index_in(all_ids.slice(start, run.n_queries), value_set=query_ids)).astype(np.int64)
        query_of_run[codes, r] = np.arange(run.n_queries, dtype=np.int64)
        start += run.n_queries
    return query_ids, query_of_run


def _slices(runs: list[Run], query_of_run: np.ndarray, row_bases: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where run r's rows of union query q lie in the concatenated grouping (an empty slice where r lacks q)."""
    starts = np.zeros(query_of_run.shape, dtype=np.int64)
    stops = np.zeros(query_of_run.shape, dtype=np.int64)
    for r, run in enumerate(runs):
        has = query_of_run[:, r] >= 0
        codes = query_of_run[has, r]
        starts[has, r] = row_bases[r] + run.queries.offsets[codes]
        stops[has, r] = row_bases[r] + run.queries.offsets[codes + 1]
    return read_only(starts), read_only(stops)


def _raise_on_duplicates(repeated: np.ndarray, runs: list[Run], row_bases: np.ndarray) -> None:
    """Under ``duplicates="raise"``: an error naming the first repeated row of the first run that has one."""
    for r, run in enumerate(runs):
        rows = repeated[:, r][repeated[:, r] >= 0]
        if len(rows):
            row = int(rows.min() - row_bases[r])
            query, doc = run.table["query_id"][row].as_py(), run.table["doc_id"][row].as_py()
            raise DuplicateError(
                f"query {query!r} doc {doc!r} is retrieved more than once (duplicates='raise'; "
                "'last', 'first' or 'max' keeps one score)",
                source=run.source,
                row=row + 1,
            )
