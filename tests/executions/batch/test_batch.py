"""The column-wise checks agree with the per-item checks: the worked examples (spec section 8), random
telemetry and configurations, exact casefolding, and the plan and result tables."""

from __future__ import annotations

import numba
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.executions import RetrievalQuery, RetrievalResult
from retrieval_eval.executions.batch.casefold import casefold
from retrieval_eval.executions.batch.engine import (
    PLAN_SCHEMA,
    RESULT_SCHEMA,
    CheckPlan,
    plan_checks,
    plan_per_record,
    run_checks,
    score_objects,
)
from retrieval_eval.executions.batch.tables import ExecutionTables, flatten_records
from retrieval_eval.kernels.text import contains

from .. import strategies
from ..fixtures import ODSP, example_telemetry

CHECKS = {"RetrievalQuery": RetrievalQuery, "RetrievalResult": RetrievalResult}


def items(*snippets: str) -> list[dict]:
    return [{"retrievalExtract_contains": snippet} for snippet in snippets]


# The worked examples of the spec (section 8) and the rules' tests of test_checks.py, as evaluator maps.
EXAMPLES = {
    "Q1": {"RetrievalQuery": {"capability": ODSP, "selector": "mortgage", "includes": ["mortgage", "joint check"],
                              "excludes": ["FileType:OneNote"]}},
    "Q2": {"RetrievalQuery": {"capability": ODSP, "selector": "MORTGAGE", "includes": ["mortgage", "joint check", "homeshield"]}},
    "Q3": {"RetrievalQuery": {"capability": ODSP, "selector": "deductible", "includes": ["deductible"], "excludes": ["filetype:docx"]}},
    "Q4": {"RetrievalQuery": {"capability": ODSP, "selector": "deductible", "includes": ["premium"], "excludes": ["FileType:docx"]}},
    "Q5": {"RetrievalQuery": {"capability": "Email", "selector": "mortgage", "includes": ["mortgage"]}},
    "Q6": {"RetrievalQuery": {"capability": ODSP, "selector": "zzzz_no_match", "includes": ["whatever"]}},
    "Q7": {"RetrievalQuery": {"capability": "GraphConnectors", "selector": "mortgage"}},
    "R1": {"RetrievalResult": {"capability": ODSP, "max_rank": 5, "expected_items": items("joint check", "$10,000")}},
    "R2": {"RetrievalResult": {"capability": ODSP, "expected_items": items("joint check", "$500", "Martian flood coverage clause")}},
    "R3": {"RetrievalResult": {"capability": ODSP, "max_rank": 1, "expected_items": items("5–15 business days")}},
    "R3b": {"RetrievalResult": {"capability": ODSP, "max_rank": 10, "expected_items": items("5-15 business days")}},
    "R4": {"RetrievalResult": {"capability": ODSP, "min_expected_count": 6}},
    "R5": {"RetrievalResult": {"capability": ODSP, "min_expected_count": 6, "expected_items": items("joint check")}},
    "R6": {"RetrievalResult": {"capability": ODSP, "min_expected_count": 2, "max_rank": 1}},
    "R7": {"RetrievalResult": {"capability": "Email", "expected_items": items("mortgage")}},
    "R8": {"RetrievalResult": {"capability": "GraphConnectors", "expected_items": items("mortgage")}},
    "R9": {"RetrievalResult": {"capability": "GraphConnectors", "min_expected_count": 1}},
    "best rank": {"RetrievalResult": {"capability": ODSP, "max_rank": 2, "expected_items": ["$500", "out-of-pocket"]}},
    "no candidates": {"RetrievalResult": {"capability": "GraphConnectors", "min_expected_count": 3, "expected_items": ["a", "b"]}},
    "filter expression": {"RetrievalQuery": {"capability": ODSP, "selector": "deductible", "excludes": ["contoso"]}},
    "union": {"RetrievalQuery": {"capability": ODSP, "selector": "deductible", "includes": ["zeta", "alpha", "zeta"]}},
    "configured": {"RetrievalQuery": {"capability": ODSP, "selector": "nothing", "includes": ["zeta", "alpha", "zeta"]}},
    "both": {
        "RetrievalQuery": {"capability": ODSP, "selector": "FILETYPE"},
        "RetrievalResult": {"capability": ODSP, "expected_items": items("Joint Check", "nothing")},
    },
    "invalid": {"RetrievalQuery": {"capability": ODSP}, "RetrievalResult": {"capability": ODSP, "threshold": 1.0}},
}  # fmt: skip


def per_item(records: list, evaluators: list[dict]) -> list[dict]:
    return [CHECKS[name].run(options, record) for record, config in zip(records, evaluators) for name, options in config.items()]


