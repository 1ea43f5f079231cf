"""Fusion benchmark: a two-run fusion sweep against ranx.optimize_fusion, side by side in one process.

Workload (fixed seed): ``make_workload(--queries, retrieved=(--docs, --docs))`` (string ids,
scores with ties, about 20 judged documents per query) as the keyword run, and
``second_retriever`` of it as the dense run: ``--docs`` documents per query each, overlapping in
part. The grid is the issue's: RRF with k in {10, 20, 60, 100} and the weighted sum over ranx's
weight grid at step 0.1 (11 pairs) under min-max, max and sum normalization: 37 configurations.
The metric is ranx's ``ndcg`` (no cutoff; ``--metric`` for another ranx name), which is ours
under the same name; ours scores with ``ties="ranx"``.

Measured, each from the same pandas frames (building each library's objects counts), in
interleaved rounds:

- retrieval_eval, end to end: ``fusion_sweep(qrels, {"bm25": ..., "dense": ...}, grid, [metric],
  options=EvaluationOptions(ties="ranx"))`` with the leaderboard's default statistics (10,000
  bootstrap resamples and randomization rounds against the best);
- retrieval_eval, scores only: ``fused_runs(...).prejoined()`` (as ``fusion_sweep`` scores
  them) and one ``Evaluator``'s mean per configuration, what optimize_fusion computes (no statistics);
- ranx: ``Qrels.from_df`` and ``Run.from_df``, then for RRF the loop ``optimize_rrf`` runs
  (``fuse`` + ``evaluate`` per k; no normalization, which RRF's ranks do not need), and for the
  weighted sum ``optimize_fusion(qrels, runs, norm=..., method="wsum", metric=..., step=0.1)``
  per normalization (its optimization report gives every trial's score); the best over the four
  calls kept as ranx keeps it (``>=``, in that order).

Checked before the figures are reported: every configuration's score against ranx's (largest
relative difference), and the best configuration and score. Also measured: one fusion (our
``fuse`` from built Runs against ``ranx.fuse`` from built ranx Runs: wsum min-max 0.5/0.5 and
RRF k=60, the fused runs compared row by row), and the first call in a fresh process with an
empty numba cache (``NUMBA_CACHE_DIR`` a new directory, *cold*) and again with what it wrote
(*warm*): the import, a first sweep of the same grid on 20 queries (our kernels then run as Python), then
one on 2,000 queries x 100 documents (compiled: compiling or loading them counts).

Usage: ``python benchmarks/bench_fusion.py [--queries 10000 --docs 100 --rounds 3 --sections sweep,fusion,first
--json OUT]`` (the ranx side of a round takes 2-3 minutes at the default size, its cold first call one).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.harness import Spread, describe_machine, interleave, machine, print_table, ratios, verdict  # noqa: E402

RRF_K = (10, 20, 60, 100)
NORMS = ("min-max", "max", "sum")
STEP = 0.1
GRID = [{"method": "rrf", "k": list(RRF_K)}, {"method": "wsum", "norm": list(NORMS), "weights": {"step": STEP}}]
TARGET_RATIO = 20.0
#: The benchmark's parts: the sweep side by side, one fusion, the first calls in fresh processes.
SECTIONS = ("sweep", "fusion", "first")
IDS = {"query_id": object, "doc_id": object}  # ranx reads ids from object columns only (pandas 3 makes them strings)


def frames(queries: int, docs: int, seed: int) -> tuple[Any, dict[str, Any]]:
    """The qrels and the two runs as pandas frames."""
    from benchmarks.workload import make_workload, second_retriever

    work = make_workload(queries, seed=seed, retrieved=(docs, docs))
    return work.qrels, {"bm25": work.run, "dense": second_retriever(work, seed=seed + 1)}


def ours(qrels: Any, runs: dict[str, Any], metric: str) -> tuple[float, dict[str, float], str]:
    from retrieval_eval import EvaluationOptions
    from retrieval_eval.sweep.fused import fusion_sweep

    start = time.perf_counter()
    result = fusion_sweep(qrels, runs, GRID, [metric], options=EvaluationOptions(ties="ranx"))
    seconds = time.perf_counter() - start
    means = result.table[metric]
    return seconds, means.to_dict(), str(means.index[0])


def ours_scores_only(qrels: Any, runs: dict[str, Any], metric: str) -> tuple[float, dict[str, float]]:
    from retrieval_eval import EvaluationOptions, Evaluator
    from retrieval_eval.sweep.fused import fused_runs

    start = time.perf_counter()
    evaluator = Evaluator(qrels, [metric], options=EvaluationOptions(ties="ranx"))
    fused = fused_runs(runs, GRID).prejoined()  # as fusion_sweep scores them: the aligned rows labelled once
    means = {name: evaluator.evaluate(fused[name]).means[metric] for name in fused}
    return time.perf_counter() - start, means


def theirs(qrels: Any, runs: dict[str, Any], metric: str) -> tuple[float, dict[str, float], str]:
    import ranx

    start = time.perf_counter()
    ranx_qrels = ranx.Qrels.from_df(qrels.astype(IDS), q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    ranx_runs = [ranx.Run.from_df(frame.astype(IDS), q_id_col="query_id", doc_id_col="doc_id", score_col="score", name=name)
                 for name, frame in runs.items()]  # fmt: skip
    scores: dict[str, float] = {}
    best_name, best_score = "", 0.0
    for k in RRF_K:  # optimize_rrf's loop, over these k
        fused = ranx.fuse(ranx_runs, norm=None, method="rrf", params={"k": k})
        score = scores[f"rrf,k={k}"] = float(ranx.evaluate(ranx_qrels, fused, metric, save_results_in_run=False))
        if score >= best_score:
            best_name, best_score = f"rrf,k={k}", score
    for norm in NORMS:
        chosen, report = ranx.optimize_fusion(ranx_qrels, ranx_runs, norm=norm, method="wsum", metric=metric, step=STEP,
                                              show_progress=False, return_optimization_report=True)  # fmt: skip
        for trial, score in zip(report.configs, report.results):
            scores[f"wsum,norm={norm},w={_weights(trial)}"] = float(score)
        if max(report.results) >= best_score:
            best_name, best_score = f"wsum,norm={norm},w={'/'.join(repr(float(w)) for w in chosen['weights'])}", max(report.results)
    return time.perf_counter() - start, scores, best_name


def _weights(trial: str) -> str:
    """An optimization report's config (``str`` of a tuple of numpy floats) as a configuration name's weights."""
    numbers = [part.strip().removeprefix("np.float64(").rstrip(")") for part in trial.strip("()").split(",") if part.strip()]
    return "/".join(repr(float(number)) for number in numbers)


def one_fusion(runs: dict[str, Any], rounds: int) -> dict[str, Any]:
    """Our fuse from built Runs against ranx.fuse from built ranx Runs, checked row by row."""
    import ranx

    from retrieval_eval.data import Run
    from retrieval_eval.fusion import fuse

    built = [Run.read(frame, name=name) for name, frame in runs.items()]
    ranx_runs = [ranx.Run.from_df(frame.astype(IDS), q_id_col="query_id", doc_id_col="doc_id", score_col="score", name=name)
                 for name, frame in runs.items()]  # fmt: skip
    cases = {"wsum min-max 0.5/0.5": ("wsum", "min-max", {"weights": [0.5, 0.5]}), "rrf k=60": ("rrf", None, {"k": 60})}
    out: dict[str, Any] = {}
    for label, (method, norm, params) in cases.items():
        mine, peer = fuse(built, method, norm=norm, params=params), ranx.fuse(ranx_runs, norm=norm, method=method, params=params)
        out[label] = {"same": _same_rows(mine, peer)}
        times = interleave({"ours": _timed(lambda: fuse(built, method, norm=norm, params=params)),
                            "ranx": _timed(lambda: ranx.fuse(ranx_runs, norm=norm, method=method, params=params))}, rounds)  # fmt: skip
        out[label].update(ours=Spread(tuple(times["ours"])).to_dict(), ranx=Spread(tuple(times["ranx"])).to_dict(),
                          ratio=ratios(times["ranx"], times["ours"]).to_dict())  # fmt: skip
    return out


def _same_rows(mine: Any, peer: Any) -> bool:
    """The same documents per query, in the same order, with scores equal to 1e-12 relative."""
    rows: dict[str, list[tuple[str, float]]] = {}
    for query, doc, score in zip(mine.table["query_id"].to_pylist(), mine.table["doc_id"].to_pylist(), mine.table["score"].to_pylist()):
        rows.setdefault(query, []).append((doc, score))
    theirs_rows = peer.to_dict()
    if set(rows) != set(theirs_rows):
        return False
    for query, docs in rows.items():
        expected = list(theirs_rows[query].items())
        if [d for d, _ in docs] != [d for d, _ in expected]:
            return False
        if not all(math.isclose(a, b, rel_tol=1e-12, abs_tol=0) for (_, a), (_, b) in zip(docs, expected)):
            return False
    return True


def _timed(call: Any) -> Any:
    def run() -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    return run


_FIRST_CALL = """
import sys, time
sys.path.insert(0, {root!r})
from benchmarks.bench_fusion import frames, {function}
tiny, medium = frames(20, 20, 0), frames({queries}, 100, 0)
start = time.perf_counter()
import {module}
imported = time.perf_counter() - start
times = []
for qrels, runs in (tiny, medium):
    start = time.perf_counter()
    {function}(qrels, runs, "ndcg")
    times.append(time.perf_counter() - start)
