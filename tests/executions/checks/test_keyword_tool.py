"""KeywordMatch and ToolUse per item: against plain-Python oracles of their definitions, their invalid and errored
outcomes, and through the evaluation-document runner (diagnostics, execution logs, rollup, schema)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import KeywordMatch, ToolUse, check_document
from retrieval_eval.executions.checks.keyword_match import is_word_character, keyword_found, smallest_period

from .. import response_strategies as rs
from ..schema_validation import schema_errors


def without_reason(score: dict) -> dict:
    return {key: value for key, value in score.items() if key != "reason"}


def document(*items: dict, **root: object) -> dict:
    return {"schemaVersion": "1.6.0", "items": list(items), **root}


def item(evaluators: dict, **fields: object) -> dict:
    return {"prompt": "What does the policy say?", "evaluators": evaluators, **fields}


# -- KeywordMatch --------------------------------------------------------------------------------


@given(rs.responses(), rs.keyword_options)
def test_keyword_match_is_its_definition(response, options):
    assert without_reason(KeywordMatch.from_options(options)(response)) == rs.keyword_score_oracle(response, options)


@given(
    st.text(max_size=12),
    st.lists(st.text(min_size=1, max_size=3), min_size=1, max_size=3),
    rs.modes,
    st.booleans(),
    st.booleans(),
)
def test_keyword_match_is_its_definition_on_any_unicode_text(response, keywords, mode, case_sensitive, word_boundaries):
    options = {"keywords": keywords, "mode": mode, "case_sensitive": case_sensitive, "word_boundaries": word_boundaries}
    assert without_reason(KeywordMatch.from_options(options)(response)) == rs.keyword_score_oracle(response, options)


@given(rs.responses(), rs.keywords, rs.modes, st.booleans(), st.booleans())
def test_the_python_api_scores_as_the_options(response, keywords, mode, case_sensitive, word_boundaries):
    options = {"keywords": keywords, "mode": mode, "case_sensitive": case_sensitive, "word_boundaries": word_boundaries}
    made = KeywordMatch(keywords, mode=mode, case_sensitive=case_sensitive, word_boundaries=word_boundaries)
    assert made(response) == KeywordMatch.run(options, response)


@given(st.text(max_size=3))
def test_word_characters_are_python_re_s_unicode_word_class(text):
    import re

    assert [is_word_character(char) for char in text] == [re.fullmatch(r"\w", char) is not None for char in text]


@pytest.mark.parametrize(
    ("response", "keyword", "contained", "whole"),
    [
        ("the plan.", "plan", True, True),
        ("(Plan)", "plan", True, True),
        ("Planning ahead", "plan", True, False),
        ("plan_b", "plan", True, False),
        ("planning, then the plan", "plan", True, True),  # a later occurrence can be the whole one
        ("US$5", "$5", True, False),
        ("costs $5.", "$5", True, True),
        ("I write C++.", "c++", True, True),
        ("a joint and a check", "joint check", False, False),  # a phrase is never split into words
        ("joint  check", "joint check", False, False),  # nor its spaces changed
        ("STRASSE", "straße", True, True),  # casefolded: ß is ss
        ("東京", "京", True, False),  # CJK letters are word characters
        ("5-15 days", "5–15", False, False),  # an en dash is not a hyphen
    ],
)
def test_containment_and_whole_words(response, keyword, contained, whole):
    assert KeywordMatch([keyword])(response)["result"] == ("pass" if contained else "fail")
    assert KeywordMatch([keyword], word_boundaries=True)(response)["result"] == ("pass" if whole else "fail")


# Few characters, so that keywords overlap themselves and their occurrences overlap and chain.
OVERLAPPING = st.text(alphabet="ab _.", max_size=30)


@st.composite
def keyword_and_text(draw: st.DrawFn) -> tuple[str, str]:
    """A keyword of few characters, and a text of its pieces: occurrences overlap, chain and touch."""
    keyword = draw(st.text(alphabet="a.", min_size=1, max_size=8))
    pieces = [keyword, keyword[1:], keyword[:-1], keyword[: len(keyword) // 2], "a", ".", "x"]
    return keyword, "".join(draw(st.lists(st.sampled_from(pieces), max_size=8)))


@given(OVERLAPPING, OVERLAPPING.filter(bool))
def test_whole_word_search_is_the_regular_expression_on_overlapping_occurrences(text, keyword):
    expected = re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text) is not None
    assert keyword_found(text, keyword, word_boundaries=True) is expected


@given(keyword_and_text())
def test_whole_word_search_is_the_regular_expression_on_texts_made_of_the_keyword(case):
    keyword, text = case
    expected = re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text) is not None
    assert keyword_found(text, keyword, word_boundaries=True) is expected


@given(st.text(alphabet="abc", min_size=1, max_size=40))
def test_the_smallest_period_is_the_first_shift_that_repeats_the_word(word):
    expected = next(p for p in range(1, len(word) + 1) if all(word[i] == word[i + p] for i in range(len(word) - p)))
    assert smallest_period(word) == expected


@pytest.mark.parametrize(
    ("text", "keyword", "whole"),
    [
        ("aaaa", "aa", False),
        ("aa aa", "aa", True),
        ("aaa aa", "aa", True),  # the chain in "aaa" fails, the later occurrence is whole
        ("abab ab", "abab", True),
        ("ababab", "abab", False),
        ("aabaabaa aabaa", "aabaa", True),  # periods 3 and 4: after the chain, the occurrence 4 on is tried
        ("aabaaabaa", "aabaa", False),
        ("x aabaa", "aabaa", True),
        ("xa.aa.a.aa.a", "a.aa.a", True),  # periods 3 and 5: the whole occurrence overlaps the one before
    ],
)
def test_whole_words_among_overlapping_occurrences(text, keyword, whole):
    assert keyword_found(text, keyword, word_boundaries=True) is whole


_HANG_GUARD = """
from retrieval_eval.executions import KeywordMatch
cases = [("a" * 5000, "a" * 200_000), ("a" * 50_000, "a" * 200_000 + "b"), ("ab" * 2500 + "a", "ab" * 100_000)]
for keyword, text in cases:
    assert KeywordMatch([keyword], word_boundaries=True)(text)["result"] == "fail"
