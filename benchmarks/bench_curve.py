"""The whole curve: five TREC measures from 43 queries to 10M rows, CLI and in process, ours against each peer.

Every figure is one fresh process, as a batch script or a notebook meets it (warm numba cache,
bytecode compiled, files in the page cache):

- **CLI**: ``retrieval-eval evaluate QRELS RUN --trec -m map -m ndcg_cut.10 -m P.10 -m recall.100
  -m recip_rank`` against the trec_eval 10 binary with the same ``-m`` and the ir_measures CLI
  (pytrec_eval inside) with ``AP nDCG@10 P@10 R@100 RR``; wall seconds and CPU seconds (user +
  system of the child), medians of ``--repeats`` interleaved rounds. At the largest size also
  from parquet: our CLI on ``run.parquet`` against pytrec_eval's parse + evaluate of the same file
  (pandas reads it, the dicts are built, ``evaluate``), the way a pytrec_eval user scores it.
- **In process**: a child reads the files into data frames (not timed), then times
  ``Evaluator(qrels, measures)`` and ``evaluate(run)`` ``--calls`` times; pytrec_eval's child
  builds its dicts (not timed), then times ``RelevanceEvaluator`` and ``evaluate`` as often.
  Reported: the first call, the median of the rest, the slowest, and the ratio of ours to
  pytrec_eval's call by call.

Workloads: ``make_trec_dl_workload(n, depth=100)`` (TREC DL-shaped: graded labels 0..3, digit
ids, about 55 judgments per query), written as TREC text. Each child prints its means, which are
checked to agree to 1e-4 (trec_eval's printed precision).

Usage (from the repository root, in the project's environment)::

    python benchmarks/bench_curve.py [--sizes 43,1000,10000,100000] [--repeats 3] [--calls 8]
        [--pytrec-up-to 10000] [--shared ../shared] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_latency import find_tool, find_trec_eval  # noqa: E402
from benchmarks.harness import describe_machine, load_average, machine, markdown_table  # noqa: E402

TREC_MEASURES = ["map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"]
IR_MEASURES = "AP nDCG@10 P@10 R@100 RR"
# Our names of the measures in the library (trec_eval's, with the cutoff after an underscore).
OUR_MEASURES = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]
PYTREC_MEASURES = {"map", "ndcg_cut", "P", "recall", "recip_rank"}
PYTREC_KEYS = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]


def run_child(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, its stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def trec_means(text: str) -> dict[str, float]:
    """``measure all value`` lines (trec_eval and ours) as {measure: value}."""
    means = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            means[parts[0]] = float(parts[2])
    return means


def ir_measures_means(text: str) -> dict[str, float]:
    names = dict(zip(IR_MEASURES.split(), PYTREC_KEYS))
    return {names[name]: float(value) for name, value in (line.split("\t") for line in text.splitlines() if "\t" in line)}


def _child_ours(qrels: str, run: str, calls: int) -> None:
    import retrieval_eval as rev
    from retrieval_eval.io import read_qrels_table, read_run_table

    qrels_df = read_qrels_table(qrels).to_pandas()
    run_df = read_run_table(run).to_pandas()
    start = time.perf_counter()
    evaluator = rev.Evaluator(qrels_df, OUR_MEASURES)
    build = time.perf_counter() - start
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        result = evaluator.evaluate(run_df)
        seconds.append(time.perf_counter() - start)
    means = {name: float(result.means[name]) for name in OUR_MEASURES}
    print(json.dumps({"build": build, "calls": seconds, "means": means, "numba": "numba" in sys.modules}))


def _read_trec_dicts(qrels: str, run: str) -> tuple[dict, dict]:
    """pytrec_eval's dicts, read as its README does (plain Python)."""
    qrel: dict[str, dict[str, int]] = {}
    with open(qrels) as lines:
        for line in lines:
            query, _, doc, label = line.split()
            qrel.setdefault(query, {})[doc] = int(label)
    run_dict: dict[str, dict[str, float]] = {}
    with open(run) as lines:
        for line in lines:
            query, _, doc, _, score, _ = line.split()
            run_dict.setdefault(query, {})[doc] = float(score)
    return qrel, run_dict


