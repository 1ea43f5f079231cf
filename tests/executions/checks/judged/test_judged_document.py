"""The judged evaluators of an evaluation document, through a scripted chat-completions server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from retrieval_eval.executions import check_document
from retrieval_eval.executions.checks.evaluators import near_miss
from tests.judging.server import Reply, ScriptedServer

from ...fixtures import ODSP, example_telemetry
from ...judged_support import by_prompt, judge_at
from ...schema_validation import schema_errors

QUESTION = "What does the policy say about joint checks?"
LIKERT = ("Relevance", "Coherence", "Groundedness", "Similarity")


def item(evaluators: dict, **fields: object) -> dict:
    return {"prompt": QUESTION, "response": "A joint check is required above $10,000.",
            "expected_response": "Dwelling claims over $10,000 need a joint check.", "evaluators": evaluators, **fields}


def document(*items: dict, version: str = "1.6.0") -> dict:
    return {"schemaVersion": version, "items": list(items)}


def scores(checked, index: int = 0) -> dict:
    return checked.document["items"][index]["scores"]


# -- the 1-5 evaluators --------------------------------------------------------------------------


@pytest.mark.parametrize("name", LIKERT)
@pytest.mark.parametrize(("score", "threshold", "result"), [(3, None, "pass"), (2, None, "fail"), (5, 5, "pass"),
                                                           (4, 4.5, "fail"), (1, 1, "pass")])
def test_each_likert_evaluator_passes_at_its_threshold(name, score, threshold, result, eval_schema):
    options = {} if threshold is None else {"threshold": threshold}
    with ScriptedServer(by_prompt({}, {"score": score, "reason": "judged"})) as server:
        checked = check_document(document(item({name: options})), judge=judge_at(server.url))
    entry = scores(checked)[name[0].lower() + name[1:]]
    assert entry == {"score": float(score), "result": result, "threshold": 3 if threshold is None else threshold,
                     "reason": "judged", "evaluator": f"retrieval-eval-{name.lower()}"}
    assert checked.document["items"][0]["status"] == result
    assert not schema_errors(eval_schema, checked.document)


@pytest.mark.parametrize(("content", "message"), [
    ("The score is 4.", "not a JSON object"),
    ({"score": 6, "reason": "x"}, "outside the scale 1..5"),
    ({"score": 0, "reason": "x"}, "outside the scale 1..5"),
    ({"score": 3.5, "reason": "x"}, "must be an integer"),
    ({"score": "4", "reason": "x"}, "must be an integer"),
    ({"score": True, "reason": "x"}, "must be an integer"),
    ({"score": 4}, "no 'reason' field"),
    ('Sure: {"score": 4, "reason": "x"}', "not a JSON object"),
])  # fmt: skip
def test_a_reply_that_cannot_be_read_is_an_error_never_a_score(content, message, eval_schema):
    with ScriptedServer(by_prompt({}, content)) as server:
        checked = check_document(document(item({"Relevance": {}, "ExactMatch": {}})), judge=judge_at(server.url))
    entry = scores(checked)["relevance"]
    assert entry["result"] == "error" and "score" not in entry
    assert message in entry["error"] and "items[0]:Relevance" in entry["error"]
    out = checked.document["items"][0]
    assert out["status"] == "partial" and out["error"]["code"] == "evaluatorsFailed"
    assert checked.summary.evaluators.loc["Relevance", "error"] == 1
    assert checked.judge_totals.errors == 1
    assert not schema_errors(eval_schema, checked.document)


def test_a_fenced_json_reply_is_read():
    with ScriptedServer(by_prompt({}, '```json\n{"score": 4, "reason": "ok"}\n```')) as server:
        checked = check_document(document(item({"Relevance": {}})), judge=judge_at(server.url))
    assert scores(checked)["relevance"]["score"] == 4.0


def test_server_errors_after_the_retries_give_an_error_result():
    with ScriptedServer(lambda request: Reply(500, {"error": {"message": "overloaded"}})) as server:
        checked = check_document(document(item({"Coherence": {}})), judge=judge_at(server.url))
        sent = len(server.requests)
    entry = scores(checked)["coherence"]
    assert entry["result"] == "error" and "no reply after 2 attempt(s)" in entry["error"] and "overloaded" in entry["error"]
    assert sent == 2  # the first attempt and one retry


def test_an_invalid_threshold_names_the_evaluator_the_option_and_the_item():
    with ScriptedServer() as server:
        checked = check_document(document(item({"ExactMatch": {}}), item({"Relevance": {"threshold": 6}})),
                                 judge=judge_at(server.url))
        assert not server.requests
    error = scores(checked, 1)["relevance"]["error"]
    assert error.startswith("Evaluator failed: Relevance: option 'threshold':") and error.endswith("(items[1])")
    assert "\n" not in error


def test_texts_an_evaluator_needs_missing_give_the_errored_record():
    docs = document(item({"Relevance": {}}, response=None), item({"Similarity": {}}, expected_response=None),
                    item({"Groundedness": {}}, expected_response=None))
    with ScriptedServer(by_prompt({}, {"score": 4, "reason": "r"})) as server:
        checked = check_document(docs, judge=judge_at(server.url))
        assert not server.requests
    assert "Relevance: no response to judge" in scores(checked, 0)["relevance"]["error"]
    assert "Similarity: no expected_response to judge" in scores(checked, 1)["similarity"]["error"]
    assert "expected_response" in scores(checked, 2)["groundedness"]["error"]


def test_groundedness_reads_the_context_and_the_retrieved_extracts():
    telemetry = example_telemetry()
    with ScriptedServer(by_prompt({}, {"score": 5, "reason": "grounded"})) as server:
        check_document(document(item({"Groundedness": {}}, context="Policy 8.4 applies.", diagnostics=telemetry)),
                       judge=judge_at(server.url))
        text = server.chat_requests()[0].user_text
    assert "[1] Policy 8.4 applies." in text and "Mortgage Company Joint Check" in text
    assert "Dwelling claims over $10,000" not in text  # the expected response stands in only without any context


def test_without_a_judge_the_judged_evaluators_are_skipped_saying_how_to_configure_one():
    checked = check_document(document(item({name: {} for name in (*LIKERT, "GeneralQuality", "Custom")})))
    skipped = checked.document["items"][0]["extensions"]["retrieval_eval"]["skipped_evaluators"]
    assert [entry["evaluator"] for entry in skipped] == [*LIKERT, "GeneralQuality", "Custom"]
    assert all("--model" in entry["reason"] and "judge=" in entry["reason"] for entry in skipped)
    assert checked.verdict == "nothing_checked" and checked.judge_totals is None


def test_a_document_is_judged_in_one_batch_one_request_per_item_and_the_cache_answers_a_second_run(tmp_path):
    items = [item({"Relevance": {}}, prompt=f"Question {number}?") for number in range(8)]
    script = by_prompt({}, {"score": 4, "reason": "ok"})
    slow = lambda request: Reply(**{**script(request).__dict__, "delay": 0.25})  # noqa: E731
    with ScriptedServer(slow) as server:
        judge = judge_at(server.url, cache=tmp_path / "cache")
        started = time.monotonic()
        first = check_document(document(*items), judge=judge)
        elapsed = time.monotonic() - started
        assert len(server.requests) == 8
        second = check_document(document(*items), judge=judge)
        assert len(server.requests) == 8  # nothing sent again
    assert elapsed < 1.5  # concurrent: 8 x 0.25 s one after another would be 2 s
    assert second.judge_totals.cache_hits == 8 and second.judge_totals.requests == 0
    assert second.document == first.document


def test_each_turn_of_a_thread_is_judged():
    thread = {"turns": [{"prompt": "Hi?", "response": "Hello.", "evaluators": {"Coherence": {}}},
                        {"prompt": "Joint checks?", "response": "Above $10,000.", "evaluators": {"Coherence": {}}}]}
    with ScriptedServer(by_prompt({"Hello.": {"score": 5, "reason": "a"}}, {"score": 1, "reason": "b"})) as server:
        checked = check_document(document(thread), judge=judge_at(server.url))
    out = checked.document["items"][0]
    assert [turn["scores"]["coherence"]["result"] for turn in out["turns"]] == ["pass", "fail"]
    assert out["summary"]["overall_status"] == "partial"


# -- RetrievalResult by entailment ---------------------------------------------------------------


def _retrieval(version: str, *claims: str) -> dict:
    options = {"capability": ODSP, "expected_items": [{"retrievalExtract_contains": claim} for claim in claims]}
    return document(item({"RetrievalResult": options}, diagnostics=example_telemetry()), version=version)


def test_from_schema_1_6_0_claims_are_judged_against_the_evidence(eval_schema):
    replies = {"flood": {"supported": False, "evidence": [], "reason": "no passage mentions floods"},
               "joint check": {"supported": True, "evidence": [4, 2], "reason": "passages 2 and 4 say so"}}
    with ScriptedServer(by_prompt({f"Claim: {key}": value for key, value in replies.items()} |
                                  {"Claim: Dwelling": replies["joint check"]})) as server:
        checked = check_document(_retrieval("1.6.0", "Dwelling claims need a joint check", "flood cover"),
                                 judge=judge_at(server.url))
        assert len(server.chat_requests()) == 2
        evidence = server.chat_requests()[0].user_text
    entry = scores(checked)["retrievalResult"]
    assert "[1] (rank 1)" in evidence and "[5] (rank 2)" in evidence
    # Passage 4 is exec-2 rank 1, passage 2 exec-1 rank 2: the best-ranked cited one is reported.
    assert entry["matched_items"] == [{"extractMatch": "Dwelling claims need a joint check", "matchedHitRank": 1,
                                       "matchedHitUrl": entry["matched_items"][0]["matchedHitUrl"],
                                       "reason": "passages 2 and 4 say so"}]
    assert entry["missing_items"] == [{"extractMatch": "flood cover", "reason": "no passage mentions floods"}]
    assert entry["matcher"] == "entailment" and entry["score"] == 0.5 and checked.extract_matcher == "entailment"
    assert not schema_errors(eval_schema, checked.document)


def test_before_schema_1_6_0_claims_are_substrings_even_with_a_judge():
    with ScriptedServer() as server:
        checked = check_document(_retrieval("1.5.0", "joint check"), judge=judge_at(server.url))
        assert not server.requests
    assert checked.extract_matcher == "substring" and "matcher" not in scores(checked)["retrievalResult"]
    assert scores(checked)["retrievalResult"]["result"] == "pass"


@pytest.mark.parametrize("reply", [{"supported": True, "evidence": [], "reason": "x"},
                                   {"supported": True, "evidence": [9], "reason": "x"},
                                   {"supported": "yes", "evidence": [1], "reason": "x"}])
def test_an_unreadable_entailment_gives_the_errored_record(reply):
    with ScriptedServer(by_prompt({}, reply)) as server:
        checked = check_document(_retrieval("1.6.0", "joint check"), judge=judge_at(server.url))
    entry = scores(checked)["retrievalResult"]
    assert entry["result"] == "error" and "entailment judge" in entry["error"] and "score" not in entry


def test_the_new_names_are_guarded_against_misspellings():
    assert near_miss("Custon") == "Custom" and near_miss("GeneralQualty") == "GeneralQuality"
    assert near_miss("textsimilarity") == "TextSimilarity" and near_miss("CompareMeanings") == "CompareMeaning"