"""


def test_a_self_overlapping_keyword_in_200_kb_is_searched_without_hanging():
    # A hang guard, not a timing: the 50,000-character keyword took 12 s before, and takes under 0.1 s now.
    subprocess.run([sys.executable, "-c", _HANG_GUARD], check=True, timeout=20)


def test_case_sensitive_keywords_match_only_as_written():
    assert KeywordMatch(["Q3"], case_sensitive=True)("q3 and Q3")["result"] == "pass"
    assert KeywordMatch(["Q3"], case_sensitive=True)("q3 only")["missing_keywords"] == ["Q3"]


def test_the_score_object_lists_keywords_in_their_order_with_the_mode_and_a_reason():
    score = KeywordMatch(["deadline", "Budget", "plan"], mode="any")("The budget plan.")
    assert score == {
        "result": "pass",
        "reason": "2 of 3 expected keywords found (mode 'any' needs at least one)",
        "mode": "any",
        "matched_keywords": ["Budget", "plan"],
        "missing_keywords": ["deadline"],
    }
    assert KeywordMatch(["deadline", "plan"])("plan")["reason"] == "1 of 2 expected keywords found (mode 'all' needs all 2)"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "KeywordMatch: the test case lists no expected keywords, so its result is invalid"),
        ({"keywords": []}, "no expected keywords, so its result is invalid (neither pass nor fail)"),
        ({"keywords": ["plan"], "mode": "some"}, "option 'mode': unknown mode 'some'; known modes: all, any"),
        ({"keywords": ["plan"], "threshold": 0.5}, "option 'threshold': Extra inputs are not permitted"),
        ({"keywords": ["plan", ""]}, "option 'keywords[1]'"),
        ({"keywords": ["plan"], "word_boundaries": 1}, "option 'word_boundaries'"),
        (["plan"], "KeywordMatch: the options must be an object, got list"),
    ],
)
def test_invalid_test_cases_and_options_give_the_errored_record(options, message):
    score = KeywordMatch.run(options, "the plan")
    assert score["result"] == "error" and set(score) == {"result", "error"}
    assert score["error"].startswith("Evaluator failed: KeywordMatch: ") and message in score["error"]
    with pytest.raises(ConfigError, match="KeywordMatch"):
        KeywordMatch.from_options(options)


def test_a_missing_response_is_an_error_and_an_empty_one_contains_nothing():
    assert KeywordMatch.run({"keywords": ["plan"]}, None) == {
        "result": "error",
        "error": "Evaluator failed: KeywordMatch: no response to check",
    }
    with pytest.raises(InputError, match="must be a string, got int"):
        KeywordMatch(["plan"])(3)
    assert KeywordMatch(["plan"])("")["missing_keywords"] == ["plan"]


def test_the_schema_s_custom_evaluator_form_reads_as_the_options():
    options = {"keywords": ["plan"], "mode": "any"}
    assert KeywordMatch.run({"options": options}, "a plan") == KeywordMatch.run(options, "a plan")
    assert ToolUse.run({"options": {"tools": ["a"]}}, ["A"]) == ToolUse.run({"tools": ["a"]}, ["A"])
    mixed = KeywordMatch.run({"options": options, "threshold": 1}, "plan")["error"]
    assert mixed == "Evaluator failed: KeywordMatch: option 'options': Extra inputs are not permitted"


# -- ToolUse ------------------------------------------------------------------------------------


@given(rs.invocations, rs.tool_options)
def test_tool_use_is_its_definition(invoked, options):
    assert without_reason(ToolUse.from_options(options)(invoked)) == rs.tool_score_oracle(invoked, options)


def test_tool_names_are_whole_and_casefolded_unless_case_sensitive():
    assert ToolUse(["Search"])(["SearchWeb"])["result"] == "fail"
    assert ToolUse(["straße"])(["STRASSE"])["result"] == "pass"
    assert ToolUse(["straße"], case_sensitive=True)(["STRASSE"])["result"] == "fail"
    score = ToolUse(["SearchPolicies", "Escalate"], mode="any")([{"name": "searchPolicies"}, "Greeting", "Greeting"])
    assert score == {
        "result": "pass",
        "reason": "1 of 2 expected tools invoked (mode 'any' needs at least one)",
        "mode": "any",
        "matched_tools": ["SearchPolicies"],
        "missing_tools": ["Escalate"],
        "invoked_tools": ["Greeting", "searchPolicies"],
    }


def test_nothing_invoked_fails_and_nothing_recorded_is_an_error():
    assert ToolUse(["Escalate"])([])["result"] == "fail"
    assert ToolUse.run({"tools": ["Escalate"]}, None) == {
        "result": "error",
        "error": "Evaluator failed: ToolUse: no record of the tools or topics invoked ('invoked_tools')",
    }


@pytest.mark.parametrize(
    ("invoked", "message"),
    [
        ("Escalate", "field 'invoked_tools': must be a list of tool or topic names, got str"),
        ({"name": "Escalate"}, "field 'invoked_tools': must be a list of tool or topic names, got dict"),
        (["Escalate", 3], "field 'invoked_tools[1]': must be a name or an object with a 'name', got int"),
        (["Escalate", ""], "field 'invoked_tools[1]': must be a name or an object with a 'name', got an empty string"),
        ([{"type": "topic"}], "field 'invoked_tools[0].name': must be a non-empty string, got NoneType"),
        ([None], "field 'invoked_tools[0]': must be a name or an object with a 'name', got NoneType"),
    ],
)
def test_bad_invocation_shapes_name_the_element(invoked, message):
    assert ToolUse.run({"tools": ["Escalate"]}, invoked) == {"result": "error", "error": f"Evaluator failed: ToolUse: {message}"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "ToolUse: the test case lists no expected tools, so its result is invalid"),
        ({"tools": []}, "no expected tools"),
        ({"tools": ["a"], "mode": "every"}, "option 'mode': unknown mode 'every'"),
        ({"tools": ["a"], "expected_tools": ["b"]}, "option 'expected_tools': Extra inputs are not permitted"),
    ],
)
def test_invalid_tool_options_give_the_errored_record(options, message):
    score = ToolUse.run(options, ["a"])
    assert score["result"] == "error" and message in score["error"]


# -- through the document runner ----------------------------------------------------------------


def test_the_runner_scores_both_from_the_response_and_the_diagnostics(eval_schema):
    keyword = {"keywords": ["deductible", "$500"], "mode": "all", "word_boundaries": True}
    tools = {"tools": ["SearchPolicies", "Escalate"], "mode": "any"}
    invoked = ["SearchPolicies", {"name": "Greeting", "type": "topic"}]
    response = "The standard deductible starts at $500."
    checked = check_document(
        document(
            item({"KeywordMatch": keyword, "ToolUse": tools}, response=response, diagnostics={"invoked_tools": invoked})
        )
    )
    out = checked.document["items"][0]
    assert out["scores"] == {
        "keywordMatch": KeywordMatch.run(keyword, response),
        "toolUse": ToolUse.run(tools, invoked),
    }
    assert out["status"] == "pass" and checked.passed
    assert list(checked.outcomes["evaluator"]) == ["KeywordMatch", "ToolUse"]
    assert list(checked.outcomes["result"]) == ["pass", "pass"]
    assert not schema_errors(eval_schema, out["scores"], "ScoreCollection")


def test_defaults_give_the_mode_and_an_item_s_own_options_replace_them_whole():
    checked = check_document(
        document(
            item({}, response="budget"),
            item({"KeywordMatch": {"keywords": ["budget", "plan"]}}, response="budget"),
            default_evaluators={"KeywordMatch": {"keywords": ["budget", "plan"], "mode": "any"}},
        )
    )
    first, second = (entry["scores"]["keywordMatch"] for entry in checked.document["items"])
    assert (first["mode"], first["result"]) == ("any", "pass")
    assert (second["mode"], second["result"]) == ("all", "fail")


def test_invalid_cases_and_missing_records_make_the_item_partial_not_pass_or_fail(eval_schema):
    checked = check_document(
        document(
            item({"KeywordMatch": {"mode": "any"}}, response="budget"),
            item({"ToolUse": {"tools": ["Escalate"]}}, response="budget"),
            item({"ToolUse": {"tools": ["Escalate"]}}, diagnostics={"invoked_tools": [{"name": 7}]}),
        )
    )
    items = checked.document["items"]
    assert [entry["status"] for entry in items] == ["partial", "partial", "partial"]
    assert [entry["error"]["code"] for entry in items] == ["evaluatorsFailed"] * 3
    errors = [next(iter(entry["scores"].values()))["error"] for entry in items]
    assert "result is invalid (neither pass nor fail)" in errors[0]
    assert errors[1] == "Evaluator failed: ToolUse: no record of the tools or topics invoked ('diagnostics.invoked_tools')"
    assert errors[2] == (
        "Evaluator failed: ToolUse: field 'diagnostics.invoked_tools[0].name': must be a non-empty string, got int"
    )
    summary = checked.summary.evaluators
    assert summary.loc["KeywordMatch", "error"] == 1 and summary.loc["ToolUse", "error"] == 2
    for entry in items:
        assert not schema_errors(eval_schema, entry["scores"], "ScoreCollection")


def test_a_document_in_the_schema_s_custom_evaluator_form_validates_in_and_out(eval_schema):
    evaluators = {"KeywordMatch": {"options": {"keywords": ["budget"]}}, "ToolUse": {"options": {"tools": ["Search"]}}}
    source = document(item(evaluators, response="The budget.", diagnostics={"invoked_tools": ["search"]}))
    assert not schema_errors(eval_schema, source)
    checked = check_document(source)
    assert checked.passed and not schema_errors(eval_schema, checked.document)


def test_invoked_tools_come_from_a_log_and_are_written_to_the_diagnostics(tmp_path):
    log = tmp_path / "log.jsonl"
    records = [
        {"id": "a", "invoked_tools": ["SearchPolicies", {"name": "Escalate", "type": "topic"}]},
        {"id": "b", "retrieval_executions": [], "invoked_tools": []},
        {"id": "c", "response": "not read by the document runner"},
    ]
    log.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    tools = {"ToolUse": {"tools": ["Escalate"]}}
    checked = check_document(
        document(
            item(tools, extensions={"id": "a"}),
            item(tools, extensions={"id": "b"}),
            item({"KeywordMatch": {"keywords": ["answer"]}}, response="The answer.", extensions={"id": "c"}),
        ),
        executions=log,
    )
    first, second, third = checked.document["items"]
    assert first["diagnostics"] == {"invoked_tools": ["SearchPolicies", "Escalate"]}
    assert first["scores"]["toolUse"]["result"] == "pass"
    assert second["diagnostics"] == {"retrieval_executions": [], "invoked_tools": []}
    assert second["scores"]["toolUse"]["result"] == "fail"
    assert "diagnostics" not in third and third["scores"]["keywordMatch"]["result"] == "pass"


def test_invoked_tools_in_both_the_document_and_the_log_are_ambiguous(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": "a", "invoked_tools": ["x"]}) + "\n", encoding="utf-8")
    source = document(item({"ToolUse": {"tools": ["x"]}}, extensions={"id": "a"}, diagnostics={"invoked_tools": []}))
    with pytest.raises(InputError, match="has invoked tools both in the document and in the log"):
        check_document(source, executions=log)


def test_a_bad_invoked_tools_field_in_a_log_names_the_line_and_field(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"id": "a", "response": "x"}) + "\n" + json.dumps({"id": "b", "invoked_tools": ["x", {}]}) + "\n")
    with pytest.raises(InputError, match=r"log.jsonl, row 2, field 'invoked_tools\[1\].name': must be a non-empty"):
        check_document(document(item({}, extensions={"id": "b"})), executions=log)
