"""Scale: peak RSS and throughput of retrieval_eval on a large parquet run, four ways.

A fixed-seed run (by default 50,000,000 rows: 500,000 queries x 100 distinct documents, string
ids, float scores with a few ties) and its qrels (4 judgments per query, labels 0..4, about half
of them retrieved) are written once to ``--data-dir``, outside the repository, and reused by
later invocations. The run is written twice:

- *sorted*: ``--files`` parquet files, rows grouped by query in query order, files cut at row
  counts (a query may be split over two adjacent files), row groups of 262,144 rows;
- *unsorted*: the same rows, each sent to a random one of ``--files`` files (rows keep their
  relative order), so every query is spread over all files and ``evaluate_dataset`` has to
  partition the run into hash buckets on disk.

Each mode runs in a fresh process, which times one call with ``time.perf_counter()``:

- ``in-memory``: ``evaluate(qrels, sorted run directory, METRICS)`` (the run read whole) plus
  ``result.write(per_query.parquet)``;
- ``streaming``: ``evaluate_dataset(qrels, sorted run directory, METRICS, output=DIR,
  memory_budget=--budget)`` (one pass);
- ``streaming-unsorted``: the same on the unsorted directory (the bucket path);
- ``dask``: ``evaluate_dataset(..., output=DIR, memory_budget=--budget, dask="local:<--workers>")``
  on the sorted directory. Starting and stopping the LocalCluster, and the workers' imports and
  numba cache loads, are inside the timed call; the process then times starting and stopping
  such a cluster alone, as an estimate of that share.

Before the timed call the process runs the same call (the Dask mode: the streaming call, in its
own process) on a tiny input (300 rows), reported as *first call* (numba's imports and cache
loads, or compilation when the cache is cold), then on 400,000 rows with a 128 MiB budget, so
that the kernels' parallel builds (taken from 50,000 rows on) and, for the unsorted mode, the
bucket path are loaded before the timed call too. The process also reports its user and
system CPU time around the timed call.

Memory: the parent polls, every 50 ms, the RSS summed over the mode's process and all its
descendants (the Dask nannies' and workers' processes; a page shared by several processes counts
in each) and keeps the largest sum. Single-process modes also report the process's own ``ru_maxrss``
(exact; a small launcher spawns the process, since a child's ``ru_maxrss`` starts at the RSS of
the process that forked it); their peak RSS is the larger of the two. A process that only
imports retrieval_eval gives the baseline: the interpreter's and the libraries' fixed share,
which the peaks include. Before each mode the parent reads the files the mode reads once, so
that no mode pays the first read from disk.

Targets: for both streaming modes, peak RSS below ``--budget`` + 300 MiB and throughput at least
half that of the in-memory mode. All modes must give exactly the same summary means and query
counts as the in-memory mode.

Usage (Linux: ``/proc``, ``ru_maxrss`` in KiB; needs psutil, and dask + distributed for the
Dask mode)::

    python benchmarks/bench_scale.py [--rows 50000000] [--docs-per-query 100] [--judged-per-query 4]
        [--files 50] [--budget 1GiB] [--workers 2] [--modes in-memory,streaming,streaming-unsorted,dask]
        [--data-dir DIR] [--seed 0] [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.provenance import commit, version  # noqa: E402  (importable once the repository root is on sys.path)

METRICS = ["ndcg@10", "map", "recall@100", "precision@10", "recip_rank"]
MODES = ("in-memory", "streaming", "streaming-unsorted", "dask")
STREAMING_MODES = ("streaming", "streaming-unsorted")
REFERENCE_MODE = "in-memory"

RSS_SLACK_MIB = 300  # target: streaming peak RSS < budget + this
THROUGHPUT_SHARE = 0.5  # target: streaming throughput >= this x in-memory
POLL_S = 0.05

ROW_GROUP_ROWS = 1 << 18
QRELS_BLOCK_QUERIES = 1 << 16
LABEL_PROBABILITIES = (0.40, 0.25, 0.15, 0.12, 0.08)  # labels 0..4
DOC_SPACE = 10**8  # each query's documents start at a random point of this id space ...
DOC_STRIDE = 7  # ... and step by 7: retrieved docs are base + 7 * rank, unretrieved judged ones base + 1 + 7 * slot
# Independent random streams of one seed, so that each part of the data depends only on its own
# position (a file cut elsewhere still holds the same rows).
STREAM_BASES, STREAM_SCORES, STREAM_QRELS, STREAM_SCATTER = range(4)

RUN_SCHEMA = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("score", pa.float64())])
QRELS_SCHEMA = pa.schema([("query_id", pa.string()), ("doc_id", pa.string()), ("relevance", pa.int64())])
MARKER = "COMPLETE.json"  # written last: a dataset without it is incomplete and regenerated
DATA_FORMAT = 1  # bump when the generator changes, so that older datasets are regenerated

TINY_ROWS = 300
WARM_UP_ROWS = 400_000
WARM_UP_BUDGET = "128MiB"  # small enough that the warm-up's unsorted run takes the bucket path

# A child's ru_maxrss starts at the RSS of the process that forked it (Linux carries the
# high-water mark over exec), so this small launcher, not the benchmark process, spawns each
# mode's process and reports RUSAGE_CHILDREN.ru_maxrss.
_LAUNCHER = """
import resource, subprocess, sys
code = subprocess.run([sys.executable, *sys.argv[1:]]).returncode
print("MAXRSS", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, flush=True)
sys.exit(code)
"""
_RESULT = "RESULT"


# ---------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Spec:
    """What the generated data depends on."""

    rows: int
    docs_per_query: int
    judged_per_query: int
    files: int
    seed: int

    @property
    def n_queries(self) -> int:
        return math.ceil(self.rows / self.docs_per_query)

    def retrieved(self, queries: np.ndarray) -> np.ndarray:
        """Documents retrieved by each query: ``docs_per_query``, the last query takes the remainder."""
        last = self.rows - (self.n_queries - 1) * self.docs_per_query
        return np.where(queries == self.n_queries - 1, last, self.docs_per_query)


@dataclass(frozen=True)
class Layout:
    """The dataset on disk. The run directories end in .parquet so that evaluate() reads them as parquet datasets."""

    directory: Path

    @property
    def qrels(self) -> Path:
        return self.directory / "qrels.parquet"

    @property
    def sorted_run(self) -> Path:
        return self.directory / "run_sorted.parquet"

    @property
    def unsorted_run(self) -> Path:
        return self.directory / "run_unsorted.parquet"

    @property
    def marker(self) -> Path:
        return self.directory / MARKER

    def run_for(self, mode: str) -> Path:
        return self.unsorted_run if mode == "streaming-unsorted" else self.sorted_run


def ensure_dataset(spec: Spec, layout: Layout) -> float | None:
    """Generate the dataset unless a complete one for ``spec`` is there; the seconds it took, None if reused."""
    wanted = {"format": DATA_FORMAT, **asdict(spec)}
    if layout.marker.exists() and json.loads(layout.marker.read_text()) == wanted:
        return None
    start = time.perf_counter()
    generate(spec, layout)
    layout.marker.write_text(json.dumps(wanted) + "\n")
    return time.perf_counter() - start


def generate(spec: Spec, layout: Layout) -> None:
    """Write the qrels and both layouts of the run (replacing whatever an earlier, incomplete run left)."""
    layout.marker.unlink(missing_ok=True)
    for directory in (layout.sorted_run, layout.unsorted_run):
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
    bases = np.random.default_rng([spec.seed, STREAM_BASES]).integers(0, DOC_SPACE, spec.n_queries)
    write_qrels(spec, bases, layout.qrels)
    sorted_files = write_sorted(spec, bases, layout.sorted_run)
    write_unsorted(spec, sorted_files, layout.unsorted_run)


def write_qrels(spec: Spec, bases: np.ndarray, path: Path) -> None:
    """``judged_per_query`` distinct judgments per query; even slots are retrieved documents (at distinct ranks)."""
    judged = spec.judged_per_query
    from_run_slots = (judged + 1) // 2
    doc_width = _digits(DOC_SPACE + DOC_STRIDE * (max(spec.docs_per_query, judged) + 1))
    with pq.ParquetWriter(path, QRELS_SCHEMA) as writer:
        for block, first in enumerate(range(0, spec.n_queries, QRELS_BLOCK_QUERIES)):
            rng = np.random.default_rng([spec.seed, STREAM_QRELS, block])
            queries = np.repeat(np.arange(first, min(spec.n_queries, first + QRELS_BLOCK_QUERIES)), judged)
            slot = np.tile(np.arange(judged), len(queries) // judged)
            # Retrieved judgments: the i-th falls in the i-th of from_run_slots equal bands of ranks,
            # so two never hit the same document.
            band = np.maximum(1, spec.retrieved(queries) // from_run_slots)
            rank = (slot // 2) * band + rng.integers(0, band)
            doc = np.where(slot % 2 == 0, bases[queries] + DOC_STRIDE * rank, bases[queries] + 1 + DOC_STRIDE * slot)
            label = rng.choice(len(LABEL_PROBABILITIES), size=len(queries), p=LABEL_PROBABILITIES)
            writer.write_table(pa.table(
                [_query_ids(spec, queries), _fixed_width_ids(b"d", doc, doc_width), pa.array(label, pa.int64())],
                schema=QRELS_SCHEMA,
            ))


def write_sorted(spec: Spec, bases: np.ndarray, directory: Path) -> list[Path]:
    """The run grouped by query, cut into ``files`` files at row counts; row groups end at multiples of ROW_GROUP_ROWS."""
    paths = [directory / f"part-{index:05d}.parquet" for index in range(spec.files)]
    bounds = [spec.rows * index // spec.files for index in range(spec.files + 1)]
    block: tuple[int, pa.Table] = (-1, pa.table({}))
    for path, first, stop in zip(paths, bounds, bounds[1:]):
        with pq.ParquetWriter(path, RUN_SCHEMA) as writer:
            cuts = sorted({first, stop, *range((first // ROW_GROUP_ROWS + 1) * ROW_GROUP_ROWS, stop, ROW_GROUP_ROWS)})
            for start, end in itertools.pairwise(cuts):
                index = start // ROW_GROUP_ROWS
                if block[0] != index:  # a block that spans two files is generated once
                    block = (index, run_block(spec, bases, index))
                writer.write_table(block[1].slice(start - index * ROW_GROUP_ROWS, end - start))
    return paths


def run_block(spec: Spec, bases: np.ndarray, index: int) -> pa.Table:
    """Rows ``index * ROW_GROUP_ROWS`` up to the next multiple: query = row // docs_per_query, in rank order."""
    rows = np.arange(index * ROW_GROUP_ROWS, min(spec.rows, (index + 1) * ROW_GROUP_ROWS))
    queries, rank = np.divmod(rows, spec.docs_per_query)
    noise = np.random.default_rng([spec.seed, STREAM_SCORES, index]).normal(0, 3, len(rows))
    # Descending with rank plus noise, rounded to 0.1 so that some scores tie within a query.
    score = np.round(spec.docs_per_query - rank + noise, 1)
    doc_width = _digits(DOC_SPACE + DOC_STRIDE * (max(spec.docs_per_query, spec.judged_per_query) + 1))
    doc_ids = _fixed_width_ids(b"d", bases[queries] + DOC_STRIDE * rank, doc_width)
    return pa.table([_query_ids(spec, queries), doc_ids, pa.array(score)], schema=RUN_SCHEMA)


