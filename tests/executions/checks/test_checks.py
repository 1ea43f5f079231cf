"""RetrievalQuery and RetrievalResult: the worked examples of the spec (section 8), its rules (4.3, 6, 7), bad options."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import (
    RetrievalQuery,
    RetrievalResult,
    Verdict,
    extract_matcher,
)

from ..fixtures import DEFINITIONS, GUIDEBOOK, ODSP, QUERY_1, QUERY_2, example_telemetry

SCHEMAS = Path(__file__).resolve().parents[4] / "shared" / "schemas" / "m365-copilot-eval"
CHECKS = {"RetrievalQuery": RetrievalQuery, "RetrievalResult": RetrievalResult}
QUERY_KEYS = ["score", "result", "threshold", "diagnostic_code", "reason", "matched_queries", "includes_missing", "excludes_found"]
RESULT_KEYS = [
    "score", "result", "threshold", "diagnostic_code", "reason",
    "results_evaluated", "matched_items", "missing_items", "extract_failures",
]  # fmt: skip


def query(options: dict, telemetry: object = "example") -> dict:
    out = RetrievalQuery.from_options(options)(example_telemetry() if telemetry == "example" else telemetry)
    assert list(out) == QUERY_KEYS
    assert out["threshold"] == 1.0
    return out


def result(options: dict, telemetry: object = "example") -> dict:
    out = RetrievalResult.from_options({"capability": ODSP, **options})(
        example_telemetry() if telemetry == "example" else telemetry
    )
    assert list(out) == RESULT_KEYS
    assert out["threshold"] == 1.0
    return out


def verdict(out: dict) -> tuple:
    """What the worked examples state: score, result and diagnostic code."""
    return out["score"], out["result"], out["diagnostic_code"]


def hit(snippet: str, url: str, rank: int) -> dict:
    return {"extractMatch": snippet, "matchedHitUrl": url, "matchedHitRank": rank}


def item(snippet: str) -> dict:
    return {"extractMatch": snippet}


# -- RetrievalQuery, worked examples Q1-Q7 ----------------------------------------------------


def test_q1_any_matched_query_that_satisfies_everything_passes():
    out = query({"capability": ODSP, "selector": "mortgage", "includes": ["mortgage", "joint check"], "excludes": ["FileType:OneNote"]})
    assert verdict(out) == (1.0, "pass", "pass")
    assert out["matched_queries"] == [QUERY_1, QUERY_2]
    assert out["includes_missing"] == [] and out["excludes_found"] == []


def test_q2_missing_terms_are_the_sorted_union_over_matched_queries():
    out = query({"capability": ODSP, "selector": "MORTGAGE", "includes": ["mortgage", "joint check", "homeshield"]})
    assert verdict(out) == (0.0, "fail", "required_terms_missing")
    assert out["matched_queries"] == [QUERY_1, QUERY_2]
    assert out["includes_missing"] == ["homeshield", "joint check"]
    assert out["excludes_found"] == []


def test_q3_excluded_terms_are_reported_as_configured():
    out = query({"capability": ODSP, "selector": "deductible", "includes": ["deductible"], "excludes": ["filetype:docx"]})
    assert verdict(out) == (0.0, "fail", "excluded_terms_found")
    assert out["matched_queries"] == [QUERY_2]
    assert out["excludes_found"] == ["filetype:docx"]
    assert out["includes_missing"] == []


def test_q4_missing_and_excluded_terms_give_mixed_term_failure():
    out = query({"capability": ODSP, "selector": "deductible", "includes": ["premium"], "excludes": ["FileType:docx"]})
    assert verdict(out) == (0.0, "fail", "mixed_term_failure")
    assert out["matched_queries"] == [QUERY_2]
    assert out["includes_missing"] == ["premium"] and out["excludes_found"] == ["FileType:docx"]


def test_q5_all_executions_of_the_capability_failed_is_retrieval_failure():
    out = query({"capability": "Email", "selector": "mortgage", "includes": ["mortgage"]})
    assert verdict(out) == (0.0, "fail", "retrieval_failure")
    assert out["matched_queries"] == [] and out["includes_missing"] == ["mortgage"] and out["excludes_found"] == []


def test_q6_no_query_contains_the_selector():
    out = query({"capability": ODSP, "selector": "zzzz_no_match", "includes": ["whatever"]})
    assert verdict(out) == (0.0, "fail", "no_matching_query")
    assert out["matched_queries"] == [] and out["includes_missing"] == ["whatever"]


def test_q7_a_capability_never_requested_is_no_matching_query_not_retrieval_failure():
    out = query({"capability": "GraphConnectors", "selector": "mortgage"})
    assert verdict(out) == (0.0, "fail", "no_matching_query")
    assert out["matched_queries"] == [] and out["includes_missing"] == []


# -- RetrievalResult, worked examples R1-R9 ---------------------------------------------------


def test_r1_one_hit_can_satisfy_several_items():
    out = result({"max_rank": 5,
                  "expected_items": [{"retrievalExtract_contains": "joint check"}, {"retrievalExtract_contains": "$10,000"}]})
    assert verdict(out) == (1.0, "pass", "pass")
    assert out["results_evaluated"] == 5
    assert out["matched_items"] == [hit("joint check", GUIDEBOOK, 1), hit("$10,000", GUIDEBOOK, 1)]
    assert out["missing_items"] == [] and out["extract_failures"] == []


def test_r2_the_score_is_the_unrounded_proportion_and_the_output_is_the_spec_s():
    snippets = ["joint check", "$500", "Martian flood coverage clause"]
    out = result({"expected_items": [{"retrievalExtract_contains": s} for s in snippets]})
    assert out == {
        "score": 0.6666666666666666,
        "result": "fail",
        "threshold": 1.0,
        "diagnostic_code": "not_retrieved",
        "reason": "Found 2 of 3 expected items within rank 10; missing: ['Martian flood coverage clause']",
        "results_evaluated": 5,
        "matched_items": [hit("joint check", GUIDEBOOK, 1), hit("$500", GUIDEBOOK, 1)],
        "missing_items": [item("Martian flood coverage clause")],
        "extract_failures": [item("Martian flood coverage clause")],
    }


def test_r3_max_rank_is_applied_per_execution_and_hides_lower_hits():
    out = result({"max_rank": 1, "expected_items": [{"retrievalExtract_contains": "5–15 business days"}]})
    assert verdict(out) == (0.0, "fail", "not_retrieved")
    assert out["results_evaluated"] == 2
    assert out["missing_items"] == out["extract_failures"] == [item("5–15 business days")]


def test_r3b_dashes_are_not_normalized():
    out = result({"max_rank": 10, "expected_items": [{"retrievalExtract_contains": "5-15 business days"}]})
    assert verdict(out) == (0.0, "fail", "not_retrieved")
    assert out["results_evaluated"] == 5
    assert out["missing_items"] == out["extract_failures"] == [item("5-15 business days")]


def test_r4_count_below_minimum_without_expected_items():
    out = result({"min_expected_count": 6})
    assert verdict(out) == (0.0, "fail", "count_below_minimum")
    assert out["results_evaluated"] == 5
    assert out["matched_items"] == out["missing_items"] == out["extract_failures"] == []


def test_r5_a_failed_count_zeroes_the_score_but_the_lists_are_filled():
    out = result({"min_expected_count": 6, "expected_items": [{"retrievalExtract_contains": "joint check"}]})
    assert verdict(out) == (0.0, "fail", "count_below_minimum")
    assert out["matched_items"] == [hit("joint check", GUIDEBOOK, 1)]
    assert out["missing_items"] == out["extract_failures"] == []


def test_r6_count_met_within_max_rank_passes():
    out = result({"min_expected_count": 2, "max_rank": 1})
    assert verdict(out) == (1.0, "pass", "pass")
    assert out["results_evaluated"] == 2


def test_r7_all_executions_failed_is_error():
    out = result({"capability": "Email", "expected_items": [{"retrievalExtract_contains": "mortgage"}]})
    assert verdict(out) == (0.0, "fail", "error")
    assert out["results_evaluated"] == 0
    assert out["matched_items"] == out["missing_items"] == out["extract_failures"] == []


def test_r8_no_candidates_is_not_retrieved_with_no_extract_failures():
    out = result({"capability": "GraphConnectors", "expected_items": [{"retrievalExtract_contains": "mortgage"}]})
    assert verdict(out) == (0.0, "fail", "not_retrieved")
    assert out["results_evaluated"] == 0
    assert out["missing_items"] == [item("mortgage")] and out["extract_failures"] == []


def test_r9_no_candidates_and_no_items_is_count_below_minimum():
    out = result({"capability": "GraphConnectors", "min_expected_count": 1})
    assert verdict(out) == (0.0, "fail", "count_below_minimum")
    assert out["results_evaluated"] == 0


# -- rules: scope (4.3) -----------------------------------------------------------------------


def test_capability_matching_is_exact_and_case_sensitive():
    assert query({"capability": ODSP.lower(), "selector": "mortgage"})["diagnostic_code"] == "no_matching_query"
    out = result({"capability": ODSP.upper(), "expected_items": ["mortgage"]})
    assert verdict(out) == (0.0, "fail", "not_retrieved") and out["results_evaluated"] == 0


@pytest.mark.parametrize("status", ["success", "Succeeded", "COMPLETED", "", None])
def test_ok_statuses_are_case_insensitive_and_missing_counts_as_ok(status):
    telemetry = [{"capability": "Email", "status": status, "queries": [{"queryString": "budget"}], "retrievalHits": [{"rank": 1}]}]
    assert query({"capability": "Email", "selector": "budget"}, telemetry)["diagnostic_code"] == "pass"
    assert result({"capability": "Email", "min_expected_count": 1}, telemetry)["diagnostic_code"] == "pass"


@pytest.mark.parametrize("status", ["failed", "error", "successful", "partial"])
def test_other_statuses_are_failures(status):
    telemetry = [{"capability": "Email", "status": status, "queries": [{"queryString": "budget"}], "retrievalHits": [{"rank": 1}]}]
    assert query({"capability": "Email", "selector": "budget"}, telemetry)["diagnostic_code"] == "retrieval_failure"
    assert result({"capability": "Email", "min_expected_count": 1}, telemetry)["diagnostic_code"] == "error"


def test_one_ok_execution_among_failed_ones_is_no_retrieval_failure():
    telemetry = [
        {"capability": "Email", "status": "failed", "queries": [{"queryString": "budget 2025"}]},
        {"capability": "Email", "status": "success", "queries": [{"queryString": "budget 2026"}], "retrievalHits": [{"rank": 1}]},
    ]
    out = query({"capability": "Email", "selector": "budget"}, telemetry)
    assert out["diagnostic_code"] == "pass" and out["matched_queries"] == ["budget 2026"]
    assert result({"capability": "Email", "min_expected_count": 1}, telemetry)["results_evaluated"] == 1


@pytest.mark.parametrize("telemetry", [None, [], {"retrieval_executions": []}, {"executions": []}])
def test_absent_or_empty_telemetry_is_a_retrieval_failure(telemetry):
    assert query({"capability": ODSP, "selector": "x", "includes": ["a", "b"]}, telemetry)["includes_missing"] == ["a", "b"]
    assert query({"capability": ODSP, "selector": "x"}, telemetry)["diagnostic_code"] == "retrieval_failure"
    assert verdict(result({"expected_items": ["x"]}, telemetry)) == (0.0, "fail", "error")


# -- rules: RetrievalQuery (6) ----------------------------------------------------------------


def test_filter_expression_is_never_matched():
    # "contoso" appears only in exec-2's filterExpression.
    assert query({"capability": ODSP, "selector": "contoso"})["diagnostic_code"] == "no_matching_query"
    assert query({"capability": ODSP, "selector": "deductible", "excludes": ["contoso"]})["diagnostic_code"] == "pass"


def test_matched_queries_keep_duplicates_and_order_and_skip_empty_query_strings():
    telemetry = [
        {"capability": "Email", "queries": [{"queryString": "Budget"}, {"queryString": ""}, {"queryString": None}]},
        {"capability": "Email", "queries": [{"queryString": "budget"}, {"queryString": "Budget"}]},
    ]
    out = query({"capability": "Email", "selector": "BUDGET", "includes": ["nope"]}, telemetry)
    assert out["matched_queries"] == ["Budget", "budget", "Budget"]


def test_without_includes_or_excludes_any_selector_hit_passes():
    out = query({"capability": ODSP, "selector": "FILETYPE"})
    assert verdict(out) == (1.0, "pass", "pass") and out["matched_queries"] == [QUERY_2]


def test_matching_uses_unicode_casefold():
    telemetry = [{"capability": "People", "queries": [{"queryString": "Straße directory"}]}]
    out = query({"capability": "People", "selector": "STRASSE", "includes": ["strasse", "DIRECTORY"]}, telemetry)
    assert out["diagnostic_code"] == "pass"


def test_whitespace_is_not_normalized():
    out = query({"capability": ODSP, "selector": "mortgage", "includes": ["joint  check"]})
    assert out["includes_missing"] == ["joint  check"]


def test_includes_missing_is_deduplicated_and_sorted_only_on_term_failures():
    out = query({"capability": ODSP, "selector": "deductible", "includes": ["zeta", "alpha", "zeta"]})
    assert out["includes_missing"] == ["alpha", "zeta"]
    out = query({"capability": ODSP, "selector": "nothing", "includes": ["zeta", "alpha", "zeta"]})
    assert out["includes_missing"] == ["zeta", "alpha", "zeta"]


# -- rules: RetrievalResult (7) ---------------------------------------------------------------


def test_rank_is_one_based_and_inclusive_and_total_result_count_is_ignored():
    telemetry = example_telemetry()
    for execution in telemetry["retrieval_executions"]:
        execution["totalResultCount"] = 100
    assert [result({"max_rank": k, "min_expected_count": 1}, telemetry)["results_evaluated"] for k in (1, 2, 3, 4)] == [2, 4, 5, 5]
    assert result({"min_expected_count": 6}, telemetry)["diagnostic_code"] == "count_below_minimum"


def test_hits_without_an_integer_rank_are_not_candidates():
    hits = [{"rank": r, "extracts": [{"text": "budget"}]} for r in (1, "2", 3.0, True, None)] + [{"extracts": [{"text": "budget"}]}]
    out = result({"capability": "Email", "expected_items": ["budget"]}, [{"capability": "Email", "retrievalHits": hits}])
    assert out["results_evaluated"] == 1 and out["matched_items"] == [hit("budget", "", 1)]


def test_the_reported_hit_is_the_best_ranked_then_the_earliest():
    telemetry = [
        {"capability": "Email", "retrievalHits": [
            {"rank": 3, "webUrl": "a3", "extracts": [{"text": "budget"}]},
            {"rank": 1, "webUrl": "a1", "extracts": [{"text": "other"}, {"text": "BUDGET"}]},
        ]},
        {"capability": "Email", "retrievalHits": [{"rank": 1, "webUrl": "b1", "extracts": [{"text": "budget"}]}]},
    ]  # fmt: skip
    assert result({"capability": "Email", "expected_items": ["budget"]}, telemetry)["matched_items"] == [hit("budget", "a1", 1)]


def test_r2_best_rank_rule_reports_the_second_execution():
    # $500 is at exec-1 rank 2 and exec-2 rank 1; both are the guidebook, so the rank tells them apart.
    out = result({"max_rank": 2, "expected_items": ["$500", "out-of-pocket"]})
    assert out["matched_items"] == [hit("$500", GUIDEBOOK, 1), hit("out-of-pocket", DEFINITIONS, 2)]


def test_zero_candidates_is_not_retrieved_even_when_the_count_fails():
    out = result({"capability": "GraphConnectors", "min_expected_count": 3, "expected_items": ["a", "b"]})
    assert verdict(out) == (0.0, "fail", "not_retrieved")
    assert out["missing_items"] == [item("a"), item("b")] and out["extract_failures"] == []


def test_expected_items_may_be_bare_snippets_in_python():
    check = RetrievalResult(ODSP, max_rank=5, expected_items=["joint check"])
    assert check(example_telemetry())["diagnostic_code"] == "pass"


# -- the pluggable matcher --------------------------------------------------------------------


def test_a_per_extract_judge_replaces_substring_matching():
    exact_case = extract_matcher(lambda text, snippet: snippet in text)
    check = RetrievalResult(ODSP, expected_items=["Joint Check", "joint check"], matcher=exact_case)
    out = check(example_telemetry())
    assert out["matched_items"] == [hit("Joint Check", GUIDEBOOK, 1)] and out["missing_items"] == [item("joint check")]


def test_a_whole_evidence_judge_sees_the_candidates_and_its_reasons_are_reported():
    seen = []

    def judge(snippet, candidates):
        seen.append((snippet, [(h.webUrl, h.rank) for h in candidates]))
        if snippet == "supported":
            return Verdict(candidates[-1], reason="the definitions say so")
        return Verdict(None, reason="nothing about it")

    out = RetrievalResult.from_options({"capability": ODSP, "max_rank": 1, "expected_items": ["supported", "unsupported"]}, matcher=judge)(
        example_telemetry()
    )
    assert seen[0] == ("supported", [(GUIDEBOOK, 1), (GUIDEBOOK, 1)])
    assert out["matched_items"] == [{**hit("supported", GUIDEBOOK, 1), "reason": "the definitions say so"}]
    assert out["missing_items"] == out["extract_failures"] == [{"extractMatch": "unsupported", "reason": "nothing about it"}]
    assert out["score"] == 0.5


# -- bad options and bad telemetry ------------------------------------------------------------


def _invalid_examples() -> list[Path]:
    folder = SCHEMAS / "examples" / "invalid"
    if not folder.is_dir():
        return []
    return sorted(folder.glob("retrieval-*.json"))


@pytest.mark.parametrize("path", _invalid_examples(), ids=lambda p: p.stem)
def test_the_schema_s_invalid_examples_become_error_records(path):
    document = json.loads(path.read_text(encoding="utf-8"))
    (name, options), = document["items"][0]["evaluators"].items()
    out = CHECKS[name].run(options, example_telemetry())
    assert out["result"] == "error" and set(out) == {"result", "error"}
    assert out["error"].startswith(f"Evaluator failed: {name}: ")


def test_the_schema_s_invalid_examples_are_present():
    if not _invalid_examples() and os.environ.get("CI", "").lower() != "true":
        pytest.skip(f"the schema's examples are not at {SCHEMAS}")
    assert {p.stem for p in _invalid_examples()} == {
        "retrieval-query-missing-capability",
        "retrieval-query-missing-selector",
        "retrieval-query-threshold-override",
        "retrieval-result-missing-assertions",
    }


def test_the_sample_dataset_s_retrieval_options_are_all_valid():
    path = SCHEMAS / "samples" / "prompts-retrieval-complex.json"
    if not path.is_file():
        pytest.skip(f"the sample dataset is not at {path}")
    checked = 0
    for entry in json.loads(path.read_text(encoding="utf-8"))["items"]:
        for name, options in entry.get("evaluators", {}).items():
            if name in CHECKS:
                assert "error" not in CHECKS[name].run(options, example_telemetry())
                checked += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("name", "options", "field"),
    [
        ("RetrievalQuery", {"selector": "x"}, "'capability': Field required"),
        ("RetrievalQuery", {"capability": ODSP}, "'selector': Field required"),
        ("RetrievalQuery", {"capability": "", "selector": "x"}, "'capability'"),
        ("RetrievalQuery", {"capability": 1, "selector": "x"}, "'capability'"),
        ("RetrievalQuery", {"capability": ODSP, "selector": "x", "threshold": 1.0}, "'threshold': the threshold is pinned at 1.0"),
        ("RetrievalQuery", {"capability": ODSP, "selector": "x", "includes": "mortgage"}, "'includes'"),
        ("RetrievalQuery", {"capability": ODSP, "selector": "x", "excludes": ["a", ""]}, "'excludes[1]'"),
        ("RetrievalQuery", {"capability": ODSP, "selector": "x", "max_rank": 3}, "'max_rank': Extra inputs"),
        ("RetrievalResult", {"max_rank": 5, "min_expected_count": 1}, "'capability': Field required"),
        ("RetrievalResult", {"capability": ODSP, "max_rank": 5}, "at least one of 'expected_items' or 'min_expected_count'"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": 1, "threshold": None}, "'threshold'"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": 0}, "'min_expected_count': Input should be greater"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": True}, "'min_expected_count': Input should be a valid integer"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": 1.0}, "'min_expected_count'"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": 1, "max_rank": False}, "'max_rank'"),
        ("RetrievalResult", {"capability": ODSP, "min_expected_count": 1, "max_rank": 0}, "'max_rank'"),
        ("RetrievalResult", {"capability": ODSP, "expected_items": []}, "'expected_items'"),
        ("RetrievalResult", {"capability": ODSP, "expected_items": [{"webUrl": "https://x"}]}, "'expected_items[0]': webUrl"),
        (
            "RetrievalResult",
            {"capability": ODSP, "expected_items": [{"retrievalExtract_contains": "a", "webUrl": "https://x"}]},
            "'expected_items[0]': webUrl is not supported",
        ),
        ("RetrievalResult", {"capability": ODSP, "expected_items": [{"retrievalExtract_contains": ""}]}, "'expected_items[0]'"),
        ("RetrievalResult", {"capability": ODSP, "expected_items": [{"text": "a"}]}, "'expected_items[0]': unknown key 'text'"),
        ("RetrievalResult", {"capability": ODSP, "expected_items": [{}]}, "'expected_items[0]': retrievalExtract_contains is required"),
    ],
)
def test_invalid_options_become_an_error_record_naming_the_field(name, options, field):
    out = CHECKS[name].run(options, example_telemetry())
    assert out == {"result": "error", "error": out["error"]}
    assert out["error"].startswith(f"Evaluator failed: {name}: ")
    assert field in out["error"]
    with pytest.raises(ConfigError, match="option|at least one"):
        CHECKS[name].from_options(options)


@pytest.mark.parametrize("options", [None, [], "capability"])
def test_options_that_are_not_an_object_are_an_error(options):
    assert "the options must be an object" in RetrievalQuery.run(options, None)["error"]


def test_the_python_constructors_validate_like_the_options():
    with pytest.raises(ConfigError, match="'min_expected_count'"):
        RetrievalResult(ODSP, min_expected_count=True)
    with pytest.raises(ConfigError, match=r"'includes\[0\]'"):
        RetrievalQuery(ODSP, "x", includes=[""])
    with pytest.raises(ConfigError, match="'includes'"):
        RetrievalQuery(ODSP, "x", includes="abc")


def test_unreadable_telemetry_raises_and_becomes_an_error_record():
    telemetry = [{"capability": ODSP, "retrievalHits": [{"rank": 0}]}]
    with pytest.raises(InputError, match=r"retrieval_executions\[0\]\.retrievalHits\[0\]\.rank"):
        RetrievalResult(ODSP, min_expected_count=1)(telemetry)
    out = RetrievalResult.run({"capability": ODSP, "min_expected_count": 1}, telemetry)
    assert out["result"] == "error" and "rank" in out["error"]


def test_checks_do_not_modify_their_input():
    telemetry = example_telemetry()
    before = copy.deepcopy(telemetry)
    query({"capability": ODSP, "selector": "mortgage", "includes": ["x"]}, telemetry)
    result({"expected_items": ["joint check", "nothing"]}, telemetry)
    assert telemetry == before


# -- properties -------------------------------------------------------------------------------

_words = st.sampled_from(["budget", "Budget", "BUDGET", "plan", "straße", "STRASSE", "q3", "5–15"])
_texts = st.lists(_words, max_size=4).map(" ".join)
_hits = st.lists(
    st.fixed_dictionaries({"rank": st.integers(1, 8), "extracts": st.lists(st.fixed_dictionaries({"text": _texts}), max_size=2)}),
    max_size=6,
)
_executions = st.lists(
    st.fixed_dictionaries({"capability": st.just("Email"), "status": st.sampled_from(["success", None, "failed"]), "retrievalHits": _hits}),
    min_size=1,
    max_size=3,
)
_snippets = st.lists(_words, min_size=1, max_size=4)


@given(_executions, _snippets, st.integers(1, 9), st.none() | st.integers(1, 6))
def test_score_is_the_matched_share_in_0_1_and_items_are_partitioned(executions, snippets, max_rank, minimum):
    options = {"capability": "Email", "max_rank": max_rank, "expected_items": snippets}
    if minimum is not None:
        options["min_expected_count"] = minimum
    out = result(options, executions)
    assert 0.0 <= out["score"] <= 1.0
    if out["diagnostic_code"] == "error":
        return
    matched = [entry["extractMatch"] for entry in out["matched_items"]]
    missing = [entry["extractMatch"] for entry in out["missing_items"]]
    assert sorted(matched + missing) == sorted(snippets)
    assert all(entry["matchedHitRank"] <= max_rank for entry in out["matched_items"])
    if out["diagnostic_code"] != "count_below_minimum":
        assert out["score"] == len(matched) / len(snippets)
    assert (out["result"] == "pass") == (out["score"] == 1.0)


@given(_executions, _snippets, st.integers(1, 8))
def test_raising_max_rank_never_loses_candidates_or_matches(executions, snippets, max_rank):
    lower = result({"capability": "Email", "max_rank": max_rank, "expected_items": snippets}, executions)
    higher = result({"capability": "Email", "max_rank": max_rank + 1, "expected_items": snippets}, executions)
    assert lower["results_evaluated"] <= higher["results_evaluated"]
    assert {e["extractMatch"] for e in lower["matched_items"]} <= {e["extractMatch"] for e in higher["matched_items"]}
    assert lower["score"] <= higher["score"]
