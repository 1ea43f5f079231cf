"""``ties="average"`` against the oracle that enumerates every ordering of tied scores (tests/reference/tie_average.py).

Random runs with many ties (scores from three values, tie groups of up to 6 documents), graded,
zero and negative labels, unjudged documents, cutoffs inside tie groups, queries on one side
only; without ties the values are the ordinary ones bit for bit; each value lies between the
smallest and largest over the orderings.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from retrieval_eval import evaluate
from retrieval_eval.errors import ConfigError
from tests.reference.tie_average import orderings, tie_averaged

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

TREC = [
    "precision@1", "precision@3", "recall@2", "recall@5", "ndcg", "ndcg@2", "ndcg@4", "ndcg_burges", "ndcg_burges@3",
    "map", "map@3", "recip_rank", "recip_rank@2", "rprec", "success@1", "success@3", "judged@3", "unjudged@2",
    "relative_precision@3", "num_rel_ret", "num_ret", "set_f", "precision(rel=2)@2", "map(rel=2)", "success(rel=2)@2",
]
DOCUMENT_RETRIEVAL = ["ndcg_exp@1", "ndcg_exp@3", "holes@2", "holes", "fidelity"]
DOCS = [f"d{i}" for i in range(8)]


@st.composite
def collections(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    run, qrels = [], []
    for q in ("q1", "q2", "q3"):
        if draw(st.booleans()) or q == "q1":
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
            run += [(q, doc, draw(st.sampled_from([0.0, 1.0, 2.0]))) for doc in docs]
        if draw(st.booleans()) or q == "q1":
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
            qrels += [(q, doc, draw(st.sampled_from([-1, 0, 1, 2, 3]))) for doc in docs]
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    for _, docs in run_frame.groupby("query_id"):
        sizes = docs["score"].value_counts()
        assume(max(sizes) <= 6 and math.prod(math.factorial(s) for s in sizes) <= 1500)
    return pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]), run_frame


def _check(qrels: pd.DataFrame, run: pd.DataFrame, metrics: list[str], **options) -> None:
    ours = evaluate(qrels, run, metrics=metrics, ties="average", **options).per_query.set_index("query_id")
    oracle = tie_averaged(qrels, run, metrics, **options)
    assert set(ours.index) == set(oracle)
    for query, values in oracle.items():
        for metric, (mean, low, high) in values.items():
            value = float(ours.loc[query, metric])
            assert value == pytest.approx(mean, rel=1e-12, abs=1e-14), (query, metric, value, mean)
            assert low - 1e-12 <= value <= high + 1e-12, (query, metric)


@settings(max_examples=25)
@given(collections())
def test_trec_measures_are_the_mean_over_every_ordering(collection: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    _check(*collection, TREC, query_set="both")


@settings(max_examples=15)
@given(collections())
def test_trec_measures_on_every_judged_query(collection: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    _check(*collection, ["precision@2", "ndcg@3", "map", "recip_rank", "success@2"], query_set="qrels")


@settings(max_examples=20)
@given(collections())
def test_document_retrieval_measures_are_the_mean_over_every_ordering(collection: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    qrels, run = collection
    _check(qrels.assign(relevance=qrels["relevance"].clip(lower=0)), run, DOCUMENT_RETRIEVAL)


@settings(max_examples=25)
@given(collections(), st.randoms(use_true_random=False))
def test_without_ties_the_values_are_the_ordinary_ones_to_the_bit(collection, random) -> None:
    qrels, run = collection
    scores = list(range(len(run)))
    random.shuffle(scores)
    run = run.assign(score=[float(s) for s in scores])
    for metrics, ties, extra in ((TREC, "docid", {}), (DOCUMENT_RETRIEVAL, "input", {})):
        judged = qrels.assign(relevance=qrels["relevance"].clip(lower=0)) if ties == "input" else qrels
        plain = evaluate(judged, run, metrics=metrics, ties=ties, **extra).per_query
        averaged = evaluate(judged, run, metrics=metrics, ties="average", **extra).per_query
        pd.testing.assert_frame_equal(plain, averaged, check_exact=True)


def test_a_worked_example() -> None:
    """Three documents tied at the top, the relevant one among them: P@1 = 1/3, RR = (1 + 1/2 + 1/3) / 3."""
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "c", "d"], "score": [1.0, 1.0, 1.0, 0.0]})
    row = evaluate(qrels, run, metrics=["precision@1", "recip_rank", "map", "success@2"], ties="average").per_query.iloc[0]
    assert row["precision@1"] == pytest.approx(1 / 3)
    assert row["recip_rank"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert row["map"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert row["success@2"] == pytest.approx(2 / 3)
    assert len(orderings([("a", 1.0), ("b", 1.0), ("c", 1.0), ("d", 0.0)])) == 6


@pytest.mark.parametrize("metric", ["bpref", "infap", "f1@3", "ndcg(gains=1:3.0)", "max_relevance@3"])
def test_a_measure_without_a_tie_averaged_value_says_so(metric: str) -> None:
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "score": [1.0]})
    with pytest.raises(ConfigError, match="has no tie-averaged value"):
        evaluate(qrels, run, metrics=[metric], ties="average")


def test_max_docs_is_refused() -> None:
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "score": [1.0]})
    with pytest.raises(ConfigError, match="does not take max_docs"):
        evaluate(qrels, run, metrics=["map"], ties="average", max_docs=5)


def test_the_command_line_takes_ties_average(tmp_path, capsys) -> None:
    from retrieval_eval.cli import main

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 1.0 r\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "P@1", "--ties", "average", "--trec"]) == 0
    assert capsys.readouterr().out.split() == ["P_1", "all", "0.5000"]
    assert main(["evaluate", str(qrels), str(run), "-m", "bpref", "--ties", "average"]) == 2
    assert "bpref has no tie-averaged value" in capsys.readouterr().err
