"""The C/W/L family against cwl_eval 1.0.12 (in process), side by side, as a ratio.

Random qrels (10 judged documents per query, labels 0/1) and runs (100 documents per query);
the measures of cwl_eval's default list but AP (P@1,2,3,4,5,10, RBP 0.2/0.4/0.8, NDCG-k@5/10,
RR, INST T=1/2/3) plus AP separately, at depth 1000 (cwl_eval's default). cwl_eval builds one
Python Ranking per query and several 1000-long vectors per measure (AP's continuation is a
quadratic Python loop), so it is timed on a subset of the queries and scaled linearly.

Usage: python benchmarks/bench_cwl.py [--queries 100000] [--oracle-queries 200]

Measured (2 cores shared, load 1-3, December 2026): 100,000 queries x 100 docs, 16 measures:
ours 46.7 s, cwl_eval 7139 s (scaled from 200 queries: it would take about two hours), ratio
153x; at 10,000 queries ours 4.6 s against 715 s (156x). Ours is whole-array numpy over
(queries x 1000 ranks) blocks: the time is in the 1000-rank depth, not the 100 documents.
"""

from __future__ import annotations

import argparse
import logging
import math
import time

import numpy as np
import pandas as pd

from retrieval_eval import evaluate

METRICS = {
    **{f"cwl_p@{k}": ("PrecisionCWLMetric", (k,)) for k in (1, 2, 3, 4, 5, 10)},
    **{f"cwl_rbp(theta={t})": ("RBPCWLMetric", (t,)) for t in (0.2, 0.4, 0.8)},
    "cwl_ndcg@5": ("NDCGCWLMetric", (5,)), "cwl_ndcg@10": ("NDCGCWLMetric", (10,)), "cwl_rr": ("RRCWLMetric", ()),
    **{f"cwl_inst(t={t})": ("INSTCWLMetric", (t,)) for t in (1.0, 2.0, 3.0)},
    "cwl_ap": ("APCWLMetric", ()),
}


def collection(queries: int, docs: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), docs).astype(str)
    d = np.tile(np.arange(docs), queries).astype(str)
    run = pd.DataFrame({"query_id": q, "doc_id": d, "score": np.tile(np.arange(docs, 0, -1), queries).astype(float)})
    judged = rng.random(queries * docs) < 0.1
    qrels = pd.DataFrame({"query_id": q[judged], "doc_id": d[judged], "relevance": rng.integers(0, 2, judged.sum())})
    return qrels, run


def oracle_seconds(qrels: pd.DataFrame, run: pd.DataFrame, queries: int) -> float:
    from cwl.ruler import cwl_ruler
    from cwl.ruler.ranking import Ranking

    logging.getLogger("cwl").disabled = True
    judged = {(a, b): float(c) for a, b, c in qrels.itertuples(index=False)}
    start = time.perf_counter()
    for query, group in run[run["query_id"].isin([str(i) for i in range(queries)])].groupby("query_id", sort=False):
        gains = [judged.get((query, doc), math.nan) for doc in group["doc_id"]]
        ranking = Ranking(query, gains, [math.nan] * len(gains))
        for cls, args in METRICS.values():
            getattr(cwl_ruler, cls)(*args).measure(ranking)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--oracle-queries", type=int, default=200)
    args = parser.parse_args()
    qrels, run = collection(args.queries, args.docs)
    start = time.perf_counter()
    evaluate(qrels, run, list(METRICS), query_set="both")
    ours = time.perf_counter() - start
    theirs = oracle_seconds(qrels, run, args.oracle_queries) * args.queries / args.oracle_queries
    print(f"{args.queries} queries x {args.docs} docs, {len(METRICS)} measures: ours {ours:.1f} s, "
          f"cwl_eval {theirs:.0f} s (from {args.oracle_queries} queries), ratio {theirs / ours:.0f}x")


if __name__ == "__main__":
    main()
