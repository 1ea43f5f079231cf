"""Score a parquet run on a Dask cluster (the ``dask`` extra): :func:`~retrieval_eval.evaluate_dataset` with ``dask=``.

Each file is read in pieces of whole row groups (within the worker's budget), on the workers,
and each piece is typed and checked as the in-memory path reads a file: a missing column, a
null, a NaN score or a value of the wrong type is the same error, naming the file, its row and
the field; ids of another kind than the first file's are refused on the client, from the
footers, before anything runs. dask.dataframe then shuffles the rows by query id, so that each
partition holds whole queries; each partition is then scored by the same plan and numba kernels as
:func:`~retrieval_eval.evaluate`, on the worker, which writes its per-query part itself.
Only counts come back to the client. The qrels go to the workers once: broadcast whole when
small, or shuffled into the same partitions as the run when large (each worker then holds
only the judgments of its queries).

The run's row order within a query decides ties and repeated documents under some
conventions, and a shuffle does not keep it: every row carries its position (piece, row)
through the shuffle, and each partition is put back in that order.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import math
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..data import Qrels, Run
from ..data.run import rankable_scores
from ..errors import ConfigError, InputError
from ..io.parquet_stream import arrow_bytes_per_row, count_rows, run_column_names
from ..io.readers import COERCERS, RUN_ROLES
from ..metrics.evaluator import EvaluationPlan, Evaluator
from ..policies import SETS_WITH_JUDGED_ONLY
from ..progress import phase
from ..views import counted
from .budget import ChunkSizing
from .output import PerQueryDataset, write_part
from .pieces import QueryTally, rows_of_a_piece, score_judged_only, score_piece
from .publish import Progress, finish, publish
from .result import DatasetResult
from .worker_logs import quiet_reported_errors, quiet_shutdown

_LOCAL = re.compile(r"^local(?::(?P<workers>.*))?$")
# scheme://host:port, the scheme one of distributed's network transports (tcp when left out).
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$")
#: Worker processes per core that ``local:N`` may start: each is a process of its own (about 100 MB
#: before any data) on one thread, so more than two per core only adds memory and start-up time.
LOCAL_WORKERS_PER_CORE = 2
#: Qrels above this share of a worker's budget are shuffled with the run rather than copied to every worker.
BROADCAST_SHARE = 0.25
_ORDER = ("__partition", "__row")


def evaluate_on_dask(
    evaluator: Evaluator,
    files: list[str],
    label: str,
    dask: Any,
    output: str | os.PathLike[str] | None,
    budget: int,
    run_columns: dict[str, str] | None,
    progress: Progress | None,
    temp_dir: str | os.PathLike[str] | None = None,
) -> DatasetResult:
    """The Dask way through :func:`~retrieval_eval.evaluate_dataset` (its arguments, resolved).

    ``budget``: bytes per worker, which sets the number of partitions. The qrels are copied to
    every worker when they take at most :data:`BROADCAST_SHARE` of it, else shuffled with the run.
    """
    target = dask_target(dask)
    with phase("loading dask.dataframe"):
        dd, delayed = _dask_modules()
    qrels = evaluator.qrels
    broadcast = qrels.nbytes <= BROADCAST_SHARE * budget
    sizing = ChunkSizing.within(budget, qrels.nbytes if broadcast else 0, arrow_bytes_per_row(files, run_columns))
    pieces = _file_pieces(files, run_columns, sizing.chunk_rows)
    if not pieces:  # no file has a row: every judged query is judged only, nothing to distribute
        with PerQueryDataset(output, temp_dir) as dataset:
            return finish(evaluator, QueryTally(qrels.n_queries), dataset, label)
    meta = _read_piece(dataclasses.replace(pieces[0], row_groups=()), 0)
    _check_query_kinds(qrels, meta["query_id"].dtype, label)
    with _client(target) as client, PerQueryDataset(output, temp_dir) as dataset:
        with phase(f"planning the Dask job ({counted(len(pieces), 'piece')} of the run, shuffled by query)"):
            frame = dd.from_map(_read_piece, pieces, range(len(pieces)), meta=meta, label="read-run-pieces")
            n_partitions = max(len(pieces), math.ceil(count_rows(files) / sizing.chunk_rows))
            shuffled = frame.shuffle(on="query_id", npartitions=n_partitions)
            job = _Job(evaluator.plan, label, str(dataset.staging), dataset.output, secrets.token_hex(8))
            if broadcast:
                # hash=False: a key of its own. Scattered by content, the same qrels of an earlier job
                # on this client share its key, and that job's cancelling (after an error) releases
                # them under this one ("lost dependencies").
                qrels_on_workers = client.scatter(qrels.table, broadcast=True, hash=False)
                tasks = [
                    delayed(job.score_with_all_qrels)(part, qrels_on_workers, qrels.source, index)
                    for index, part in enumerate(shuffled.to_delayed())
                ]
            else:
                qrels_frame = dd.from_pandas(_qrels_frame(qrels, meta["query_id"].dtype), npartitions=n_partitions)
                qrels_parts = qrels_frame.shuffle(on="query_id", npartitions=n_partitions).to_delayed()
                tasks = [
                    delayed(job.score_with_own_qrels)(part, qrels_part, qrels.source, index)
                    for index, (part, qrels_part) in enumerate(zip(shuffled.to_delayed(), qrels_parts, strict=True))
                ]
        tally = QueryTally(qrels.n_queries)
        judged_only = 0
        with quiet_reported_errors(client, job.token):  # a bad file is the client's one line, not the workers' log too
            for counts in _gather(client, tasks, progress):
                tally.add(counts)
                judged_only += counts.judged_only
        if broadcast:
            return finish(evaluator, tally, dataset, label)
        # Each partition scored its own judged-only queries: only their count is left to add up.
        return publish(evaluator, dataset, label, {**tally.counts(), "judged_only": judged_only})


@dataclass(frozen=True)
class _Counts:
    """What a partition task sends back: counts, never rows.

    ``judged``: the qrels query codes scored (qrels broadcast: the client finds the judged
    queries no partition had). ``judged_only``: qrels shuffled with the run: the partition's
    judged queries the run lacks, which the partition scored itself.
    """

    n_both: int
    n_retrieved_only: int
    judged: np.ndarray
    judged_only: int = 0


@dataclass(frozen=True)
class _Job:
    """What every partition task needs (small: sent with each task); each worker pairs the plan with its qrels."""

    plan: EvaluationPlan
    label: str
    staging: str
    output: str
    token: str

    def score_with_all_qrels(self, part: pd.DataFrame, qrels_table: pa.Table, source: str, index: int) -> _Counts:
        qrels = _worker_qrels(self.token, qrels_table, source, self.plan.options.qrels_duplicates)
        piece = score_piece(Evaluator.from_plan(self.plan, qrels), self._run(part, index))
        write_part(self.staging, f"{index:05d}", piece.per_query, self.output)
        return _Counts(piece.n_both, piece.n_retrieved_only, piece.judged)

    def score_with_own_qrels(self, part: pd.DataFrame, qrels_part: pd.DataFrame, source: str, index: int) -> _Counts:
        """Score a partition against the judgments of its own queries (the qrels were shuffled like the run).

        A judged query of this partition that the run lacks here is lacking everywhere, so it
        is scored here too (query sets "qrels" and "union").
        """
        run = self._run(part, index)
        table = pa.Table.from_pandas(qrels_part, preserve_index=False) if len(qrels_part) else _empty_qrels_like(run)
        evaluator = Evaluator.from_plan(self.plan, Qrels(table, source=source, duplicates=self.plan.options.qrels_duplicates))
        piece = score_piece(evaluator, run)
        tally = QueryTally(evaluator.qrels.n_queries)
        tally.add(piece)
        per_query = [piece.per_query]
        if self.plan.query_set in SETS_WITH_JUDGED_ONLY and len(tally.judged_only):
            per_query.append(score_judged_only(evaluator, tally.judged_only))
        parts = pd.concat([t for t in per_query if len(t)] or per_query, ignore_index=True)
        write_part(self.staging, f"{index:05d}", parts, self.output)
        return _Counts(piece.n_both, piece.n_retrieved_only, np.empty(0, np.int64), len(tally.judged_only))

    def _run(self, part: pd.DataFrame, index: int) -> Run:
        """The partition as a typed run, its rows back in input order (they were checked as they were read)."""
        source = f"{self.label} (Dask partition {index})"
        part = part.sort_values(list(_ORDER), kind="stable")
        with rows_of_a_piece(source):
            return Run(_typed(pa.Table.from_pandas(part[list(RUN_ROLES)], preserve_index=False), source), source=source)


_WORKER_QRELS: dict[str, Qrels] = {}


def _worker_qrels(token: str, table: pa.Table, source: str, duplicates: str) -> Qrels:
    """The broadcast qrels, indexed once per worker process and job (tasks of a job share it)."""
    qrels = _WORKER_QRELS.get(token)
    if qrels is None:
        _WORKER_QRELS.clear()
        qrels = _WORKER_QRELS[token] = Qrels(table, source=source, duplicates=duplicates)
    return qrels


def _gather(client: Any, tasks: list[Any], progress: Progress | None) -> Iterator[_Counts]:
    """Run the partition tasks; yield each result as it completes. A failed task cancels the rest."""
    from distributed import as_completed

    futures = client.compute(tasks)
    try:
        with phase("scoring on Dask", total=len(futures), unit="partitions") as scored:
            for done, future in enumerate(as_completed(futures), start=1):
                yield future.result()
                scored.step(done)
                if progress is not None:
                    progress(done, len(futures), f"partition {done}")
    finally:
        client.cancel(futures)


def _dask_modules() -> tuple[Any, Any]:
    """dask.dataframe and dask.delayed; a clear error when the ``dask`` extra is not installed."""
    _require_dask()
    import dask.dataframe as dd
    from dask import delayed

    return dd, delayed


def _require_dask() -> None:
    if importlib.util.find_spec("distributed") is None:
        raise ConfigError("scoring on Dask needs the 'dask' extra: pip install 'retrieval_eval[dask]'")


@dataclass(frozen=True)
class LocalWorkers:
    """``"local"`` or ``"local:N"``: a LocalCluster of ``n`` worker processes, started and stopped with the job."""

    n: int


def dask_target(dask: Any) -> Any:
    """What ``dask=`` (or ``--dask``) names: a ``distributed.Client`` (as is), :class:`LocalWorkers`, or an address.

    The forms: a Client; ``"local"`` (a worker per core) or ``"local:N"``, N from 1 to
    :data:`LOCAL_WORKERS_PER_CORE` per core of this machine; a scheduler address
    ``[scheme://]host:port`` (scheme tcp, tls, ws, wss or ucx; tcp when left out). Anything
    else is a :class:`~retrieval_eval.ConfigError` at once, before any file is read or any
    connection tried, as is every form when the ``dask`` extra is not installed.
    """
    _require_dask()
    from distributed import Client

    if isinstance(dask, (Client, LocalWorkers)):
        return dask
    text = dask.strip() if isinstance(dask, str) else None
    local = _LOCAL.match(text) if text is not None else None
    cores = os.cpu_count() or 1
    if local is not None:
        workers = local["workers"]
        if workers is None:
            return LocalWorkers(cores)
        if workers.isascii() and workers.isdigit() and 1 <= int(workers) <= LOCAL_WORKERS_PER_CORE * cores:
            return LocalWorkers(int(workers))
    elif text is not None and (match := _ADDRESS.match(text)) is not None and 1 <= int(match["port"]) <= 65535:
        return text
    raise ConfigError(
        "dask must be a distributed.Client, a scheduler address such as 'tcp://host:8786', or 'local' / 'local:N' "
        f"with N from 1 to {LOCAL_WORKERS_PER_CORE * cores} worker processes ({cores} cores here); got {dask!r}"
    )


@contextmanager
def _client(target: Any) -> Iterator[Any]:
    """A client for a :func:`dask_target`: the Client as is, a LocalCluster started and stopped here, or a connection."""
    from distributed import Client, LocalCluster

    if isinstance(target, Client):
        yield target
        return
    local = isinstance(target, LocalWorkers)
    with ExitStack() as stack:
        if local:
            with phase(f"starting a local Dask cluster of {counted(target.n, 'worker')}"):
                cluster = stack.enter_context(LocalCluster(
                    n_workers=target.n, threads_per_worker=1, processes=True, dashboard_address=":0",
                    silence_logs=logging.ERROR,
                ))  # fmt: skip
                client = stack.enter_context(Client(cluster))
        else:
            with phase(f"connecting to the Dask scheduler at {target}"):
                client = stack.enter_context(Client(target))
        try:
            yield client
        finally:
            with phase("stopping the local Dask cluster" if local else "closing the Dask client"):
                if local:
                    quiet_shutdown(client)
                stack.close()


@dataclass(frozen=True)
class _FilePiece:
    """Row groups of one run file, read as one Dask partition: its rows from ``first_row`` (0-based) on.

    ``names``: canonical name -> the file's column (each file resolves its own).
    """

    path: str
    row_groups: tuple[int, ...]
    first_row: int
    names: dict[str, str]


def _file_pieces(files: list[str], run_columns: dict[str, str] | None, chunk_rows: int) -> list[_FilePiece]:
    """Each file's row groups in runs of at most ``chunk_rows`` rows (one group at least).

    From the footers alone, before anything runs, as :func:`~retrieval_eval.evaluate_dataset`
    checks the files when it reads them itself: every file's columns are resolved (a missing
    one is the reader's error naming the file), and the ids of a file with rows must be of the
    kind (integers or strings) of the first such file. A file without rows has no piece.
    """
    pieces: list[_FilePiece] = []
    first: dict[str, tuple[str, str]] = {}
    for path in files:
        names = run_column_names(path, run_columns)
        metadata = pq.read_metadata(path)
        if metadata.num_rows == 0:
            continue
        schema = metadata.schema.to_arrow_schema()
        for canonical in ("query_id", "doc_id"):
            kind = _id_kind(schema.field(names[canonical]).type)
            seen = first.setdefault(canonical, (kind, path)) if kind else None
            if seen and seen[0] != kind:
                raise InputError(
                    f"{canonical}s are {kind} here but {seen[0]} in {seen[1]}; every file of a run must use one kind",
                    source=path,
                    field=names[canonical],
                )
        groups: list[int] = []
        start = rows = 0
        for group in range(metadata.num_row_groups):
            size = metadata.row_group(group).num_rows
            if groups and rows + size > chunk_rows:
                pieces.append(_FilePiece(path, tuple(groups), start, names))
                groups, start, rows = [], start + rows, 0
            groups.append(group)
            rows += size
        pieces.append(_FilePiece(path, tuple(groups), start, names))
    return pieces


def _id_kind(kind: pa.DataType) -> str | None:
    """"integers" or "strings" (the two kinds of ids), None for another type (the reader names it, with the row)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_integer(kind):
        return "integers"
    return "strings" if pa.types.is_string(kind) or pa.types.is_large_string(kind) else None


def _read_piece(piece: _FilePiece, number: int) -> pd.DataFrame:
    """A piece typed and checked as the in-memory path reads a file (an error names the file, its row and the
    field), each row tagged with (piece, row) to restore the input order after the shuffle."""
    handle = pq.ParquetFile(piece.path)
    table = handle.read_row_groups(list(piece.row_groups), columns=[piece.names[c] for c in RUN_ROLES])
    table = table.rename_columns(list(RUN_ROLES))
    typed = _typed(table, piece.path, lambda index: piece.first_row + index + 1, piece.names)
    rankable_scores(typed, piece.path, piece.first_row)
    frame = typed.to_pandas()
    return frame.assign(__partition=np.int64(number), __row=np.arange(len(frame), dtype=np.int64))


def _typed(table: pa.Table, source: str, rows: Any = None, fields: dict[str, str] | None = None) -> pa.Table:
    """The canonical columns of ``table`` typed by the readers' coercers; ``rows`` and ``fields`` name the file's rows and columns."""
    arrays = [
        COERCERS[role](table[canonical], source=source, field=(fields or {}).get(canonical, canonical), rows=rows)
        for canonical, role in RUN_ROLES.items()
    ]
    return pa.Table.from_arrays(arrays, names=list(RUN_ROLES))


def _check_query_kinds(qrels: Qrels, dtype: Any, label: str) -> None:
    run_integer = pd.api.types.is_integer_dtype(dtype)
    if run_integer != pa.types.is_integer(qrels.query_ids.type):
        raise InputError(
            f"query ids are {'integers' if run_integer else 'strings'} in the run ({label}) but "
            f"{'integers' if not run_integer else 'strings'} in the qrels ({qrels.source}); convert one side",
            field="query_id",
        )


def _qrels_frame(qrels: Qrels, query_dtype: Any) -> pd.DataFrame:
    """The qrels as pandas, query ids of the run's dtype (so that both hash to the same partitions)."""
    frame = qrels.table.to_pandas()
    frame["query_id"] = frame["query_id"].astype(query_dtype)
    return frame


def _empty_qrels_like(run: Run) -> pa.Table:
    return pa.table(
        {
            "query_id": pa.array([], run.query_ids.type),
            "doc_id": pa.array([], run.doc_ids.values.type),
            "relevance": pa.array([], pa.int64()),
        }
    )
