"""One duplicate rule: built Qrels and every other way in judge a repeated judgment as the path form does."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import ConfigError, EvaluationOptions, Evaluator, InputError, Qrels

METRIC_SETS = (["map", "ndcg@5"], ["ndcg_exp@3", "fidelity"], ["map", "ndcg_exp@3"])
POLICIES = (None, "last", "first", "max", "raise")
RUN = pd.DataFrame({"query_id": ["a", "a", "a", "b"], "doc_id": ["x", "y", "z", "x"], "score": [3.0, 2.0, 1.0, 1.0]})


def _outcome(make):
    """The per-query table, or the error message after the name of the source: what a user sees either way."""
    try:
        return make().per_query.to_dict("list")
    except InputError as error:
        return f"{type(error).__name__}: {str(error).partition(', row ')[2]}"


judgments = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["x", "y", "z"]), st.integers(0, 3)), min_size=1, max_size=8
)


@given(judgments, st.sampled_from(METRIC_SETS), st.sampled_from(POLICIES))
def test_built_qrels_follow_the_rule_the_path_form_follows(tmp_path_factory, rows, metrics, policy):
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
    path = tmp_path_factory.mktemp("qrels") / "qrels.trec"
    path.write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in rows))
    options = EvaluationOptions(qrels_duplicates=policy, label_max=4)
    by_path = _outcome(lambda: Evaluator(str(path), metrics, options=options).evaluate(RUN))
    for built in (lambda: Qrels.read(str(path)), lambda: Qrels.read(frame), lambda: Qrels(Qrels.read(frame).table, source=str(path))):
        # The same outcome: the same numbers, or the same error naming the same row.
        assert _outcome(lambda: Evaluator(built(), metrics, options=options).evaluate(RUN)) == by_path


def test_a_repeated_judgment_under_trec_measures_is_the_same_error_either_way(tmp_path):
    path = tmp_path / "qrels.trec"
    path.write_text("a 0 x 1\na 0 y 0\na 0 x 2\n")
    with pytest.raises(InputError, match=r"qrels\.trec, row 3: query 'a' doc 'x' is judged more than once"):
        Evaluator(str(path), ["map"])
    qrels = Qrels.read(str(path))  # reading alone decides nothing
    assert qrels.duplicates is None and qrels.repeated_judgments == 1
    with pytest.raises(InputError, match=r"qrels\.trec, row 3: query 'a' doc 'x' is judged more than once"):
        Evaluator(qrels, ["map"])
    # Azure's metrics keep the last label, built or not.
    assert Evaluator(qrels, ["top1_relevance"]).evaluate(RUN).means == Evaluator(str(path), ["top1_relevance"]).evaluate(RUN).means


def test_a_policy_chosen_when_reading_holds_and_a_different_explicit_one_is_an_error(tmp_path):
    path = tmp_path / "qrels.trec"
    path.write_text("a 0 x 1\na 0 x 0\n")
    kept_max = Qrels.read(str(path), duplicates="max")
    assert Evaluator(kept_max, ["map"]).evaluate(RUN).means == {"map": 1.0}
    with pytest.raises(ConfigError, match=r"read with duplicates='max' and the evaluation asks qrels_duplicates='last'"):
        Evaluator(kept_max, ["map"], options=EvaluationOptions(qrels_duplicates="last"))
    # Given once, the evaluation's policy re-indexes undecided qrels.
    assert Evaluator(Qrels.read(str(path)), ["map"],
                     options=EvaluationOptions(qrels_duplicates="first")).evaluate(RUN).means == {"map": 1.0}
