"""Side-by-side benchmark: pyndeval (ndeval.c 4.5 behind Python) against the diversity family, all 21 of ndeval's measures.

A fixed-seed workload: ``--queries`` queries with 3-6 subtopics, 30 judged documents each, each
judged document relevant to 0-3 subtopics; a run of ``--docs`` documents per query (the judged
ones among them) with scores of 2 decimals (ties). pyndeval is timed from its qrels and run as
lists of tuples (building its evaluator included); ours from pyarrow tables (building the Qrels
in the qrels_jg layout and the Run included), the numpy kernels (``RETRIEVAL_EVAL_KERNELS=python``).
Each side is timed once per round, rounds interleaved, medians of ``--rounds``; the values of
the first ``--check`` queries are compared (on runs without ties, since pyndeval orders ties by
ascending id and ndeval's -traditional by descending id).

Usage (from the repository root)::

    RETRIEVAL_EVAL_KERNELS=python python benchmarks/bench_ndeval.py [--queries 100000] [--docs 100] [--rounds 1]

Recorded on 2 cores shared with seven other jobs (load 8-9, so times are inflated and noisy), at
the commit that added this script, numpy kernels (``RETRIEVAL_EVAL_KERNELS=python``), one round:

=============================  ===========  ==========  ===================
queries x docs (qrels rows)    pyndeval     ours        pyndeval / ours
=============================  ===========  ==========  ===================
10,000 x 100 (524,586)         3.06 s       9.42 s      0.3x (ours slower)
100,000 x 100 (5,249,617)      50.61 s      154.64 s    0.3x (ours slower)
=============================  ===========  ==========  ===================

Again with the compiled builds of the project's join kernels (``RETRIEVAL_EVAL_KERNELS=compiled``,
cached; the diversity kernel is numpy either way), load 5-6: 100,000 x 100, pyndeval 17.82 s,
ours 42.82 s, 0.4x. Ours is about 2.5-3x slower than pyndeval here. A profile at 20,000 queries (9.4 s): the run's join
(``rank_run``, python kernels) 3.4 s, indexing the qrels twice (the qrels_jg layout, then the pool
numbered as plain qrels) 2.6 s, the diversity kernel 2.5 s, of which the greedy ideal ranking 1.5 s.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval_eval import Evaluator  # noqa: E402
from retrieval_eval.data import Qrels, Run  # noqa: E402

PEER = {"ERR-IA": "err_ia", "nERR-IA": "nerr_ia", "alpha-DCG": "alpha_dcg", "alpha-nDCG": "alpha_ndcg",
        "P-IA": "p_ia", "strec": "strec"}
MEASURES = [f"{peer}@{k}" for peer in PEER for k in (5, 10, 20)] + ["NRBP", "nNRBP", "MAP-IA"]
OURS = [f"{PEER[m.split('@')[0]]}@{m.split('@')[1]}" if "@" in m else {"NRBP": "nrbp", "nNRBP": "nnrbp",
        "MAP-IA": "map_ia"}[m] for m in MEASURES]


def workload(queries: int, docs: int, seed: int, ties: bool) -> tuple[list, list]:
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        qid = f"q{q}"
        subtopics = rng.randint(3, 6)
        for d in range(30):
            doc = f"D{q}-{d}"
            for s in rng.sample(range(subtopics), rng.randint(0, 3)) or [0]:
                qrels.append((qid, str(s + 1), doc, int(rng.random() < 0.7)))
        for d in range(docs):
            doc = f"D{q}-{d}" if d < 30 else f"U{q}-{d}"
            score = round(rng.random(), 2) if ties else float(docs - d) + rng.random() / 2
            run.append((qid, doc, score))
    return qrels, run


def pyndeval_side(qrels: list, run: list):
    import pyndeval

    def call():
        start = time.perf_counter()
        values = pyndeval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
        return time.perf_counter() - start, values
    return call


def our_side(qrels: list, run: list):
    columns = list(zip(*qrels))
    qrels_table = pa.table({"query_id": columns[0], "group": columns[1], "doc_id": columns[2], "relevance": columns[3]})
    run_columns = list(zip(*run))
    run_table = pa.table({"query_id": run_columns[0], "doc_id": run_columns[1], "score": run_columns[2]})

    def call():
        start = time.perf_counter()
        result = Evaluator(Qrels(qrels_table, judgments="qrels_jg"), OURS).evaluate(Run(run_table))
        return time.perf_counter() - start, result
    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--check", type=int, default=200)
    args = parser.parse_args()
    qrels, run = workload(args.queries, args.docs, seed=7, ties=True)
    theirs, ours = pyndeval_side(qrels, run), our_side(qrels, run)
    times = {"pyndeval": [], "ours": []}
    for _ in range(args.rounds):
        times["pyndeval"].append(theirs()[0])
        times["ours"].append(ours()[0])
    # Values on a tie-free run of the first queries.
    small_qrels = [r for r in qrels if int(r[0][1:]) < args.check]
    small_run = [r for r in workload(args.check, args.docs, seed=7, ties=False)[1]]
    expected, mine = pyndeval_side(small_qrels, small_run)()[1], our_side(small_qrels, small_run)()[1].to_dict()
    for query, values in expected.items():
        for peer, name in zip(MEASURES, OURS):
            same = values[peer] == mine[query][name] or (math.isnan(values[peer]) and math.isnan(mine[query][name]))
            assert same, (query, peer, values[peer], mine[query][name])
    a, b = statistics.median(times["pyndeval"]), statistics.median(times["ours"])
    print(f"{args.queries:,} queries x {args.docs} docs, {len(qrels):,} qrels rows: pyndeval {a:.2f} s, "
          f"ours {b:.2f} s, pyndeval / ours {a / b:.1f}x; values equal on {len(expected)} queries")


if __name__ == "__main__":
    main()
