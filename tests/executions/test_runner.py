"""The evaluation-document runner: evaluator resolution, scores, skipped evaluators, status rollup, schema validity."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import (
    Citations,
    ExactMatch,
    PartialMatch,
    RetrievalQuery,
    RetrievalResult,
    check_document,
    thread_summary,
    turn_status,
)

from .fixtures import ODSP, example_telemetry
from .schema_validation import schema_errors

DATA = Path(__file__).resolve().parents[2] / "data"
CHECKS = {"RetrievalQuery": RetrievalQuery, "RetrievalResult": RetrievalResult}
WORKED_EXAMPLES = {
    "Q1": ("RetrievalQuery", {"capability": ODSP, "selector": "mortgage", "includes": ["mortgage", "joint check"],
                              "excludes": ["FileType:OneNote"]}),
    "Q3": ("RetrievalQuery", {"capability": ODSP, "selector": "deductible", "includes": ["deductible"],
                              "excludes": ["filetype:docx"]}),
    "Q5": ("RetrievalQuery", {"capability": "Email", "selector": "mortgage", "includes": ["mortgage"]}),
    "R2": ("RetrievalResult", {"capability": ODSP, "expected_items": [
        {"retrievalExtract_contains": s} for s in ("joint check", "$500", "Martian flood coverage clause")]}),
    "R5": ("RetrievalResult", {"capability": ODSP, "min_expected_count": 6,
                               "expected_items": [{"retrievalExtract_contains": "joint check"}]}),
    "R7": ("RetrievalResult", {"capability": "Email", "expected_items": [{"retrievalExtract_contains": "mortgage"}]}),
}  # fmt: skip


def document(*items: dict, **root: object) -> dict:
    return {"schemaVersion": "1.6.0", "items": list(items), **root}


def single(evaluators: dict | None = None, **fields: object) -> dict:
    item = {"prompt": "What does the policy say?", **fields}
    if evaluators is not None:
        item["evaluators"] = evaluators
    return item


# -- scores --------------------------------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(WORKED_EXAMPLES))
def test_each_worked_example_scored_through_a_document_matches_the_check(example):
    name, options = WORKED_EXAMPLES[example]
    item = single({name: options}, diagnostics={"retrieval_executions": example_telemetry()["retrieval_executions"]})
    out = check_document(document(item)).document["items"][0]
    key = name[0].lower() + name[1:]
    assert out["scores"] == {key: CHECKS[name].from_options(options)(example_telemetry())}
    assert out["status"] == out["scores"][key]["result"]


def test_every_deterministic_evaluator_is_scored_with_its_own_inputs():
    evaluators = {
        "Citations": {"citation_format": "bracket"},
        "ExactMatch": {},
        "PartialMatch": {"threshold": 0.3},
        "RetrievalQuery": WORKED_EXAMPLES["Q1"][1],
    }
    response, expected = "Joint check needed [^1^].", "joint check needed [^1^]."
    item = single(evaluators, response=response, expected_response=expected,
                  diagnostics={"retrieval_executions": example_telemetry()["retrieval_executions"]})  # fmt: skip
    scores = check_document(document(item)).document["items"][0]["scores"]
    assert scores == {
        "citations": Citations.run({"citation_format": "bracket"}, response),
        "exactMatch": ExactMatch.run({}, response, expected),
        "partialMatch": PartialMatch.run({"threshold": 0.3, "mode": "token_f1"}, response, expected),
        "retrievalQuery": RetrievalQuery.run(WORKED_EXAMPLES["Q1"][1], example_telemetry()),
    }
    assert scores["exactMatch"]["match"] is True


def test_partial_match_mode_applies_where_the_options_name_none():
    item = single({"PartialMatch": {}}, response="the joint check rule", expected_response="joint check")
    v1 = check_document(document(item), partial_match_mode="upstream_v1").document["items"][0]["scores"]["partialMatch"]
    assert v1["score"] == len("joint check") / len("the joint check rule")
    named = single(
        {"PartialMatch": {"mode": "token_f1"}}, response="the joint check rule", expected_response="joint check"
    )
    f1 = check_document(document(named), partial_match_mode="upstream_v1").document["items"][0]["scores"][
        "partialMatch"
    ]
    assert f1["score"] == pytest.approx(2 * (2 / 4) * 1 / (2 / 4 + 1))


# -- which evaluators run ------------------------------------------------------------------------


def test_item_evaluators_extend_the_defaults_and_override_their_options():
    defaults = {"ExactMatch": {}, "PartialMatch": {"threshold": 0.9}}
    item = single({"PartialMatch": {"threshold": 0.1}}, response="a b c d", expected_response="a b")
    out = check_document(document(item, default_evaluators=defaults)).document["items"][0]
    assert list(out["scores"]) == ["exactMatch", "partialMatch"]
    assert out["scores"]["partialMatch"]["threshold"] == 0.1 and out["scores"]["partialMatch"]["result"] == "pass"


def test_replace_mode_runs_only_the_item_s_evaluators():
    item = single({"ExactMatch": {}}, response="x", expected_response="x", evaluators_mode="replace")
    out = check_document(document(item, default_evaluators={"PartialMatch": {}})).document["items"][0]
    assert list(out["scores"]) == ["exactMatch"]


def test_replace_mode_without_evaluators_runs_none_the_item_passes_and_the_run_checked_nothing():
    item = single(evaluators_mode="replace")
    checked = check_document(document(item, default_evaluators={"ExactMatch": {}}))
    assert "scores" not in checked.document["items"][0]
    assert checked.document["items"][0]["status"] == "pass"  # the rollup of upstream: none ran
    assert checked.verdict == "nothing_checked" and not checked.passed


def test_llm_judged_and_custom_evaluators_are_skipped_with_a_reason_not_dropped():
    item = single(
        {"Groundedness": {"threshold": 4}, "toneCheck": {}, "ExactMatch": {}}, response="x", expected_response="y"
    )
    checked = check_document(document(item, default_evaluators={"Relevance": {}}))
    out = checked.document["items"][0]
    skipped = out["extensions"]["retrieval_eval"]["skipped_evaluators"]
    assert [entry["evaluator"] for entry in skipped] == ["Relevance", "Groundedness", "toneCheck"]
    assert "language model" in skipped[0]["reason"] and "custom evaluator" in skipped[2]["reason"]
    assert list(out["scores"]) == ["exactMatch"] and out["status"] == "fail"
    rows = checked.outcomes.set_index("evaluator")
    assert rows.loc["Relevance", "result"] == "skipped" and not rows.loc["Relevance", "ran"]


def test_a_score_already_in_the_document_for_a_skipped_evaluator_is_kept_and_counts(eval_schema):
    checked = check_document(eval_schema / "examples" / "valid" / "comprehensive.json")
    source = json.loads((eval_schema / "examples" / "valid" / "comprehensive.json").read_text(encoding="utf-8"))
    first, second = checked.document["items"]
    assert first["scores"] == source["items"][0]["scores"]  # relevance and coherence kept, nothing ran
    assert first["status"] == "pass"
    assert second["scores"]["exactMatch"] == {"match": True, "result": "pass", "reason": "Exact match found"}
    assert second["scores"]["partialMatch"]["score"] == 1.0
    assert not schema_errors(eval_schema, checked.document)


# -- errors become records, the rest is still scored --------------------------------------------


def test_invalid_options_error_that_evaluator_only_and_make_the_item_partial(eval_schema):
    for path in sorted((eval_schema / "examples" / "invalid").glob("retrieval-*.json")):
        source = json.loads(path.read_text(encoding="utf-8"))
        source["items"][0]["response"] = source["items"][0]["expected_response"] = "same"
        source["items"][0]["evaluators"]["ExactMatch"] = {}
        out = check_document(source).document["items"][0]
        (name,) = [key for key in source["items"][0]["evaluators"] if key != "ExactMatch"]
        key = name[0].lower() + name[1:]
        assert out["scores"][key] == CHECKS[name].run(source["items"][0]["evaluators"][name], None), path.name
        assert out["scores"][key]["result"] == "error"
        assert out["scores"]["exactMatch"]["result"] == "pass"
        assert out["status"] == "partial"
        assert out["error"] == {"code": "evaluatorsFailed", "message": f"1 evaluator(s) failed: {name}"}
        assert not schema_errors(eval_schema, out["scores"], "ScoreCollection")


def test_the_sample_dataset_without_executions(eval_schema):
    checked = check_document(eval_schema / "samples" / "prompts-retrieval-complex.json")
    assert not schema_errors(eval_schema, checked.document)
    for item in checked.document["items"]:
        scores = item["scores"]
        assert scores["retrievalQuery"]["diagnostic_code"] == "retrieval_failure"
        assert scores["retrievalResult"]["diagnostic_code"] == "error"
        assert {entry["evaluator"] for entry in item["extensions"]["retrieval_eval"]["skipped_evaluators"]} >= {
            "Relevance",
            "Coherence",
        }
    first = checked.document["items"][0]
    assert first["scores"]["citations"]["result"] == "error"  # no response to look for citations in
    assert first["status"] == "partial"


def _passing_executions(item: dict) -> list[dict]:
    """Executions built from an item's own retrieval options, so that both checks must pass."""
    executions = []
    for name, options in item["evaluators"].items():
        if name == "RetrievalQuery":
            query = " ".join([options["selector"], *options.get("includes", [])])
            executions.append({"capability": options["capability"], "queries": [{"queryString": query}]})
        if name == "RetrievalResult":
            hits = [
                {
                    "rank": 1,
                    "webUrl": "https://example.test/doc",
                    "extracts": [{"text": f"... {entry['retrievalExtract_contains']} ..."}],
                }
                for entry in options.get("expected_items", [])
            ]
            hits += [{"rank": 1, "extracts": []}] * options.get("min_expected_count", 0)
            executions.append({"capability": options["capability"], "status": "Succeeded", "retrievalHits": hits})
    return executions