def write_unsorted(spec: Spec, sorted_files: list[Path], directory: Path) -> None:
    """Send each row of the sorted files to a random one of ``files`` files, keeping the rows' relative order.

    The sorted files are read one row group at a time; each output buffers its rows until it
    has a row group's worth, so that its row groups are as large as the sorted layout's.
    """
    rng = np.random.default_rng([spec.seed, STREAM_SCATTER])
    paths = [directory / f"part-{index:05d}.parquet" for index in range(spec.files)]
    writers = [pq.ParquetWriter(path, RUN_SCHEMA) for path in paths]
    pending: list[list[pa.Table]] = [[] for _ in paths]
    try:
        for table in _row_groups(sorted_files):
            target = rng.integers(0, spec.files, table.num_rows)
            order = np.argsort(target, kind="stable")  # stable: rows keep their order within a target
            grouped = table.take(pa.array(order))
            offsets = np.concatenate([[0], np.cumsum(np.bincount(target, minlength=spec.files))])
            for index, (start, stop) in enumerate(itertools.pairwise(offsets)):
                pending[index].append(grouped.slice(int(start), int(stop - start)))
                if sum(piece.num_rows for piece in pending[index]) >= ROW_GROUP_ROWS:
                    writers[index].write_table(pa.concat_tables(pending[index]))
                    pending[index] = []
        for writer, pieces in zip(writers, pending):
            if pieces:
                writer.write_table(pa.concat_tables(pieces))
    finally:
        for writer in writers:
            writer.close()


