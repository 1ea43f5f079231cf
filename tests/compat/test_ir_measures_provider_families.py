"""The ir_measures provider serves issue 28's measures with ir_measures' default providers' values.

For each ir_measures name of the gdeval, diversity, C/W/L and ir_measures-extras families, the
provider's values per query and aggregated are those of ir_measures' own pipeline (gdeval.pl run
by perl for ERR, pyndeval for the diversity measures, cwl_eval for the C/W/L measures, its compat
and accuracy providers), one measure per call (ir_measures' pyndeval provider reports 0.0 for the
later measures of several (rel, alpha, beta) groups in one call). One small random collection:
graded labels (-1 to 4, gdeval's grades), equal scores, a judged query without a label above 0
(which gdeval skips), a judged query the run lacks, a retrieved query no one judged; numeric
query ids, which gdeval needs. The diversity measures read subtopic qrels (ir_measures'
``iteration``) and a run without equal scores: pyndeval orders them by ascending document id,
ndeval's ``-traditional`` order (the diversity family's) by descending, a documented difference.
"""

from __future__ import annotations

import math
import shutil

import numpy as np
import pandas as pd
import pytest

irm = pytest.importorskip("ir_measures")
pytest.importorskip("pyndeval")
pytest.importorskip("cwl")

from retrieval_eval.compat.ir_measures_provider import RetrievalEvalEvaluator, provider, register, unregister  # noqa: E402

needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")

#: name -> absolute tolerance (0: exact). gdeval prints 5 decimals.
GDEVAL = {"ERR@5": 5e-6 + 1e-12, "ERR@20": 5e-6 + 1e-12}
DIVERSITY = dict.fromkeys(
    ["alpha_nDCG@5", "alpha_nDCG(alpha=0.25)@10", "alpha_DCG@5", "ERR_IA@5", "nERR_IA@10", "P_IA@5", "StRecall@10",
     "NRBP", "nNRBP(alpha=0.75,beta=0.25)", "AP_IA", "AP_IA(rel=2)"], 0.0)
CWL = dict.fromkeys(
    ["RBP(rel=1)", "RBP(p=0.5,rel=2)", "INST(T=2.0,max_rel=4)", "INSQ(max_rel=4)", "BPM(T=2.0,max_rel=4)@5",
     "SDCG(max_rel=4)@5", "NERR8(max_rel=4)@5", "NERR9(max_rel=3)@5", "NERR10(max_rel=4)",
     "NERR11(T=2.0,max_rel=4,min_rel=1)"], 1e-9)
EXTRAS = dict.fromkeys(["Compat", "Compat(p=0.8,normalize=False)"], 1e-9)
#: Accuracy's provider divides by zero on a query whose top k is all relevant: compared one query at a time.
ACCURACY = ["Accuracy@5", "Accuracy(rel=2)@3", "Accuracy@20"]


def collection(seed: int = 28) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(qrels, subtopic qrels, run with equal scores, the run without them), as ir_measures' DataFrames."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(12)]
    subtopic_rows = []
    for query in ("1", "2", "3", "4", "5"):
        for doc in rng.choice(docs, size=8, replace=False):
            for subtopic in rng.choice(["1", "2", "3"], size=int(rng.integers(1, 3)), replace=False):
                # Query 4 has no label above 0 (gdeval skips it); query 5 is not retrieved.
                label = int(rng.integers(-1, 1)) if query == "4" else int(rng.integers(-1, 5))
                subtopic_rows.append((query, doc, label, subtopic))
    subtopics = pd.DataFrame(subtopic_rows, columns=["query_id", "doc_id", "relevance", "iteration"])
    # One label per document for the other families: its greatest over the subtopics.
    qrels = subtopics.groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
    run_rows = [(query, doc, float(rng.integers(0, 4))) for query in ("1", "2", "3", "4", "6")
                for doc in rng.choice(docs, size=int(rng.integers(4, 11)), replace=False)]
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    distinct = run.assign(score=run["score"] + rng.permutation(len(run)) / (2 * len(run)))
    return qrels, subtopics, run, distinct