def test_the_sample_dataset_with_a_log_of_matching_executions_passes_every_retrieval_check(eval_schema, tmp_path):
    path = eval_schema / "samples" / "prompts-retrieval-complex.json"
    source = json.loads(path.read_text(encoding="utf-8"))
    log = tmp_path / "log.jsonl"
    log.write_text(
        "".join(
            json.dumps({"id": item["extensions"]["id"], "retrieval_executions": _passing_executions(item)}) + "\n"
            for item in source["items"]
        ),
        encoding="utf-8",
    )
    checked = check_document(path, executions=log)
    assert not schema_errors(eval_schema, checked.document)
    retrieval = checked.outcomes[checked.outcomes["evaluator"].str.startswith("Retrieval")]
    assert len(retrieval) == 2 * len(source["items"]) and (retrieval["result"] == "pass").all()
    for item in checked.document["items"]:
        assert item["diagnostics"]["retrieval_executions"]  # what was checked is in the output


# -- statuses ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "status"),
    [
        ({}, "pass"),
        ({"a": "pass", "b": "pass"}, "pass"),
        ({"a": "pass", "b": "fail"}, "fail"),
        ({"a": "fail", "b": "error"}, "partial"),
        ({"a": "pass", "b": "error"}, "partial"),
    ],
)
def test_turn_status(results, status):
    assert turn_status(results)[0] == status
    assert (turn_status(results)[1] is not None) == (status == "partial")


