"""The cost of ``ties="average"`` (expected values over every ordering of tied scores) against ``ties="docid"``.

No peer computes tie-averaged values, so the reference is our own fixed tie order on the same
data: one :class:`retrieval_eval.Evaluator` over the qrels, then its ``evaluate`` of the same run
under each policy, interleaved (harness.interleave), medians and the per-round ratio printed.
The workload is ``make_workload`` (100k queries x 50..100 documents by default) with its
scores rounded to whole numbers, so most documents share their score with a few others (tie
groups of about 3-8). The TREC measures of the closed forms: P@10, recall@100, ndcg, ndcg@10,
map, recip_rank, success@10.

Usage (from the repository root)::

    python -m benchmarks.bench_tie_average [--queries 100000] [--rounds 3]

Measured (2 cores shared with other work, load average 8-10; numba kernels warm for docid, the
averaged path whole-array numpy), 100k queries, 7.5M rows: docid 3.35 s, average 39.7 s, ratio
12.3x (benchmarks/README.md, bench_tie_average.py).
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from benchmarks.harness import interleave, load_average, timed
from benchmarks.workload import make_workload

METRICS = ["P@10", "recall@100", "ndcg", "ndcg@10", "map", "recip_rank", "success@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from retrieval_eval import Evaluator
    from retrieval_eval.metrics.options import EvaluationOptions

    workload = make_workload(args.queries)
    run = workload.run.assign(score=np.round(workload.run["score"]))
    evaluators = {
        ties: Evaluator(workload.qrels, metrics=METRICS, options=EvaluationOptions(ties=ties)) for ties in ("docid", "average")
    }
    for evaluator in evaluators.values():  # warm: compile or load the kernels, build the qrels' index
        evaluator.evaluate(run)
    times = interleave({ties: timed(lambda e=e: e.evaluate(run)) for ties, e in evaluators.items()}, args.rounds)
    ratios = [a / d for a, d in zip(times["average"], times["docid"])]
    print(f"{args.queries} queries, {len(run)} rows, load average {load_average():.1f}")
    for ties, seconds in times.items():
        print(f"  ties={ties:8s} median {statistics.median(seconds):.2f} s")
    print(f"  average / docid: median ratio {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
