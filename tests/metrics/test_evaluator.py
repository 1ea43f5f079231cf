"""The Evaluator: the same numbers as evaluate(), options validated once, one front door for many runs."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from retrieval_eval import ConfigError, EvaluationOptions, Evaluator, Qrels, evaluate
from retrieval_eval.metrics import EvaluationPlan
from retrieval_eval.metrics.registry import REGISTRY
from tests.strategies import example_metric, reads_standard_qrels

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")
MIXED = ["ndcg@10", "map", "P.5,10", "iprec_11pt", "gm_map", "num_ret", "ndcg_exp@3", "holes@5", "fidelity"]


def test_an_evaluator_gives_what_evaluate_gives_for_every_run():
    evaluator = Evaluator(QRELS, MIXED, thresholds={"map": 0.2}, options=EvaluationOptions(k=5, query_set="qrels"))
    run = pd.read_csv(RUN, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"])
    halves = {"whole": run, "half": run[run["query_id"].isin(sorted(set(run["query_id"]))[::2])]}
    for name, frame in halves.items():
        frame = frame[["query_id", "doc_id", "score"]]
        ours = evaluator.evaluate(frame, name=name)
        expected = evaluate(QRELS, frame, MIXED, thresholds={"map": 0.2}, k=5, query_set="qrels")
        pd.testing.assert_frame_equal(ours.per_query, expected.per_query, check_exact=True)
        pd.testing.assert_frame_equal(ours.summary, expected.summary, check_exact=True)
        assert ours.run == name and ours.passed == expected.passed and ours.query_counts == expected.query_counts


def test_the_summary_needs_no_dataframe_and_matches_it():
    result = Evaluator(QRELS, MIXED, thresholds={"ndcg@10": 0.5}).evaluate(RUN)
    frame = result.summary
    assert list(result.means) == list(frame.index)
    assert result.means == pytest.approx(frame["mean"].to_dict(), abs=0, rel=0)
    for name, metric in result.names:
        np.testing.assert_array_equal(result.values(metric), result.per_query[name].to_numpy(dtype=np.float64))
        np.testing.assert_array_equal(result.values(name), result.values(metric))
        np.testing.assert_array_equal(result.values(str(metric)), result.values(metric))
    with pytest.raises(KeyError, match="bpref was not evaluated"):
        result.values("bpref")


def test_options_settle_from_the_reference_of_the_metrics():
    trec = Evaluator(QRELS, ["map"]).options
    azure = Evaluator(QRELS, ["ndcg_exp@3"]).options
    assert (trec.query_set, trec.run_duplicates, trec.qrels_duplicates, trec.ties) == ("both", "raise", "raise", None)
    assert (azure.query_set, azure.run_duplicates, azure.qrels_duplicates) == ("qrels", "last", "last")
    given = Evaluator(QRELS, ["map"], options=EvaluationOptions(query_set="union", run_duplicates="max")).options
    assert (given.query_set, given.run_duplicates, given.qrels_duplicates) == ("union", "max", "raise")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"k": 0}, "the cutoff k must be a positive integer, got 0"),
        ({"k": "ten"}, "the cutoff k must be a positive integer, got 'ten'"),
        ({"k": True}, "the cutoff k must be a positive integer, got True"),
        ({"rel_level": "two"}, "rel_level must be an integer, got 'two'"),
        ({"max_docs": -1}, "max_docs must be an integer >= 0, got -1"),
        ({"query_set": "all"}, r"query_set must be one of \['qrels', 'both', 'union'\], got 'all'"),
        ({"ties": "score"}, r"ties must be one of \['docid', 'input', 'ranx', 'average'\]"),
        ({"run_duplicates": "sum"}, r"run duplicates must be one of \['last', 'first', 'max', 'raise'\]"),
        ({"qrels_duplicates": "any"}, "qrels duplicates must be one of"),
        ({"label_min": 2, "label_max": 2}, r"label_max \(2\) must be greater than label_min \(2\)"),
        ({"label_min": 0.5}, "label_min must be an integer"),
    ],
)
def test_bad_options_are_one_clear_error_when_made(options, message):
    with pytest.raises(ConfigError, match=message):
        EvaluationOptions(**options)


def test_options_are_frozen_and_text_cutoffs_become_integers():
    options = EvaluationOptions(k="10", max_docs=np.int64(100))
    assert (options.k, options.max_docs) == (10, 100) and type(options.max_docs) is int
    with pytest.raises(AttributeError):
        options.k = 3  # type: ignore[misc]
    # The library's error, as sweep() raises it for the same mistake.
    with pytest.raises(ConfigError, match="options must be an EvaluationOptions, got dict"):
        Evaluator(QRELS, ["map"], options={"k": 3})  # type: ignore[arg-type]


def test_a_plan_is_resolved_once_and_travels_without_data():
    plan = EvaluationPlan.resolve(["P.5,10", "ndcg_exp@3", "map"], {"holes": 1}, EvaluationOptions(ties="input"))
    assert [str(m) for m in plan.metrics] == ["precision@5", "precision@10", "ndcg_exp@3", "map", "holes"]
    assert {(family, ties) for family, ties, _ in plan.groups} == {("trec", "input"), ("document_retrieval", "input")}
    assert {str(m) for m in plan.integer_metrics} == {"holes"}
    copy = pickle.loads(pickle.dumps(plan))
    qrels = Qrels.read(QRELS)
    expected = Evaluator.from_plan(plan, qrels).evaluate(RUN)
    again = Evaluator.from_plan(copy, qrels).evaluate(RUN)
    pd.testing.assert_frame_equal(again.per_query, expected.per_query, check_exact=True)


def test_a_plan_of_an_unregistered_family_value_scores_through_that_family():
    from retrieval_eval.metrics.families.document_retrieval import DOCUMENT_RETRIEVAL

    seen = []

    def counted_passes(*arguments):
        seen.append(arguments[3])
        return DOCUMENT_RETRIEVAL.passes(*arguments)

    variant = dataclasses.replace(DOCUMENT_RETRIEVAL, passes=counted_passes)
    metrics = [REGISTRY.parse("ndcg_exp@3"), REGISTRY.parse("holes")]
    plan = EvaluationPlan.of_family(variant, metrics, EvaluationOptions(label_min=0, label_max=4))
    assert [name for name, _ in plan.names] == ["ndcg_exp@3", "holes"] and plan.objective == plan.names[0]
    assert plan.query_set == "qrels" and plan.options.run_duplicates == "last" and plan.thresholds == ()
    ours = Evaluator.from_plan(plan, Qrels.read(QRELS)).evaluate(RUN)
    expected = evaluate(QRELS, RUN, ["ndcg_exp@3", "holes"])
    pd.testing.assert_frame_equal(ours.per_query, expected.per_query, check_exact=True)
    assert seen == [tuple(metrics)]
    with pytest.raises(ConfigError, match="map is not a metric of the family 'document_retrieval'"):
        EvaluationPlan.of_family(variant, [REGISTRY.parse("map")])


def test_built_qrels_are_used_as_they_are():
    qrels = Qrels.read(QRELS)
    evaluator = Evaluator(qrels, ["map"])
    assert evaluator.qrels is qrels
    assert repr(evaluator).startswith("Evaluator(Qrels(") and "metrics=[map]" in repr(evaluator)


def test_every_metric_of_the_registry_extracts_its_values():
    """A definition that forgot its extraction, or reads another column, is caught here.

    Over the metrics that read standard qrels; those of judgment groups and preferences have the same test in
    their own files.
    """
    metrics = [REGISTRY.parse(example_metric(d, 4)) for d in REGISTRY if reads_standard_qrels(d)]
    result = Evaluator(QRELS, metrics, options=EvaluationOptions(query_set="qrels")).evaluate(RUN)
    for metric in metrics:
        one = evaluate(QRELS, RUN, [metric], query_set="qrels")
        np.testing.assert_array_equal(result.values(metric), one.values(metric), err_msg=str(metric))
    assert len({result.values(m).tobytes() for m in metrics}) > len(metrics) // 2


def test_the_data_layer_has_a_kernel_code_for_every_choice_of_the_policies():
    from retrieval_eval import policies
    from retrieval_eval.data._table import DUPLICATE_CODES
    from retrieval_eval.data.join import TIE_CODES

    assert set(TIE_CODES) == set(policies.TIE_ORDERS) and set(DUPLICATE_CODES) == set(policies.DUPLICATE_POLICIES)
    assert len(set(TIE_CODES.values())) == len(TIE_CODES) and len(set(DUPLICATE_CODES.values())) == len(DUPLICATE_CODES)


def test_the_objective_is_one_of_the_names_or_joins_them_last():
    assert Evaluator(QRELS, ["nDCG@5", "P@3"]).objective == ("nDCG@5", REGISTRY.parse("ndcg@5"))
    listed = Evaluator(QRELS, ["nDCG@5", "P@3"], objective="precision@3")
    assert listed.objective == ("P@3", REGISTRY.parse("P@3")) and [name for name, _ in listed.names] == ["nDCG@5", "P@3"]
    added = Evaluator(QRELS, ["P@3"], objective="RR")
    assert added.objective == ("RR", REGISTRY.parse("recip_rank")) and [name for name, _ in added.names] == ["P@3", "RR"]
    with pytest.raises(ConfigError, match="^the objective is one metric, and P means 9"):
        Evaluator(QRELS, ["map"], objective="P")


def test_the_evaluator_asks_the_scored_run_for_each_join_kind_once():
    from retrieval_eval.data import JoinSource, Run

    class Counting(JoinSource):
        """A run that counts the joins asked of it, by kind."""

        def __init__(self, run: Run) -> None:
            self.run, self.name, self.source, self.query_ids, self.asked = run, run.name, run.source, run.query_ids, []

        def join(self, kind, qrels, duplicates, ties):
            self.asked.append((kind.name, ties))
            return self.run.join(kind, qrels, duplicates, ties)

    metrics = ["ndcg_exp@3", "err@5", "cwl_rbp", "map", "P@5"]
    options = EvaluationOptions(ties="docid")
    source = Counting(Run.read(RUN))
    evaluator = Evaluator(QRELS, metrics, options=options)
    got, expected = evaluator.evaluate(source), evaluator.evaluate(RUN)
    # Document retrieval, gdeval and C/W/L read one ranked run; the trec_eval measures one judged-ranks join.
    assert sorted(source.asked) == [("judged ranks", "docid"), ("ranked run", "docid")]
    for metric in metrics:
        assert got.values(metric).tobytes() == expected.values(metric).tobytes()