def _row_groups(paths: list[Path]) -> Iterator[pa.Table]:
    for path in paths:
        parquet = pq.ParquetFile(path)
        for index in range(parquet.num_row_groups):
            yield parquet.read_row_group(index)


def _query_ids(spec: Spec, queries: np.ndarray) -> pa.Array:
    return _fixed_width_ids(b"q", queries, max(6, _digits(spec.n_queries - 1)))


def _fixed_width_ids(prefix: bytes, numbers: np.ndarray, width: int) -> pa.Array:
    """``prefix`` + ``numbers`` zero-padded to ``width`` digits, built as an Arrow string array directly
    (no Python strings: the run has tens of millions of them)."""
    if len(numbers) and int(numbers.max()) >= 10**width:
        raise ValueError(f"ids do not fit in {width} digits")
    size = len(prefix) + width
    chars = np.empty((len(numbers), size), dtype=np.uint8)
    chars[:, : len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    rest = numbers.astype(np.int64)
    for column in range(size - 1, len(prefix) - 1, -1):
        chars[:, column] = ord("0") + rest % 10
        rest //= 10
    offsets = np.arange(len(numbers) + 1, dtype=np.int32) * size
    return pa.StringArray.from_buffers(len(numbers), pa.py_buffer(offsets), pa.py_buffer(chars))


def _digits(number: int) -> int:
    return len(str(number))


# ---------------------------------------------------------------------------------------------
# Child: one mode in a fresh process


def run_child(args: argparse.Namespace) -> None:
    """Import, warm up, time one call; print the result as one JSON line."""
    import retrieval_eval

    if args.child == "baseline":
        result: dict[str, Any] = {"rss_kib": _own_rss_kib(), "module": retrieval_eval.__file__,
                                  "version": retrieval_eval.__version__}
    else:
        call = _CALLS[args.child]
        first_call_s, warm_up_s = warm_up(call, args.child, args.workers)
        output = Path(args.out) / args.child
        before = resource.getrusage(resource.RUSAGE_SELF)
        timed = call(Layout(Path(args.data_dir)), args.child, output, args.budget, args.workers)
        after = resource.getrusage(resource.RUSAGE_SELF)
        # CPU time of this process around the timed call: system time shows the cost of touching fresh memory.
        result = {"first_call_s": first_call_s, "warm_up_s": warm_up_s, **timed,
                  "user_s": after.ru_utime - before.ru_utime, "system_s": after.ru_stime - before.ru_stime}
        if args.child == "dask":
            result["cluster_start_stop_s"] = time_local_cluster(args.workers)
    print(_RESULT, json.dumps(result), flush=True)


def warm_up(call: Callable[..., dict[str, Any]], mode: str, workers: int) -> tuple[float, float]:
    """Run ``call`` on a tiny then a small dataset: (seconds of the tiny call, seconds of both)."""
    with tempfile.TemporaryDirectory(prefix="bench-scale-warm-up-") as directory:
        tiny, small = Layout(Path(directory) / "tiny"), Layout(Path(directory) / "small")
        generate(Spec(TINY_ROWS, 100, 4, 2, 0), tiny)
        generate(Spec(WARM_UP_ROWS, 100, 4, 4, 0), small)
        # Dask: the cluster is part of the timed call; the warm-up scores in this process, which
        # also leaves every kernel in numba's on-disk cache for the workers.
        warm_mode = "streaming" if mode == "dask" else mode
        start = time.perf_counter()
        call(tiny, warm_mode, Path(directory) / "out-tiny", WARM_UP_BUDGET, workers)
        first = time.perf_counter() - start
        call(small, warm_mode, Path(directory) / "out-small", WARM_UP_BUDGET, workers)
        if mode == "dask":
            import dask.dataframe  # noqa: F401  (the client's imports are not the cluster's cost)
            import distributed  # noqa: F401
        return first, time.perf_counter() - start


def call_in_memory(layout: Layout, mode: str, output: Path, budget: str, workers: int) -> dict[str, Any]:
    """evaluate() of the sorted run (read whole), then the per-query table written to parquet."""
    import retrieval_eval

    output.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = retrieval_eval.evaluate(layout.qrels, layout.sorted_run, METRICS)
    evaluated = time.perf_counter()
    result.write(output / "per_query.parquet")
    end = time.perf_counter()
    return {"seconds": end - start, "evaluate_s": evaluated - start, "write_s": end - evaluated,
            "means": result.means, "query_counts": dict(result.query_counts)}


def call_dataset(layout: Layout, mode: str, output: Path, budget: str, workers: int) -> dict[str, Any]:
    """evaluate_dataset() streaming (or on Dask for mode "dask"), per-query dataset to ``output``."""
    import retrieval_eval

    labels: list[str] = []
    dask = f"local:{workers}" if mode == "dask" else None
    start = time.perf_counter()
    result = retrieval_eval.evaluate_dataset(
        layout.qrels, layout.run_for(mode), METRICS, output=output, memory_budget=budget, dask=dask,
        progress=lambda done, total, label: labels.append(label),
    )
    seconds = time.perf_counter() - start
    # Progress labels tell the way taken: "bucket i" on the bucket path, "partition i" on Dask.
    path = "buckets" if any(label.startswith("bucket") for label in labels) else "one pass"
    return {"seconds": seconds, "means": result.means, "query_counts": dict(result.query_counts),
            "path": "dask" if dask else path, "progress_steps": len(labels)}


_CALLS: dict[str, Callable[..., dict[str, Any]]] = {
    "in-memory": call_in_memory,
    "streaming": call_dataset,
    "streaming-unsorted": call_dataset,
    "dask": call_dataset,
}


def time_local_cluster(workers: int) -> float:
    """Seconds to start and stop a LocalCluster + Client like the one evaluate_dataset(dask="local:N") starts
    (same settings as retrieval_eval/scale/cluster.py): an estimate of the cluster's share of the Dask mode's time."""
    from distributed import Client, LocalCluster

    start = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster):
        pass
    return time.perf_counter() - start