def assert_agrees(records: list, evaluators: list[dict], result: pa.Table) -> None:
    """The score objects equal the per-item checks' (keys in the same order), and the table's verdicts theirs."""
    expected = per_item(records, evaluators)
    objects = score_objects(result)
    assert objects == expected
    assert [list(obj) for obj in objects] == [list(obj) for obj in expected]
    columns = result.select(["score", "result", "diagnostic_code"]).to_pylist()
    assert columns == [
        {"score": obj.get("score"), "result": obj["result"], "diagnostic_code": obj.get("diagnostic_code")} for obj in expected
    ]


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_worked_example_gives_the_per_item_score_object(name):
    evaluators = EXAMPLES[name]
    result = run_checks(flatten_records([example_telemetry()]), plan_checks(1, evaluators))
    assert_agrees([example_telemetry()], [evaluators], result)


def test_all_worked_examples_at_once_with_one_evaluator_map_per_record():
    records = [example_telemetry() for _ in EXAMPLES] + [None, []]
    configs = list(EXAMPLES.values()) + [EXAMPLES["Q2"], {**EXAMPLES["R2"], **EXAMPLES["Q1"]}]
    assert_agrees(records, configs, run_checks(flatten_records(records), plan_per_record(configs)))


@given(
    st.lists(strategies.telemetry, min_size=1, max_size=4),
    st.lists(strategies.evaluator_maps(), min_size=1, max_size=4),
    st.booleans(),
)
def test_random_telemetry_and_options_agree_with_the_per_item_checks(records, maps, shared):
    configs = [maps[0]] * len(records) if shared else [maps[i % len(maps)] for i in range(len(records))]
    plan = plan_checks(len(records), maps[0]) if shared else plan_per_record(configs)
    assert_agrees(records, configs, run_checks(flatten_records(records), plan))


def _rechunked(tables: ExecutionTables, cuts: list[int]) -> ExecutionTables:
    """The same tables with every column split into chunks at the row positions ``cuts`` (as Arrow readers give them)."""

    def split(table: pa.Table) -> pa.Table:
        bounds = sorted({0, table.num_rows, *(cut % (table.num_rows + 1) for cut in cuts)})
        return pa.Table.from_batches(
            [batch for a, b in zip(bounds, bounds[1:]) for batch in table.slice(a, b - a).to_batches()], table.schema
        )

    names = ("records", "executions", "queries", "hits", "extracts")
    return ExecutionTables(*(split(getattr(tables, name)) for name in names))


@given(
    st.lists(strategies.telemetry, min_size=1, max_size=4),
    strategies.evaluator_maps(),
    st.lists(st.integers(0, 40), max_size=4),
)
def test_chunked_columns_give_the_same_results(records, evaluators, cuts):
    tables = flatten_records(records)
    plan = plan_checks(len(records), evaluators)
    chunked = _rechunked(tables, cuts)
    assert chunked.equals(tables)
    assert run_checks(chunked, plan).equals(run_checks(tables, plan))


# -- casefolding ------------------------------------------------------------------------------


@given(st.lists(st.none() | st.text(max_size=12), max_size=30))
def test_casefold_is_python_s_on_any_text(values):
    assert casefold(pa.array(values, pa.string())).to_pylist() == [None if v is None else v.casefold() for v in values]


@pytest.mark.parametrize(
    "text",
    ["Straße", "İstanbul", "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ ς", "ﬁle", "ſ", "Ꭰꭰ", "µ", "ǅ", "K", "ẞ", "\U0001e900", "\U00010d50", "ΐ", "ﬃ"],
)
def test_casefold_matches_python_where_lower_does_not(text):
    mixed = pa.chunked_array([pa.array(["plain ASCII", text]), pa.array([None, text + " Ω"])])
    assert casefold(mixed).to_pylist() == ["plain ascii", text.casefold(), None, (text + " Ω").casefold()]


def test_includes_missing_is_in_code_point_order_as_python_sorts():
    telemetry = [{"capability": "Email", "queries": [{"queryString": "budget"}]}]
    terms = ["ß", "z", "é", "Z", "ﬁ", "\U00010400", "a"]
    evaluators = {"RetrievalQuery": {"capability": "Email", "selector": "budget", "includes": terms}}
    out = score_objects(run_checks(flatten_records([telemetry]), plan_checks(1, evaluators)))[0]
    assert out["includes_missing"] == sorted(terms)


# -- plans ------------------------------------------------------------------------------------


def test_a_shared_plan_has_one_row_per_record_and_evaluator_in_map_order():
    plan = plan_checks(3, {"RetrievalResult": {"capability": "Email", "min_expected_count": 1}, "RetrievalQuery": {"selector": "x"}})
    assert isinstance(plan, CheckPlan) and len(plan) == 6 and plan.table.schema == PLAN_SCHEMA
    rows = plan.table.to_pylist()
    assert [(row["record"], row["evaluator"]) for row in rows] == [
        (0, "RetrievalResult"), (0, "RetrievalQuery"), (1, "RetrievalResult"), (1, "RetrievalQuery"),
        (2, "RetrievalResult"), (2, "RetrievalQuery"),
    ]  # fmt: skip
    assert rows[0]["max_rank"] == 10 and rows[0]["min_expected_count"] == 1 and rows[0]["expected_items"] is None
    assert rows[1]["error"] == "RetrievalQuery: option 'capability': Field required" and rows[1]["selector"] is None