@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        (["pass", "pass"], "pass"),
        (["fail", "fail"], "fail"),
        (["pass", "fail"], "partial"),
        (["pass", "partial"], "partial"),
        (["partial", "error", "pass"], "error"),
    ],
)
def test_thread_rollup(statuses, overall):
    summary = thread_summary(statuses)
    assert summary["overall_status"] == overall
    assert summary["turns_total"] == len(statuses)
    assert sum(summary[key] for key in ("turns_passed", "turns_failed", "turns_partial", "turns_errored")) == len(
        statuses
    )


def test_threads_get_turn_statuses_and_a_summary(eval_schema):
    turns = [
        {"prompt": "one", "response": "x", "expected_response": "x", "evaluators": {"ExactMatch": {}}},
        {"prompt": "two", "response": "x", "expected_response": "y", "evaluators": {"ExactMatch": {}}},
    ]
    checked = check_document(document({"name": "thread", "turns": turns}))
    thread = checked.document["items"][0]
    assert [turn["status"] for turn in thread["turns"]] == ["pass", "fail"]
    assert thread["summary"]["overall_status"] == "partial"
    assert list(checked.outcomes["unit"]) == ["items[0].turns[0]", "items[0].turns[1]"]
    assert not checked.passed
    assert not schema_errors(eval_schema, checked.document)


