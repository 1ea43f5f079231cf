"""A check run as a gate: a name close to a built-in evaluator's is refused, a run that checked nothing says so,
configurations of the wrong shape are refused, and arguments (and matchers) of the wrong kind are the library's
errors, naming the argument."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import CheckSummary, RetrievalHit, RetrievalResult, Verdict, check_document, check_log
from retrieval_eval.executions.batch.engine import plan_checks
from retrieval_eval.executions.batch.tables import flatten_records
from retrieval_eval.executions.checks.evaluators import BUILT_IN, near_miss

QUERY = {"capability": "Email", "selector": "budget"}
EXECUTIONS = [{"capability": "Email", "queries": [{"queryString": "Q3 budget"}]}]
IDENTIFIER = string.ascii_letters + string.digits + "_"


def document(*items: dict, **root: object) -> dict:
    return {"schemaVersion": "1.6.0", "items": list(items), **root}


def item(evaluators: dict | None = None, **fields: object) -> dict:
    record = {"prompt": "Budget?", "response": "It is in the Q3 mail.", **fields}
    if evaluators is not None:
        record["evaluators"] = evaluators
    return record


def write_log(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


# -- a name close to a built-in one's ------------------------------------------------------------


def test_a_misspelled_evaluator_is_refused_before_anything_is_scored():
    # It used to pass for a custom evaluator: skipped, and the item passed unchecked.
    source = document(item({"ExactMatch": {}, "RetreivalQuery": QUERY}, expected_response="x"))
    with pytest.raises(InputError) as caught:
        check_document(source)
    assert str(caught.value) == (
        "field 'items[0].evaluators.RetreivalQuery': unknown evaluator 'RetreivalQuery'; did you mean "
        "'RetrievalQuery'? (a custom evaluator of a name this close to a built-in one is declared: "
        "custom_evaluators=, or --custom-evaluator)"
    )


@pytest.mark.parametrize("name", ["retrievalquery", "RETRIEVALQUERY", "Retrieval_Query", "retrieval_query"])
def test_case_and_underscores_do_not_make_another_name(name):
    with pytest.raises(InputError, match=f"unknown evaluator '{name}'; did you mean 'RetrievalQuery'"):
        check_document(document(item({name: QUERY})))


def test_the_file_defaults_and_turns_are_named(tmp_path):
    path = tmp_path / "document.json"
    path.write_text(json.dumps(document(item(), default_evaluators={"toolUse": {"tools": ["a"]}})), encoding="utf-8")
    with pytest.raises(InputError, match=f"^{path}, field 'default_evaluators.toolUse': .*did you mean 'ToolUse'"):
        check_document(path)
    thread = {"turns": [{"prompt": "a"}, {"prompt": "b", "evaluators": {"Citation": {}}}]}
    with pytest.raises(InputError, match=r"field 'items\[0\]\.turns\[1\]\.evaluators\.Citation'.*'Citations'\?"):
        check_document(document(thread))


def _one_edits(name: str, alphabet: str) -> set[str]:
    """Every name one deletion, insertion, substitution or swap of neighbours away from ``name``."""
    splits = [(name[:i], name[i:]) for i in range(len(name) + 1)]
    edits = {head + tail[1:] for head, tail in splits if tail}
    edits |= {head + tail[1] + tail[0] + tail[2:] for head, tail in splits if len(tail) > 1}
    edits |= {head + char + tail[1:] for head, tail in splits if tail for char in alphabet}
    edits |= {head + char + tail for head, tail in splits for char in alphabet}
    return edits - {name}


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_one_edit_misspelling_of_every_evaluator_is_refused_with_that_name(name):
    # Letters of the name and others, both cases, a digit and an underscore.
    alphabet = "".join(sorted(set(name.lower() + name.upper() + "xqZ1_")))
    misses = _one_edits(name, alphabet) | {name.lower(), name.upper(), name.swapcase()}
    assert {miss: near_miss(miss) for miss in misses} == dict.fromkeys(misses, name)


@given(st.sampled_from(BUILT_IN), st.data())
def test_any_one_edit_of_any_identifier_character_is_refused(name, data):
    position = data.draw(st.integers(0, len(name)))
    char = data.draw(st.sampled_from(IDENTIFIER))
    edit = data.draw(st.sampled_from(["delete", "insert", "substitute"]))
    if edit == "delete":
        position = min(position, len(name) - 1)
        miss = name[:position] + name[position + 1 :]
    elif edit == "insert":
        miss = name[:position] + char + name[position:]
    else:
        position = min(position, len(name) - 1)
        miss = name[:position] + char + name[position + 1 :]
    assert near_miss(miss) == (None if miss == name else name)


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_built_in_name_is_no_near_miss(name):
    assert near_miss(name) is None


@pytest.mark.parametrize(
    "name", ["toneCheck", "Fluency", "Helpfulness", "KeywordCheck", "RegexMatch", "ToolCall", "Accuracy", "Coverage"]
)
def test_custom_evaluators_far_from_every_built_in_name_are_skipped(name):
    checked = check_document(document(item({name: {}, "ExactMatch": {}}, expected_response="x")))
    skipped = checked.document["items"][0]["extensions"]["retrieval_eval"]["skipped_evaluators"]
    assert [entry["evaluator"] for entry in skipped] == [name] and "custom evaluator" in skipped[0]["reason"]


def test_a_custom_evaluator_with_a_close_name_is_declared():
    source = document(item({"ToolUsage": {}, "ExactMatch": {}}, expected_response="x"))
    with pytest.raises(InputError, match="did you mean 'ToolUse'"):
        check_document(source)
    checked = check_document(source, custom_evaluators=["ToolUsage"])
    skipped = checked.document["items"][0]["extensions"]["retrieval_eval"]["skipped_evaluators"]
    assert [entry["evaluator"] for entry in skipped] == ["ToolUsage"]


@pytest.mark.parametrize(
    ("custom", "message"),
    [
        (["ToolUse"], "custom_evaluators: 'ToolUse' is a built-in evaluator, not a custom one"),
        ("ToolUsage", "custom_evaluators must be a collection of names, got str"),
        ([3], "custom_evaluators: a name is a string, got 3"),
        (None, "custom_evaluators must be a collection of names, got NoneType"),
    ],
)
def test_bad_custom_evaluator_declarations(custom, message):
    with pytest.raises(ConfigError, match=f"^{message}$"):
        check_document(document(item()), custom_evaluators=custom)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("RetreivalQuery", "unknown evaluator 'RetreivalQuery'; did you mean 'RetrievalQuery'?"),
        ("tooluse", "unknown evaluator 'tooluse'; did you mean 'ToolUse'?"),
        ("Citation", "unknown evaluator 'Citation'; did you mean 'Citations'?"),
        ("toneCheck", "unknown evaluator 'toneCheck'; a log is checked with RetrievalQuery, RetrievalResult, "),
        ("Citations", "'Citations' cannot check an execution log"),
    ],
)
def test_a_log_configuration_refuses_every_other_name_and_suggests_the_close_one(tmp_path, name, message):
    log = write_log(tmp_path / "log.jsonl", [{"id": "a", "retrieval_executions": EXECUTIONS}])
    with pytest.raises(ConfigError, match=f"^{message}"):
        check_log(log, {name: {}})
    with pytest.raises(ConfigError, match=f"^items.a.evaluators: {message}"):
        check_log(log, {"items": {"a": {"evaluators": {name: {}}}}})


# -- a run that checked nothing ------------------------------------------------------------------

KEPT = {"relevance": {"score": 4.0, "result": "pass", "threshold": 3}}
# Each shape of a document on which no evaluator ran; every item's status is pass, as upstream rolls it up.
NOTHING_IN_DOCUMENTS = {
    "an item without evaluators": document(item()),
    "replace mode with no evaluators": document(item(evaluators_mode="replace"), default_evaluators={"ExactMatch": {}}),
    "empty evaluator maps": document(item({}), default_evaluators={}),
    "only an LLM-judged evaluator": document(item({"Relevance": {}})),
    "only custom evaluators": document(item({"toneCheck": {}}), item({"Fluency": {"threshold": 3}})),
    "only kept scores": document(item({"Relevance": {}}, scores=KEPT)),
    "unchecked turns": document({"turns": [{"prompt": "a"}, {"prompt": "b", "evaluators": {"Coherence": {}}}]}),
}


def nothing_in_logs(tmp_path: Path) -> dict[str, tuple[Path, object]]:
    one = write_log(tmp_path / "one.jsonl", [{"id": "a", "retrieval_executions": EXECUTIONS}])
    return {
        "a log without records": (write_log(tmp_path / "empty.jsonl", []), {"RetrievalQuery": QUERY}),
        "no checks": (one, {}),
        "no default and no item checks": (one, {"default_evaluators": {}, "items": {}}),
        "checks replaced by none": (
            one,
            {"default_evaluators": {"RetrievalQuery": QUERY}, "items": {"a": {"evaluators_mode": "replace"}}},
        ),
    }


def assert_nothing_checked(checked) -> None:
    summary = checked.summary
    assert checked.verdict == summary.verdict == "nothing_checked" and not checked.passed
    assert summary.ran == 0 and summary.to_dict()["verdict"] == "nothing_checked"
    assert set(summary.statuses) <= {"pass"}
    text = summary.to_text()
    assert "Empty DataFrame" not in text
    assert text.splitlines()[-1].startswith("nothing checked: no evaluator ran on any item")


@pytest.mark.parametrize("shape", NOTHING_IN_DOCUMENTS)
def test_every_document_that_checks_nothing_has_the_verdict_nothing_checked(shape):
    assert_nothing_checked(check_document(NOTHING_IN_DOCUMENTS[shape]))


LOG_SHAPES = ["a log without records", "no checks", "no default and no item checks", "checks replaced by none"]


@pytest.mark.parametrize("shape", LOG_SHAPES)
def test_every_log_check_that_checks_nothing_has_the_verdict_nothing_checked(tmp_path, shape):
    log, config = nothing_in_logs(tmp_path)[shape]
    assert_nothing_checked(check_log(log, config))


def test_the_summary_of_nothing_reads_as_one_clear_line():
    assert CheckSummary.from_outcomes(check_document(document(item())).outcomes, ["pass"]).to_text() == (
        "items: 1 pass\nnothing checked: no evaluator ran on any item"
    )
    skipped = check_document(document(item({"Relevance": {}, "toneCheck": {}}))).summary.to_text()
    assert skipped.splitlines()[-2:] == ["items: 1 pass", "nothing checked: no evaluator ran on any item (2 skipped)"]


def test_one_evaluation_is_something_checked_and_the_items_left_unchecked_are_counted():
    checked = check_document(document(item(), item({"ExactMatch": {}}, expected_response="It is in the Q3 mail.")))
    assert checked.verdict == "pass" and checked.passed
    assert (checked.summary.ran, checked.summary.unchecked) == (1, 1)
    lines = checked.summary.to_text().splitlines()
    assert lines[-2:] == ["items: 2 pass", "not checked: 1 item(s) on which no evaluator ran"]


def test_a_thread_is_checked_when_one_of_its_turns_is():
    thread = {"turns": [{"prompt": "a"}, {"prompt": "b", "response": "c", "evaluators": {"Citations": {}}}]}
    summary = check_document(document(thread, item({"Relevance": {}}))).summary
    assert (summary.ran, summary.unchecked, summary.verdict) == (1, 1, "fail")  # no citation in "c"
    assert summary.to_dict()["unchecked"] == 1


def test_a_log_record_without_checks_is_counted_unchecked():
    tables = flatten_records([{"retrieval_executions": EXECUTIONS}] * 3, ["a", "b", "c"])
    own = {"a": {"evaluators": {"RetrievalQuery": QUERY}}, "b": {"evaluators": {"ToolUse": {"tools": ["x"]}}}}
    config = {"items": own}
    summary = check_log(tables, config).summary
    assert (summary.ran, summary.unchecked, summary.verdict) == (2, 1, "fail")  # b invoked no tool


@pytest.mark.parametrize(
    "source",
    [
        document(item({"ExactMatch": {}}, error={"code": "agentRequestFailed", "message": "timeout"})),
        document(item({"Relevance": {}}, scores={"relevance": {"score": 1.0, "result": "fail", "threshold": 3}})),
    ],
    ids=["the agent gave no response", "a kept score failed"],
)
def test_a_failed_item_outranks_nothing_checked(source):
    checked = check_document(source)
    assert checked.summary.ran == 0
    assert checked.verdict == checked.summary.verdict == "fail" and not checked.passed


@given(st.lists(st.sampled_from(["pass", "fail", "partial", "error"]), max_size=5), st.integers(0, 3))
def test_the_verdict_is_fail_then_nothing_checked_then_pass(statuses, ran):
    from retrieval_eval.executions.outcomes import verdict

    expected = "fail" if set(statuses) - {"pass"} else "pass" if ran else "nothing_checked"
    assert verdict(statuses, ran) == expected


# -- arguments of the wrong kind -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"document": 42}, "document must be a mapping or a path, got int"),
        ({"document": [item()]}, "document must be a mapping or a path, got list"),
        ({"executions": [EXECUTIONS]}, "executions must be a path or a mapping from item id to executions, got list"),
        ({"executions": {1: EXECUTIONS}}, "executions: the item ids are strings (extensions.id), got 1"),
        ({"matcher": "substring"}, "matcher must be callable (snippet, candidates) -> Verdict, got str"),
        ({"partial_match_mode": ["f1"]}, "partial_match_mode must be one of token_f1, upstream_v1, got ['f1']"),
        ({"partial_match_mode": "f1"}, "partial_match_mode must be one of token_f1, upstream_v1, got 'f1'"),
    ],
)
def test_check_document_names_the_argument_of_the_wrong_kind(arguments, message):
    arguments = {"document": document(item()), **arguments}
    with pytest.raises(ConfigError) as caught:
        check_document(arguments.pop("document"), **arguments)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("log", "config", "message"),
    [
        ("LOG", [1, 2], "config must be a mapping of checks or the path of a JSON file, got list"),
        ("LOG", None, "config must be a mapping of checks or the path of a JSON file, got NoneType"),
        ("LOG", 3, "config must be a mapping of checks or the path of a JSON file, got int"),
        ([{"id": "a"}], {}, "log must be a path or ExecutionTables, got list"),
        (None, {}, "log must be a path or ExecutionTables, got NoneType"),
    ],
)
def test_check_log_names_the_argument_of_the_wrong_kind(tmp_path, log, config, message):
    if log == "LOG":
        log = write_log(tmp_path / "log.jsonl", [{"id": "a", "retrieval_executions": EXECUTIONS}])
    with pytest.raises(ConfigError) as caught:
        check_log(log, config)
    assert str(caught.value) == message


def test_check_log_takes_the_tables_of_a_log():
    tables = flatten_records([{"retrieval_executions": EXECUTIONS}], ["a"])
    assert check_log(tables, {"RetrievalQuery": QUERY}).verdict == "pass"


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        ({3: {}}, ConfigError, "^an evaluator's name is a string, got 3$"),
        ({"default_evaluators": {None: {}}}, ConfigError, "^default_evaluators: an evaluator's name is a string"),
        ({"items": []}, InputError, "^field 'items': must be an object keyed by record id, got list$"),
        ({"default_evaluators": []}, InputError, "^field 'default_evaluators': expected an object of evaluators, got"),
        ({"default_evaluators": ""}, InputError, "^field 'default_evaluators': expected an object of evaluators, got"),
        ({"items": {"a": {"evaluators": 0}}}, InputError, "^field 'items.a.evaluators': expected an object of"),
        (
            {"items": {}, "RetrievalQuery": QUERY},
            InputError,
            "^unknown key 'RetrievalQuery'; this object has only 'default_evaluators' and 'items'$",
        ),
        (
            {"items": {"a": {"evaluator": {"RetrievalQuery": QUERY}}}},
            InputError,
            "^field 'items.a': unknown key 'evaluator'; this object has only 'evaluators' and 'evaluators_mode'$",
        ),
    ],
)
def test_a_log_configuration_of_the_wrong_shape_is_refused_not_read_as_empty(tmp_path, config, error, message):
    log = write_log(tmp_path / "log.jsonl", [{"id": "a", "retrieval_executions": EXECUTIONS}])
    with pytest.raises(error, match=message):
        check_log(log, config)


def test_null_parts_of_a_log_configuration_are_absent():
    tables = flatten_records([{"retrieval_executions": EXECUTIONS}], ["a"])
    config = {"default_evaluators": {"RetrievalQuery": QUERY}, "items": {"a": {"evaluators": None}}}
    assert check_log(tables, config).verdict == "pass"
    assert check_log(tables, {"default_evaluators": None, "items": None}).verdict == "nothing_checked"


def test_the_batch_plan_suggests_the_close_name():
    with pytest.raises(ConfigError, match="^'ToolUze' cannot run on an execution log; did you mean 'ToolUse'\\? the"):
        plan_checks(1, {"ToolUze": {}})


@pytest.mark.parametrize("target", [3, None, ["out.json"]])
def test_writing_to_something_that_is_no_path_names_the_argument(target):
    tables = flatten_records([{"retrieval_executions": EXECUTIONS}], ["a"])
    for checked in (check_document(document(item({"ExactMatch": {}}))), check_log(tables, {"RetrievalQuery": QUERY})):
        message = f"path must be a path (str or os.PathLike), got {type(target).__name__}"
        with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
            checked.write(target)


HIT = {"rank": 1, "webUrl": "https://a", "extracts": [{"text": "Q3 budget plan"}]}
RESULT = {"capability": "Email", "expected_items": [{"retrievalExtract_contains": "budget"}]}


def test_a_matcher_that_is_not_callable_is_refused_at_once():
    with pytest.raises(ConfigError, match="^RetrievalResult: matcher must be callable .* got str$"):
        RetrievalResult("Email", expected_items=["budget"], matcher="substring")
    with pytest.raises(ConfigError, match="got NoneType$"):
        RetrievalResult.from_options(RESULT, matcher=None)


@pytest.mark.parametrize(
    "matcher",
    [
        lambda snippet, candidates: None,
        lambda snippet, candidates: True,
        lambda snippet, candidates: Verdict(RetrievalHit(rank=9, webUrl="https://elsewhere")),
    ],
    ids=["None", "a bool", "a hit that is no candidate"],
)
def test_a_matcher_s_answer_that_is_no_verdict_on_the_candidates_is_an_errored_record(matcher):
    telemetry = {"retrieval_executions": [{"capability": "Email", "retrievalHits": [HIT]}]}
    out = RetrievalResult.run(RESULT, telemetry, matcher=matcher)
    assert set(out) == {"result", "error"} and out["error"].startswith("Evaluator failed: RetrievalResult: the matcher")
    supported = RetrievalResult.run(RESULT, telemetry, matcher=lambda snippet, candidates: Verdict(candidates[0]))
    assert supported["result"] == "pass" and supported["matched_items"][0]["matchedHitUrl"] == "https://a"
