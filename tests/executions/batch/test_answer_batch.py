"""KeywordMatch and ToolUse column-wise: the batch engine and check_log agree with the per-item evaluators on random
logs (in memory, chunked, as JSON Lines and Parquet files), the keyword kernel is its regular-expression definition,
and a log's response and invoked_tools fields are read (and rejected) as documented."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import KeywordMatch, RetrievalQuery, ToolUse, check_log
from retrieval_eval.executions.batch import log as log_module
from retrieval_eval.executions.batch.answer_checks import word_table
from retrieval_eval.executions.batch.engine import (
    EVALUATORS,
    RESULT_SCHEMA,
    plan_checks,
    plan_per_record,
    run_checks,
    score_objects,
)
from retrieval_eval.executions.batch.log import read_execution_log
from retrieval_eval.executions.batch.tables import flatten_records
from retrieval_eval.executions.checks.evaluator import OptionError
from retrieval_eval.executions.checks.tool_use import tool_names
from retrieval_eval.io.arrays import string_buffers
from retrieval_eval.kernels._config import read_only
from retrieval_eval.kernels.text import contains, keywords

from .. import response_strategies as rs
from .. import strategies
from .test_batch import _rechunked

CHECKS = {"KeywordMatch": KeywordMatch, "ToolUse": ToolUse, "RetrievalQuery": RetrievalQuery}
# Each example runs the whole engine (tens of Arrow calls, 10-20 ms): fewer of them than the profile's.
ENGINE_EXAMPLES = min(40, settings().max_examples)

records = st.fixed_dictionaries(
    {},
    optional={
        "retrieval_executions": strategies.executions,
        "response": rs.responses() | st.text(max_size=10),
        "invoked_tools": rs.invocations,
    },
).filter(lambda record: record != {})


@st.composite
def evaluator_maps(draw) -> dict:
    """KeywordMatch and ToolUse, valid or not, with or without a retrieval check, in any order."""
    chosen = {
        "KeywordMatch": draw(rs.keyword_options | rs.invalid_keyword_options),
        "ToolUse": draw(rs.tool_options | rs.invalid_tool_options),
        "RetrievalQuery": draw(strategies.query_options),
    }
    names = draw(st.lists(st.sampled_from(sorted(chosen)), min_size=1, max_size=3, unique=True))
    return {name: chosen[name] for name in names}


def per_item(logged: list[dict], configs: list[dict]) -> list[dict]:
    inputs = {
        "KeywordMatch": lambda record: record.get("response"),
        "ToolUse": lambda record: record.get("invoked_tools"),
        "RetrievalQuery": lambda record: record.get("retrieval_executions", []),
    }
    return [
        CHECKS[name].run(options, inputs[name](record))
        for record, config in zip(logged, configs)
        for name, options in config.items()
    ]


def tables_of(logged: list[dict]):
    return flatten_records(
        [record.get("retrieval_executions") for record in logged],
        responses=[record.get("response") for record in logged],
        invoked_tools=[record.get("invoked_tools") for record in logged],
    )


def assert_agrees(logged: list[dict], configs: list[dict], result: pa.Table) -> None:
    expected = per_item(logged, configs)
    objects = score_objects(result)
    assert objects == expected
    assert [list(obj) for obj in objects] == [list(obj) for obj in expected]
    verdicts = result.select(["score", "result", "diagnostic_code"]).to_pylist()
    assert verdicts == [
        {"score": obj.get("score"), "result": obj["result"], "diagnostic_code": obj.get("diagnostic_code")}
        for obj in expected
    ]


@settings(max_examples=ENGINE_EXAMPLES)
@given(st.lists(records, min_size=1, max_size=5), st.lists(evaluator_maps(), min_size=1, max_size=3), st.booleans())
def test_random_logs_agree_with_the_per_item_evaluators(logged, maps, shared):
    configs = [maps[0]] * len(logged) if shared else [maps[i % len(maps)] for i in range(len(logged))]
    plan = plan_checks(len(logged), maps[0]) if shared else plan_per_record(configs)
    assert_agrees(logged, configs, run_checks(tables_of(logged), plan))


@settings(max_examples=ENGINE_EXAMPLES)
@given(st.lists(records, min_size=1, max_size=5), evaluator_maps(), st.lists(st.integers(0, 12), max_size=3))
def test_chunked_records_give_the_same_results(logged, evaluators, cuts):
    tables = tables_of(logged)
    plan = plan_checks(len(logged), evaluators)
    assert run_checks(_rechunked(tables, cuts), plan).equals(run_checks(tables, plan))


def write_jsonl(folder: Path, logged: list[dict]) -> Path:
    path = folder / "log.jsonl"
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in logged), encoding="utf-8")
    return path


@settings(max_examples=ENGINE_EXAMPLES)
@given(st.lists(records, min_size=1, max_size=4), evaluator_maps())
def test_check_log_of_a_file_agrees_with_the_per_item_evaluators_and_both_readings(logged, evaluators):
    logged = [{"id": f"r{number}", **record} for number, record in enumerate(logged)]
    malformed = _first_malformed(evaluators)
    with tempfile.TemporaryDirectory() as folder:
        path = write_jsonl(Path(folder), logged)
        assert read_execution_log(path).equals(log_module._read_reference(str(path)))
        if malformed is not None:  # options that do not parse are the configuration's one error, no record checked
            with pytest.raises(ConfigError, match=f"^{re.escape(malformed)}$"):
                check_log(path, evaluators)
            return
        checked = check_log(path, evaluators)
    assert_agrees(logged, [evaluators] * len(logged), checked.results.drop_columns(["id"]))


def _first_malformed(evaluators: dict) -> str | None:
    """The error of the first options that do not parse, as the per-item evaluator raises it (None: all parse)."""
    for name, options in evaluators.items():
        try:
            EVALUATORS[name].from_options(options)
        except OptionError as exc:
            return str(exc)
        except ConfigError:
            pass  # parses, asserts nothing: an invalid result per record
    return None


def test_flattened_records_take_the_shapes_of_a_log_and_name_the_bad_ones():
    tables = flatten_records([None, None], responses=["x", None], invoked_tools=[["a", {"name": "b", "type": "topic"}], None])
    assert tables.records.column("invoked_tools").to_pylist() == [["a", "b"], None]
    with pytest.raises(InputError, match=r"row 2, field 'invoked_tools\[0\]\.name': must be a non-empty string"):
        flatten_records([None, None], invoked_tools=[[], [{"name": 3}]])
    with pytest.raises(InputError, match="row 1, field 'response': must be a string, got bytes"):
        flatten_records([None], responses=[b"x"])


def test_the_arrow_reading_takes_responses_and_names_and_declines_what_it_cannot_judge(tmp_path):
    plain = [{"id": "a", "retrieval_executions": [], "response": "x", "invoked_tools": ["Search", "Greeting"]},
             {"id": "b", "retrieval_executions": [], "response": None}]  # fmt: skip
    tables = log_module._read_with_arrow(str(write_jsonl(tmp_path, plain)))
    assert tables is not None and tables.records.to_pylist() == [
        {"id": "a", "response": "x", "invoked_tools": ["Search", "Greeting"]},
        {"id": "b", "response": None, "invoked_tools": None},
    ]
    for declined in (
        [{"id": "a", "retrieval_executions": [], "invoked_tools": [{"name": "Search"}]}],  # objects: the reference
        [{"id": "a", "response": "no executions"}],
        [{"id": "a", "retrieval_executions": [], "invoked_tools": [None]}],
        [{"id": "a", "retrieval_executions": [], "invoked_tools": [""]}],
    ):
        path = write_jsonl(tmp_path, declined)
        assert log_module._read_with_arrow(str(path)) is None, declined


@settings(max_examples=ENGINE_EXAMPLES)
@given(st.lists(records, min_size=1, max_size=4))
def test_a_parquet_log_reads_as_the_same_log_in_json_lines(logged):
    # Parquet holds one shape per column: the invocations as names, the executions as written.
    logged = [
        {"id": f"r{n}", **record, **({"invoked_tools": tool_names(record["invoked_tools"])} if "invoked_tools" in record else {})}
        for n, record in enumerate(logged)
    ]
    with tempfile.TemporaryDirectory() as folder:
        jsonl = read_execution_log(write_jsonl(Path(folder), logged))
        path = Path(folder) / "log.parquet"
        pq.write_table(pa.Table.from_struct_array(pa.array(logged)), path)
        assert read_execution_log(path).records.equals(jsonl.records)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"id": "a", "response": 3}, r"row 1, field 'response': must be a string, got int"),
        ({"id": "a", "response": "x", "invoked_tools": "Search"}, r"row 1, field 'invoked_tools': must be a list"),
        ({"id": "a", "invoked_tools": ["Search", 1]}, r"row 1, field 'invoked_tools\[1\]': must be a name or an object"),
        ({"id": "a", "invoked_tools": [{"name": ""}]}, r"row 1, field 'invoked_tools\[0\].name': must be a non-empty"),
        ({"id": "a"}, r"row 1: expected an object with 'retrieval_executions'"),
    ],
)
def test_bad_fields_of_a_log_name_the_file_line_and_field(tmp_path, line, message):
    path = write_jsonl(tmp_path, [line])
    with pytest.raises(InputError, match=re.escape(str(path)) + ", " + message):
        check_log(path, {"ToolUse": {"tools": ["Search"]}})


def test_check_log_runs_both_and_writes_their_score_objects(tmp_path):
    logged = [
        {"id": "a", "response": "The deductible is $500.", "invoked_tools": ["SearchPolicies"]},
        {"id": "b", "response": "Ask an agent.", "invoked_tools": [{"name": "Escalate", "type": "topic"}]},
        {"id": "c", "retrieval_executions": []},
    ]
    config = {"KeywordMatch": {"keywords": ["deductible", "$500"]}, "ToolUse": {"tools": ["SearchPolicies"]}}
    checked = check_log(write_jsonl(tmp_path, logged), config)
    assert list(checked.statuses) == ["pass", "fail", "partial"]
    out = tmp_path / "results.jsonl"
    checked.write(out)
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert written[0]["scores"] == {
        "keywordMatch": KeywordMatch.run(config["KeywordMatch"], logged[0]["response"]),
        "toolUse": ToolUse.run(config["ToolUse"], logged[0]["invoked_tools"]),
    }
    assert written[2]["scores"]["keywordMatch"] == {"result": "error", "error": "Evaluator failed: KeywordMatch: no response to check"}
    summary = checked.summary.evaluators
    assert summary.loc["KeywordMatch", ["pass", "fail", "error"]].tolist() == [1, 1, 1]


def test_an_unknown_option_and_an_invalid_test_case_are_errored_rows_and_other_evaluators_are_refused():
    tables = tables_of([{"response": "x", "invoked_tools": []}])
    result = run_checks(tables, plan_checks(1, {"KeywordMatch": {"keywords": ["x"], "typo": 1}, "ToolUse": {}}))
    assert result.schema == RESULT_SCHEMA
    assert result.column("error").to_pylist() == [
        "Evaluator failed: KeywordMatch: option 'typo': Extra inputs are not permitted",
        "Evaluator failed: ToolUse: the test case lists no expected tools, so its result is invalid (neither pass nor fail)",
    ]
    with pytest.raises(ConfigError, match="'ExactMatch' cannot run on an execution log"):
        plan_checks(1, {"ExactMatch": {}})


def test_the_result_table_has_the_answer_checks_columns_on_their_rows_only():
    tables = tables_of([{"response": "plan", "invoked_tools": ["b", "a", "b"], "retrieval_executions": []}])
    config = {"KeywordMatch": {"keywords": ["plan", "x"], "mode": "any"}, "ToolUse": {"tools": ["A"]},
              "RetrievalQuery": {"capability": "Email", "selector": "x"}}  # fmt: skip
    keyword, tool, query = run_checks(tables, plan_checks(1, config)).to_pylist()
    assert (keyword["mode"], keyword["matched_keywords"], keyword["missing_keywords"]) == ("any", ["plan"], ["x"])
    assert keyword["score"] is None and keyword["diagnostic_code"] is None and keyword["matched_tools"] is None
    assert (tool["matched_tools"], tool["invoked_tools"], tool["missing_keywords"]) == (["A"], ["a", "b"], None)
    assert query["mode"] is None and query["invoked_tools"] is None and query["diagnostic_code"] == "retrieval_failure"


# -- the keyword kernel -----------------------------------------------------------------------


def regex_found(text: str, keyword: str, boundaries: bool) -> bool:
    pattern = re.escape(keyword)
    return re.search(r"(?<!\w)" + pattern + r"(?!\w)" if boundaries else pattern, text) is not None


@given(st.lists(st.tuples(st.text(max_size=8), st.text(max_size=3), st.booleans()), max_size=12))
def test_the_keyword_kernel_is_the_regular_expression_on_any_text(cases):
    texts = string_buffers(pa.array([text for text, _, _ in cases], pa.string()))
    needles = string_buffers(pa.array([keyword for _, keyword, _ in cases], pa.string()))
    rows = read_only(np.arange(len(cases)), np.int64)
    flags = read_only([boundaries for _, _, boundaries in cases], np.bool_)
    found = keywords.keywords_found(*texts, rows, *needles, rows, word_table(texts), flags)
    assert found.tolist() == [keyword != "" and regex_found(text, keyword, b) for text, keyword, b in cases]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compilation without the JIT")
def test_one_specialization_of_the_keyword_kernel():
    config = {"KeywordMatch": {"keywords": ["x", "Y"], "word_boundaries": True}}
    run_checks(tables_of([{"response": "x y"}, {"response": "Straße"}]), plan_checks(2, config))
    run_checks(tables_of([{"response": "x"}]), plan_checks(1, {"KeywordMatch": {"keywords": ["X"], "case_sensitive": True}}))
    assert len(keywords.keywords_found.serial.signatures) <= 1
    assert len(contains.code_points_in_rows.signatures) <= 1


def test_a_per_record_configuration_sets_each_record_s_keywords_over_the_defaults(tmp_path):
    logged = [
        {"id": "a", "response": "A joint check over $10,000.", "invoked_tools": ["SearchClaims"]},
        {"id": "b", "response": "Deductibles start at $500.", "invoked_tools": ["SearchClaims", "Greeting"]},
        {"id": "c", "response": "Let me hand you to an adjuster.", "invoked_tools": [{"name": "Escalate"}]},
    ]
    config = {
        "default_evaluators": {"ToolUse": {"tools": ["SearchClaims"]}},
        "items": {
            "a": {"evaluators": {"KeywordMatch": {"keywords": ["joint check", "$10,000"]}}},
            "b": {"evaluators": {"KeywordMatch": {"keywords": ["$500", "$1,000"], "mode": "any"}}},
            "c": {"evaluators": {"KeywordMatch": {"keywords": ["adjuster"]}}, "evaluators_mode": "replace"},
        },
    }
    checked = check_log(write_jsonl(tmp_path, logged), config)
    assert list(checked.statuses) == ["pass", "pass", "pass"]
    assert checked.results.select(["id", "evaluator"]).to_pylist() == [
        {"id": "a", "evaluator": "ToolUse"}, {"id": "a", "evaluator": "KeywordMatch"},
        {"id": "b", "evaluator": "ToolUse"}, {"id": "b", "evaluator": "KeywordMatch"},
        {"id": "c", "evaluator": "KeywordMatch"},
    ]  # fmt: skip
