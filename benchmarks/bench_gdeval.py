"""Side-by-side benchmark: gdeval.pl (the copy ir_measures ships, run with perl) against ``retrieval-eval gdeval``.

One fixed-seed workload (:func:`benchmarks.workload.make_workload`: 50-100 documents per query,
about 20 judged with labels 0..4), written as TREC files with numeric topics. Both sides read the
files and print gdeval's lines (nDCG@20 and ERR@20 per topic); the lines are checked equal
(gdeval.pl 1.2a prints no amean line). Each contender runs in a fresh process, interleaved,
medians of ``--rounds``; ours with the python kernels (``RETRIEVAL_EVAL_KERNELS=python``, gdeval's
kernel is numpy only).

Usage (from the repository root)::

    python benchmarks/bench_gdeval.py [--queries 10000] [--rounds 3]

Figures (2-core machine shared with 7 other jobs, load average 4-11; 2026-12-07, one round each):

=========  ==========  ============  ==========  ================  ============
queries    run rows    gdeval.pl s   ours s      gdeval.pl / ours  load average
=========  ==========  ============  ==========  ================  ============
1,000      75,822      1.0           2.5         0.4x              4.0
10,000     750,069     24.8          13.6        1.8x              10.9
100,000    7,497,730   (> 600)       36.2        (> 16x)           8.3
=========  ==========  ============  ==========  ================  ============

At 1,000 queries our process's start (imports, about 2 s) is most of our time. gdeval.pl sorts
every run line with a Perl comparator that splits both lines at each comparison (n log n with a
large constant) and holds every line as a Perl string: at 100,000 queries x 100 documents (7.5M
lines, ~1 GB of perl memory) it had not finished after 10 minutes under that load (it got 38 s of
CPU in them), so 10,000 queries is the largest size both sides finished; at 100,000 only ours
was timed (one fresh process, 100,002 lines printed).
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.harness import describe_machine, interleave, machine, print_table, ratios, timed  # noqa: E402
from benchmarks.workload import make_workload  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def write_files(n_queries: int, folder: Path) -> tuple[Path, Path, int]:
    """The workload as TREC qrels and run files whose topics are numbers (gdeval takes only those)."""
    workload = make_workload(n_queries)
    qrels, run = workload.qrels, workload.run
    topic = lambda ids: ids.str.lstrip("q").astype(np.int64).astype(str)  # noqa: E731
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    with open(qrels_path, "w") as out:
        out.write("".join(f"{t} 0 {d} {r}\n" for t, d, r in zip(topic(qrels["query_id"]), qrels["doc_id"], qrels["relevance"])))
    rank = run.groupby("query_id", sort=False).cumcount() + 1
    with open(run_path, "w") as out:
        out.write("".join(f"{t} Q0 {d} {k} {s} sample\n" for t, d, k, s in zip(topic(run["query_id"]), run["doc_id"], rank, run["score"])))
    return qrels_path, run_path, len(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, importlib.resources.as_file(
        importlib.resources.files("ir_measures") / "bin" / "gdeval.pl"
    ) as script:
        qrels, run, rows = write_files(args.queries, Path(folder))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RETRIEVAL_EVAL_KERNELS": "python"}
        perl = ["perl", str(script), str(qrels), str(run), "20"]
        ours = [sys.executable, "-c", "from retrieval_eval.cli import main; raise SystemExit(main())", "gdeval", str(qrels), str(run)]
        theirs_out = subprocess.run(perl, capture_output=True, text=True, check=True).stdout.splitlines()
        ours_out = subprocess.run(ours, capture_output=True, text=True, check=True, env=env).stdout.splitlines()
        assert ours_out[:-1] == theirs_out, "the lines differ"
        times = interleave(
            {
                "gdeval.pl": timed(lambda: subprocess.run(perl, capture_output=True, check=True)),
                "retrieval-eval gdeval": timed(lambda: subprocess.run(ours, capture_output=True, check=True, env=env)),
            },
            args.rounds,
        )
    print(describe_machine(machine("ir_measures")))
    spread = ratios(times["gdeval.pl"], times["retrieval-eval gdeval"])
    print_table(
        [
            ["queries", "run rows", "gdeval.pl s", "ours s", "gdeval.pl / ours"],
            [
                f"{args.queries:,}", f"{rows:,}", f"{statistics.median(times['gdeval.pl']):.1f}",
                f"{statistics.median(times['retrieval-eval gdeval']):.1f}", f"{statistics.median(spread.values):.1f}x",
            ],
        ],
        title="gdeval's nDCG@20 and ERR@20, files to printed lines, fresh processes (lines checked equal)",
    )


if __name__ == "__main__":
    main()
