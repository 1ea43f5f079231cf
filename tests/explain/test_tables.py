"""explain()'s tables against a plain-Python oracle written from the definitions: each run's top N
in the metrics' order (score descending; ties by descending doc id for the TREC measures, in input
order for Azure's), labels with holes, missed relevant documents, entered/left/moved; and the metric
values are evaluate()'s."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, evaluate
from retrieval_eval.errors import ConfigError
from retrieval_eval.explain import Explanation, explain

QUERIES = ("q1", "q2", "q3")
DOCS = ("a", "b", "c", "ab", "d", "e", "f")


def oracle_order(rows: list[tuple[str, str, float]], query: str, ties: str) -> list[tuple[str, float]]:
    """The query's distinct documents ranked: score descending, ties by ``ties``; a repeated document at its
    first position with its last score (Azure's rule; the TREC runs here repeat none)."""
    first: dict[str, int] = {}
    score: dict[str, float] = {}
    for position, (q, doc, value) in enumerate(rows):
        if q == query:
            first.setdefault(doc, position)
            score[doc] = value
    if ties == "docid":
        # descending doc id in byte order among equal scores
        by_id = sorted(score, key=lambda doc: doc.encode(), reverse=True)
        ranked = sorted(by_id, key=lambda doc: -score[doc])
    else:
        ranked = sorted(score, key=lambda doc: (-score[doc], first[doc]))
    return [(doc, score[doc]) for doc in ranked]


def oracle(qrels, run_a, run_b, top, ties, queries, rel_level=1):
    """The ranked, missed and changes rows of the evaluated ``queries`` (which the Evaluator's query set chose)."""
    judged = {(q, d): label for q, d, label in qrels}
    ranked, missed, changes = [], [], []
    tops = {}
    for key, run in (("a", run_a), ("b", run_b)):
        if run is None:
            continue
        for q in queries:
            order = oracle_order(run, q, ties)
            tops[key, q] = {doc: rank for rank, (doc, _) in enumerate(order[:top], start=1)}
            for rank, (doc, value) in enumerate(order[:top], start=1):
                ranked.append((q, key, rank, doc, value, float(judged.get((q, doc), math.nan))))
            retrieved = {doc for doc, _ in order}
            missed += [(q, key, d, float(label)) for qq, d, label in qrels if qq == q and label >= rel_level and d not in retrieved]
    if run_b is not None:
        for q in queries:
            a, b = tops["a", q], tops["b", q]
            for doc in set(a) | set(b):
                if doc not in a:
                    changes.append((q, doc, "entered", math.nan, float(b[doc])))
                elif doc not in b:
                    changes.append((q, doc, "left", float(a[doc]), math.nan))
                elif a[doc] != b[doc]:
                    changes.append((q, doc, "moved", float(a[doc]), float(b[doc])))
    return sorted(ranked), sorted(missed), sorted(changes, key=repr)


def rows_of(frame: pd.DataFrame, columns: list[str]) -> list[tuple]:
    return [tuple(row) for row in frame[columns].itertuples(index=False)]


def same_rows(got: list[tuple], want: list[tuple]) -> None:
    """Equal as multisets, NaN equal to NaN."""
    def key(row):
        return tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in row)

    assert sorted(map(key, got), key=repr) == sorted(map(key, want), key=repr)


@st.composite
def cases(draw):
    qrels = []
    for q in QUERIES:
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=4))
        qrels += [(q, d, draw(st.integers(0, 3))) for d in docs]

    def a_run():
        rows = []
        for q in draw(st.lists(st.sampled_from(QUERIES), unique=True, min_size=1, max_size=3)):
            docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
            rows += [(q, d, float(draw(st.integers(0, 3)))) for d in docs]  # few scores: many ties
        return rows

    return qrels, a_run(), a_run(), draw(st.integers(1, 5))


def frames(qrels, run):
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]).astype({"score": float}))  # fmt: skip


