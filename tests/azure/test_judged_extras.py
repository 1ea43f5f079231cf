"""What the judged drop-ins add to the SDK: a cache, retries, a concurrent batch; and where they differ from it."""

from __future__ import annotations

import json
import math

import pytest

from retrieval_eval.azure import (
    EvaluationException,
    GroundednessEvaluator,
    QAEvaluator,
    RelevanceEvaluator,
    SimilarityEvaluator,
)
from retrieval_eval.judging.limits import Limits, RetryPolicy
from tests.judging.server import Reply, ScriptedServer, chat_reply


def score_of_query(request) -> str:
    """A reply whose score is the number in the query (so that results depend on the row, not the order)."""
    text = request.body["messages"][1]["content"]
    number = int(text.split("question ")[1].split("?")[0]) if "question " in text else 4
    if number % 7 == 3:
        return json.dumps({"reason": "no score"})
    return json.dumps({"reason": f"row {number}", "score": 1 + number % 5})


def config(server) -> dict:
    return {"azure_endpoint": server.url, "azure_deployment": "judge", "api_key": "k"}


def test_a_second_call_is_answered_from_the_cache(tmp_path):
    with ScriptedServer(lambda request: chat_reply(score_of_query(request), request)) as server:
        evaluator = RelevanceEvaluator(config(server), cache=tmp_path / "cache.jsonl")
        first = evaluator(query="question 1?", response="An answer.")
        sent = len(server.requests)
        second = RelevanceEvaluator(config(server), cache=tmp_path / "cache.jsonl")(query="question 1?",
                                                                                     response="An answer.")
        assert sent == 1 and len(server.requests) == 1
    assert second == first


def test_replay_mode_sends_nothing_and_misses_are_an_error(tmp_path):
    with ScriptedServer(lambda request: chat_reply(score_of_query(request), request)) as server:
        evaluator = RelevanceEvaluator(config(server), cache=tmp_path, cache_mode="replay")
        with pytest.raises(Exception, match="replay mode sends nothing"):
            evaluator(query="question 1?", response="An answer.")
        assert server.requests == []


def test_a_rate_limited_request_is_retried():
    def script(request):
        if request.number == 1:
            return Reply(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat_reply(json.dumps({"score": 5, "reason": "ok"}), request)

    with ScriptedServer(script) as server:
        output = RelevanceEvaluator(config(server), retry=RetryPolicy(max_retries=2, base_delay=0))(
            query="q?", response="r.")
        assert len(server.requests) == 2
    assert output["relevance"] == 5.0


@pytest.mark.parametrize("concurrency", [1, 3, 16])
def test_batch_results_do_not_depend_on_concurrency(concurrency):
    rows = [{"query": f"question {n}?", "response": f"answer {n}."} for n in range(30)]
    rows[5] = {"query": "question 5?"}  # no response: the SDK's check
    with ScriptedServer(lambda request: chat_reply(score_of_query(request), request)) as server:
        evaluator = RelevanceEvaluator(config(server), limits=Limits(concurrency=concurrency))
        batch = evaluator.evaluate_batch(rows)
        singles = [evaluator(**row) if "response" in row else None for row in rows]
    assert len(batch) == 30
    for ours, single in zip(batch, singles):
        if single is None:
            assert ours is None
        else:
            assert json.dumps(ours, sort_keys=False) == json.dumps(single, sort_keys=False)
    unknown = [str(n + 1) for n in range(30) if n % 7 == 3]
    assert [key for key, _ in batch.errors] == sorted(unknown + ["6"], key=int)
    assert batch.totals.errors == len(batch.errors) and batch.totals.items == 30
    assert math.isnan(batch[3]["relevance"]) and batch[3]["relevance_result"] == "unknown"
    assert "Response is a required input" in dict(batch.errors)["6"]
    assert list(batch.table().columns)[:2] == ["relevance", "relevance_score"]


def test_batch_reply_errors_are_listed_and_the_call_raises():
    with ScriptedServer(lambda request: chat_reply("not json", request)) as server:
        evaluator = SimilarityEvaluator(config(server))
        batch = evaluator.evaluate_batch([{"query": "q", "response": "r", "ground_truth": "g"}])
        with pytest.raises(EvaluationException, match="not JSON"):
            evaluator(query="q", response="r", ground_truth="g")
    assert batch.outputs == (None,) and "not JSON" in batch.errors[0][1]


def test_batch_of_conversations_and_of_both_groundedness_prompts():
    conversation = {"messages": [{"role": "user", "content": "question 1?"}, {"role": "assistant", "content": "a"},
                                 {"role": "user", "content": "question 2?"}, {"role": "assistant", "content": "b"}]}
    rows = [{"conversation": conversation}, {"query": "question 4?", "response": "r", "context": "c"},
            {"response": "r", "context": "question 2?"}]
    with ScriptedServer(lambda request: chat_reply(score_of_query(request), request)) as server:
        evaluator = GroundednessEvaluator(config(server))
        batch = evaluator.evaluate_batch(rows)
        singles = [evaluator(**row) for row in rows]
    assert [json.dumps(output) for output in batch] == [json.dumps(output) for output in singles]
    assert len(batch[0]["evaluation_per_turn"]["groundedness"]) == 2


def test_qa_batch_equals_its_calls():
    rows = [{"query": f"question {n}?", "response": "Paris.", "context": "Paris is the capital.",
             "ground_truth": "Paris"} for n in range(4)]
    with ScriptedServer(lambda request: chat_reply(json.dumps({"score": 4, "reason": "r"}), request)) as server:
        evaluator = QAEvaluator(config(server))
        batch = evaluator.evaluate_batch(rows)
        singles = [evaluator(**row) for row in rows]
    assert [json.dumps(output) for output in batch] == [json.dumps(output) for output in singles]
    assert list(batch[0])[-8:][0] == "f1_score" and batch.errors == ()


def test_the_callers_configuration_is_not_changed():
    model_config = {"azure_endpoint": "http://127.0.0.1:9", "azure_deployment": "judge", "api_key": "k"}
    RelevanceEvaluator(model_config)
    assert model_config == {"azure_endpoint": "http://127.0.0.1:9", "azure_deployment": "judge", "api_key": "k"}


def test_decision_controls_are_refused_as_the_sdk_refuses_them():
    with pytest.raises(EvaluationException, match="decision model evaluators"):
        RelevanceEvaluator({"base_url": "http://127.0.0.1:9/v1", "model": "m"}, timeout=5)
