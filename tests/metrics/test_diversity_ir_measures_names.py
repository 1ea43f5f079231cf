"""ir_measures' diversity names resolve to the diversity family and give its pyndeval provider's values."""

from __future__ import annotations

import pyarrow as pa
import pytest

from retrieval_eval import Evaluator
from retrieval_eval.data import Qrels, Run
from retrieval_eval.metrics.spellings.ir_measures import parse

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")

NAMES = ["alpha_nDCG@5", "α_nDCG(alpha=0.25)@10", "alpha_DCG@3", "ERR_IA@5", "nERR_IA@10", "P_IA@5", "StRecall@10",
         "NRBP(alpha=0.75,beta=0.25)", "nNRBP", "AP_IA", "MAP_IA(rel=2)"]
QRELS = [("q1", "1", "a", 1), ("q1", "2", "b", 2), ("q1", "2", "c", 1), ("q1", "3", "c", 0), ("q1", "3", "d", 1),
         ("q2", "1", "a", 2), ("q2", "4", "e", 1), ("q2", "4", "a", 1)]
RUN = [("q1", "c", 5.0), ("q1", "x", 4.0), ("q1", "a", 3.0), ("q1", "b", 2.0), ("q2", "e", 3.0), ("q2", "a", 1.0)]


def test_names_give_ir_measures_values():
    qrels = [ir_measures.Qrel(q, d, label, s) for q, s, d, label in QRELS]
    run = [ir_measures.ScoredDoc(q, d, x) for q, d, x in RUN]
    # One name a call: ir_measures' provider runs one pyndeval per (rel, alpha, beta) over one pass of the run.
    expected = {(m.query_id, str(m.measure)): m.value
                for name in NAMES for m in ir_measures.pyndeval.iter_calc([ir_measures.parse_measure(name)], qrels, run)}
    ours = Qrels(pa.table({"query_id": [r[0] for r in QRELS], "group": [r[1] for r in QRELS],
                           "doc_id": [r[2] for r in QRELS], "relevance": [r[3] for r in QRELS]}), judgments="qrels_jg")
    scored = Run(pa.table({"query_id": [r[0] for r in RUN], "doc_id": [r[1] for r in RUN], "score": [r[2] for r in RUN]}))
    metrics = {name: parse(name).metric for name in NAMES}
    values = Evaluator(ours, list(metrics.values())).evaluate(scored).to_dict()
    for name in NAMES:
        measure = str(ir_measures.parse_measure(name))
        for query in ("q1", "q2"):
            assert values[query][str(metrics[name])] == expected[(query, measure)], (name, query)


def test_judged_only_is_the_evaluation_option():
    assert parse("alpha_nDCG(judged_only=True)@5").judged_only