@pytest.mark.parametrize(("metrics", "ties"), [(["ndcg@5", "P@3"], "docid"), (["ndcg_exp@3", "holes@3"], "input")])
@settings(max_examples=max(5, settings().max_examples // 4))  # each example evaluates four times: the CI's budget
@given(case=cases())
def test_tables_are_the_definitions(metrics, ties, case):
    qrels, run_a, run_b, top = case
    qrels_frame, a = frames(qrels, run_a)
    _, b = frames(qrels, run_b)
    explanation = explain(qrels_frame, a, b, metrics, top=top)
    results = {"a": evaluate(qrels_frame, a, metrics), "b": evaluate(qrels_frame, b, metrics)}
    evaluated = list(dict.fromkeys(results["a"].query_ids.to_pylist() + results["b"].query_ids.to_pylist()))
    assert explanation.queries["query_id"].tolist() == evaluated
    ranked, missed, changes = oracle(qrels, run_a, run_b, top, ties, evaluated)
    same_rows(rows_of(explanation.ranked, ["query_id", "run", "rank", "doc_id", "score", "label"]), ranked)
    same_rows(rows_of(explanation.missed, ["query_id", "run", "doc_id", "label"]), missed)
    same_rows(rows_of(explanation.changes, ["query_id", "doc_id", "change", "rank_a", "rank_b"]), changes)
    queries = explanation.queries.set_index("query_id")
    for key, suffix in (("a", ""), ("b", "_b")):
        result = results[key]
        ids = result.query_ids.to_pylist()
        for name in metrics:
            np.testing.assert_array_equal(queries.loc[ids, name + suffix].to_numpy(), result.values(name))
            assert explanation.means[key][name] == result.summary.loc[name, "mean"] or math.isnan(explanation.means[key][name])
        holes = [sum(1 for r in ranked if r[0] == q and r[1] == key and math.isnan(r[5])) for q in ids]
        assert queries.loc[ids, "holes" + suffix].tolist() == holes
        assert queries.loc[ids, "missed" + suffix].tolist() == [sum(1 for m in missed if m[:2] == (q, key)) for q in ids]
    first = metrics[0]
    delta = queries[first + "_b"] - queries[first]
    np.testing.assert_array_equal(queries[first + "_delta"].to_numpy(), delta.to_numpy())
    higher = first != "holes@3"
    want = [None if math.isnan(d) else "tie" if d == 0 else "win" if (d > 0) == higher else "loss" for d in delta]
    assert [None if pd.isna(o) else o for o in queries["outcome"]] == want
    assert_compared_over_shared_queries(explanation, results)


def assert_compared_over_shared_queries(explanation: Explanation, results: dict) -> None:
    """Each delta is B's exactly rounded mean minus A's over the queries both define; the lacking queries are
    named; the note is there exactly when some delta leaves a query out."""
    queries = explanation.queries
    for name in explanation.metrics:
        pairs = [(x, y) for x, y in zip(queries[name], queries[name + "_b"]) if not (math.isnan(x) or math.isnan(y))]
        want = math.fsum(y for _, y in pairs) / len(pairs) - math.fsum(x for x, _ in pairs) / len(pairs) if pairs else math.nan
        got = explanation.delta(name)
        assert got == want or (math.isnan(got) and math.isnan(want))
    ids = {key: result.query_ids.to_pylist() for key, result in results.items()}
    assert explanation.lacking == {"a": [q for q in ids["b"] if q not in ids["a"]], "b": [q for q in ids["a"] if q not in ids["b"]]}
    complete = all(queries[name].notna().all() and queries[name + "_b"].notna().all() for name in explanation.metrics)
    note = explanation.comparison_note()
    assert (note is None) == complete
    for key, lacked in explanation.lacking.items():
        assert (lacked != []) == (note is not None and f"{key} lacks " in note)


@pytest.mark.parametrize(
    ("duplicates", "ranked"),
    [
        ("last", [(1, "x", 3.0), (2, "z", 2.0), (3, "y", 2.0)]),  # Azure's rule: the first position, the last score
        ("max", [(1, "x", 3.0), (2, "z", 2.0), (3, "y", 2.0)]),
        ("first", [(1, "z", 2.0), (2, "y", 2.0), (3, "x", 1.0)]),
    ],
)
def test_a_repeated_document_takes_the_score_the_duplicate_policy_keeps(duplicates, ranked):
    qrels = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["x", "y"], "relevance": [1, 2]})
    run = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["x", "z", "x", "y"], "score": [1.0, 2.0, 3.0, 2.0]})
    options = EvaluationOptions(run_duplicates=duplicates)
    explanation = explain(qrels, run, metrics=["ndcg_exp@3"], top=3, options=options)
    assert rows_of(explanation.ranked, ["rank", "doc_id", "score"]) == ranked
    labels = {"x": 1.0, "y": 2.0}
    assert explanation.ranked["label"].fillna(-1).tolist() == [labels.get(doc, -1) for _, doc, _ in ranked]


