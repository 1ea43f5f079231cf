"""The C/W/L family against cwl_eval 1.0.12 itself (in process): every output and residual, on random runs.

Rankings with ties (score descending, ties in input order: the order the cwl family ranks in, and
the order the oracle is handed), graded labels mapped to gains as ir_measures' provider does
(bin_rel, max_rel) or read as gains (0/1 labels), negative labels, queries on one side only.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import evaluate

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")
ruler = pytest.importorskip("cwl.ruler.cwl_ruler")
from cwl.ruler.measures.cwl_npv import NPVCWLMetric  # noqa: E402
from cwl.ruler.measures.cwl_set import SETCWLMetric  # noqa: E402
from cwl.ruler.ranking import Ranking  # noqa: E402

logging.getLogger("cwl").disabled = True

DOCS = [f"d{i}" for i in range(12)]
SCORES = [x / 2 for x in range(0, 6)]
OUTS = ("eu", "etu", "ec", "etc", "ed")

#: our metric (without out= and gains) -> cwl_eval's measure object.
CASES = {
    "cwl_p@1": lambda: ruler.PrecisionCWLMetric(1),
    "cwl_p@3": lambda: ruler.PrecisionCWLMetric(3),
    "cwl_p@10": lambda: ruler.PrecisionCWLMetric(10),
    "cwl_rr": ruler.RRCWLMetric,
    "cwl_ap": ruler.APCWLMetric,
    "cwl_rbp": lambda: ruler.RBPCWLMetric(0.9),
    "cwl_rbp(theta=0.5)": lambda: ruler.RBPCWLMetric(0.5),
    "cwl_inst": lambda: ruler.INSTCWLMetric(1.0),
    "cwl_inst(t=2.5)": lambda: ruler.INSTCWLMetric(2.5),
    "cwl_insq(t=2)": lambda: ruler.INSQCWLMetric(2.0),
    "cwl_ndcg@5": lambda: ruler.NDCGCWLMetric(5),
    "cwl_bpm(t=1.5)@4": lambda: ruler.BPMCWLMetric(1.5, 4),
    "cwl_bpm_dynamic(t=2,hb=0.5,gain_med=0.3)@6": lambda: ruler.BPMDCWLMetric(2.0, 6, 0.5, 1.0, 0.3),
    "cwl_nerr8@4": lambda: ruler.NERReq8CWLMetric(4),
    "cwl_nerr9@4": lambda: ruler.NERReq9CWLMetric(4),
    "cwl_nerr10(phi=0.8)": lambda: ruler.NERReq10CWLMetric(0.8),
    "cwl_nerr11(t=2)": lambda: ruler.NERReq11CWLMetric(2.0),
    "cwl_npv(rate=0.2)": lambda: NPVCWLMetric(0.2),
    "cwl_set(beta=0.4)@8": lambda: SETCWLMetric(0.4, 8),
    "cwl_tbg(halflife=5)": lambda: ruler.TBGCWLMetric(5.0),
    "cwl_umeasure(l=7)": lambda: ruler.UMeasureCWLMetric(7.0),
    "cwl_ift_goal(t=1,b1=0.9,r1=2)": lambda: ruler.IFTGoalCWLMetric(1.0, 0.9, 2.0),
    "cwl_ift_rate(a=0.3,b2=0.8,r2=3)": lambda: ruler.IFTRateCWLMetric(0.3, 0.8, 3.0),
    "cwl_ift(t=2,b1=0.9,r1=1,a=0.2,b2=0.7,r2=2)": lambda: ruler.IFTGoalRateCWLMetric(2.0, 0.9, 1.0, 0.2, 0.7, 2.0),
}


def with_params(name: str, extra: str) -> str:
    base, _, cutoff = name.partition("@")
    if base.endswith(")"):
        base = base[:-1] + "," + extra + ")"
    else:
        base += f"({extra})"
    return base + (f"@{cutoff}" if cutoff else "")


@st.composite
def collections(draw):
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    qrels, run = [], []
    for query in queries:
        side = draw(st.sampled_from(["both", "both", "qrels", "run"]))
        if side != "run":
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=8))
            qrels += [(query, d, label) for d, label in judged.items()]
        if side != "qrels":
            docs = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=10))
            run += [(query, d, s) for d, s in docs.items()]
    if not qrels:
        qrels = [("q0", "d0", 1)]
    if not run:
        run = [("q0", "d0", 1.0)]
    return qrels, run


def oracle(qrels, run, measure, gain, residuals):
    """cwl_eval's outputs (and residuals) per query both judged and retrieved, in its Ranking API."""
    judged = {}
    for query, doc, label in qrels:
        judged.setdefault(query, {})[doc] = gain(label)
    ranked = {}
    for query, doc, score in run:
        ranked.setdefault(query, []).append((doc, score))
    values = {}
    for query, docs in ranked.items():
        if query not in judged:
            continue
        docs = sorted(docs, key=lambda pair: pair[1], reverse=True)  # stable: ties in input order
        gains = [judged[query].get(doc, math.nan) for doc, _ in docs]
        ranking = Ranking(query, gains, [math.nan] * len(gains))
        ranking.total_qrel_gain = sum(judged[query].values())
        ranking.total_qrel_rels = float(sum(g > 0 for g in judged[query].values()))
        metric = measure()
        metric.residuals = residuals
        metric.measure(ranking)
        values[query] = metric.get_scores() + ([
            metric.residual_expected_utility, metric.residual_expected_total_utility, metric.residual_expected_cost,
            metric.residual_expected_total_cost, metric.residual_expected_items] if residuals else [])
    return values


