"""Retrieval checks over an execution log, column-wise: executions per second, first-call cost, peak memory.

A fixed-seed JSON Lines log (by default 1,000,000 executions: 500,000 records x 2 executions, 5
hits each, 1-3 extracts per hit, short texts, some of them non-ASCII) is written once to a
temporary directory, and once as Parquet (``pyarrow.json.read_json`` with the log's schema, then
``pyarrow.parquet.write_table`` of its ``id`` and ``retrieval_executions`` columns, default
compression); then, each in a fresh process on one core (``NUMBA_NUM_THREADS=1``, Arrow's CPU and
I/O pools at one thread):

- the batch path, ``--repeats`` processes per format, JSON Lines and Parquet alternately:
  ``read_execution_log`` (JSON Lines: parse + flatten; Parquet: read + flatten), ``plan_checks``,
  ``run_checks`` (RetrievalQuery + RetrievalResult on every record), then ``score_objects`` for
  the rows that did not pass and for all rows (the output edge, reported apart);
- the floor: ``pyarrow.json.read_json`` of the JSON Lines file with the log's schema and nothing else;
- the per-item path on the first ``--per-item`` executions: ``iter_execution_records`` and
  ``RetrievalQuery.run`` / ``RetrievalResult.run`` per record; its score objects are compared
  with those of the batch path, from either format, for the same records;
- the first call: import + read + check of a 20-line log with an empty numba cache (cold), then
  with the cache the cold process wrote (warm); and the first full-size batch process (JSON
  Lines), which compiles the kernels' parallel builds (taken from 50,000 elements on) into the
  cache and is reported apart from the measured ones.

Peak memory is ``ru_maxrss`` of each process. Usage (from the repository root)::

    python benchmarks/bench_executions.py [--executions 1000000] [--repeats 3] [--per-item 20000]
        [--seed 0] [--arrow-pool mimalloc|jemalloc|system] [--json OUT]

It needs Linux (``/proc``, ``ru_maxrss`` in KiB). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Only the standard library and numpy at module level: this file is also the child process.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.provenance import commit, version  # noqa: E402

ODSP = "OneDriveAndSharePoint"
CHECKS = {
    "RetrievalQuery": {"capability": ODSP, "selector": "claim", "includes": ["mortgage"], "excludes": ["draft"]},
    "RetrievalResult": {
        "capability": ODSP,
        "max_rank": 5,
        "expected_items": [
            {"retrievalExtract_contains": "joint check"},
            {"retrievalExtract_contains": "5–15 business days"},
            {"retrievalExtract_contains": "flood coverage"},
        ],
    },
}
TARGET_EXECUTIONS_PER_S = 200_000
ONE_CORE = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
TINY_LINES = 20
FORMATS = {"jsonl": "JSON Lines", "parquet": "Parquet"}  # each log's file suffix, and its name

WORDS = (
    "claim claims mortgage dwelling deductible premium policy coverage fire inspection payment timeline "
    "contract renewal budget report quarterly adjuster invoice endorsement insured property damage estimate "
    "roof water storm liability limit schedule approval review status request notice"
).split()
# Phrases the checks look for, and non-ASCII text: an en dash, accents, a curly apostrophe, and
# two that Python casefolds differently from lower-casing (ß, İ).
PHRASES = ["joint check", "flood coverage", "5–15 business days", "5-15 business days", "draft", "FileType:docx"]
NON_ASCII = ["café", "résumé", "homeowner’s", "Straße", "İzmir", "naïve", "–"]
EXECUTIONS_PER_RECORD = 2
HITS_PER_EXECUTION = 5


# ---------------------------------------------------------------------------------------------
# Workload


def _pool(rng, size: int, low: int, high: int, phrase_share: float, non_ascii_share: float) -> list[str]:
    """``size`` JSON-encoded texts of ``low``-``high`` words; some hold a phrase, some non-ASCII words."""
    texts = []
    for _ in range(size):
        words = list(rng.choice(WORDS, size=int(rng.integers(low, high + 1))))
        if rng.random() < phrase_share:
            words.insert(int(rng.integers(len(words) + 1)), str(rng.choice(PHRASES)))
        if rng.random() < non_ascii_share:
            words.insert(int(rng.integers(len(words) + 1)), str(rng.choice(NON_ASCII)))
        texts.append(json.dumps(" ".join(words).capitalize(), ensure_ascii=False))
    return texts


def write_log(path: Path, n_executions: int, seed: int) -> dict[str, Any]:
    """A fixed-seed log of ``n_executions`` executions in the normalized form, written line by line."""
    import numpy as np

    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    extracts = _pool(rng, 50_000, 6, 12, 0.05, 0.15)
    queries = _pool(rng, 20_000, 3, 6, 0.3, 0.05)
    urls = [json.dumps(f"https://contoso.sharepoint.com/sites/Claims/Shared%20Documents/doc{i}.docx") for i in range(5_000)]
    n_records = -(-n_executions // EXECUTIONS_PER_RECORD)
    capabilities = rng.choice(["Email", "TeamsMessages", ODSP], size=n_records)
    statuses = rng.choice(['"success"', '"failed"', '"Success"', "null"], p=[0.94, 0.03, 0.01, 0.02], size=n_executions)
    n_hits = n_executions * HITS_PER_EXECUTION
    extract_counts = rng.integers(1, 4, size=n_hits)
    extract_ids = rng.integers(0, len(extracts), size=int(extract_counts.sum()))
    extract_starts = np.concatenate([[0], np.cumsum(extract_counts)])
    url_ids = rng.integers(0, len(urls), size=n_hits)
    query_ids = rng.integers(0, len(queries), size=n_executions)
    latency = rng.integers(50, 2000, size=n_executions)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for record in range(n_records):
            executions = []
            for position in range(EXECUTIONS_PER_RECORD):
                e = record * EXECUTIONS_PER_RECORD + position
                if e >= n_executions:
                    break
                hits = []
                for rank in range(1, HITS_PER_EXECUTION + 1):
                    h = e * HITS_PER_EXECUTION + rank - 1
                    texts = ",".join(
                        f'{{"text":{extracts[x]},"relevanceScore":0.{(x % 90) + 10}}}'
                        for x in extract_ids[extract_starts[h] : extract_starts[h + 1]]
                    )
                    hits.append(f'{{"rank":{rank},"webUrl":{urls[url_ids[h]]},"extracts":[{texts}]}}')
                capability = ODSP if position == 0 else capabilities[record]
                executions.append(
                    f'{{"capability":"{capability}","status":{statuses[e]},"queries":[{{"queryString":{queries[query_ids[e]]},'
                    f'"filterExpression":null,"maximumNumberOfResults":25}}],"latencyMs":{latency[e]},'
                    f'"totalResultCount":{HITS_PER_EXECUTION},"retrievalHits":[{",".join(hits)}]}}'
                )
                written += 1
            out.write(f'{{"id":"r{record}","retrieval_executions":[{",".join(executions)}]}}\n')
    return {
        "executions": written,
        "records": n_records,
        "hits": n_hits,
        "extracts": int(extract_counts.sum()),
        "bytes": path.stat().st_size,
        "seed": seed,
        "setup_s": time.perf_counter() - start,
    }


# ---------------------------------------------------------------------------------------------
# Child processes (each prints nothing; it writes its figures as JSON)


def _one_core() -> None:
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)


def _vm_hwm_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise KeyError("VmHWM")


def child_to_parquet(log: Path, tiny: Path, out: Path) -> None:
    """The log and the tiny log as Parquet files beside them, one row per record."""
    import pyarrow.json as pa_json
    import pyarrow.parquet as pq

    from retrieval_eval.io import execution_logs as raw

    start = time.perf_counter()
    for source in (log, tiny):
        table = pa_json.read_json(str(source), pa_json.ReadOptions(block_size=raw._BLOCK_BYTES), raw._PARSE)
        # The records have no other keys; the read schema's raw_artifact (any object) is a struct
        # without fields, which Parquet cannot hold.
        pq.write_table(table.select(["id", "retrieval_executions"]), source.with_suffix(".parquet"))
    seconds = time.perf_counter() - start
    out.write_text(json.dumps({"seconds": seconds, "bytes": log.with_suffix(".parquet").stat().st_size}))


def child_batch(log: Path, tiny: Path, out: Path, sample_records: int) -> None:
    """The batch path over ``log`` (JSON Lines or Parquet), after a warm-up over ``tiny`` (the same format)."""
    t0 = time.perf_counter()
    from retrieval_eval.executions.batch.engine import plan_checks, run_checks, score_objects
    from retrieval_eval.executions.batch.log import read_execution_log

    _one_core()
    imported = time.perf_counter() - t0
    tables = read_execution_log(tiny)  # loads the compiled kernels from the numba cache
    run_checks(tables, plan_checks(tables.n_records, CHECKS))
    del tables

    t0 = time.perf_counter()
    tables = read_execution_log(log)
    t1 = time.perf_counter()
    plan = plan_checks(tables.n_records, CHECKS)
    t2 = time.perf_counter()
    result = run_checks(tables, plan)
    t3 = time.perf_counter()
    hwm_checked = _vm_hwm_kib()
    import pyarrow as pa
    import pyarrow.compute as pc

    not_passed = result.filter(pc.not_equal(result.column("result"), "pass"))
    t4 = time.perf_counter()
    score_objects(not_passed)
    t5 = time.perf_counter()
    objects = score_objects(result)
    t6 = time.perf_counter()
    codes = result.group_by(["evaluator", "diagnostic_code"]).aggregate([("record", "count")]).to_pylist()
    sample = [obj for obj, record in zip(objects, result.column("record").to_pylist()) if record < sample_records]
    sample_path = out.parent / f"sample{log.suffix}.json"
    sample_path.write_text(json.dumps(sample, ensure_ascii=False), encoding="utf-8")
    figures = {
        "import_s": imported,
        "read_s": t1 - t0,
        "plan_s": t2 - t1,
        "run_s": t3 - t2,
        "score_not_passed_s": t5 - t4,
        "score_all_s": t6 - t5,
        "rows": result.num_rows,
        "rows_not_passed": not_passed.num_rows,
        "executions": tables.executions.num_rows,
        "hits": tables.hits.num_rows,
        "extracts": tables.extracts.num_rows,
        "vm_hwm_after_checks_kib": hwm_checked,
        "codes": {f"{c['evaluator']} {c['diagnostic_code']}": c["record_count"] for c in codes},
    }
    figures["arrow_pool"] = pa.default_memory_pool().backend_name
    out.write_text(json.dumps(figures), encoding="utf-8")


def child_floor(log: Path, out: Path) -> None:
    import pyarrow as pa
    import pyarrow.json as pa_json

    from retrieval_eval.io import execution_logs as raw

    _one_core()
    t0 = time.perf_counter()
    table = pa_json.read_json(str(log), pa_json.ReadOptions(block_size=raw._BLOCK_BYTES), raw._PARSE)
    t1 = time.perf_counter()
    out.write_text(json.dumps({"read_json_s": t1 - t0, "rows": table.num_rows, "arrow_mb": pa.total_allocated_bytes() / 2**20}))


def child_per_item(log: Path, out: Path, sample_records: int) -> None:
    from itertools import islice

    from retrieval_eval.executions import RetrievalQuery, RetrievalResult
    from retrieval_eval.executions.batch.log import iter_execution_records

    checks = {"RetrievalQuery": RetrievalQuery, "RetrievalResult": RetrievalResult}
    t0 = time.perf_counter()
    objects, executions = [], 0
    for record in islice(iter_execution_records(log), sample_records):
        executions += len(record.telemetry.retrieval_executions)
        objects.extend(check.run(CHECKS[name], record.telemetry) for name, check in checks.items())
    elapsed = time.perf_counter() - t0
    (out.parent / "per-item-sample.json").write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    out.write_text(json.dumps({"seconds": elapsed, "executions": executions, "records": sample_records}))


def child_first_call(tiny: Path, out: Path) -> None:
    t0 = time.perf_counter()
    from retrieval_eval.executions.batch.engine import plan_checks, run_checks, score_objects
    from retrieval_eval.executions.batch.log import read_execution_log

    _one_core()
    t1 = time.perf_counter()
    calls = []
    for _ in range(2):
        start = time.perf_counter()
        tables = read_execution_log(tiny)
        score_objects(run_checks(tables, plan_checks(tables.n_records, CHECKS)))
        calls.append(time.perf_counter() - start)
    out.write_text(json.dumps({"import_s": t1 - t0, "first_s": calls[0], "second_s": calls[1]}))


# ---------------------------------------------------------------------------------------------
# Parent


# A child's ru_maxrss starts at the RSS of the process that forked it (Linux carries the high-water
# mark over exec), so a small launcher starts each child and reports RUSAGE_CHILDREN.ru_maxrss.
_LAUNCHER = """
import resource, subprocess, sys
code = subprocess.run([sys.executable, *sys.argv[1:]]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


def run_child(kind: str, directory: Path, label: str, env: dict[str, str], sample_records: int) -> dict[str, Any]:
    out = directory / f"{label}.json"
    load = os.getloadavg()[0]
    start = time.perf_counter()
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(Path(__file__).resolve()), "--child", kind, "--dir", str(directory),
         "--label", label, "--per-item", str(sample_records)],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    lines = launched.stdout.strip().splitlines()
    if launched.returncode != 0 or not out.exists():
        raise RuntimeError(f"{label} failed:\n{launched.stderr[-3000:]}")
    figures = json.loads(out.read_text())
    figures.update(peak_kib=int(lines[-1]), wall_s=time.perf_counter() - start, load_before=load)
    return figures


