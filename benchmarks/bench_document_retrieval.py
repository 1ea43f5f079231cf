"""Side-by-side benchmark: azure-ai-evaluation's DocumentRetrievalEvaluator against retrieval_eval.

Everything runs in one process on one fixed-seed workload, so the figures that matter are the
ratios (the machine is shared and noisy). Each timed step runs a few times; every repeat is
reported and the median is used. First-call (numba compile) cost and peak memory are measured
in fresh subprocesses.

Usage (from the repository root, in an environment that has both packages)::

    python benchmarks/bench_document_retrieval.py [--queries 100000] [--sdk-sample 2000]
        [--seed 0] [--repeats 3] [--json OUT]

Without azure-ai-evaluation the SDK rows and the ratios that need them are skipped.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval_eval  # noqa: E402
from benchmarks.provenance import commit, version  # noqa: E402
from benchmarks.workload import Workload, make_workload  # noqa: E402
from retrieval_eval.azure import DocumentRetrievalEvaluator as DropInEvaluator  # noqa: E402

TARGET_SDK_RATIO = 500.0
TARGET_FLOOR_RATIO = 3.0
TARGET_WARM_FIRST_CALL_S = 1.0
# A timed step stops repeating once it has used this much time (the slow per-query loops).
REPEAT_BUDGET_S = 60.0
HOT_SPOTS = 10
# Environment variables that change how numba runs, echoed in the report.
THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "OMP_WAIT_POLICY", "OMP_NUM_THREADS")
# evaluate() columns compared with the SDK's output properties.
CHECKED_METRICS = {"ndcg_exp@3": "ndcg@3", "xdcg@3": "xdcg@3", "fidelity": "fidelity", "holes": "holes"}
AZURE_PROPERTIES = (
    "ndcg@3",
    "xdcg@3",
    "fidelity",
    "top1_relevance",
    "top3_max_relevance",
    "holes",
    "holes_ratio",
    "total_retrieved_documents",
    "total_ground_truth_documents",
)

# Run in a fresh interpreter: import + first evaluate() on a tiny input, then on the full workload.
_FIRST_CALL_CHILD = """
import json, sys, time
start = time.perf_counter()
import retrieval_eval
imported = time.perf_counter()
qrels = [{"query_id": "q1", "doc_id": "d1", "relevance": 2}, {"query_id": "q1", "doc_id": "d2", "relevance": 0}]
run = [{"query_id": "q1", "doc_id": "d1", "score": 1.0}, {"query_id": "q1", "doc_id": "d3", "score": 0.5}]
marks = [start, imported]
for source in [(qrels, run), (qrels, run), tuple(sys.argv[1:3]), tuple(sys.argv[1:3])]:
    retrieval_eval.evaluate(*source)
    marks.append(time.perf_counter())