def test_an_item_the_agent_did_not_answer_keeps_its_error_status():
    error = {"code": "agentRequestFailed", "message": "HTTP 503"}
    item = single({"ExactMatch": {}}, expected_response="x", status="error", error=error)
    checked = check_document(document(item))
    out = checked.document["items"][0]
    assert out["status"] == "error" and out["error"] == error and "scores" not in out
    assert "no response" in out["extensions"]["retrieval_eval"]["skipped_evaluators"][0]["reason"]


def test_a_stale_verdict_of_an_earlier_run_is_replaced():
    item = single({"ExactMatch": {}}, response="x", expected_response="x", status="partial",
                  error={"code": "evaluatorsFailed", "message": "old"},
                  extensions={"id": "a", "retrieval_eval": {"skipped_evaluators": []}})  # fmt: skip
    out = check_document(document(item)).document["items"][0]
    assert out["status"] == "pass" and "error" not in out and out["extensions"] == {"id": "a"}


# -- the bundled sample --------------------------------------------------------------------------


def test_the_bundled_sample_document_with_its_log(eval_schema):
    checked = check_document(DATA / "eval_document.json", executions=DATA / "executions.jsonl")
    assert not schema_errors(eval_schema, checked.document)
    statuses = {item.get("extensions", {}).get("id"): item.get("status") or item["summary"]["overall_status"]
                for item in checked.document["items"]}  # fmt: skip
    assert statuses == {"leave-01": "pass", "travel-02": "fail", "vacation-03": "fail", "expenses-04": "partial"}
    travel = checked.document["items"][1]["scores"]["retrievalResult"]
    assert travel["diagnostic_code"] == "not_retrieved"  # "75 EUR" is at rank 2, max_rank is 1
    assert not checked.passed


# -- nothing is lost, and scoring twice changes nothing -------------------------------------------

# What the runner writes: whole values, or (for objects it shares with the input) some of their keys.
_WRITTEN = {"status": None, "error": None, "summary": None, "scores": None,
            "diagnostics": {"retrieval_executions"}, "extensions": {"retrieval_eval"}}  # fmt: skip


def _kept(source: object, output: object, path: str = "") -> list[str]:
    """Paths of ``source`` missing or changed in ``output``, outside what the runner writes."""
    if isinstance(source, dict) and isinstance(output, dict):
        lost = []
        for key, value in source.items():
            if key not in output:
                lost.append(f"{path}.{key}")
            elif key in _WRITTEN and _WRITTEN[key] is None:
                continue
            elif key in _WRITTEN and isinstance(value, dict):
                shared = {inner: inner_value for inner, inner_value in value.items() if inner not in _WRITTEN[key]}
                lost += _kept(shared, output[key], f"{path}.{key}")
            else:
                lost += _kept(value, output[key], f"{path}.{key}")
        return lost
    if isinstance(source, list) and isinstance(output, list) and len(source) == len(output):
        return [lost for index, (a, b) in enumerate(zip(source, output)) for lost in _kept(a, b, f"{path}[{index}]")]
    return [] if source == output else [path]


def test_nothing_of_the_input_is_lost_and_the_input_is_not_modified(eval_schema):
    for path in [*sorted((eval_schema / "examples").rglob("*.json")), eval_schema / "samples" / "prompts-retrieval-complex.json",
                 DATA / "eval_document.json"]:  # fmt: skip
        source = json.loads(path.read_text(encoding="utf-8"))
        snapshot = copy.deepcopy(source)
        output = check_document(source).document
        assert source == snapshot
        assert not _kept(source, output), path.name


