"""The peers' own objects and entry points, side by side with the peers computing the same numbers.

Workload: ``make_workload(--queries)`` (50-100 retrieved and 20 judged documents per query,
string ids, scores with ties), built once as pandas frames and converted, outside the timings,
into what each peer's user holds. Measured, interleaved rounds in one process (each call
includes reading its inputs, as a user's call does), values checked equal before timing:

- ir_measures: ``ir_measures.calc_aggregate`` with its default providers (pytrec_eval for these
  measures) against our provider's ``calc_aggregate`` (``retrieval_eval.compat.ir_measures_provider``),
  from the same pandas frames; measures nDCG@10, P@10, AP, RR, R@100;
- ranx, from files: ``ranx.Qrels.from_file`` + ``ranx.Run.from_file`` + ``ranx.evaluate`` against
  ``rx.evaluate`` on the same TREC files with ``ties="ranx", run_duplicates="last", query_set="qrels"``;
- ranx, objects: ``ranx.evaluate`` on ranx ``Qrels``/``Run`` objects against ``rx.evaluate`` on the same
  objects with ``ties="input", query_set="qrels"`` (a ranx Run holds its documents in ranx's order;
  reading a ranx object walks its numba dicts);
- polars: ``rx.evaluate`` from polars frames against the same from pandas frames (the same
  function; the ratio is the cost of the input kind);
- nested dicts: ``rx.evaluate`` from pytrec_eval-shaped dicts against pytrec_eval's
  ``RelevanceEvaluator(qrels, measures).evaluate(run)`` (construction included).

Usage: ``python benchmarks/bench_ecosystem.py [--queries 10000 --rounds 5 --json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.harness import Spread, describe_machine, interleave, machine, print_table, ratios, timed  # noqa: E402
from benchmarks.workload import make_workload, write_trec  # noqa: E402

OURS = ["ndcg@10", "P@10", "map", "recip_rank", "recall@100"]
RANX = ["ndcg@10", "precision@10", "map", "mrr", "recall@100"]
PYTREC = {"ndcg_cut_10": "ndcg_cut.10", "P_10": "P.10", "map": "map", "recip_rank": "recip_rank", "recall_100": "recall.100"}


def nested(frame, value: str) -> dict:
    out: dict = {}
    for query, doc, v in zip(frame["query_id"], frame["doc_id"], frame[value]):
        out.setdefault(query, {})[doc] = v.item() if hasattr(v, "item") else v
    return out


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0, abs_tol=1e-12)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import ir_measures
    import polars as pl
    import pytrec_eval
    import ranx

    import retrieval_eval as rx
    from retrieval_eval.compat.ir_measures_provider import provider

    host = machine("ir_measures", "ranx", "polars", "pytrec-eval-terrier")
    print(describe_machine(host))
    work = make_workload(args.queries, seed=0)
    qrels, run = work.qrels, work.run
    # The ir_measures frames are what ir_measures reads: query_id, doc_id, relevance / score.
    measures = [ir_measures.nDCG @ 10, ir_measures.P @ 10, ir_measures.AP, ir_measures.RR, ir_measures.R @ 100]
    # ranx reads ids from object columns only (pandas 3 makes them strings).
    ranx_qrels = ranx.Qrels.from_df(qrels.astype({"query_id": object, "doc_id": object}), q_id_col="query_id",
                                    doc_id_col="doc_id", score_col="relevance")
    ranx_run = ranx.Run.from_df(run.astype({"query_id": object, "doc_id": object}), q_id_col="query_id",
                                doc_id_col="doc_id", score_col="score")
    polars_qrels, polars_run = pl.from_pandas(qrels), pl.from_pandas(run)
    qrels_dict, run_dict = nested(qrels, "relevance"), nested(run, "score")
    files = Path(tempfile.mkdtemp())
    qrels_path, run_path = files / "qrels.trec", files / "run.trec"
    write_trec(work, qrels_path, run_path)
    qrels_file, run_file = str(qrels_path), str(run_path)

    def ranx_from_files() -> dict:
        return ranx.evaluate(ranx.Qrels.from_file(qrels_file), ranx.Run.from_file(run_file), RANX, save_results_in_run=False)

    def ours_from_files():
        return rx.evaluate(qrels_file, run_file, OURS, ties="ranx", run_duplicates="last", query_set="qrels")
    print(f"{len(qrels):,} judgments, {len(run):,} run rows, {args.queries:,} queries")

    # Warm-up and the check that each pair computes the same numbers.
    theirs = ir_measures.calc_aggregate(measures, qrels, run)
    ours = provider.calc_aggregate(measures, qrels, run)
    assert all(same(ours[m], theirs[m]) for m in measures), (ours, theirs)
    theirs, ours = ranx_from_files(), ours_from_files().means
    assert all(same(ours[o], theirs[r]) for o, r in zip(OURS, RANX)), (ours, theirs)
    theirs = ranx.evaluate(ranx_qrels, ranx_run, RANX)
    ours = rx.evaluate(ranx_qrels, ranx_run, OURS, ties="input", query_set="qrels").means
    assert all(same(ours[o], theirs[r]) for o, r in zip(OURS, RANX)), (ours, theirs)
    assert rx.evaluate(polars_qrels, polars_run, OURS).means == rx.evaluate(qrels, run, OURS).means
    expected = pytrec_eval.RelevanceEvaluator(qrels_dict, set(PYTREC.values())).evaluate(run_dict)
    got = rx.evaluate(qrels_dict, run_dict, list(PYTREC)).to_dict()
    # pytrec_eval compares scores as float32: the sample's one-decimal scores tie the same either way.
    assert all(same(got[q][m], expected[q][m]) for q in expected for m in PYTREC), "pytrec_eval differs"

    pairs = {
        "ir_measures.calc_aggregate": ("retrieval_eval provider", "ir_measures (pytrec_eval provider)"),
        "ranx from files": ("rx.evaluate(files, ties='ranx')", "ranx from_file + evaluate"),
        "ranx objects": ("rx.evaluate(ranx objects)", "ranx.evaluate"),
        "polars frames": ("rx.evaluate(polars)", "rx.evaluate(pandas)"),
        "nested dicts": ("rx.evaluate(dicts)", "pytrec_eval"),
    }
    contenders = {
        "retrieval_eval provider": timed(lambda: provider.calc_aggregate(measures, qrels, run)),
        "ir_measures (pytrec_eval provider)": timed(lambda: ir_measures.calc_aggregate(measures, qrels, run)),
        "rx.evaluate(files, ties='ranx')": timed(ours_from_files),
        "ranx from_file + evaluate": timed(ranx_from_files),
        "rx.evaluate(ranx objects)": timed(lambda: rx.evaluate(ranx_qrels, ranx_run, OURS, ties="input", query_set="qrels")),
        "ranx.evaluate": timed(lambda: ranx.evaluate(ranx_qrels, ranx_run, RANX, save_results_in_run=False)),
        "rx.evaluate(polars)": timed(lambda: rx.evaluate(polars_qrels, polars_run, OURS)),
        "rx.evaluate(pandas)": timed(lambda: rx.evaluate(qrels, run, OURS)),
        "rx.evaluate(dicts)": timed(lambda: rx.evaluate(qrels_dict, run_dict, list(PYTREC))),
        "pytrec_eval": timed(lambda: pytrec_eval.RelevanceEvaluator(qrels_dict, set(PYTREC.values())).evaluate(run_dict)),
    }
    times = interleave(contenders, args.rounds)
    rows = [["comparison", "ours (s, median)", "theirs (s, median)", "theirs / ours (median, min-max)"]]
    figures = {"machine": host, "queries": args.queries, "rounds": args.rounds, "pairs": {}}
    for label, (ours_name, theirs_name) in pairs.items():
        ours_s, theirs_s = Spread(tuple(times[ours_name])), Spread(tuple(times[theirs_name]))
        ratio = ratios(times[theirs_name], times[ours_name])
        rows.append([f"{label}: {ours_name} vs {theirs_name}", f"{ours_s.median:.3f}", f"{theirs_s.median:.3f}",
                     f"{ratio.median:.1f}x ({ratio.min:.1f}-{ratio.max:.1f})"])
        figures["pairs"][label] = {"ours": ours_s.to_dict(), "theirs": theirs_s.to_dict(), "ratio": ratio.to_dict()}
    print_table(rows, title=f"{args.queries:,} queries, {args.rounds} interleaved rounds")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=float))


if __name__ == "__main__":
    main()
