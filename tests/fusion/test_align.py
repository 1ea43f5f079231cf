"""align(): the union of the runs' queries and documents, each run's score and ranx rank of each."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import ranx
from hypothesis import given, settings

from retrieval_eval.data import ids as data_ids
from retrieval_eval.errors import ConfigError, DuplicateError, InputError
from retrieval_eval.fusion import align
from tests.fusion.runs import runs
from tests.reference import fusion_scores as oracle


@settings(max_examples=max(10, settings.default.max_examples // 4))
@given(runs())
def test_each_query_holds_the_union_in_candidate_order_with_every_runs_rank(dicts):
    aligned = align(dicts)
    queries = list(dict.fromkeys(q for d in dicts for q in d))
    assert aligned.query_ids.to_pylist() == queries
    for q, query in enumerate(queries):
        rows = slice(aligned.offsets[q], aligned.offsets[q + 1])
        ranked = [[d for d, _ in oracle.ranked(run.get(query, {}))] for run in dicts]
        assert aligned.doc_ids[rows].to_pylist() == list(dict.fromkeys(d for docs in ranked for d in docs))
        assert aligned.depths[q].tolist() == [len(docs) for docs in ranked]
        for r, (run, docs) in enumerate(zip(dicts, ranked)):
            rank_of = {d: i + 1 for i, d in enumerate(docs)}
            for doc, score, rank in zip(aligned.doc_ids[rows].to_pylist(), aligned.scores[rows, r], aligned.ranks[rows, r]):
                assert rank == rank_of.get(doc, 0)
                assert (np.isnan(score) and doc not in rank_of) or score == run[query][doc]


def test_a_ranx_run_is_read_in_its_own_order():
    # 30 documents with three scores: ties that ranx's quicksort leaves out of input order.
    dicts = [{"q": {f"d{i}": float(i % 3) for i in range(30)}}, {"q": {f"d{i}": float(i % 2) for i in range(0, 30, 2)}}]
    from_dicts, from_ranx = align(dicts), align([ranx.Run(d) for d in dicts])
    assert from_ranx.doc_ids.equals(from_dicts.doc_ids)
    assert (from_ranx.ranks == from_dicts.ranks).all()
    assert np.array_equal(from_ranx.scores, from_dicts.scores, equal_nan=True)
    stable = [d for d, _ in sorted(dicts[0]["q"].items(), key=lambda item: -item[1])]
    assert from_ranx.doc_ids.to_pylist() != stable  # the ties are out of input order


REPEATED = pd.DataFrame({"query_id": ["q"] * 4, "doc_id": ["a", "b", "a", "c"], "score": [1.0, 5.0, 9.0, 2.0]})
OTHER = {"q": {"c": 1.0}}


@pytest.mark.parametrize(
    "policy, score_of_a, rank_of_a",
    [("last", 9.0, 1), ("first", 1.0, 3), ("max", 9.0, 1)],
)
def test_a_repeated_document_keeps_its_first_position_and_the_policys_score(policy, score_of_a, rank_of_a):
    aligned = align([REPEATED, OTHER], duplicates=policy)
    assert aligned.doc_ids.to_pylist()[aligned.ranks[:, 0].tolist().index(rank_of_a)] == "a"
    assert aligned.scores[aligned.doc_ids.to_pylist().index("a"), 0] == score_of_a
    assert aligned.depths.tolist() == [[3, 1]]


def test_a_repeated_document_is_an_error_naming_its_row_under_raise():
    with pytest.raises(DuplicateError, match=r"row 3: query 'q' doc 'a' is retrieved more than once \(duplicates='raise'"):
        align([OTHER, REPEATED], duplicates="raise")


def test_documents_whose_hashes_collide_stay_apart(monkeypatch):
    # Every string id hashes to 0: documents are told apart by their bytes alone.
    monkeypatch.setattr(data_ids, "fnv1a_hashes", lambda offsets, data: np.zeros(len(offsets) - 1, dtype=np.uint64))
    aligned = align([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 3.0, "ab": 1.0, "a": 0.5}}])
    assert aligned.doc_ids.to_pylist() == ["a", "b", "ab"]
    assert aligned.ranks.tolist() == [[1, 3], [2, 1], [0, 2]]


def test_integer_ids_are_matched_by_value_and_kinds_do_not_mix():
    ints = pd.DataFrame({"query_id": [1, 1, 2], "doc_id": [10, 20, 10], "score": [1.0, 2.0, 3.0]})
    aligned = align([ints, ints.assign(score=[5.0, 1.0, 1.0])])
    assert aligned.query_ids.to_pylist() == [1, 2]
    assert aligned.doc_ids.to_pylist() == [20, 10, 10]
    assert aligned.ranks.tolist() == [[1, 2], [2, 1], [1, 1]]
    with pytest.raises(InputError, match="doc_ids are strings here but integers in the first run"):
        align([ints, ints.astype({"doc_id": str})])
    with pytest.raises(InputError, match="query_ids are strings here but integers"):
        align([ints, ints.astype({"query_id": str})])


def test_runs_come_from_files_and_frames_alike(tmp_path):
    path = tmp_path / "a.trec"
    path.write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d3 1 1.0 a\n")
    frame = pd.DataFrame({"query_id": ["q2", "q1"], "doc_id": ["d3", "d9"], "score": [4.0, 1.0]})
    aligned = align([path, frame], names=["bm25", "dense"])
    assert aligned.run_names == ("bm25", "dense")
    assert aligned.doc_ids.to_pylist() == ["d1", "d2", "d9", "d3"]
    assert aligned.ranks.tolist() == [[1, 0], [2, 0], [0, 1], [1, 1]]


@pytest.mark.parametrize(
    "runs, options, message",
    [
        ([OTHER], {}, "fusion needs at least two runs, got 1"),
        (OTHER, {}, "runs must be a list of two or more runs, got dict"),
        ([OTHER, OTHER], {"top_k_in": 0}, "top_k_in must be a positive integer"),
        ([OTHER, OTHER], {"duplicates": "keep"}, r"duplicates must be one of \['last', 'first', 'max', 'raise'\]"),
        ([OTHER, OTHER], {"names": ["one"]}, "names must be 2 strings"),
    ],
)
def test_bad_arguments_are_one_line_errors(runs, options, message):
    with pytest.raises(ConfigError, match=message):
        align(runs, **options)
