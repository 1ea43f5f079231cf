"""Copilot Studio's judged test methods (GeneralQuality, CompareMeaning, TextSimilarity, Custom) in a document."""

from __future__ import annotations

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.executions import CompareMeaning, Custom, check_document
from tests.judging.server import ScriptedServer

from ...fixtures import example_telemetry
from ...judged_support import by_prompt, judge_at
from ...schema_validation import schema_errors

ALL_TRUE = {"relevance": True, "groundedness": True, "completeness": True, "abstention": True, "reason": "good"}
LABELS = [{"name": "Fully answered", "description": "answers everything", "result": "pass"},
          {"name": "Off-topic / refused", "description": "does not answer", "result": "fail"}]


def item(evaluators: dict, **fields: object) -> dict:
    return {"prompt": "Is a joint check needed?", "response": "Yes, above $10,000.",
            "expected_response": "Yes, for dwelling claims over $10,000.", "evaluators": evaluators, **fields}


def run(evaluators: dict, replies: object, **fields: object):
    with ScriptedServer(replies if callable(replies) else by_prompt({}, replies)) as server:
        checked = check_document({"schemaVersion": "1.7.0", "items": [item(evaluators, **fields)]},
                                 judge=judge_at(server.url, embedding_model="embedder"))
        return checked, list(server.requests)


def score(checked, key: str) -> dict:
    return checked.document["items"][0]["scores"][key]


@pytest.mark.parametrize("failing", [None, "relevance", "groundedness", "completeness", "abstention"])
def test_general_quality_passes_only_when_every_criterion_holds(failing, eval_schema):
    checked, requests = run({"GeneralQuality": {}}, {**ALL_TRUE, **({failing: False} if failing else {})},
                            context="Section 8.4 of the guidebook.")
    entry = score(checked, "generalQuality")
    assert entry["result"] == ("pass" if failing is None else "fail")
    assert entry["failed_criteria"] == ([] if failing is None else [failing])
    assert "Section 8.4" in requests[0].user_text and len(requests) == 1
    assert not schema_errors(eval_schema, checked.document)


def test_general_quality_without_context_does_not_judge_groundedness():
    checked, requests = run({"GeneralQuality": {}}, {"relevance": True, "completeness": True, "abstention": True,
                                                     "reason": "ok"})
    entry = score(checked, "generalQuality")
    assert entry["result"] == "pass" and entry["criteria"]["groundedness"] is None
    assert "groundedness" not in requests[0].user_text and "not judged: no context" in entry["reason"]


def test_general_quality_takes_the_retrieved_extracts_as_context():
    checked, requests = run({"GeneralQuality": {}}, ALL_TRUE, diagnostics=example_telemetry())
    assert "Joint Check is required" in requests[0].user_text and score(checked, "generalQuality")["result"] == "pass"


def test_general_quality_with_a_criterion_that_is_not_a_boolean_is_an_error():
    checked, _ = run({"GeneralQuality": {}}, {**ALL_TRUE, "completeness": 1}, context="c")
    assert score(checked, "generalQuality")["result"] == "error"


@pytest.mark.parametrize(("reply", "options", "result"), [(50, {}, "pass"), (49, {}, "fail"), (100, {"pass_score": 100}, "pass"),
                                                          (0, {"pass_score": 0}, "pass"), (69, {"pass_score": 70}, "fail")])
def test_compare_meaning_passes_at_the_pass_score(reply, options, result):
    checked, _ = run({"CompareMeaning": options}, {"score": reply, "reason": "meaning"})
    entry = score(checked, "compareMeaning")
    assert entry == {"score": reply, "result": result, "threshold": options.get("pass_score", 50), "reason": "meaning"}


def test_compare_meaning_reads_the_schema_custom_form():
    checked, _ = run({"CompareMeaning": {"options": {}, "threshold": 80}}, {"score": 79, "reason": "x"})
    assert score(checked, "compareMeaning")["threshold"] == 80 and score(checked, "compareMeaning")["result"] == "fail"
    with pytest.raises(ConfigError, match="not both"):
        CompareMeaning.from_options({"options": {"pass_score": 60}, "threshold": 80})


