"""TREC measures through evaluate(): names from every peer, conventions, policies and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from retrieval_eval import REGISTRY, ConfigError, InputError, Metric, UnknownMetricError, evaluate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # trec_eval
        ("ndcg_cut.10", "ndcg@10"), ("ndcg_cut_10", "ndcg@10"), ("P.5", "precision@5"), ("P_5", "precision@5"),
        ("recip_rank", "recip_rank"), ("map_cut.100", "map@100"), ("recall_1000", "recall@1000"),
        ("success.1", "success@1"), ("Rprec", "rprec"), ("infAP", "infap"), ("num_rel_ret", "num_rel_ret"),
        # ir_measures
        ("nDCG@10", "ndcg@10"), ("R@100", "recall@100"), ("RR", "recip_rank"), ("AP", "map"), ("AP@10", "map@10"),
        ("P@10", "precision@10"), ("P(rel=2)@10", "precision(rel=2)@10"), ("RR(rel=2)", "recip_rank(rel=2)"),
        ("Judged@10", "judged@10"), ("NumRelRet", "num_rel_ret"),
        # ranx
        ("ndcg@10", "ndcg@10"), ("hit_rate@5", "success@5"), ("mrr", "recip_rank"), ("mrr@10", "recip_rank@10"),
        ("precision@5", "precision@5"), ("r-precision", "rprec"), ("f1@10", "f1@10"), ("ndcg_burges@10", "ndcg_burges@10"),
        # interpolated precision and geometric means
        ("iprec_at_recall_0.10", "iprec_at_recall(recall=0.1)"), ("IPrec@0.5", "iprec_at_recall(recall=0.5)"),
        ("iprec_at_recall(recall=1)", "iprec_at_recall(recall=1.0)"), ("11pt_avg", "iprec_11pt"), ("gm_map", "gm_map"),
        # the default relevance level is left out of canonical names
        ("precision(rel=1)@5", "precision@5"),
    ],
)
def test_peer_names_parse_to_canonical_names(text, expected):
    metric = REGISTRY.parse(text)
    assert str(metric) == expected
    assert REGISTRY.parse(str(metric)) == metric


def test_rel_defaults_apply_only_to_measures_that_take_it():
    assert str(REGISTRY.parse("map", defaults={"rel": 2})) == "map(rel=2)"
    assert str(REGISTRY.parse("map(rel=3)", defaults={"rel": 2})) == "map(rel=3)"
    assert str(REGISTRY.parse("ndcg@10", defaults={"rel": 2})) == "ndcg@10"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("precision(rel=x)@5", "rel must be an integer"),
        ("precision(rel=1.5)@5", "rel must be an integer"),
        ("ndcg(rel=2)@5", "ndcg takes no parameters"),
        ("map(depth=2)", "map takes only rel"),
        ("P@0", "positive integer"),
        ("rprec@5", "takes no cutoff"),
        ("iprec_at_recall", "needs recall=VALUE"),
        ("iprec_at_recall(recall=1.5)", "from 0 to 1"),
        ("iprec_at_recall(recall=x)", "from 0 to 1"),
    ],
)
def test_bad_parameters_and_cutoffs_are_clear_errors(text, message):
    with pytest.raises(ConfigError, match=message):
        REGISTRY.parse(text)


def test_unknown_trec_names_suggest_the_closest():
    with pytest.raises(UnknownMetricError, match="recip_rank"):
        REGISTRY.parse("recip_rnak")
    with pytest.raises(UnknownMetricError, match="bpref"):
        REGISTRY.parse("bperf")


def frames():
    qrels = pd.DataFrame(
        {"query_id": ["q1", "q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "c", "a", "z"], "relevance": [2, 1, 0, 1, 1]}
    )
    run = pd.DataFrame(
        {"query_id": ["q1", "q1", "q1", "q2", "q9"], "doc_id": ["b", "x", "a", "b", "a"], "score": [1.0, 1.0, 0.5, 3.0, 1.0]}
    )
    return qrels, run


def test_trec_conventions_average_over_queries_in_both_unless_all_queries():
    qrels, run = frames()
    both = evaluate(qrels, run, ["map", "num_rel"])
    assert list(both.per_query["query_id"]) == ["q1", "q2"]  # q3 not retrieved, q9 not judged
    every = evaluate(qrels, run, ["map", "num_rel"], query_set="qrels")  # trec_eval -c
    assert list(every.per_query["query_id"]) == ["q1", "q2", "q3"]
    q3 = every.per_query.set_index("query_id").loc["q3"]
    assert q3["map"] == 0.0 and q3["num_rel"] == 1


def test_ties_go_by_descending_document_id():
    qrels, run = frames()
    # q1: b and x tie at 1.0; x > b, so x ranks first and the first relevant document (b) is second.
    per_query = evaluate(qrels, run, ["recip_rank"]).per_query.set_index("query_id")
    assert per_query.loc["q1", "recip_rank"] == 0.5
    # Input order puts b first.
    per_query = evaluate(qrels, run, ["recip_rank"], ties="input").per_query.set_index("query_id")
    assert per_query.loc["q1", "recip_rank"] == 1.0


def test_integer_doc_ids_tie_as_decimal_text():
    qrels = pd.DataFrame({"query_id": [1, 1], "doc_id": [9, 10], "relevance": [0, 1]})
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [10, 9], "score": [1.0, 1.0]})
    # "9" > "10" as text, so 9 ranks first, as trec_eval ranks the same ids read from a file.
    assert evaluate(qrels, run, ["recip_rank"]).per_query["recip_rank"].tolist() == [0.5]


def test_a_repeated_document_in_a_run_is_an_error_naming_the_row():
    qrels, run = frames()
    run = pd.concat([run, run.iloc[[0]]], ignore_index=True)
    with pytest.raises(InputError, match="row 6") as raised:
        evaluate(qrels, run, ["map"])
    assert "more than once" in str(raised.value)
    kept = evaluate(qrels, run, ["map"], run_duplicates="max")
    assert kept.per_query["map"].notna().all()


def test_a_repeated_judgment_is_an_error_under_trec_conventions():
    qrels, run = frames()
    qrels = pd.concat([qrels, qrels.iloc[[1]]], ignore_index=True)
    with pytest.raises(InputError, match="row 6"):
        evaluate(qrels, run, ["map"])
    evaluate(qrels, run, ["map"], qrels_duplicates="last")


def test_rel_level_makes_fewer_documents_relevant():
    qrels, run = frames()
    result = evaluate(qrels, run, ["num_rel", "map"], rel_level=2)
    per_query = result.per_query.set_index("query_id")
    # Columns go by the names asked for; the canonical names say which rel level they are at.
    assert list(per_query.columns) == ["num_rel", "map"]
    assert result.canonical_names == {"num_rel": "num_rel(rel=2)", "map": "map(rel=2)"}
    assert per_query.loc["q1", "num_rel"] == 1 and per_query.loc["q2", "num_rel"] == 0


def test_negative_labels_are_allowed_for_trec_measures_only():
    qrels, run = frames()
    qrels.loc[0, "relevance"] = -1
    assert evaluate(qrels, run, ["bpref"]).per_query["bpref"].notna().all()
    with pytest.raises(InputError, match="label range"):
        evaluate(qrels, run, ["bpref", "ndcg_exp@3"])


def test_max_docs_truncates_each_ranking():
    qrels, run = frames()
    per_query = evaluate(qrels, run, ["num_ret", "map"], max_docs=1).per_query.set_index("query_id")
    assert per_query.loc["q1", "num_ret"] == 1 and per_query.loc["q1", "map"] == 0.0


@pytest.mark.parametrize(
    ("options", "message"),
    [({"rel_level": "one"}, "rel_level"), ({"max_docs": -3}, "max_docs"), ({"ties": "random"}, "ties"), ({"k": 0}, "cutoff")],
)
def test_bad_options_are_clear_errors(options, message):
    qrels, run = frames()
    with pytest.raises(ConfigError, match=message):
        evaluate(qrels, run, ["map", "precision"], **options)


def test_one_call_scores_both_families_each_with_its_own_ties():
    qrels, run = frames()
    result = evaluate(qrels, run, ["recip_rank", "top1_relevance", Metric("ndcg", 3)])
    per_query = result.per_query.set_index("query_id")
    assert per_query.loc["q1", "recip_rank"] == 0.5  # trec_eval: x before b
    assert per_query.loc["q1", "top1_relevance"] == 1  # Azure: b (input order) first


def test_geometric_means_summarize_gm_map_and_gm_bpref():
    qrels, run = frames()
    result = evaluate(qrels, run, ["map", "gm_map", "bpref", "gm_bpref"], query_set="qrels")
    per_query = result.per_query
    assert per_query["gm_map"].tolist() == per_query["map"].tolist()  # per query, average precision
    floor = np.maximum(per_query["map"].to_numpy(), 1e-5)  # q3 retrieved nothing: AP 0 counts as 1e-5
    assert result.means["gm_map"] == pytest.approx(float(np.exp(np.log(floor).mean())), rel=1e-15)
    assert result.means["gm_map"] < result.means["map"]


def test_a_metric_object_is_checked_like_a_name():
    with pytest.raises(ConfigError, match="needs recall"):
        REGISTRY.parse(Metric("iprec_at_recall"))
    assert REGISTRY.parse(Metric("precision", 5, (("rel", "1"),))) == Metric("precision", 5)