names = ["import", "tiny_first", "tiny_second", "full_first", "full_second"]
print(json.dumps({name: marks[i + 1] - marks[i] for i, name in enumerate(names)}))
"""
# Peak memory must be read from a small parent: a child's ru_maxrss starts at the RSS of the
# process that spawned it (Linux carries the pre-exec high-water mark over), so the benchmark
# process, which holds the workload, spawns this launcher and the launcher spawns the child.
_LAUNCHER = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-c", *sys.argv[1:]], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
_RSS = "int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE') // 1024"
_EVALUATE_CHILD = "import sys, retrieval_eval; retrieval_eval.evaluate(sys.argv[1], sys.argv[2]).write(sys.argv[3])"
_READ_CHILD = f"""
import json, os, sys
import pyarrow.parquet as pq
import retrieval_eval
imported = {_RSS}
tables = [pq.read_table(path) for path in sys.argv[1:3]]
print(json.dumps({{"rss_after_import_kib": imported, "rss_after_read_kib": {_RSS}}}))
"""

# (label, source path suffix, function): cumulative cProfile time of evaluate()'s stages.
_STAGES = (
    ("evaluate() total", "metrics/evaluation.py", "evaluate"),
    ("  read + type qrels table", "io/readers.py", "read_qrels_table"),
    ("  read + type run table", "io/readers.py", "read_run_table"),
    ("    of which pyarrow parquet read (both)", "pyarrow/parquet/core.py", "read_table"),
    ("  Qrels build", "data/qrels.py", "__init__"),
    ("    of which judgment index kernel", "kernels/core/judgments.py", "index_judgments"),
    ("  Run build", "data/run.py", "__init__"),
    ("    in both builds: id hashing, fnv1a (4 id columns)", "kernels/core/hashing.py", "fnv1a_hashes"),
    ("    in both builds: query grouping, segment_starts", "kernels/core/grouping.py", "segment_starts"),
    ("  align queries", "data/join.py", "align_queries"),
    ("  rank_run (join + rank kernel)", "data/join.py", "rank_run"),
    ("  metric kernel", "kernels/core/docret.py", "document_retrieval_metrics"),
    ("  summary", "metrics/result.py", "summarize"),
    ("write per-query parquet", "metrics/result.py", "write"),
)


@dataclass(frozen=True)
class Files:
    """The workload on disk."""

    qrels: Path
    run: Path
    azure_jsonl: Path
    azure_parquet: Path
    per_query: Path

    @classmethod
    def under(cls, directory: Path) -> Files:
        return cls(
            directory / "qrels.parquet",
            directory / "run.parquet",
            directory / "azure_rows.jsonl",
            directory / "azure_rows.parquet",
            directory / "per_query.parquet",
        )


@dataclass(frozen=True)
class Timing:
    """One timed step: every repeat (seconds) over ``n_queries`` queries."""

    name: str
    times: list[float]
    n_queries: int

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def per_query_us(self) -> float:
        return self.median / self.n_queries * 1e6

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "times_s": self.times, "median_s": self.median, "n_queries": self.n_queries,
                "per_query_us": self.per_query_us}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000, help="queries in the workload (default 100000)")
    parser.add_argument("--sdk-sample", type=int, default=2000, help="queries scored one call at a time (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="workload and sample seed (default 0)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per timed step (default 3)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    return parser.parse_args(argv)


def load_sdk() -> type | None:
    """azure-ai-evaluation's evaluator class, or None when the SDK is not importable."""
    try:
        from azure.ai.evaluation import DocumentRetrievalEvaluator
    except ImportError:
        return None
    return DocumentRetrievalEvaluator