def _child_pytrec(qrels: str, run: str, calls: int) -> None:
    import pytrec_eval

    qrel, run_dict = _read_trec_dicts(qrels, run)
    start = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, PYTREC_MEASURES)
    build = time.perf_counter() - start
    seconds = []
    for _ in range(calls):
        start = time.perf_counter()
        per_query = evaluator.evaluate(run_dict)
        seconds.append(time.perf_counter() - start)
    means = {key: statistics.fmean(values[key] for values in per_query.values()) for key in PYTREC_KEYS}
    print(json.dumps({"build": build, "calls": seconds, "means": means}))


def _child_pytrec_parquet(qrels: str, run: str) -> None:
    """pytrec_eval from parquet: read, build its dicts, evaluate (one figure, as a script does it)."""
    import pandas as pd
    import pytrec_eval

    qrels_df = pd.read_parquet(qrels)
    run_df = pd.read_parquet(run)
    qrel: dict[str, dict[str, int]] = {}
    for query, doc, label in zip(qrels_df["query_id"], qrels_df["doc_id"], qrels_df["relevance"]):
        qrel.setdefault(query, {})[doc] = int(label)
    run_dict: dict[str, dict[str, float]] = {}
    for query, doc, score in zip(run_df["query_id"], run_df["doc_id"], run_df["score"]):
        run_dict.setdefault(query, {})[doc] = float(score)
    per_query = pytrec_eval.RelevanceEvaluator(qrel, PYTREC_MEASURES).evaluate(run_dict)
    means = {key: statistics.fmean(values[key] for values in per_query.values()) for key in PYTREC_KEYS}
    print(json.dumps({"means": means}))


