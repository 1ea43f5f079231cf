"""``evaluate_dataset()``: score a parquet run larger than memory, within a memory budget.

The run is read in batches. While its queries come whole (sorted by query, or files that
each hold whole queries), chunks of complete queries are scored as they fill up: one pass.
The first query that comes back after its file ended or its chunk was scored shows that the
input is not grouped; the pass is then abandoned and the run is hash-partitioned by query into parquet buckets on
disk, each small enough for the budget, and scored bucket by bucket. Either way each piece
goes through the same plan and kernels as :func:`~retrieval_eval.evaluate`, its per-query
table is written as a part of a parquet dataset, and the summary is read back from that
dataset one column at a time.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..data import Run
from ..data.ids import id_column
from ..data.run import rankable_scores
from ..errors import ConfigError
from ..io.output_paths import check_output_paths
from ..io.parquet_stream import TypedBatch, arrow_bytes_per_row, count_rows, iter_run_batches, parquet_files
from ..kernels.core.grouping import segment_starts
from ..metrics.evaluator import Evaluator
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions
from ..progress import Phase, phase
from .buckets import write_buckets
from .budget import DEFAULT_BUDGET, ChunkSizing, parse_memory_budget
from .memory import release_freed_memory
from .output import BUCKET_SCRATCH, PerQueryDataset, clear_stale_temp, scratch_directory
from .pieces import QueryTally, score_piece
from .publish import Progress, finish
from .result import DatasetResult

#: Buckets are sized for this many times the rows an even split would give them.
_BUCKET_SLACK = 1.3
#: A bucket still over the budget (hash skew) is split again at most this many times.
_MAX_SPLITS = 2


class _NotGrouped(Exception):
    """A query came back after it was scored: the input is not grouped by query."""


def evaluate_dataset(
    qrels: Any,
    run: Any,
    metrics: Any = None,
    *,
    output: str | os.PathLike[str] | None = None,
    memory_budget: int | str = DEFAULT_BUDGET,
    dask: Any = None,
    temp_dir: str | os.PathLike[str] | None = None,
    name: str | None = None,
    run_columns: dict[str, str] | None = None,
    progress: Progress | None = None,
    thresholds: Mapping[str | Metric, float] | None = None,
    options: EvaluationOptions | None = None,
) -> DatasetResult:
    """Score a run stored as parquet files against ``qrels``, in bounded memory or on Dask.

    The result is the summary of :func:`~retrieval_eval.evaluate` on the same data (the same
    numbers: means are exactly rounded, so the order in which queries are scored does not
    matter); the per-query table goes to the parquet dataset ``output`` instead of memory.

    Parameters
    ----------
    qrels
        An :class:`~retrieval_eval.Evaluator` (its qrels, metrics, thresholds and options; then
        give none of those here), or qrels as for :func:`~retrieval_eval.evaluate` (held in
        memory, within the budget).
    run
        A parquet file, a directory of them (searched recursively; ``_``/``.`` files skipped),
        a glob such as ``"runs/*.parquet"``, or a list of these.
    metrics, thresholds, options
        As for :class:`~retrieval_eval.Evaluator`.
    output
        Directory for the per-query dataset (``part-*.parquet``), written whole or not at all;
        an earlier dataset there is replaced. None: no per-query output. It may not be, hold
        or be inside a run file or directory or the qrels file (an ``OutputError`` says which,
        before anything is scored).
    memory_budget
        Bytes, or a size such as ``"1GiB"`` or ``"512MB"``: the most the run's batches, the
        qrels and the scoring of a chunk take together. Inputs not grouped by query are
        partitioned into temporary buckets on disk so that each bucket fits.
    dask
        A ``distributed.Client``, a scheduler address (``"tcp://host:8786"``) or
        ``"local:N"`` (a LocalCluster of N worker processes, started and stopped here): score
        on Dask instead (needs the ``dask`` extra); ``memory_budget`` is then the budget of
        each worker. The output directory must be reachable from the workers.
    temp_dir
        Where the temporary buckets go (default: the system's temporary directory). They are
        removed at the end, also after an error.
    name
        The run's name in the result (default: ``run`` as given).
    run_columns
        Canonical name -> the files' column name, where the defaults do not find it.
    progress
        ``progress(done, total, label)``, called as files, buckets or partitions are done.
    """
    if dask is not None:
        from .cluster import dask_target

        dask = dask_target(dask)  # a bad address is refused before any file is read
    files = parquet_files(run)
    label = name if name is not None else _label(run)
    check_output_paths({"output": output}, [*_given(run), *files, _qrels_path(qrels)])
    evaluator = _evaluator(qrels, metrics, thresholds, options)
    release_freed_memory()  # what reading and indexing the qrels freed
    budget = parse_memory_budget(memory_budget)
    clear_stale_temp(temp_dir)
    if dask is not None:
        from .cluster import evaluate_on_dask

        return evaluate_on_dask(evaluator, files, label, dask, output, budget, run_columns, progress, temp_dir)
    sizing = ChunkSizing.within(budget, evaluator.qrels.nbytes, arrow_bytes_per_row(files, run_columns))
    report = progress or (lambda done, total, label: None)
    with PerQueryDataset(output, temp_dir) as dataset:
        stream = _Stream(evaluator, files, label, sizing, run_columns, dataset)
        try:
            tally = stream.score_in_order(report)
        except _NotGrouped:
            dataset.clear()
            tally = stream.score_bucketed(report, temp_dir)
        return finish(evaluator, tally, dataset, label)


def _evaluator(
    qrels: Any,
    metrics: Any,
    thresholds: Mapping[str | Metric, float] | None,
    options: EvaluationOptions | None,
) -> Evaluator:
    if not isinstance(qrels, Evaluator):
        return Evaluator(qrels, metrics, thresholds=thresholds, options=options)
    if metrics is not None or thresholds is not None or options is not None:
        raise ConfigError("an Evaluator brings its own metrics, thresholds and options: give them to it, not here")
    return qrels


class _Stream:
    """The two ways through one run: in order, or by buckets."""

    def __init__(
        self,
        evaluator: Evaluator,
        files: list[str],
        label: str,
        sizing: ChunkSizing,
        run_columns: dict[str, str] | None,
        dataset: PerQueryDataset,
    ) -> None:
        self.evaluator, self.qrels, self.files, self.label = evaluator, evaluator.qrels, files, label
        self.sizing, self.run_columns, self.dataset = sizing, run_columns, dataset

    def batches(self, files: list[str], batch_rows: int | None = None) -> Iterator[TypedBatch]:
        batch_rows = batch_rows or self.sizing.batch_rows
        for batch in iter_run_batches(files, batch_rows=batch_rows, columns=self.run_columns):
            if batch.table.num_rows:
                rankable_scores(batch.table, batch.source, batch.first_row)
                yield batch

    def score(self, table: pa.Table, tally: QueryTally, closed: "_ClosedQueries | None" = None) -> None:
        """Score a table of whole queries; with ``closed``, record them there as done."""
        run = Run(table, source=self.label)
        piece = score_piece(self.evaluator, run)
        self.dataset.add(piece.per_query)
        tally.add(piece)
        release_freed_memory()
        if closed is not None:
            closed.close(id_column(run.query_ids, field="query_id", source=self.label).keys)

    def score_in_order(self, report: Progress) -> QueryTally:
        """One pass, scoring a chunk of whole queries whenever the budget's rows are read.

        The last query of a chunk may go on in the next batch, so it is held back. A file that
        fits in a chunk is never split, so files that each hold whole queries, in any row
        order, also go in one pass; a file bigger than a chunk is cut, so its queries must come
        in runs of rows. Every batch is checked before it is kept: a query of a finished file
        (other than its last), of a scored chunk, or of an earlier run of a big file raises
        :class:`_NotGrouped`, so an unsorted run is found at once, not after a chunk's work.
        """
        tally = QueryTally(self.qrels.n_queries)
        closed = _ClosedQueries()
        chunk_rows = self.sizing.chunk_rows
        file_rows = {path: count_rows([path]) for path in self.files}
        position = {path: index for index, path in enumerate(self.files)}
        pending: list[pa.Table] = []
        pending_rows = 0
        current: str | None = None
        file_queries: list[np.ndarray] = []
        # A run that fits in one chunk is scored whole, grouped or not.
        check = sum(file_rows.values()) > chunk_rows
        read = 0
        with phase(f"streaming {self.label}", total=sum(file_rows.values()), unit="rows") as rows:
            for batch in self.batches(self.files):
                if batch.source != current:
                    if current is not None:
                        if check:
                            closed.close_file(file_queries, pending[-1])
                        report(position[current] + 1, len(self.files), os.path.basename(current))
                    current, file_queries = batch.source, []
                    big_file = file_rows[current] > chunk_rows
                    if pending_rows and pending_rows + file_rows[current] > chunk_rows:
                        pending = self._score_all_but_last_query(pending, tally, closed)
                        pending_rows = sum(t.num_rows for t in pending)
                if check:
                    file_queries.append(closed.check(batch.table, in_runs=big_file))
                pending.append(batch.table)
                pending_rows += batch.table.num_rows
                read += batch.table.num_rows
                rows.step(read)
                if pending_rows >= chunk_rows and big_file:
                    pending = self._score_all_but_last_query(pending, tally, closed)
                    pending_rows = sum(t.num_rows for t in pending)
            if pending_rows:
                self.score(pa.concat_tables(pending), tally)
        report(len(self.files), len(self.files), os.path.basename(self.files[-1]))
        return tally

    def _score_all_but_last_query(self, pending: list[pa.Table], tally: QueryTally, closed: "_ClosedQueries") -> list[pa.Table]:
        """Score the pending rows except the last row's query; return that query's rows."""
        table = pa.concat_tables(pending)
        is_last = pc.equal(table["query_id"], table["query_id"][table.num_rows - 1])
        mask = is_last.to_numpy(zero_copy_only=False)
        others = np.flatnonzero(~mask)
        cut = int(others[-1]) + 1 if len(others) else 0
        if mask[:cut].any():
            body, tail = table.filter(pc.invert(is_last)), table.filter(is_last)
        else:
            # Sorted input: the last query is a suffix, and slices copy nothing.
            body, tail = table.slice(0, cut), table.slice(cut)
        if body.num_rows:
            self.score(body, tally, closed)
        return [tail]

    def score_bucketed(self, report: Progress, temp_dir: str | os.PathLike[str] | None) -> QueryTally:
        """Partition the run by query into buckets on disk that fit the budget, then score each."""
        tally = QueryTally(self.qrels.n_queries)
        buckets = scratch_directory(temp_dir, BUCKET_SCRATCH)
        try:
            self._score_buckets(self.files, count_rows(self.files), str(buckets.path), 0, tally, report)
        finally:
            buckets.remove()
        return tally

    def _score_buckets(
        self, files: list[str], rows: int, directory: str, salt: int, tally: QueryTally, report: Progress
    ) -> None:
        n_buckets = max(2, math.ceil(rows * _BUCKET_SLACK / self.sizing.chunk_rows))
        with phase(f"partitioning {self.label} into {n_buckets} buckets", total=rows, unit="rows") as partitioned:
            tables = _counted(self.batches(files, self.sizing.bucket_batch_rows), partitioned)
            # Rows waiting for their bucket take at most half a chunk's memory (nothing is scored meanwhile).
            buckets = write_buckets(tables, n_buckets, directory, salt, self.sizing.chunk_rows // 2)
        release_freed_memory()
        with phase("scoring the buckets", total=len(buckets), unit="buckets") as scored:
            for done, bucket in enumerate(buckets, start=1):
                if bucket.rows > self.sizing.chunk_rows and salt < _MAX_SPLITS and len(buckets) > 1:
                    self._score_buckets([bucket.path], bucket.rows, directory, salt + 1, tally, report)
                else:
                    self.score(pq.read_table(bucket.path), tally)
                os.unlink(bucket.path)
                scored.step(done)
                if salt == 0:
                    report(done, len(buckets), f"bucket {done}")


def _counted(batches: Iterator[TypedBatch], progress: Phase) -> Iterator[pa.Table]:
    """The tables of ``batches``, counting their rows in ``progress`` as each is taken."""
    done = 0
    for batch in batches:
        yield batch.table
        done += batch.table.num_rows
        progress.step(done)


class _ClosedQueries:
    """64-bit keys of the queries that may not come again: those of scored chunks and finished files.

    Two different ids with the same hash look like one query met twice: the only cost of such
    a collision is the slower, bucketed way, which is exact.
    """

    def __init__(self) -> None:
        self.keys = np.empty(0, dtype=np.uint64)  # sorted
        self.open: np.uint64 | None = None  # in a big file: the last batch's last query

    def check(self, table: pa.Table, *, in_runs: bool = False) -> np.ndarray:
        """The keys of ``table``'s queries, one per run of equal ids; :class:`_NotGrouped` if one is closed.

        ``in_runs`` (a file bigger than a chunk): each query's rows must also be one run, so a
        query that ended (every run of the batch but the last) is closed at once.
        """
        ids = id_column(table["query_id"], field="query_id", source="<batch>", hashed=False)
        heads = segment_starts(ids.keys, ids.offsets, ids.data, ids.is_string)
        keys = id_column(ids.values.take(pa.array(heads)), field="query_id", source="<batch>").keys
        if self._contains(keys).any():
            raise _NotGrouped
        if in_runs:
            self._close_ended_runs(keys)
        return keys

    def _close_ended_runs(self, keys: np.ndarray) -> None:
        if len(np.unique(keys)) != len(keys) or (self.open is not None and (keys[1:] == self.open).any()):
            raise _NotGrouped
        ended = keys[:-1]
        if self.open is not None and keys[0] != self.open:
            ended = np.append(ended, self.open)
        self.close(ended)
        self.open = keys[-1]

    def _contains(self, keys: np.ndarray) -> np.ndarray:
        if not len(self.keys):
            return np.zeros(len(keys), dtype=np.bool_)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return self.keys[at] == keys

    def close(self, keys: np.ndarray) -> None:
        """Close ``keys`` (distinct, none closed yet)."""
        # Two sorted runs: the stable sort (timsort) merges them in linear time.
        self.keys = np.sort(np.concatenate([self.keys, np.sort(keys)]), kind="stable")

    def close_file(self, file_keys: list[np.ndarray], last_batch: pa.Table) -> None:
        """Close a finished file's queries, except its last row's, which the next file may go on with.

        Queries of the file that a chunk scored are closed already.
        """
        keys = np.unique(np.concatenate(file_keys)) if file_keys else np.empty(0, dtype=np.uint64)
        last = id_column(last_batch["query_id"].slice(last_batch.num_rows - 1), field="query_id", source="<batch>").keys
        keys = keys[keys != last[0]]
        self.close(keys[~self._contains(keys)])
        self.open = None


def _given(run: Any) -> list[str | os.PathLike[str]]:
    """The run's paths as given (its directories among them: an output must not be inside one)."""
    return [run] if isinstance(run, (str, os.PathLike)) else list(run)


def _qrels_path(qrels: Any) -> str | os.PathLike[str] | None:
    """The file the qrels are (or were) read from; None for qrels in memory."""
    if isinstance(qrels, Evaluator):
        # An in-memory label ("<DataFrame>") names no file, and a missing path is skipped.
        return qrels.qrels.source
    return qrels if isinstance(qrels, (str, os.PathLike)) else None


def _label(run: Any) -> str:
    return os.fspath(run) if isinstance(run, (str, os.PathLike)) else ", ".join(os.fspath(r) for r in run)