def machine() -> dict[str, Any]:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
        platform.processor(),
    )
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "python": platform.python_version(),
        **{name: version(name) for name in ("numpy", "numba", "pandas", "pyarrow", "pydantic")},
        "commit": commit(),
    }


def measure(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    log, tiny = directory / "log.jsonl", directory / "tiny.jsonl"
    print(f"Writing {args.executions:,} executions ...", flush=True)
    workload = write_log(log, args.executions, args.seed)
    with open(log, encoding="utf-8") as source:
        tiny.write_text("".join(line for _, line in zip(range(TINY_LINES), source)), encoding="utf-8")
    env = {**os.environ, **ONE_CORE, "NUMBA_CACHE_DIR": str(directory / "numba-cache")}
    if args.arrow_pool:
        env["ARROW_DEFAULT_MEMORY_POOL"] = args.arrow_pool
    sample_records = -(-args.per_item // EXECUTIONS_PER_RECORD)
    print("Writing it as Parquet ...", flush=True)
    parquet = run_child("to-parquet", directory, "to-parquet", env, sample_records)
    workload.update(parquet_bytes=parquet["bytes"], parquet_setup_s=parquet["seconds"])
    print("First calls (cold, then warm numba cache) ...", flush=True)
    first = {state: run_child("first", directory, f"first-{state}", env, sample_records) for state in ("cold", "warm")}
    # Inputs of 50,000 elements or more run the kernels' parallel builds (on one thread here): the
    # first full-size process compiles them into the cache; it is reported apart.
    print("Batch path, first full-size process ...", flush=True)
    batch_first = run_child("batch-jsonl", directory, "batch-first", env, sample_records)
    batch: dict[str, list[dict[str, Any]]] = {"jsonl": [], "parquet": []}
    for repeat in range(1, args.repeats + 1):
        for source, runs in batch.items():  # alternately, so that a change of the machine's load hits both
            print(f"Batch path, {FORMATS[source]}, process {repeat} of {args.repeats} ...", flush=True)
            runs.append(run_child(f"batch-{source}", directory, f"batch-{source}-{repeat}", env, sample_records))
    print("pyarrow.json.read_json alone ...", flush=True)
    floor = run_child("floor", directory, "floor", env, sample_records)
    print(f"Per-item path on {args.per_item:,} executions ...", flush=True)
    per_item = run_child("per-item", directory, "per-item", env, sample_records)
    theirs = json.loads((directory / "per-item-sample.json").read_text(encoding="utf-8"))
    differing = {}
    for source in batch:
        ours = json.loads((directory / f"sample.{source}.json").read_text(encoding="utf-8"))
        differing[source] = sum(a != b for a, b in zip(ours, theirs)) + abs(len(ours) - len(theirs))
    return {
        "workload": workload,
        "machine": machine(),
        "first": first,
        "batch_first": batch_first,
        "batch": batch,
        "floor": floor,
        "per_item": per_item,
        "agreement": {"sample_objects": len(theirs), "differing": differing},
    }


def medians(runs: list[dict[str, Any]]) -> dict[str, float]:
    """The median over ``runs`` (batch processes) of each step's seconds, and of read + plan + run (``total_s``)."""
    steps = ("read_s", "plan_s", "run_s", "score_not_passed_s", "score_all_s")
    figures = {step: statistics.median(run[step] for run in runs) for step in steps}
    figures["total_s"] = statistics.median(run["read_s"] + run["plan_s"] + run["run_s"] for run in runs)
    return figures


def summary_rows(results: dict[str, Any]) -> list[tuple[str, str, str]]:
    n = results["workload"]["executions"]
    batch = results["batch"]
    jsonl, parquet, both = medians(batch["jsonl"]), medians(batch["parquet"]), medians(batch["jsonl"] + batch["parquet"])
    first_jsonl = batch["jsonl"][0]
    per_item = results["per_item"]

    def step(label: str, seconds: float, digits: int = 2, bold: bool = False) -> tuple[str, str, str]:
        rate = f"{n / seconds:,.0f}"
        return label, f"{seconds:.{digits}f}", f"**{rate}**" if bold else rate

    return [
        ("step (median of processes)", "seconds", "executions / s"),
        step("read_execution_log, JSON Lines (parse + flatten)", jsonl["read_s"]),
        step("  floor: pyarrow.json.read_json alone", results["floor"]["read_json_s"]),
        step("read_execution_log, Parquet (read + flatten)", parquet["read_s"]),
        step("plan_checks (processes of both formats)", both["plan_s"], digits=3),
        step("run_checks, tables from JSON Lines", jsonl["run_s"]),
        step("run_checks, tables from Parquet", parquet["run_s"]),
        step("JSON Lines: read + plan + run", jsonl["total_s"], bold=True),
        step("Parquet: read + plan + run", parquet["total_s"], bold=True),
        (f"score_objects, rows not passed ({first_jsonl['rows_not_passed']:,}; JSON Lines)", f"{jsonl['score_not_passed_s']:.2f}", "-"),
        (f"score_objects, all rows ({first_jsonl['rows']:,}; JSON Lines)", f"{jsonl['score_all_s']:.2f}", "-"),
        (f"per-item path ({per_item['executions']:,} executions)", f"{per_item['seconds']:.2f}",
         f"{per_item['executions'] / per_item['seconds']:,.0f}"),
    ]


def print_report(results: dict[str, Any]) -> None:
    work, host, batch = results["workload"], results["machine"], results["batch"]
    n = work["executions"]
    print(
        f"\nWorkload: {n:,} executions in {work['records']:,} records, {work['hits']:,} hits, "
        f"{work['extracts']:,} extracts; {work['bytes'] / 2**20:,.0f} MiB of JSON Lines, "
        f"{work['parquet_bytes'] / 2**20:,.0f} MiB of Parquet; seed {work['seed']}; written in "
        f"{work['setup_s']:.0f} s + {work['parquet_setup_s']:.0f} s"
    )
    print(
        f"Machine: {host['cpus']} CPUs ({host['cpu_model']}); Python {host['python']}, numpy {host['numpy']}, "
        f"numba {host['numba']}, pyarrow {host['pyarrow']}, pydantic {host['pydantic']}; one core "
        f"({', '.join(f'{k}={v}' for k, v in ONE_CORE.items())}, Arrow pools at 1 thread); Arrow memory pool "
        f"{batch['jsonl'][0]['arrow_pool']}; commit {host['commit']}\n"
    )
    rows = summary_rows(results)
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    figures = {source: medians(runs) for source, runs in batch.items()}
    per_item = results["per_item"]
    per_item_rate = per_item["executions"] / per_item["seconds"]
    print("\nBatch path / per-item path: " + ", ".join(
        f"{n / figures[source]['total_s'] / per_item_rate:.0f}x from {name}" for source, name in FORMATS.items()))  # fmt: skip
    for source, runs in batch.items():
        print(f"Every {FORMATS[source]} batch process (s): " + "; ".join(
            f"read {r['read_s']:.2f} plan {r['plan_s']:.3f} run {r['run_s']:.2f} score {r['score_not_passed_s']:.2f}/"
            f"{r['score_all_s']:.2f} (load average before {r['load_before']:.2f})" for r in runs))  # fmt: skip
    peaks = {source: max(r["peak_kib"] for r in runs) / 1024 for source, runs in batch.items()}
    checked = {source: max(r["vm_hwm_after_checks_kib"] for r in runs) / 1024 for source, runs in batch.items()}
    print(
        "Peak RSS: batch process " + ", ".join(
            f"{peaks[source]:,.0f} MiB from {name} (after read + run_checks: {checked[source]:,.0f} MiB)"
            for source, name in FORMATS.items()
        ) + f"; read_json alone {results['floor']['peak_kib'] / 1024:,.0f} MiB; per-item {per_item['peak_kib'] / 1024:,.0f} MiB"
    )  # fmt: skip
    first_full = results["batch_first"]
    print(
        f"First full-size process (JSON Lines; compiles the kernels' parallel builds into the cache): read "
        f"{first_full['read_s']:.2f} s, run_checks {first_full['run_s']:.2f} s"
    )
    for state, first in results["first"].items():
        print(
            f"First call, numba cache {state}: import {first['import_s']:.2f} s, first read + check of "
            f"{TINY_LINES} lines {first['first_s']:.2f} s, second {first['second_s']:.3f} s"
        )
    agree = results["agreement"]
    print(
        f"Agreement: of {agree['sample_objects']:,} per-item score objects, "
        + ", ".join(f"{agree['differing'][source]} differ from the batch path's from {name}" for source, name in FORMATS.items())
    )
    codes = {source: runs[0]["codes"] for source, runs in batch.items()}
    same = " (the same from Parquet)" if codes["jsonl"] == codes["parquet"] else f"; from Parquet: {codes['parquet']}"
    print(f"Diagnostic codes: {codes['jsonl']}{same}")
    targets = [(f"{name}: read + plan + run", figures[source]["total_s"]) for source, name in FORMATS.items()]
    targets += [(f"run_checks alone, tables from {name}", figures[source]["run_s"]) for source, name in FORMATS.items()]
    for label, seconds in targets:
        rate = n / seconds
        print(f"Target >= {TARGET_EXECUTIONS_PER_S:,} executions/s, {label}: {rate:,.0f} -> "
              f"{'met' if rate >= TARGET_EXECUTIONS_PER_S else 'MISSED'}")  # fmt: skip


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executions", type=int, default=1_000_000, help="executions in the log (default 1000000)")
    parser.add_argument("--repeats", type=int, default=3, help="batch-path processes per format (default 3)")
    parser.add_argument("--per-item", type=int, default=20_000, help="executions for the per-item path (default 20000)")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--arrow-pool", choices=["mimalloc", "jemalloc", "system"],
                        help="Arrow's memory pool in the measured processes (ARROW_DEFAULT_MEMORY_POOL; default: as installed)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    parser.add_argument(
        "--child", choices=["to-parquet", "batch-jsonl", "batch-parquet", "floor", "per-item", "first"], help=argparse.SUPPRESS
    )
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.executions < 1 or args.repeats < 1 or args.per_item < 1:
        parser.error("--executions, --repeats and --per-item must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        out = args.dir / f"{args.label}.json"
        log, tiny = args.dir / "log.jsonl", args.dir / "tiny.jsonl"
        sample_records = args.per_item
        if args.child == "to-parquet":
            child_to_parquet(log, tiny, out)
        elif args.child.startswith("batch-"):
            suffix = "." + args.child.removeprefix("batch-")
            child_batch(log.with_suffix(suffix), tiny.with_suffix(suffix), out, sample_records)
        elif args.child == "floor":
            child_floor(log, out)
        elif args.child == "per-item":
            child_per_item(log, out, sample_records)
        else:
            child_first_call(tiny, out)
        return
    with tempfile.TemporaryDirectory(prefix="bench-executions-") as directory:
        results = measure(args, Path(directory))
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