def write_size(directory: Path, n_queries: int, parquet: bool) -> tuple[Path, Path, int]:
    from benchmarks.workload import make_trec_dl_workload, write_trec

    qrels, run = directory / f"qrels_{n_queries}.trec", directory / f"run_{n_queries}.trec"
    workload = make_trec_dl_workload(n_queries, depth=100, seed=0)
    write_trec(workload, qrels, run)
    if parquet:
        workload.qrels.to_parquet(directory / f"qrels_{n_queries}.parquet", index=False)
        workload.run.to_parquet(directory / f"run_{n_queries}.parquet", index=False)
    return qrels, run, len(workload.run)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def agree(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(abs(a[key] - b[key]) <= 1e-4 for key in PYTREC_KEYS)


def curve(args: argparse.Namespace) -> dict[str, Any]:
    ours_cli = find_tool("retrieval-eval")
    ir_measures = find_tool("ir_measures")
    trec_eval, _ = find_trec_eval(None, args.shared)
    me = [sys.executable, __file__]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-curve-") as scratch:
        directory = Path(scratch)
        largest = max(args.sizes)
        for n_queries in args.sizes:
            qrels, run, n_rows = write_size(directory, n_queries, parquet=n_queries == largest)
            commands = {"ours": [ours_cli, "evaluate", str(qrels), str(run), "--trec", *sum((["-m", m] for m in TREC_MEASURES), [])]}
            if trec_eval:
                commands["trec_eval"] = [trec_eval, *sum((["-m", m] for m in TREC_MEASURES), []), str(qrels), str(run)]
            if ir_measures and n_queries <= args.pytrec_up_to:
                commands["ir_measures"] = [ir_measures, str(qrels), str(run), IR_MEASURES]
            if n_queries == largest:
                commands["ours (parquet)"] = [ours_cli, "evaluate", str(qrels.with_suffix(".parquet")),
                                              str(run.with_suffix(".parquet")), "--trec",
                                              *sum((["-m", m] for m in TREC_MEASURES), [])]
                if args.pytrec_parquet:
                    commands["pytrec_eval parse + evaluate (parquet)"] = [
                        *me, "--child-pytrec-parquet", str(qrels.with_suffix(".parquet")), str(run.with_suffix(".parquet"))]
            load = load_average()
            cli: dict[str, dict[str, Any]] = {name: {"wall": [], "cpu": []} for name in commands}
            outputs: dict[str, str] = {}
            for _ in range(args.repeats):
                for name, argv in commands.items():
                    wall, cpu, out = run_child(argv)
                    cli[name]["wall"].append(wall)
                    cli[name]["cpu"].append(cpu)
                    outputs[name] = out
            means = {"ours": trec_means(outputs["ours"])}
            if "trec_eval" in outputs:
                means["trec_eval"] = trec_means(outputs["trec_eval"])
            if "ir_measures" in outputs:
                means["ir_measures"] = ir_measures_means(outputs["ir_measures"])
            for name, value in means.items():
                assert agree(value, means["ours"]), (name, value, means["ours"])

            inprocess: dict[str, Any] = {}
            child_env = {**os.environ}
            ours = json.loads(run_child([*me, "--child-ours", str(qrels), str(run), str(args.calls)], child_env)[2])
            inprocess["ours"] = ours
            if n_queries <= args.pytrec_up_to:
                theirs = json.loads(run_child([*me, "--child-pytrec", str(qrels), str(run), str(args.calls)])[2])
                assert agree(theirs["means"], ours["means"]), (theirs["means"], ours["means"])
                inprocess["pytrec_eval"] = theirs
            rows.append({"queries": n_queries, "rows": n_rows, "load": load, "cli": cli, "inprocess": inprocess})
            print_size(rows[-1])
    return {"machine": machine(), "sizes": rows}


def print_size(row: dict[str, Any]) -> None:
    print(f"\n## {row['queries']:,} queries x 100 ({row['rows']:,} rows), load {row['load']:.2f}")
    cli = row["cli"]
    base = median(cli["ours"]["wall"])
    table = [["CLI", "wall s", "CPU s", "ours / it (wall)"]]
    for name, figures in cli.items():
        wall = median(figures["wall"])
        table.append([name, f"{wall:.3f}", f"{median(figures['cpu']):.3f}", f"{base / wall:.2f}x" if name != "ours" else ""])
    print(markdown_table(table))
    inprocess = row["inprocess"]
    table = [["in process", "build s", "first call s", "median of the rest s", "slowest s", "ours / it, call by call"]]
    ours = inprocess["ours"]["calls"]
    for name, figures in inprocess.items():
        calls = figures["calls"]
        ratio = "" if name == "ours" else " ".join(f"{a / b:.1f}" for a, b in zip(ours, calls))
        table.append([name, f"{figures['build']:.4f}", f"{calls[0]:.4f}", f"{median(calls[1:]):.4f}", f"{max(calls):.4f}", ratio])
    print(markdown_table(table))
    if "numba" in inprocess["ours"]:
        print(f"numba imported by the in-process child: {inprocess['ours']['numba']}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda text: [int(n) for n in text.split(",")], default=[43, 1000, 10000, 100000],
                        help="queries of 100 documents each, comma-separated (100,000 is 10M rows)")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per CLI and size")
    parser.add_argument("--calls", type=int, default=8, help="evaluate() calls per in-process child")
    parser.add_argument("--pytrec-up-to", type=int, default=10000,
                        help="largest size (queries) given to pytrec_eval in process and to the ir_measures CLI")
    parser.add_argument("--pytrec-parquet", action="store_true", help="at the largest size, time pytrec_eval from parquet")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child-ours", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--child-pytrec", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--child-pytrec-parquet", nargs=2, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.child_ours:
        return _child_ours(args.child_ours[0], args.child_ours[1], int(args.child_ours[2]))
    if args.child_pytrec:
        return _child_pytrec(args.child_pytrec[0], args.child_pytrec[1], int(args.child_pytrec[2]))
    if args.child_pytrec_parquet:
        return _child_pytrec_parquet(*args.child_pytrec_parquet)
    print(describe_machine(machine()))
    figures = curve(args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