@pytest.mark.parametrize("reply", [{"score": 101, "reason": "x"}, {"score": -1, "reason": "x"}, {"score": 50.5, "reason": "x"}])
def test_compare_meaning_off_the_scale_is_an_error(reply):
    checked, _ = run({"CompareMeaning": {}}, reply)
    assert score(checked, "compareMeaning")["result"] == "error"


@pytest.mark.parametrize("name", ["CompareMeaning", "TextSimilarity"])
def test_no_expected_answer_is_an_invalid_result_and_nothing_is_sent(name):
    checked, requests = run({name: {}}, {"score": 90, "reason": "x"}, expected_response=None)
    entry = score(checked, name[0].lower() + name[1:])
    assert entry["result"] == "error" and "invalid" in entry["error"] and "(items[0])" in entry["error"]
    assert not requests


def test_an_invalid_pass_score_names_the_evaluator_the_option_and_the_item():
    checked, requests = run({"CompareMeaning": {"pass_score": 150}, "TextSimilarity": {"pass": 0.5}}, {})
    assert "CompareMeaning: option 'pass_score':" in score(checked, "compareMeaning")["error"]
    assert "TextSimilarity: option 'pass':" in score(checked, "textSimilarity")["error"]
    assert not requests


def test_text_similarity_is_the_cosine_of_the_embeddings():
    checked, requests = run({"TextSimilarity": {"pass_score": 0.99}}, {}, expected_response="Yes, above $10,000.")
    entry = score(checked, "textSimilarity")
    assert entry["score"] == pytest.approx(1.0) and entry["result"] == "pass"  # the same text, the same vector
    assert [request.kind for request in requests] == ["embeddings"]
    assert requests[0].body["input"] == ["Yes, above $10,000.", "Yes, above $10,000."]


def test_text_similarity_needs_an_embedding_model():
    with ScriptedServer() as server:
        checked = check_document({"schemaVersion": "1.7.0", "items": [item({"TextSimilarity": {}})]},
                                 judge=judge_at(server.url))
        assert not server.requests
    assert "--embedding-model" in score(checked, "textSimilarity")["error"]


@pytest.mark.parametrize(("label", "result"), [("Fully answered", "pass"), ("Off-topic / refused", "fail")])
def test_custom_gives_the_label_and_its_mapping(label, result):
    checked, requests = run({"Custom": {"instructions": "Does it answer?", "labels": LABELS}}, {"label": label, "reason": "r"})
    assert score(checked, "custom") == {"result": result, "label": label, "reason": "r"}
    text = requests[0].user_text
    assert "- Fully answered: answers everything" in text and '"pass"' not in text  # the mapping is not shown


def test_custom_with_a_label_it_was_not_given_is_an_error():
    checked, _ = run({"Custom": {"instructions": "Does it answer?", "labels": LABELS}}, {"label": "Partly", "reason": "r"})
    assert score(checked, "custom")["result"] == "error" and "'Partly' is not one of the labels" in score(checked, "custom")["error"]


@pytest.mark.parametrize(("labels", "message"), [
    (LABELS[:1], "at least 2"),
    ([LABELS[0], {**LABELS[1], "name": "fully ANSWERED"}], "two labels are named"),
    ([LABELS[0], {**LABELS[1], "name": "Bad!"}], "letters, digits, spaces"),
    ([LABELS[0], {**LABELS[1], "result": "maybe"}], "labels[1].result"),
    ([LABELS[0], {"name": "x", "result": "fail"}], "labels[1].description"),
])  # fmt: skip
def test_custom_labels_are_validated(labels, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Custom.from_options({"instructions": "Check it.", "labels": labels})


def test_allowed_label_characters():
    names = ["A-b_c", "x/y & z", "C++ 2.0"]
    labels = [{"name": name, "description": "d", "result": "pass"} for name in names]
    assert [label.name for label in Custom.from_options({"instructions": "i", "labels": labels}).options.labels] == names