def repeat(step: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Run ``step`` up to ``repeats`` times (fewer once REPEAT_BUDGET_S is spent): every time, and the last result."""
    times: list[float] = []
    result = None
    while len(times) < repeats and sum(times) < REPEAT_BUDGET_S:
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return times, result


# ---------------------------------------------------------------------------------------------
# Workload on disk


def write_workload(workload: Workload, files: Files, sample: np.ndarray) -> list[dict]:
    """Write qrels/run parquet, Azure rows as JSONL and parquet; return the sampled Azure rows."""
    workload.qrels.to_parquet(files.qrels, index=False)
    workload.run.to_parquet(files.run, index=False)
    rows = workload.azure_rows()
    with open(files.azure_jsonl, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    pq.write_table(pa.Table.from_pylist(rows), files.azure_parquet)
    return [rows[i] for i in sample]


# ---------------------------------------------------------------------------------------------
# Timed steps


def time_single_calls(name: str, evaluator: Any, rows: list[dict], repeats: int) -> tuple[Timing, list[dict]]:
    """Call ``evaluator`` once per row, the public way; return the timing and the outputs."""

    def loop() -> list[dict]:
        return [
            evaluator(retrieval_ground_truth=row["retrieval_ground_truth"], retrieved_documents=row["retrieved_documents"])
            for row in rows
        ]

    times, outputs = repeat(loop, repeats)
    return Timing(name, times, len(rows)), outputs


def time_batch(name: str, step: Callable[[], Any], n_queries: int, repeats: int) -> tuple[Timing, Any]:
    times, result = repeat(step, repeats)
    return Timing(name, times, n_queries), result


def time_end_to_end(files: Files, n_queries: int, repeats: int) -> tuple[Timing, Timing, retrieval_eval.EvaluationResult]:
    """evaluate() from the parquet paths, and the same plus writing the per-query table to parquet."""
    evaluate_times: list[float] = []
    total_times: list[float] = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = retrieval_eval.evaluate(files.qrels, files.run)
        evaluated = time.perf_counter()
        result.write(files.per_query)
        evaluate_times.append(evaluated - start)
        total_times.append(time.perf_counter() - start)
    return (
        Timing("evaluate() parquet paths -> result", evaluate_times, n_queries),
        Timing("evaluate() parquet -> per-query parquet (end-to-end)", total_times, n_queries),
        result,
    )


def read_floor(files: Files) -> tuple[pa.Table, pa.Table]:
    """What any parquet-based evaluator has to do at least: read both files."""
    return pq.read_table(files.run), pq.read_table(files.qrels)


# ---------------------------------------------------------------------------------------------
# Correctness on the sample


def same_output(ours: Any, theirs: Any) -> bool:
    """Equal values of identical types, and dict keys in the same order."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return list(ours) == list(theirs) and all(same_output(ours[k], theirs[k]) for k in ours)
    return type(ours) is type(theirs) and ours == theirs


def output_mismatches(ours: list[dict], theirs: list[dict]) -> dict[str, int]:
    """Output dicts that differ in value (==), and that differ in value, type or key order."""
    return {
        "value": sum(a != b for a, b in zip(ours, theirs)),
        "value_type_or_order": sum(not same_output(a, b) for a, b in zip(ours, theirs)),
    }


def table_mismatches(table: pd.DataFrame, columns: dict[str, str], rows: list[dict], sdk: list[dict]) -> dict[str, int]:
    """Per column, sampled queries whose value in ``table`` is not == the SDK's property."""
    sampled = table.set_index("query_id").loc[[row["query_id"] for row in rows]]
    return {
        ours: int(sum(value != output["document_retrieval_properties"][theirs] for value, output in zip(sampled[ours], sdk)))
        for ours, theirs in columns.items()
    }


# ---------------------------------------------------------------------------------------------
# Subprocess measurements


def first_call_costs(files: Files) -> dict[str, dict[str, float]]:
    """import + first evaluate() in fresh interpreters, with a cold then a warm numba cache."""
    costs = {}
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for state in ("cold", "warm"):
            start = time.perf_counter()
            child = subprocess.run(
                [sys.executable, "-c", _FIRST_CALL_CHILD, str(files.qrels), str(files.run)],
                env=env, check=True, capture_output=True, text=True,
            )
            costs[state] = {**json.loads(child.stdout), "process_wall": time.perf_counter() - start}
    return costs


def peak_rss(code: str, *args: str) -> tuple[int, list[str]]:
    """Peak RSS (KiB, RUSAGE_CHILDREN.ru_maxrss) of ``python -c code args``, and the lines it printed."""
    launcher = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, code, *args], check=True, capture_output=True, text=True
    )
    *printed, peak = launcher.stdout.splitlines()
    return int(peak), printed


def memory(files: Files) -> dict[str, int]:
    """Peak RSS of evaluate-from-parquet (+ write), and the RSS of reading the same files with pyarrow."""
    evaluate_peak, _ = peak_rss(_EVALUATE_CHILD, str(files.qrels), str(files.run), str(files.per_query))
    read_peak, printed = peak_rss(_READ_CHILD, str(files.qrels), str(files.run))
    return {"evaluate_peak_kib": evaluate_peak, "read_peak_kib": read_peak, **json.loads(printed[0])}