QRELS, SUBTOPICS, RUN, DISTINCT = collection()


def inputs(name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (SUBTOPICS, DISTINCT) if name in DIVERSITY else (QRELS, RUN)


def per_query(metrics) -> dict:
    values = {}
    for metric in metrics:
        key = (metric.measure, metric.query_id)
        assert key not in values, key
        values[key] = metric.value
    return values


def assert_close(ours: dict, theirs: dict, tolerance: float) -> None:
    """The same keys, and values within ``tolerance`` (0: equal; NaN where both are NaN: pyndeval's nNRBP without a
    relevant document)."""
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        mine = ours[key]
        same = math.isnan(mine) and math.isnan(value) or (
            math.isclose(mine, value, rel_tol=0, abs_tol=tolerance) if tolerance else mine == value)
        assert same, (str(key[0] if isinstance(key, tuple) else key), key[1] if isinstance(key, tuple) else "", mine, value)


def test_the_collection_has_the_cases_it_is_for():
    labels = QRELS.groupby("query_id")["relevance"].max()
    assert labels["4"] <= 0 < labels.drop("4").min() and "5" not in set(RUN.query_id) and "6" not in set(QRELS.query_id)
    assert RUN.duplicated(["query_id", "score"]).any() and not DISTINCT.duplicated(["query_id", "score"]).any()
    assert SUBTOPICS.duplicated(["query_id", "doc_id"]).any() and (QRELS.relevance < 0).any()


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=needs_perl) for name in GDEVAL] + list(DIVERSITY) + list(CWL) + list(EXTRAS),
)
def test_each_measure_is_ir_measures_default_providers_value(name):
    tolerance = {**GDEVAL, **DIVERSITY, **CWL, **EXTRAS}[name]
    measure = irm.parse_measure(name)
    qrels, run = inputs(name)
    assert provider.supports(measure)
    assert_close(per_query(provider.iter_calc([measure], qrels, run)), per_query(irm.iter_calc([measure], qrels, run)),
                 tolerance)
    ours, theirs = provider.calc_aggregate([measure], qrels, run), irm.calc_aggregate([measure], qrels, run)
    assert_close(ours, theirs, tolerance or 1e-15)


@pytest.mark.parametrize("name", ACCURACY)
def test_accuracy_is_ir_measures_value_where_its_provider_gives_one(name):
    measure = irm.parse_measure(name)
    reported = 0
    for query, run in RUN.groupby("query_id"):
        ours = per_query(provider.iter_calc([measure], QRELS, run))
        try:
            theirs = per_query(irm.iter_calc([measure], QRELS, run))
        except ZeroDivisionError:  # its top k is all relevant: no value here (a documented difference)
            assert ours == {}
            continue
        assert_close(ours, theirs, 1e-9)
        reported += len(theirs)
    assert reported  # the collection gives it values to compare


@needs_perl
def test_err_at_k_gives_a_query_gdeval_skips_ir_measures_default():
    values = per_query(provider.iter_calc([irm.ERR @ 5], QRELS, RUN))
    assert values[irm.ERR @ 5, "4"] == 0.0 and values[irm.ERR @ 5, "5"] == 0.0 and (irm.ERR @ 5, "6") not in values


def test_diversity_and_other_measures_together_read_each_their_own_view_of_the_qrels():
    # The subtopic qrels judge a document in several subtopics: the other measures, which read one label per
    # document, keep the last as ir_measures does (duplicates="last"); ours are compared with the same qrels.
    from retrieval_eval.compat.ir_measures_provider import RetrievalEvalProvider

    last = RetrievalEvalProvider(duplicates="last")
    mixed = [irm.alpha_nDCG @ 5, irm.nDCG @ 5, irm.AP_IA, irm.P @ 3, irm.NumQ, irm.Compat]
    together = per_query(last.iter_calc(mixed, SUBTOPICS, DISTINCT))
    apart = {}
    for measure in mixed:
        apart |= per_query(last.iter_calc([measure], SUBTOPICS, DISTINCT))
    assert together == apart
    # The ordinary measures ignore the subtopics: their values are those of the qrels without them (last label kept).
    plain = SUBTOPICS.drop(columns="iteration").drop_duplicates(["query_id", "doc_id"], keep="last")
    for measure in (irm.nDCG @ 5, irm.P @ 3, irm.Compat):
        assert {key: together[key] for key in together if key[0] == measure} == per_query(
            provider.iter_calc([measure], plain, DISTINCT))
    assert last.calc_aggregate(mixed, SUBTOPICS, DISTINCT)[irm.alpha_nDCG @ 5] == irm.calc_aggregate(
        [irm.alpha_nDCG @ 5], SUBTOPICS, DISTINCT)[irm.alpha_nDCG @ 5]