def test_plan_per_record_validates_each_distinct_options_once(monkeypatch):
    calls = []
    original = RetrievalQuery.from_options.__func__
    monkeypatch.setattr(RetrievalQuery, "from_options", classmethod(lambda cls, o: calls.append(o) or original(cls, o)))
    shared = {"capability": "Email", "selector": "x"}
    plan = plan_per_record([{"RetrievalQuery": shared}] * 5 + [{"RetrievalQuery": dict(shared)}, {}, {"RetrievalQuery": {"selector": "y"}}])
    assert len(calls) == 2
    assert plan.table.column("record").to_pylist() == [0, 1, 2, 3, 4, 5, 7]


@pytest.mark.parametrize("plan", [lambda e: plan_checks(1, e), lambda e: plan_per_record([e])])
def test_an_unknown_evaluator_is_a_config_error(plan):
    with pytest.raises(ConfigError, match="'ExactMatch' cannot run on an execution log; the batch path runs Retrieval"):
        plan({"ExactMatch": {}})
    with pytest.raises(ConfigError, match="must be an object"):
        plan(["RetrievalQuery"])


def test_counts_beyond_64_bits_are_an_error_here_only():
    options = {"capability": "Email", "max_rank": 2**63, "min_expected_count": 1}
    assert RetrievalResult.run(options, [])["diagnostic_code"] == "error"
    (out,) = score_objects(run_checks(flatten_records([[]]), plan_checks(1, {"RetrievalResult": options})))
    assert out == {"result": "error",
                   "error": f"Evaluator failed: RetrievalResult: option 'max_rank': the batch path takes values up to {2**63 - 1}"}


# -- the result table -------------------------------------------------------------------------


def test_the_result_table_has_each_check_s_columns_on_its_rows_only():
    configs = [{**EXAMPLES["R2"], **EXAMPLES["Q2"]}, EXAMPLES["invalid"]]
    result = run_checks(flatten_records([example_telemetry()] * 2), plan_per_record(configs))
    assert result.schema == RESULT_SCHEMA
    found, query, errored, _ = result.to_pylist()
    assert found["results_evaluated"] == 5 and found["matched_queries"] is None and found["error"] is None
    assert found["missing_items"] == found["extract_failures"] == ["Martian flood coverage clause"]
    assert query["includes_missing"] == ["homeshield", "joint check"] and query["matched_items"] is None
    assert query["results_evaluated"] is None and query["max_rank"] is None
    assert errored["result"] == "error" and errored["score"] is None and errored["diagnostic_code"] is None
    assert errored["error"] == "Evaluator failed: RetrievalQuery: option 'selector': Field required"
    assert all(errored[column] is None for column in ["capability", "results_evaluated", "matched_items", "includes_missing"])


def test_a_plan_beyond_the_tables_is_an_error():
    with pytest.raises(ConfigError, match="outside the 1 records"):
        run_checks(flatten_records([[]]), plan_checks(2, EXAMPLES["Q1"]))


def test_tables_out_of_parent_order_are_an_input_error():
    tables = flatten_records([example_telemetry()])
    hits = tables.hits.set_column(0, "execution", pa.array([1, 0, 0, 0, 1], pa.int64()))
    shuffled = ExecutionTables(tables.records, tables.executions, tables.queries, hits, tables.extracts)
    with pytest.raises(InputError, match="hits.execution"):
        run_checks(shuffled, plan_checks(1, EXAMPLES["R1"]))


def test_a_record_that_cannot_be_loaded_is_named_by_position():
    with pytest.raises(InputError, match=r"row 2, field 'retrieval_executions\[0\]\.retrievalHits\[0\]\.rank'"):
        flatten_records([[], [{"capability": "Email", "retrievalHits": [{"rank": 0}]}]])


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compilation without the JIT")
def test_one_specialization_per_kernel():
    records = [example_telemetry(), None, [{"capability": "Email", "queries": [{"queryString": "Straße"}]}]]
    run_checks(flatten_records(records), plan_per_record([{**EXAMPLES["R2"], **EXAMPLES["Q2"]}, EXAMPLES["Q1"], EXAMPLES["R4"]]))
    run_checks(flatten_records(records[:1]), plan_checks(1, {**EXAMPLES["Q2"], **EXAMPLES["R1"]}))
    for kernel in (contains.contains_pairs, contains.best_hits_in):
        assert len(kernel.serial.signatures) <= 1, kernel.__name__
    for kernel in (contains.code_points_in_rows, contains.rows_with_any, contains.folded_offsets, contains.fold_into):
        assert len(kernel.signatures) <= 1, kernel.__name__