def stage_profile(files: Files) -> dict[str, list[tuple[str, float | None]]]:
    """One cProfile'd evaluate(parquet) + write: cumulative time per stage (None: stage not found in
    this version of the code) and the functions with the most self time."""
    profile = cProfile.Profile()
    profile.enable()
    retrieval_eval.evaluate(files.qrels, files.run).write(files.per_query)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    stages: list[tuple[str, float | None]] = []
    for label, suffix, function in _STAGES:
        found = [entry[3] for (path, _, name), entry in stats.items()
                 if name == function and path.replace(os.sep, "/").endswith(suffix)]
        stages.append((label, sum(found) if found else None))
    by_self_time = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:HOT_SPOTS]
    hot = [(f"{_short(path)}:{name}", entry[2]) for (path, _, name), entry in by_self_time]
    return {"stages": stages, "hot_spots": hot}


def _short(path: str) -> str:
    path = path.replace(os.sep, "/")
    for marker in ("/retrieval_eval/", "/site-packages/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


# ---------------------------------------------------------------------------------------------
# Report


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    versions = {name: version(name) for name in ("numpy", "numba", "pyarrow", "pandas", "azure-ai-evaluation")}
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "python": platform.python_version(),
        **versions,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.threading_layer(),
        "thread_environment": {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ},
        "commit": commit(),
    }


def ratios(sdk: Timing | None, timings: dict[str, Timing]) -> dict[str, float]:
    """SDK per-query time over ours, per step."""
    if sdk is None:
        return {}
    return {key: sdk.per_query_us / timing.per_query_us for key, timing in timings.items() if key != "sdk"}


def print_report(results: dict[str, Any], timings: dict[str, Timing]) -> None:
    workload, host = results["workload"], results["machine"]
    print(f"\nWorkload: {workload['queries']:,} queries, {workload['run_rows']:,} run rows, "
          f"{workload['qrels_rows']:,} qrels rows; SDK sample {workload['sample']:,} queries; seed {workload['seed']}")
    print(f"Machine: {host['cpus']} CPUs ({host['cpu_model']}); Python {host['python']}, numpy {host['numpy']}, "
          f"numba {host['numba']} ({host['numba_threads']} threads, {host['numba_threading_layer']}), "
          f"pyarrow {host['pyarrow']}, pandas {host['pandas']}, azure-ai-evaluation {host['azure-ai-evaluation']}; "
          f"thread settings {host['thread_environment'] or 'default'}; commit {host['commit']}")
    print(f"Setup (workload, files): {results['setup_s']:.1f} s; warm-up in this process (evaluate + evaluate_table "
          f"on the full files + one drop-in call, numba cache as found): {results['warm_up_s']:.1f} s\n")

    rows = [("step", "repeats (s)", "median s", "per query us", "SDK/ours")]
    for key, timing in timings.items():
        ratio = results["ratios"].get(key)
        rows.append((
            timing.name,
            " ".join(f"{t:.3f}" for t in timing.times),
            f"{timing.median:.3f}",
            f"{timing.per_query_us:.2f}",
            "1" if key == "sdk" else ("-" if ratio is None else f"{ratio:,.1f}x"),
        ))
    if "sdk" in timings:
        rows.append((f"  SDK extrapolated to {workload['queries']:,} queries", "", f"{results['sdk_extrapolated_s']:.1f}", "", ""))
    _print_table(rows)

    print("\nTargets")
    for name, value, target, met in results["targets"]:
        print(f"  {name}: {value} (target {target}) -> {'met' if met else 'MISSED'}")

    print("\nCorrectness on the sample (counts of mismatching queries; expected 0)")
    for name, counts in results["mismatches"].items():
        print(f"  {name}: {counts}")
    if not results["mismatches"]:
        print("  skipped: needs the SDK")

    print("\nFirst call in a fresh process (s): import, first evaluate() on a tiny input, second; "
          "then first and second evaluate() on the full workload (parquet)")
    first = [("numba cache", "import", "tiny 1st", "import+1st", "tiny 2nd", "full 1st", "full 2nd", "process wall")]
    for state, cost in results["first_call"].items():
        first.append((state, f"{cost['import']:.3f}", f"{cost['tiny_first']:.3f}",
                      f"{cost['import'] + cost['tiny_first']:.3f}", f"{cost['tiny_second']:.4f}",
                      f"{cost['full_first']:.3f}", f"{cost['full_second']:.3f}", f"{cost['process_wall']:.2f}"))
    _print_table(first)

    mem = results["memory"]
    print(f"\nMemory (MiB): evaluate(parquet) + write, peak RSS {mem['evaluate_peak_kib'] / 1024:.0f}; "
          f"pyarrow read of the same files: RSS after import {mem['rss_after_import_kib'] / 1024:.0f}, "
          f"after read {mem['rss_after_read_kib'] / 1024:.0f}, peak {mem['read_peak_kib'] / 1024:.0f}; "
          f"Arrow size of the two tables {results['arrow_bytes'] / 2**20:.0f}")

    profile = results["profile"]
    print("\nStage breakdown of one evaluate(parquet) + write (cProfile, cumulative s)")
    _print_table([("stage", "s")] + [(label, "not found" if seconds is None else f"{seconds:.3f}")
                                     for label, seconds in profile["stages"]])
    print(f"\nTop {HOT_SPOTS} functions by self time in that run (s)")
    _print_table([("function", "s")] + [(label, f"{seconds:.3f}") for label, seconds in profile["hot_spots"]])