def _own_rss_kib() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


# ---------------------------------------------------------------------------------------------
# Parent: one launcher per mode, RSS polled over the process tree


@dataclass(frozen=True)
class Measurement:
    """What one mode's process reported, and its memory as seen from outside."""

    result: dict[str, Any]
    peak_rss_kib: int  # largest polled RSS sum over the process and its descendants
    ru_maxrss_kib: int  # RUSAGE_CHILDREN of the launcher: the largest single process of the tree
    wall_s: float
    load_before: float


def measure(child_args: list[str]) -> Measurement:
    """Run this script with ``child_args`` under the launcher; poll the tree's RSS until it exits."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        launcher = subprocess.Popen([sys.executable, "-c", _LAUNCHER, str(Path(__file__).resolve()), *child_args],
                                    stdout=stdout, stderr=stderr, env=env)
        peak = _poll_tree_rss(launcher)
        wall = time.perf_counter() - start
        stdout.seek(0)
        stderr.seek(0)
        lines = stdout.read().decode().splitlines()
        errors = stderr.read().decode().strip()
    results = [line.split(" ", 1)[1] for line in lines if line.startswith(_RESULT + " ")]
    if launcher.returncode != 0 or not results:
        raise RuntimeError(f"{' '.join(child_args)} failed (exit {launcher.returncode}):\n{errors[-3000:]}")
    if errors:
        print(f"  [{child_args[1]} stderr] " + errors[-2000:].replace("\n", "\n  "), file=sys.stderr)
    maxrss = next(int(line.split()[1]) for line in lines if line.startswith("MAXRSS "))
    return Measurement(json.loads(results[-1]), peak, maxrss, wall, load_before)


def _poll_tree_rss(launcher: subprocess.Popen) -> int:
    """Largest RSS sum (KiB) over the launcher's descendants (not the launcher), polled until it exits."""
    import psutil  # the parent's alone: not imported by the measured processes

    root = psutil.Process(launcher.pid)
    peak = 0
    while launcher.poll() is None:
        total = 0
        try:
            for process in root.children(recursive=True):
                try:
                    total += process.memory_info().rss
                except (psutil.NoSuchProcess, psutil.AccessDenied):
                    pass  # exited between the listing and the read
        except psutil.NoSuchProcess:
            break
        peak = max(peak, total // 1024)
        time.sleep(POLL_S)
    launcher.wait()
    return peak


def warm_page_cache(paths: list[Path]) -> None:
    """Read the files once, so that every mode reads them from the page cache, not the disk."""
    for path in paths:
        with open(path, "rb") as handle:
            while handle.read(1 << 24):
                pass


def measure_mode(mode: str, args: argparse.Namespace, layout: Layout, output: Path) -> Measurement:
    run_dir = layout.run_for(mode)
    warm_page_cache([layout.qrels, *sorted(run_dir.glob("*.parquet"))])
    return measure(["--child", mode, "--data-dir", str(layout.directory), "--out", str(output),
                    "--budget", args.budget, "--workers", str(args.workers)])


# ---------------------------------------------------------------------------------------------
# Checks, targets and report


def mode_rows(measurements: dict[str, Measurement], rows: int, budget_bytes: int) -> list[dict[str, Any]]:
    """One row per mode: time, throughput, memory, agreement with the reference mode, targets."""
    reference = measurements.get(REFERENCE_MODE)
    reference_rate = rows / reference.result["seconds"] if reference else None
    limit_mib = budget_bytes / 2**20 + RSS_SLACK_MIB
    found = []
    for mode, measured in measurements.items():
        rate = rows / measured.result["seconds"]
        single_process = mode != "dask"
        # ru_maxrss is exact but per process; the polled sum can miss a peak shorter than POLL_S.
        peak_kib = max(measured.peak_rss_kib, measured.ru_maxrss_kib) if single_process else measured.peak_rss_kib
        row: dict[str, Any] = {
            "mode": mode,
            "rows": rows,
            "seconds": measured.result["seconds"],
            "mrows_per_s": rate / 1e6,
            "vs_in_memory": rate / reference_rate if reference_rate else None,
            "peak_rss_mib": peak_kib / 1024,
            "polled_rss_mib": measured.peak_rss_kib / 1024,
            "ru_maxrss_mib": measured.ru_maxrss_kib / 1024 if single_process else None,
            "first_call_s": measured.result["first_call_s"],
            "warm_up_s": measured.result["warm_up_s"],
            "process_wall_s": measured.wall_s,
            "load_before": measured.load_before,
            **agreement(measured, reference or next(iter(measurements.values()))),
            "child": measured.result,
        }
        if mode in STREAMING_MODES:
            row["targets"] = {
                f"RSS < budget+{RSS_SLACK_MIB} MiB ({limit_mib:,.0f})": row["peak_rss_mib"] < limit_mib,
                f"throughput >= {THROUGHPUT_SHARE}x in-memory": (
                    None if row["vs_in_memory"] is None else row["vs_in_memory"] >= THROUGHPUT_SHARE),
            }
        found.append(row)
    return found


def agreement(measured: Measurement, reference: Measurement) -> dict[str, Any]:
    """Exact equality of the summary means and of the query counts with the reference mode's."""
    ours, theirs = measured.result["means"], reference.result["means"]
    differences = [abs(ours[metric] - theirs[metric]) for metric in METRICS]
    return {
        "means_identical": all(ours[metric] == theirs[metric] for metric in METRICS),
        "max_abs_mean_diff": max(differences),
        "query_counts_equal": measured.result["query_counts"] == reference.result["query_counts"],
    }


def machine(baseline: Measurement) -> dict[str, Any]:
    import psutil

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "memory_gib": psutil.virtual_memory().total / 2**30,
        "python": platform.python_version(),
        "retrieval_eval": baseline.result["version"],
        "retrieval_eval_module": baseline.result["module"],
        **{name: version(name) for name in ("numpy", "numba", "pyarrow", "pandas", "dask", "distributed", "psutil")},
        "commit": commit(),
    }