def test_one_run_has_no_comparison_and_texts_are_joined():
    qrels = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": ["x", "y", "x"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": ["x", "w"], "score": [2.0, 1.0]})
    options = EvaluationOptions(query_set="qrels")  # query 2, judged and not retrieved, is evaluated too
    explanation = explain(qrels, run, metrics=["P@2"], options=options, topics={"1": "first", 2: "second"}, docs={"x": "Doc X"})
    assert isinstance(explanation, Explanation) and not explanation.paired
    assert explanation.queries["text"].tolist() == ["first", "second"]
    assert explanation.queries["holes"].tolist() == [1, 0] and explanation.queries["missed"].tolist() == [0, 1]
    assert explanation.ranked["title"].tolist() == ["Doc X", None]
    assert explanation.missed["title"].tolist() == ["Doc X"]
    assert explanation.changes.empty and "outcome" not in explanation.queries
    assert explanation.query("2").row["P@2"] == 0.0  # an id typed as text finds the integer id


@pytest.mark.parametrize(("kwargs", "match"), [({"top": 0}, "top must be"), ({"metrics": ["holes"]}, "name of a column")])
def test_bad_arguments_are_refused(kwargs, match):
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["x"], "score": [1.0]})
    with pytest.raises(ConfigError, match=match):
        explain(qrels, run, **kwargs)
    with pytest.raises(ConfigError, match="not among"):
        explain(qrels, run, metrics=["P@1"]).query("nope")


def test_a_query_one_run_lacks_is_left_out_of_the_deltas_and_named():
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "a", "c"], "relevance": [1, 0, 1, 1]})
    a = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    b = a[a["query_id"] != "q3"]
    explanation = explain(qrels, a, b, ["P_1"])  # trec_eval's query set: the run's queries
    # A: P_1 = 1, 0, 1 (mean 2/3); B lacks q3: 1, 0 (mean 1/2). Over the shared q1, q2 the runs are equal.
    assert explanation.means["a"]["P_1"] == 2 / 3 and explanation.means["b"]["P_1"] == 0.5
    assert explanation.delta("P_1") == 0.0
    assert explanation.comparison_note() == "deltas are over the queries both runs define: b lacks 1 query the other run has (q3)"


@given(st.lists(st.lists(st.tuples(st.sampled_from(["q1", "q:2", "1", "q"]), st.sampled_from(["d", ":d", "1:d", "d2"])),
                         max_size=8), max_size=3))
def test_pair_codes_number_pairs_in_order_of_first_appearance_across_pieces(pieces):
    from retrieval_eval.explain.tables import _pair_codes

    codes, n_pairs = _pair_codes([np.array([q for q, _ in piece], dtype=object) for piece in pieces],
                                 [np.array([d for _, d in piece], dtype=object) for piece in pieces])  # fmt: skip
    pairs = [pair for piece in pieces for pair in piece]
    first = {pair: index for index, pair in reversed(list(enumerate(dict.fromkeys(pairs))))}
    assert codes.tolist() == [first[pair] for pair in pairs] and n_pairs == len(first)