def _print_table(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))


def targets(results: dict[str, Any], timings: dict[str, Timing]) -> list[tuple[str, str, str, bool]]:
    """(name, value, target, met) for each target that could be measured."""
    found = []
    if "end_to_end" in results["ratios"]:
        ratio = results["ratios"]["end_to_end"]
        found.append(("SDK / ours per query, end-to-end", f"{ratio:,.1f}x", f">= {TARGET_SDK_RATIO:.0f}x", ratio >= TARGET_SDK_RATIO))
    floor = timings["end_to_end"].median / timings["floor"].median
    found.append(("end-to-end / pyarrow read floor", f"{floor:.2f}x", f"<= {TARGET_FLOOR_RATIO:.0f}x", floor <= TARGET_FLOOR_RATIO))
    warm = results["first_call"]["warm"]
    first = warm["import"] + warm["tiny_first"]
    found.append(("warm import + first evaluate()", f"{first:.3f} s", f"< {TARGET_WARM_FIRST_CALL_S:.0f} s",
                  first < TARGET_WARM_FIRST_CALL_S))
    return found


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    """The workload in memory and on disk, and the Azure rows of the sampled queries."""

    files: Files
    qrels: pd.DataFrame
    run: pd.DataFrame
    sample_rows: list[dict]
    n_queries: int
    setup_s: float