def print_report(report: dict[str, Any]) -> None:
    config, host, baseline = report["config"], report["machine"], report["baseline"]
    print(f"\nRun: {config['rows']:,} rows ({config['queries']:,} queries x {config['docs_per_query']} docs), "
          f"{config['judged_per_query']} judgments per query, {config['files']} files per layout, seed {config['seed']}; "
          f"budget {config['budget']}, {config['workers']} Dask workers; data in {config['data_dir']}")
    print(f"Machine: {host['cpus']} CPUs ({host['cpu_model']}), {host['memory_gib']:.0f} GiB; Python {host['python']}, "
          f"retrieval_eval {host['retrieval_eval']} ({host['retrieval_eval_module']}), numpy {host['numpy']}, "
          f"numba {host['numba']}, pyarrow {host['pyarrow']}, pandas {host['pandas']}, dask {host['dask']}, "
          f"distributed {host['distributed']}; commit {host['commit']}")
    print(f"Baseline (a process that only imports retrieval_eval): RSS {baseline['rss_mib']:.0f} MiB, "
          f"ru_maxrss {baseline['ru_maxrss_mib']:.0f} MiB\n")

    table = [("mode", "rows", "seconds", "Mrows/s", "vs in-memory", "peak RSS MiB", "ru_maxrss MiB",
              "first call s", "load", "target")]
    for row in report["modes"]:
        targets = "; ".join(f"{name}: {_verdict(met)}" for name, met in row.get("targets", {}).items()) or "-"
        table.append((
            row["mode"], f"{row['rows']:,}", f"{row['seconds']:.2f}", f"{row['mrows_per_s']:.2f}",
            "-" if row["vs_in_memory"] is None else f"{row['vs_in_memory']:.2f}x",
            f"{row['peak_rss_mib']:,.0f}", "-" if row["ru_maxrss_mib"] is None else f"{row['ru_maxrss_mib']:,.0f}",
            f"{row['first_call_s']:.2f}", f"{row['load_before']:.2f}", targets,
        ))
    _print_markdown(table)

    print("\nDetails")
    for row in report["modes"]:
        print(f"  {row['mode']}: {_details(row)}")

    print(f"\nAgreement with {report['reference']} (summary means exactly equal, query counts equal)")
    for row in report["modes"]:
        print(f"  {row['mode']}: means {'identical' if row['means_identical'] else 'DIFFERENT'} "
              f"(largest |difference| {row['max_abs_mean_diff']:.1e}), query counts "
              f"{'equal' if row['query_counts_equal'] else 'DIFFERENT'} {row['child']['query_counts']}")
    print(f"  all modes agree: {'yes' if report['all_agree'] else 'NO'}")
    reference = next((row for row in report["modes"] if row["mode"] == report["reference"]), None)
    if reference is not None:
        print("  means: " + ", ".join(f"{metric} {value:.6f}" for metric, value in reference["child"]["means"].items()))