print(imported, *times)
"""
#: The second first call's size: enough rows that our kernels run compiled (the first runs them as Python).
FIRST_CALL_QUERIES = 2_000


def first_calls() -> dict[str, Any]:
    """In fresh processes: the import, then a first sweep on 20 queries and one on 2,000 queries x 100 documents;
    cold (an empty numba cache), then warm (the same cache again)."""
    out: dict[str, Any] = {}
    for label, function, module in (("retrieval_eval fusion_sweep", "ours", "retrieval_eval.sweep.fused"),
                                     ("ranx optimize_fusion + RRF loop", "theirs", "ranx")):  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="bench-fusion-numba-") as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            code = _FIRST_CALL.format(root=str(ROOT), function=function, module=module, queries=FIRST_CALL_QUERIES)
            for state in ("cold", "warm"):
                done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
                imported, tiny, medium = map(float, done.stdout.split())
                out[f"{label}, {state}"] = {"import": imported, "20 queries": tiny, f"{FIRST_CALL_QUERIES} queries": medium}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--metric", default="ndcg", help="a ranx metric name (ours reads it as ranx does)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"what to run, comma-separated: {', '.join(SECTIONS)} (default all)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sections = args.sections.split(",")
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; the sections are {', '.join(SECTIONS)}")
    host = machine("ranx")
    print(describe_machine(host))
    figures: dict[str, Any] = {"machine": host, "queries": args.queries, "docs": args.docs, "metric": args.metric,
                               "rounds": args.rounds}  # fmt: skip
    qrels, runs = frames(args.queries, args.docs, args.seed)
    print(f"{args.queries:,} queries x {args.docs} documents per run, 2 runs, {len(qrels):,} judgments; "
          f"grid {json.dumps(GRID)}, metric {args.metric!r}", flush=True)
    if "sweep" in sections:
        figures["sweep"] = sweep_section(qrels, runs, args)
    if "fusion" in sections:
        figures["one_fusion"] = fusion_section(runs, args.rounds)
    if "first" in sections:
        figures["first_calls"] = first_section()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))


def sweep_section(qrels: Any, runs: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    # Warm-up (compiled code loaded or compiled), and the checks.
    _, ours_means, ours_best = ours(qrels, runs, args.metric)
    _, scores_only = ours_scores_only(qrels, runs, args.metric)
    _, ranx_scores, ranx_best = theirs(qrels, runs, args.metric)
    assert set(ours_means) == set(ranx_scores) == set(scores_only) and len(ours_means) == 37, (len(ours_means), len(ranx_scores))
    difference = max(abs(ours_means[name] - ranx_scores[name]) / max(abs(ranx_scores[name]), 1e-300) for name in ranx_scores)
    best_alone = sum(value == max(ours_means.values()) for value in ours_means.values()) == 1
    checks = {
        "largest relative difference of a configuration's score": difference,
        "scores only == end to end": all(scores_only[name] == ours_means[name] for name in ours_means),
        "best configuration (ours, ranx)": (ours_best, ranx_best),
        "best scores (ours, ranx)": (ours_means[ours_best], ranx_scores[ranx_best]),
        "the best is alone": best_alone,
        "same best configuration": ours_best == ranx_best,
    }
    for label, value in checks.items():
        print(f"check: {label}: {value}")

    times = interleave(
        {
            "ours": lambda: ours(qrels, runs, args.metric)[0],
            "ours scores only": lambda: ours_scores_only(qrels, runs, args.metric)[0],
            "ranx": lambda: theirs(qrels, runs, args.metric)[0],
        },
        args.rounds,
        on_round=lambda index: print(f"round {index + 1}/{args.rounds} done", flush=True),
    )
    end_to_end, like_for_like = ratios(times["ranx"], times["ours"]), ratios(times["ranx"], times["ours scores only"])
    rows = [["37-configuration sweep", "seconds (median, min-max)", "ranx / this (median, min-max)", f"target {TARGET_RATIO:g}x"]]
    for label, key, ratio in (("retrieval_eval fusion_sweep (with statistics)", "ours", end_to_end),
                              ("retrieval_eval fused runs + Evaluator (scores only)", "ours scores only", like_for_like),
                              ("ranx optimize_fusion x 3 + RRF loop", "ranx", None)):  # fmt: skip
        spread = Spread(tuple(times[key]))
        cells = [label, f"{spread.median:.2f} ({spread.min:.2f}-{spread.max:.2f})"]
        cells += ["1", ""] if ratio is None else [
            f"{ratio.median:.1f}x ({ratio.min:.1f}-{ratio.max:.1f})", verdict(ratio.median >= TARGET_RATIO)]
        rows.append(cells)
    print_table(rows, title=f"{args.rounds} interleaved rounds")
    return {"checks": checks, "times": {key: Spread(tuple(value)).to_dict() for key, value in times.items()},
            "ratio_end_to_end": end_to_end.to_dict(), "ratio_scores_only": like_for_like.to_dict()}  # fmt: skip


def fusion_section(runs: dict[str, Any], rounds: int) -> dict[str, Any]:
    fusion = one_fusion(runs, rounds)
    rows = [["one fusion", "ours s (median)", "ranx s (median)", "ranx / ours (median, min-max)", "same rows"]]
    for label, figures in fusion.items():
        ratio = figures["ratio"]
        rows.append([label, f"{figures['ours']['median']:.3f}", f"{figures['ranx']['median']:.3f}",
                     f"{ratio['median']:.1f}x ({ratio['min']:.1f}-{ratio['max']:.1f})", str(figures["same"])])  # fmt: skip
    print_table(rows, title="one fusion from built runs")
    return fusion


def first_section() -> dict[str, Any]:
    first = first_calls()
    rows = [["first call in a fresh process (s)", "import", "first sweep, 20 queries", f"then {FIRST_CALL_QUERIES:,} queries"]]
    rows += [[label, f"{row['import']:.2f}", f"{row['20 queries']:.2f}", f"{row[f'{FIRST_CALL_QUERIES} queries']:.2f}"]
             for label, row in first.items()]  # fmt: skip
    print_table(rows, title="first calls (cold: an empty NUMBA_CACHE_DIR; warm: the same directory again)")
    return first


if __name__ == "__main__":
    main()