_RESPONSES = st.sampled_from(["", "x", "Joint check [^1^]", "joint CHECK [^1^] [^2^]", "  x  "])
_OPTIONS = st.sampled_from(
    [
        ("ExactMatch", {}),
        ("ExactMatch", {"case_sensitive": True}),
        ("PartialMatch", {"threshold": 0.5}),
        ("Citations", {"citation_format": "mixed"}),
        ("Citations", {"threshold": 2, "citation_format": "bracket"}),
        ("Relevance", {}),
        *((name, options) for name, options in WORKED_EXAMPLES.values()),
    ]
)


@st.composite
def _items(draw: st.DrawFn) -> dict:
    item = single(
        dict(draw(st.lists(_OPTIONS, max_size=4))), response=draw(_RESPONSES), expected_response=draw(_RESPONSES)
    )
    if draw(st.booleans()):
        item["diagnostics"] = {"retrieval_executions": example_telemetry()["retrieval_executions"]}
    if draw(st.booleans()):
        item["evaluators_mode"] = "replace"
    return item


@given(
    items=st.lists(_items(), min_size=1, max_size=4), defaults=st.lists(_OPTIONS, max_size=2), threaded=st.booleans()
)
def test_random_documents_validate_roll_up_and_score_twice_the_same(eval_schema, items, defaults, threaded):
    if threaded:
        items = [{"turns": [{**item} for item in items]}]
    source = document(*items, default_evaluators=dict(defaults))
    checked = check_document(source)
    assert not schema_errors(eval_schema, checked.document)
    for unit, rows in checked.outcomes.groupby("unit", sort=False):
        ran = dict(zip(rows["evaluator"], rows["result"]))
        ran = {name: result for name, result in ran.items() if result != "skipped"}
        assert checked.statuses[unit] == turn_status(ran)[0]
    again = check_document(checked.document)
    assert again.document == checked.document


# -- bad input -----------------------------------------------------------------------------------


def test_an_unknown_partial_match_mode_is_refused():
    with pytest.raises(ConfigError, match="partial_match_mode must be one of token_f1, upstream_v1, got 'f1'"):
        check_document(document(single()), partial_match_mode="f1")


def test_log_records_must_match_items(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": "nope", "retrieval_executions": []}) + "\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"log\.jsonl: 1 execution record\(s\) match no item's extensions\.id, e\.g\. \['nope'\]"
    ):
        check_document(document(single(extensions={"id": "a"})), executions=log)


def test_log_records_need_an_id(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("\n" + json.dumps({"retrieval_executions": []}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"log\.jsonl, row 2: a record without an 'id'"):
        check_document(document(single(extensions={"id": "a"})), executions=log)


def test_executions_in_both_the_document_and_the_log_are_ambiguous():
    item = single(extensions={"id": "a"}, diagnostics={"retrieval_executions": []})
    with pytest.raises(
        InputError, match=r"item 'a' \(items\[0\]\) has retrieval executions both in the document and in the log"
    ):
        check_document(document(item), executions={"a": []})


def test_items_sharing_an_id_cannot_take_log_records():
    with pytest.raises(InputError, match="items share the extensions.id 'a'"):
        check_document(document(single(extensions={"id": "a"}), single(extensions={"id": "a"})), executions={"a": []})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schemaVersion": "1.0.0",\n "items": [}', r"invalid JSON at line 2, column 12"),
        (
            '{"schemaVersion": "2.0.0", "items": [{"prompt": "x"}]}',
            r"field 'schemaVersion': schemaVersion 2\.0\.0 has major version 2",
        ),
        (
            '{"schemaVersion": "1.0.0", "items": [{"prompt": "x", "turns": []}]}',
            r"field 'items\[0\]': an item is a single turn",
        ),
        (
            '{"schemaVersion": "1.0.0", "items": [{"turns": [{"prompt": ""}]}]}',
            r"field 'items\[0\]\.turns\[0\]\.prompt'",
        ),
        ("[]", r"an evaluation document is a JSON object, got list"),
    ],
)
def test_bad_documents_name_the_file_and_the_place(tmp_path, text, message):
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"doc\.json.*" + message):
        check_document(path)