GAINS = {
    "bin_rel=2": lambda label: 1.0 if max(label, 0) >= 2 else 0.0,
    "max_rel=3": lambda label: min(max(label, 0), 3) / 3.0,
    "max_rel=2,min_rel=1": lambda label: (min(max(max(label, 0), 1), 2) - 1) / 1.0,
}


@settings(max_examples=12)
@given(data=collections(), mapping=st.sampled_from(sorted(GAINS)))
def test_every_output_and_residual_equals_cwl_eval(data, mapping):
    qrels, run = data
    names = {case: [with_params(case, f"{mapping},out={prefix}{out}") for prefix in ("", "res_") for out in OUTS]
             for case in CASES}
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    every = [name for group in names.values() for name in group]
    table = evaluate(qrels_frame, run_frame, every, query_set="both").per_query.set_index("query_id")
    for case, measure in CASES.items():
        expected = oracle(qrels, run, measure, GAINS[mapping], residuals=True)
        assert sorted(table.index) == sorted(expected)
        for query, values in expected.items():
            ours = [float(table.loc[query, name]) for name in names[case]]
            np.testing.assert_allclose(ours, values, rtol=1e-12, atol=1e-12, err_msg=f"{case} {mapping} {query}")


@settings(max_examples=8)
@given(data=collections())
def test_default_gains_read_0_1_labels_as_cwl_eval(data):
    qrels, run = data
    qrels = [(q, d, min(max(label, 0), 1)) for q, d, label in qrels]
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    names = ["cwl_ap", "cwl_inst(out=etu)", "cwl_rr(out=ed)"]
    result = evaluate(qrels_frame, run_frame, names)
    table = result.per_query.set_index("query_id")
    for name, measure, column in [("cwl_ap", ruler.APCWLMetric, 0), ("cwl_inst(out=etu)", ruler.INSTCWLMetric, 1),
                                  ("cwl_rr(out=ed)", ruler.RRCWLMetric, 4)]:
        expected = oracle(qrels, run, measure, float, residuals=False)
        for query, values in expected.items():
            assert float(table.loc[query, name]) == pytest.approx(values[column], rel=1e-12, abs=1e-12)


def test_binary_and_scaled_gains_together_are_refused():
    qrels = pd.DataFrame([("q", "a", 2)], columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([("q", "a", 1.0)], columns=["query_id", "doc_id", "score"])
    with pytest.raises(ValueError, match="bin_rel .* or max_rel"):
        evaluate(qrels, run, ["cwl_ap(bin_rel=2,max_rel=3)"])


IR_MEASURES = ["RBP(rel=2,p=0.5)", "RBP(rel=1)", "INST(T=2,max_rel=3)", "INSQ(max_rel=3)", "BPM(max_rel=3)@4",
               "SDCG(max_rel=3)@5", "NERR8(max_rel=3)@4", "NERR9(max_rel=3)@4", "NERR10(max_rel=2,min_rel=1)",
               "NERR11(T=2,max_rel=3)"]


@settings(max_examples=8)
@given(data=collections())
def test_ir_measures_names_equal_its_cwl_eval_provider(data):
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures.providers.cwl_eval import CwlEvalProvider

    qrels, run = data
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    table = evaluate(qrels_frame, run_frame, IR_MEASURES, query_set="both").per_query.set_index("query_id")
    measures = [ir_measures.parse_measure(name) for name in IR_MEASURES]
    theirs = CwlEvalProvider().evaluator(measures, [ir_measures.Qrel(*row) for row in qrels])
    for metric in theirs.iter_calc([ir_measures.ScoredDoc(*row) for row in run]):
        if metric.query_id in table.index:
            assert float(table.loc[metric.query_id, str(metric.measure)]) == pytest.approx(metric.value, rel=1e-12, abs=1e-12)
