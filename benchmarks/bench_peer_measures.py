"""The measures of issue 28, item 4 side by side with the peers that define them: ours / theirs, wall clock.

One evaluation of the same data by each: ``retrieval_eval.evaluate`` (numpy builds; the data
frames read in, the join and the kernels) against ir_measures 0.4.3's compat and accuracy
providers (``Compat``, ``Accuracy@10``: Python loops over ``iter_calc``) and ranx 0.3.21's
``evaluate`` (``hits@10 dcg@10 dcg_burges ndcg@10-l2 rbp.95``; its ``Qrels``/``Run`` built
from dicts first, not timed, and its numba kernels warm, so only its evaluation is timed). The
workload is :func:`benchmarks.workload.make_workload`: 50-100 documents per query, about 20
judged, a few ties. ir_measures' Accuracy divides by zero on a query whose top k is all
relevant: the workload has none (about half the judged documents are retrieved).

Usage (from the repository root)::

    python benchmarks/bench_peer_measures.py [--queries 100000]

Figures (2-core machine shared with other jobs, load average about 8; one round,
``RETRIEVAL_EVAL_KERNELS=python``), 100,000 queries: Compat 39.5 s against 84.3 s (0.47),
Accuracy@10 40.2 s against 86.7 s (0.46), the ranx names 53.2 s against ranx's 4.1 s (13.0); see
``benchmarks/README.md``, section "bench_peer_measures.py".
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.workload import make_workload  # noqa: E402

RANX_NAMES = ["hits@10", "dcg@10", "dcg_burges", "ndcg@10-l2", "rbp.95"]


def _seconds(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    args = parser.parse_args()
    import ir_measures as irm
    import ranx

    import retrieval_eval as rx

    workload = make_workload(args.queries)
    qrels, run = workload.qrels, workload.run
    print(f"{args.queries} queries, {len(run)} retrieved rows, {len(qrels)} judgments")
    rows = []
    for label, ours, measures, provider in (
        ("Compat", ["compat"], [irm.Compat], irm.providers.registry["compat"]),
        ("Accuracy@10", ["accuracy@10"], [irm.Accuracy @ 10], irm.providers.registry["accuracy"]),
    ):
        mine = _seconds(lambda: rx.evaluate(qrels, run, ours, query_set="qrels"))
        theirs = _seconds(lambda: provider.calc_aggregate(measures, qrels, run))
        rows.append((label, mine, theirs))
    nested_qrels = {q: dict(zip(g.doc_id, g.relevance.astype(int))) for q, g in qrels.groupby("query_id", sort=False)}
    nested_run = {q: dict(zip(g.doc_id, g.score.astype(float))) for q, g in run.groupby("query_id", sort=False)}
    ranx_qrels, ranx_run = ranx.Qrels(nested_qrels), ranx.Run(nested_run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx.evaluate(ranx_qrels, ranx_run, RANX_NAMES)  # compile / load ranx's kernels
        theirs = _seconds(lambda: ranx.evaluate(ranx_qrels, ranx_run, RANX_NAMES))
    mine = _seconds(lambda: rx.evaluate(qrels, run, RANX_NAMES, ties="ranx", query_set="qrels"))
    rows.append(("ranx " + " ".join(RANX_NAMES), mine, theirs))
    print(f"{'measure':<55} {'ours s':>8} {'peer s':>8} {'ours/peer':>9}")
    for label, mine, theirs in rows:
        print(f"{label:<55} {mine:8.2f} {theirs:8.2f} {mine / theirs:9.3f}")


if __name__ == "__main__":
    main()