def _details(row: dict[str, Any]) -> str:
    child = row["child"]
    parts = [f"warm-up {row['warm_up_s']:.2f} s (of which first call {row['first_call_s']:.2f} s)",
             f"process wall {row['process_wall_s']:.1f} s",
             f"polled RSS sum {row['polled_rss_mib']:,.0f} MiB",
             (f"CPU of {'the client process' if row['mode'] == 'dask' else 'the process'} during the timed call: "
              f"user {child['user_s']:.2f} s, system {child['system_s']:.2f} s")]
    if "evaluate_s" in child:
        parts.append(f"evaluate {child['evaluate_s']:.2f} s + write {child['write_s']:.2f} s")
    if child.get("path") == "dask":
        parts.append(f"{child['progress_steps']} partitions; starting + stopping a LocalCluster alone "
                     f"{child['cluster_start_stop_s']:.2f} s (inside the timed call)")
    elif "path" in child:
        parts.append(f"path: {child['path']} ({child['progress_steps']} progress steps)")
        if row["mode"] == "streaming-unsorted" and child["path"] != "buckets":
            # Scattered queries only show once a chunk is scored and a later one repeats its queries.
            parts.append("NOTE: not the bucket path: the whole run fit in one chunk of the budget "
                         "(more rows or a smaller --budget take it)")
    return "; ".join(parts)