def prepare(args: argparse.Namespace, directory: Path) -> Prepared:
    start = time.perf_counter()
    workload = make_workload(args.queries, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    sample = np.sort(rng.choice(args.queries, size=min(args.sdk_sample, args.queries), replace=False))
    files = Files.under(directory)
    rows = write_workload(workload, files, sample)
    gc.collect()  # the full list of Azure rows is gone; keep its collection out of the timings
    return Prepared(files, workload.qrels, workload.run, rows, args.queries, time.perf_counter() - start)


def warm_up(data: Prepared) -> float:
    """Compile (or load from numba's cache) every kernel variant the timed steps use; return the seconds.

    A clean measurement of that cost is first_call_costs(), in fresh processes.
    """
    start = time.perf_counter()
    retrieval_eval.evaluate(data.files.qrels, data.files.run)
    DropInEvaluator().evaluate_table(data.files.azure_parquet)
    row = data.sample_rows[0]
    DropInEvaluator()(retrieval_ground_truth=row["retrieval_ground_truth"], retrieved_documents=row["retrieved_documents"])
    return time.perf_counter() - start


def time_all(data: Prepared, sdk_class: type | None, repeats: int) -> tuple[dict[str, Timing], dict[str, Any]]:
    """Every timed step, SDK first; also the outputs that the correctness checks need."""
    files, n, rows = data.files, data.n_queries, data.sample_rows
    timings: dict[str, Timing] = {}
    outputs: dict[str, Any] = {}
    if sdk_class is not None:
        timings["sdk"], outputs["sdk"] = time_single_calls("SDK DocumentRetrievalEvaluator, per call (sample)", sdk_class(), rows, repeats)
    timings["single"], outputs["single"] = time_single_calls(
        "drop-in DocumentRetrievalEvaluator, per call (sample)", DropInEvaluator(), rows, repeats)
    timings["batch_jsonl"], _ = time_batch(
        "drop-in evaluate_table(Azure JSONL)", lambda: DropInEvaluator().evaluate_table(files.azure_jsonl), n, repeats)
    timings["batch_parquet"], outputs["batch"] = time_batch(
        "drop-in evaluate_table(Azure parquet)", lambda: DropInEvaluator().evaluate_table(files.azure_parquet), n, repeats)
    timings["dataframes"], _ = time_batch(
        "evaluate() pandas DataFrames", lambda: retrieval_eval.evaluate(data.qrels, data.run), n, repeats)
    timings["parquet"], timings["end_to_end"], outputs["evaluate"] = time_end_to_end(files, n, repeats)
    timings["floor"], outputs["floor"] = time_batch("pyarrow.parquet.read_table run + qrels (floor)", lambda: read_floor(files), n, repeats)
    return timings, outputs


def check(outputs: dict[str, Any], rows: list[dict]) -> dict[str, dict[str, int]]:
    """Mismatch counts against the SDK on the sample (empty without the SDK)."""
    if "sdk" not in outputs:
        return {}
    sdk = outputs["sdk"]
    return {
        "drop-in single call vs SDK, whole output dict": output_mismatches(outputs["single"], sdk),
        "drop-in evaluate_table(parquet) vs SDK, 9 properties": table_mismatches(
            outputs["batch"], {name: name for name in AZURE_PROPERTIES}, rows, sdk),
        "evaluate() per-query vs SDK": table_mismatches(outputs["evaluate"].per_query, CHECKED_METRICS, rows, sdk),
    }


def run_benchmark(args: argparse.Namespace, directory: Path) -> tuple[dict[str, Any], dict[str, Timing]]:
    sdk_class = load_sdk()
    if sdk_class is None:
        print("azure-ai-evaluation is not importable: skipping the SDK rows and the ratios that need them.")
    data = prepare(args, directory)
    warm_up_s = warm_up(data)
    timings, outputs = time_all(data, sdk_class, args.repeats)
    results: dict[str, Any] = {
        "workload": {"queries": data.n_queries, "run_rows": len(data.run), "qrels_rows": len(data.qrels),
                     "sample": len(data.sample_rows), "seed": args.seed},
        "machine": machine(),
        "setup_s": data.setup_s,
        "warm_up_s": warm_up_s,
        "timings": {key: timing.to_dict() for key, timing in timings.items()},
        "ratios": ratios(timings.get("sdk"), timings),
        "mismatches": check(outputs, data.sample_rows),
        "arrow_bytes": sum(table.nbytes for table in outputs["floor"]),
        "first_call": first_call_costs(data.files),
        "memory": memory(data.files),
        "profile": stage_profile(data.files),
    }
    if "sdk" in timings:
        results["sdk_extrapolated_s"] = timings["sdk"].per_query_us * data.n_queries / 1e6
    results["targets"] = targets(results, timings)
    return results, timings


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-docret-") as directory:
        results, timings = run_benchmark(args, Path(directory))
    print_report(results, timings)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=float) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
