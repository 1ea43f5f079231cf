"""trec_eval's own test files: every measure we implement, every query, to the printed digit.

The expected outputs and the command line behind each are in ``shared/peers/trec_eval_test``
(its README); they are read from there at test time. Lines for measures we do not implement
(iprec_at_recall, gm_map, utility, ...) are skipped, and each case checks that the measures we
do implement were all compared, so a skip can never hide one.
"""

from __future__ import annotations

import pytest

from retrieval_eval import ConfigError, REGISTRY, evaluate
from retrieval_eval.io import trec_run_tag
from retrieval_eval.metrics.trec_output import trec_lines

# (expected output, qrels, run, evaluate() options matching its trec_eval command line)
CASES = [
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test.with-comments", "results.test", {}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
    ("out.test.a", "qrels.test", "results.test", {}),
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"query_set": "qrels"}),  # -c
    ("out.test.aqcM", "qrels.test", "results.trunc", {"query_set": "qrels", "max_docs": 100}),  # -c -M100
    ("out.test.aql", "qrels.rel_level", "results.test", {"rel_level": 2}),  # -l2
    ("out.test.meas_params", "qrels.test", "results.test", {}),  # P.5,7,3 recall.20,2000 success.2,5,20 ...
]

# Measures trec_eval prints that this library implements: each case must compare all it holds.
IMPLEMENTED = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "infAP", "ndcg",
    "11pt_avg", "set_P", "set_recall", "set_F", "set_map", "set_relative_P", "num_nonrel_judged_ret",
)
IMPLEMENTED_CUTOFFS = ("P_", "recall_", "ndcg_cut_", "map_cut_", "success_", "relative_P_")


def expected_lines(path):
    lines = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, query, value = line.split("\t")
        lines[(name.strip(), query)] = value
    return lines


def implemented(name: str) -> bool:
    if name.startswith("iprec_at_recall_"):
        return True
    return name in IMPLEMENTED or (name.startswith(IMPLEMENTED_CUTOFFS) and name.rsplit("_", 1)[1].isdigit())


@pytest.mark.parametrize(("expected", "qrels", "run", "options"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_matches_trec_eval_output(trec_eval_test, expected, qrels, run, options):
    want = expected_lines(trec_eval_test / expected)
    rel_level = options.get("rel_level", 1)
    metrics = []
    for name, _ in want:
        try:
            metric = REGISTRY.parse(name, defaults={"rel": rel_level})
        except ConfigError:
            assert not implemented(name), f"{name} is implemented but does not parse"
            continue
        if metric not in metrics:
            metrics.append(metric)
    result = evaluate(trec_eval_test / qrels, trec_eval_test / run, metrics, **options)
    per_query = any(query != "all" for _, query in want)
    ours = {}
    run_id = trec_run_tag(trec_eval_test / run)
    for line in trec_lines(result, metrics, per_query=per_query, rel_level=rel_level, run_id=run_id):
        name, query, value = line.split("\t")
        ours[(name.strip(), query)] = value
    compared = {(name, query) for name, query in want if implemented(name) or name in ("num_q", "runid")}
    assert len(compared) >= 10
    mismatches = {key: (ours.get(key), want[key]) for key in compared if ours.get(key) != want[key]}
    assert not mismatches, mismatches
    # Nothing printed for queries trec_eval leaves out (queries only in the run, or missing without -c).
    assert {query for _, query in ours} == {query for _, query in want}