def test_every_qrels_form_passes_the_subtopics_on():
    measure = irm.alpha_nDCG @ 5
    expected = per_query(provider.iter_calc([measure], SUBTOPICS, DISTINCT))
    tuples = [irm.Qrel(q, d, r, i) for q, d, r, i in SUBTOPICS.itertuples(index=False)]
    assert per_query(provider.iter_calc([measure], tuples, DISTINCT)) == expected
    assert per_query(provider.iter_calc([measure], iter(tuples), DISTINCT)) == expected
    # Without subtopics (a dict of dicts, a DataFrame without iteration) every judgment is subtopic "0", as pyndeval's
    # provider reads them.
    nested = {q: dict(zip(g.doc_id, g.relevance)) for q, g in QRELS.groupby("query_id")}
    single = per_query(provider.iter_calc([measure], nested, DISTINCT))
    assert single == per_query(provider.iter_calc([measure], QRELS, DISTINCT))
    assert single == per_query(irm.iter_calc([measure], QRELS, DISTINCT)) != expected


def test_equal_scores_are_ordered_as_ndeval_orders_them_where_pyndeval_orders_them_ascending():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [0, 1], "iteration": ["1", "1"]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
    # ndeval -traditional (trec_eval's order): b first, P-IA@1 = 1; pyndeval: a first, 0.
    assert provider.calc_aggregate([irm.P_IA @ 1], qrels, run) == {irm.P_IA @ 1: 1.0}
    assert irm.calc_aggregate([irm.P_IA @ 1], qrels, run) == {irm.P_IA @ 1: 0.0}


@pytest.fixture
def registered():
    register()
    try:
        yield
    finally:
        unregister()


@needs_perl
def test_registered_ir_measures_own_functions_compute_them_with_it(registered):
    measures = [irm.ERR @ 5, irm.RBP, irm.Accuracy @ 5, irm.nDCG @ 5]
    assert isinstance(irm.evaluator(measures, QRELS), RetrievalEvalEvaluator)
    assert per_query(irm.iter_calc(measures, QRELS, RUN)) == per_query(provider.iter_calc(measures, QRELS, RUN))
    assert irm.calc_aggregate([irm.alpha_nDCG @ 5], SUBTOPICS, DISTINCT) == provider.calc_aggregate(
        [irm.alpha_nDCG @ 5], SUBTOPICS, DISTINCT)


def test_pyterrier_s_experiment_scores_the_diversity_measures_with_it(registered):
    pt = pytest.importorskip("pyterrier")
    # The run with equal scores, where ours (ndeval's order) and pyndeval's differ: the values are ours, of the subtopics.
    results = RUN.rename(columns={"query_id": "qid", "doc_id": "docno"})
    qrels = SUBTOPICS.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    topics = pd.DataFrame({"qid": sorted(set(qrels.qid)), "query": "x"})
    measures = [irm.alpha_nDCG @ 5, irm.AP_IA]
    table = pt.Experiment([results], topics, qrels, names=["run"], eval_metrics=measures)
    expected = provider.calc_aggregate(measures, SUBTOPICS, RUN)
    assert {measure: table.loc[0, str(measure)] for measure in measures} == pytest.approx(expected, rel=1e-14)
    pyndeval = irm.providers.registry["pyndeval"]
    assert all(pyndeval.calc_aggregate([m], SUBTOPICS, RUN)[m] != expected[m] for m in measures)
    assert expected != provider.calc_aggregate(measures, QRELS, RUN)