def _verdict(met: bool | None) -> str:
    return "n/a (no in-memory run)" if met is None else ("met" if met else "not met")


def _print_markdown(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numeric = [i not in (0, len(widths) - 1) for i in range(len(widths))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric)) + " |"

    print(line(rows[0]))
    print("|" + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric)) + "|")
    for row in rows[1:]:
        print(line(row))


# ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000_000, help="run rows (default 50000000)")
    parser.add_argument("--docs-per-query", type=int, default=100, help="retrieved documents per query (default 100)")
    parser.add_argument("--judged-per-query", type=int, default=4, help="judgments per query (default 4)")
    parser.add_argument("--files", type=int, default=50, help="parquet files per layout (default 50)")
    parser.add_argument("--budget", default="1GiB", help="memory budget of the streaming modes (default 1GiB)")
    parser.add_argument("--workers", type=int, default=2, help="Dask LocalCluster worker processes (default 2)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated subset of {','.join(MODES)}")
    parser.add_argument("--data-dir", type=Path,
                        help="where the data is generated once and reused (default ~/.cache/retrieval_eval/bench_scale/<rows>)")
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    # The measured process: this script with --child MODE (and where to write its outputs).
    parser.add_argument("--child", choices=("baseline", *MODES), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    unknown = sorted(set(args.modes) - set(MODES))
    if unknown or not args.modes:
        parser.error(f"--modes: unknown {', '.join(unknown) or '(empty)'}; choose from {', '.join(MODES)}")
    if min(args.rows, args.docs_per_query, args.judged_per_query, args.files, args.workers) < 1 or args.files > args.rows:
        parser.error("--rows, --docs-per-query, --judged-per-query, --files and --workers must be >= 1, --files <= --rows")
    if args.data_dir is None:
        args.data_dir = Path("~/.cache/retrieval_eval/bench_scale").expanduser() / str(args.rows)
    return args


def run_benchmark(args: argparse.Namespace) -> dict[str, Any]:
    from retrieval_eval.scale.budget import parse_memory_budget

    budget_bytes = parse_memory_budget(args.budget)
    spec = Spec(args.rows, args.docs_per_query, args.judged_per_query, args.files, args.seed)
    layout = Layout(args.data_dir.expanduser().resolve())
    layout.directory.mkdir(parents=True, exist_ok=True)
    generation_s = ensure_dataset(spec, layout)
    print(f"Data in {layout.directory}: " + ("complete, reused" if generation_s is None
                                              else f"generated in {generation_s:.1f} s (setup, not a measurement)"))

    measurements: dict[str, Measurement] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-out-") as output:
        baseline = measure(["--child", "baseline"])
        for mode in args.modes:
            measurements[mode] = measure_mode(mode, args, layout, Path(output))
            result = measurements[mode].result
            print(f"  {mode}: {result['seconds']:.2f} s, polled peak RSS {measurements[mode].peak_rss_kib / 1024:,.0f} MiB",
                  flush=True)
    rows = mode_rows(measurements, args.rows, budget_bytes)
    return {
        "config": {**asdict(spec), "queries": spec.n_queries, "budget": args.budget, "budget_bytes": budget_bytes,
                   "workers": args.workers, "modes": args.modes, "data_dir": str(layout.directory), "metrics": METRICS},
        "machine": machine(baseline),
        "generation_s": generation_s,
        "baseline": {"rss_mib": baseline.result["rss_kib"] / 1024, "ru_maxrss_mib": baseline.ru_maxrss_kib / 1024},
        "reference": REFERENCE_MODE if REFERENCE_MODE in measurements else args.modes[0],
        "modes": rows,
        "all_agree": all(row["means_identical"] and row["query_counts_equal"] for row in rows),
    }


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        run_child(args)
        return
    report = run_benchmark(args)
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
