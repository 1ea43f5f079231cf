"""evaluate's ndcg_exp lies in [0, 1] whatever the labels: a label below 0 has gain 0, as label 0."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import evaluate
from tests.strategies import collection, label_scale, tables


def ndcg(labels: dict[str, int], order: list[str], **options) -> float:
    qrels = [{"query_id": "q", "doc_id": d, "relevance": label} for d, label in labels.items()]
    run = [{"query_id": "q", "doc_id": d, "score": float(-rank)} for rank, d in enumerate(order)]
    return float(evaluate(qrels, run, ["ndcg_exp@10"], **options).per_query["ndcg_exp@10"].iloc[0])


def test_a_worse_order_of_negative_labels_no_longer_scores_above_the_ideal():
    # Before: labels -1 and -2 in the worse order scored 1.0948, above the ideal order's 1.0.
    negative = {"a": -1, "b": -2}
    assert ndcg(negative, ["b", "a"], label_min=-2) == ndcg(negative, ["a", "b"], label_min=-2) == 0.0
    graded = {"a": 2, "b": -1, "c": -2}
    ideal, worse = ndcg(graded, ["a", "b", "c"], label_min=-2), ndcg(graded, ["c", "b", "a"], label_min=-2)
    assert ideal == 1.0 and 0.0 < worse < ideal
    assert worse == ndcg({"a": 2, "b": 0, "c": 0}, ["c", "b", "a"])  # negative labels weigh as 0


@pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")
@given(data=st.data(), scale=label_scale(low=-5), k=st.integers(1, 8))
def test_ndcg_exp_lies_in_the_unit_interval_and_the_ideal_order_scores_1(data, scale, k):
    queries = data.draw(collection(*scale, int_ids=False))
    qrels, run = tables(queries, None)
    values = evaluate(qrels, run, [f"ndcg_exp@{k}"], label_min=scale[0], label_max=scale[1]).per_query[f"ndcg_exp@{k}"]
    assert not values.isna().any() and ((values >= 0.0) & (values <= 1.0)).all()
    # Each query's judged documents retrieved in the order of their labels, best first (a repeated one keeps its last).
    ideal_run = pd.DataFrame([(q, d, float(label)) for q, (gt, _) in queries.items() for d, label in dict(gt).items()],
                             columns=["query_id", "doc_id", "score"])  # fmt: skip
    ideal = evaluate(qrels, ideal_run, [f"ndcg_exp@{k}"], label_min=scale[0], label_max=scale[1]).per_query
    expected = [1.0 if max(dict(queries[q][0]).values()) > 0 else 0.0 for q in ideal["query_id"]]
    assert ideal[f"ndcg_exp@{k}"].tolist() == expected
