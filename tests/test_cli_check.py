"""`retrieval-eval check`: evaluation documents and execution logs from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from retrieval_eval.cli import main
from tests.executions import test_gate as gate
from tests.test_cli import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"
DOCUMENT, LOG, CHECKS = str(DATA / "eval_document.json"), str(DATA / "executions.jsonl"), str(DATA / "checks.json")


def test_a_document_with_its_log_prints_the_summary_and_exits_1_on_a_failed_item(capsys, tmp_path):
    out_path = tmp_path / "scored.json"
    code, out, err = run_cli(capsys, "check", DOCUMENT, "--executions", LOG, "-o", str(out_path))
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["pass", "fail", "error", "skipped", "pass_rate"]
    assert lines[2].split() == ["Relevance", "0", "0", "0", "3", "-"]
    assert "RetrievalResult     not_retrieved      1" in out
    assert lines[-1] == "items: 2 fail, 1 partial, 1 pass"
    scored = json.loads(out_path.read_text(encoding="utf-8"))
    assert [item.get("status") for item in scored["items"]] == ["pass", "fail", "fail", None]
    assert scored["items"][3]["summary"]["overall_status"] == "partial"


def test_a_passing_document_exits_0(capsys, tmp_path):
    source = json.loads(Path(DOCUMENT).read_text(encoding="utf-8"))
    source["items"] = source["items"][:1]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(source), encoding="utf-8")
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0 and out.splitlines()[-1] == "items: 1 pass"


def test_json_summary(capsys, tmp_path):
    summary_path = tmp_path / "summary.json"
    code, out, _ = run_cli(
        capsys, "check", DOCUMENT, "--executions", LOG, "--format", "json", "--summary-output", str(summary_path)
    )
    assert code == 1
    summary = json.loads(out)
    assert summary == json.loads(summary_path.read_text(encoding="utf-8"))
    rows = {row["evaluator"]: row for row in summary["evaluators"]}
    assert rows["RetrievalQuery"] == {
        "evaluator": "RetrievalQuery",
        "pass": 3,
        "fail": 1,
        "error": 0,
        "skipped": 0,
        "pass_rate": 0.75,
    }
    assert rows["Relevance"]["pass_rate"] is None
    assert {"evaluator": "RetrievalQuery", "diagnostic_code": "retrieval_failure", "count": 1} in summary[
        "diagnostic_codes"
    ]


def test_an_execution_log_with_checks(capsys, tmp_path):
    out_path = tmp_path / "results.jsonl"
    code, out, err = run_cli(capsys, "check", "--executions", LOG, "--config", CHECKS, "-o", str(out_path))
    assert err == ""
    records = [json.loads(line) for line in out_path.read_text(encoding="utf-8").splitlines()]
    assert [record["id"] for record in records] == ["travel-02", "vacation-03", "expenses-04a", "expenses-04b"]
    travel = records[0]
    assert travel["scores"]["retrievalResult"]["diagnostic_code"] == "not_retrieved" and travel["status"] == "fail"
    assert records[1]["scores"]["retrievalQuery"]["result"] == "pass"
    assert [record["status"] for record in records] == ["fail", "pass", "pass", "fail"]
    # The defaults' check of OneDriveAndSharePoint finds no such execution in the Email-only record.
    assert records[3]["scores"] == {"retrievalResult": records[3]["scores"]["retrievalResult"]}
    assert records[3]["scores"]["retrievalResult"]["diagnostic_code"] == "count_below_minimum"
    assert code == 1 and out.splitlines()[-1] == "items: 2 fail, 2 pass"


def test_a_document_with_a_parquet_log_scores_as_with_the_json_lines_one(capsys, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = [json.loads(line) for line in Path(LOG).read_text(encoding="utf-8").splitlines()]
    log = tmp_path / "executions.parquet"
    pq.write_table(pa.Table.from_struct_array(pa.array(records)), log)  # a schema inferred from every record
    for path, name in ((LOG, "from_jsonl.json"), (str(log), "from_parquet.json")):
        code, _, err = run_cli(capsys, "check", DOCUMENT, "--executions", path, "-o", str(tmp_path / name))
        assert code == 1 and err == ""
    scored = [json.loads((tmp_path / name).read_text(encoding="utf-8")) for name in ("from_jsonl.json", "from_parquet.json")]
    strip = lambda document: [{k: v for k, v in item.items() if k != "diagnostics"} for item in document["items"]]  # noqa: E731
    assert strip(scored[0]) == strip(scored[1])


def test_an_execution_log_to_parquet(capsys, tmp_path):
    out_path = tmp_path / "results.parquet"
    run_cli(capsys, "check", "--executions", LOG, "--config", CHECKS, "-o", str(out_path))
    table = pd.read_parquet(out_path)
    assert {"id", "evaluator", "result", "diagnostic_code", "score"} <= set(table.columns)
    assert len(table) == 2 + 2 + 1 + 1  # travel-02 and vacation-03 name their own checks; the defaults' for all


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check"], "give an evaluation document, or --executions LOG with --config CHECKS.json"),
        (["check", DOCUMENT, "--config", CHECKS], "--config goes with --executions alone"),
        (["check", "--executions", LOG], "give an evaluation document, or --executions"),
        (["check", "missing.json"], "missing.json: cannot read the file"),
        (["check", DOCUMENT, "-o", "out.txt"], "out.txt: the output document is written as .json"),
    ],
)
def test_bad_usage_and_input_exit_2_with_one_line(capsys, argv, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("retrieval-eval: error: ") and err.count("\n") == 1
    if message is not None:
        assert message in err


def test_a_log_checked_with_an_evaluator_that_needs_an_expected_response_is_refused(capsys, tmp_path):
    config = tmp_path / "checks.json"
    config.write_text(json.dumps({"ExactMatch": {}}), encoding="utf-8")
    code, _, err = run_cli(capsys, "check", "--executions", LOG, "--config", str(config))
    assert code == 2 and "'ExactMatch' cannot check an execution log (it holds executions, responses and invoked" in err


def _answer_log(tmp_path: Path) -> Path:
    log = tmp_path / "answers.jsonl"
    records = [
        {"id": "a", "response": "The standard deductible is $500.", "invoked_tools": ["SearchPolicies"]},
        {"id": "b", "response": "Please call us.", "invoked_tools": [{"name": "Escalate", "type": "topic"}]},
    ]
    log.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return log


def test_an_execution_log_checked_for_keywords_and_tools(capsys, tmp_path):
    config = tmp_path / "checks.json"
    checks = {"KeywordMatch": {"keywords": ["deductible", "$500"]}, "ToolUse": {"tools": ["searchpolicies"]}}
    config.write_text(json.dumps(checks), encoding="utf-8")
    results = tmp_path / "results.jsonl"
    code, out, err = run_cli(
        capsys, "check", "--executions", str(_answer_log(tmp_path)), "--config", str(config), "-o", str(results)
    )
    assert code == 1 and err == ""
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:4]}
    assert rows == {"KeywordMatch": ["1", "1", "0", "0", "50.0%"], "ToolUse": ["1", "1", "0", "0", "50.0%"]}
    written = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [record["status"] for record in written] == ["pass", "fail"]
    assert written[1]["scores"]["toolUse"]["invoked_tools"] == ["Escalate"]


def test_a_document_scores_keywords_and_the_tools_of_its_log(capsys, tmp_path):
    document = {
        "schemaVersion": "1.6.0",
        "default_evaluators": {"ToolUse": {"tools": ["SearchPolicies"]}},
        "items": [
            {"prompt": "Deductible?", "response": "It is $500.", "evaluators": {"KeywordMatch": {"keywords": ["$500"]}},
             "extensions": {"id": "a"}},
        ],
    }  # fmt: skip
    path = tmp_path / "document.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    scored = tmp_path / "scored.json"
    code, out, _ = run_cli(capsys, "check", str(path), "--executions", str(_one_record_log(tmp_path)), "-o", str(scored))
    assert code == 0 and out.splitlines()[-1] == "items: 1 pass"
    item = json.loads(scored.read_text(encoding="utf-8"))["items"][0]
    assert item["diagnostics"] == {"invoked_tools": ["SearchPolicies"]}
    assert item["scores"]["keywordMatch"]["result"] == item["scores"]["toolUse"]["result"] == "pass"


def _one_record_log(tmp_path: Path) -> Path:
    log = tmp_path / "one.jsonl"
    log.write_text(json.dumps({"id": "a", "invoked_tools": ["SearchPolicies"]}) + "\n", encoding="utf-8")
    return log


# -- as a gate: misspelled evaluators refused, nothing checked is its own exit code -----------------


def _write(tmp_path: Path, name: str, value: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_a_misspelled_evaluator_exits_2_with_the_name_it_is_close_to(capsys, tmp_path):
    path = _write(tmp_path, "typo.json", gate.document(gate.item({"RetreivalQuery": gate.QUERY})))
    code, out, err = run_cli(capsys, "check", path)
    assert code == 2 and out == ""
    assert err == (
        f"retrieval-eval: error: {path}, field 'items[0].evaluators.RetreivalQuery': unknown evaluator "
        "'RetreivalQuery'; did you mean 'RetrievalQuery'? (a custom evaluator of a name this close to a built-in "
        "one is declared: custom_evaluators=, or --custom-evaluator)\n"
    )


def test_a_misspelled_log_check_exits_2(capsys, tmp_path):
    config = _write(tmp_path, "checks.json", {"retrievalquery": gate.QUERY})
    code, _, err = run_cli(capsys, "check", "--executions", LOG, "--config", config)
    assert code == 2 and err.endswith("unknown evaluator 'retrievalquery'; did you mean 'RetrievalQuery'?\n")


def _with_option(where: tuple[str, ...], option: str, value: object) -> dict:
    checks = json.loads(Path(CHECKS).read_text(encoding="utf-8"))
    options = checks
    for key in where:
        options = options[key]
    options[option] = value
    return checks


@pytest.mark.parametrize(
    ("where", "option", "value", "message"),
    [
        (("default_evaluators", "RetrievalResult"), "max_rank", "five",
         "default_evaluators: RetrievalResult: option 'max_rank'"),
        (("default_evaluators", "RetrievalResult"), "mode", "anyy",
         "default_evaluators: RetrievalResult: option 'mode': Extra inputs are not permitted"),
        (("items", "travel-02", "evaluators", "RetrievalQuery"), "includes", 3,
         "items.travel-02.evaluators: RetrievalQuery: option 'includes'"),
    ],
)
def test_a_bad_option_in_the_checks_is_exit_2_with_one_line_and_no_output(capsys, tmp_path, where, option, value, message):
    config = _write(tmp_path, "checks.json", _with_option(where, option, value))
    out_path = tmp_path / "results.jsonl"
    code, out, err = run_cli(capsys, "check", "--executions", LOG, "--config", config, "-o", str(out_path))
    assert code == 2 and out == "" and not out_path.exists()
    assert err.startswith(f"retrieval-eval: error: {config}: {message}") and err.count("\n") == 1


def test_a_declared_custom_evaluator_is_skipped(capsys, tmp_path):
    source = gate.document(gate.item({"ToolUsage": {}, "ExactMatch": {}}, expected_response="x"))
    path = _write(tmp_path, "custom.json", source)
    code, out, _ = run_cli(capsys, "check", path, "--custom-evaluator", "ToolUsage")
    assert code == 1 and "ToolUsage".ljust(15) + "0     0      0        1         -" in out
    code, _, err = run_cli(capsys, "check", "--executions", LOG, "--config", CHECKS, "--custom-evaluator", "ToolUsage")
    assert code == 2 and "--custom-evaluator goes with a document" in err


@pytest.mark.parametrize("shape", gate.NOTHING_IN_DOCUMENTS)
def test_every_document_that_checks_nothing_exits_3(capsys, tmp_path, shape):
    path = _write(tmp_path, "document.json", gate.NOTHING_IN_DOCUMENTS[shape])
    code, out, err = run_cli(capsys, "check", path)
    assert code == 3 and err == ""
    assert "Empty DataFrame" not in out and out.splitlines()[-1].startswith("nothing checked: no evaluator ran on any")
    code, out, _ = run_cli(capsys, "check", path, "--format", "json")
    assert code == 3 and json.loads(out)["verdict"] == "nothing_checked" and json.loads(out)["ran"] == 0


@pytest.mark.parametrize("shape", gate.LOG_SHAPES)
def test_every_log_check_that_checks_nothing_exits_3(capsys, tmp_path, shape):
    log, config = gate.nothing_in_logs(tmp_path)[shape]
    code, out, err = run_cli(capsys, "check", "--executions", str(log), "--config", _write(tmp_path, "c.json", config))
    assert code == 3 and err == ""
    assert "Empty DataFrame" not in out and out.splitlines()[-1].startswith("nothing checked: no evaluator ran on any")


def test_a_failed_item_outranks_nothing_checked_on_the_command_line(capsys, tmp_path):
    failed = gate.document(gate.item({"ExactMatch": {}}, error={"code": "agentRequestFailed", "message": "timeout"}))
    code, out, _ = run_cli(capsys, "check", _write(tmp_path, "failed.json", failed))
    assert code == 1 and "nothing checked" not in out


def test_the_help_of_check_lists_its_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    assert "exit codes:" in out and "3  nothing was checked" in out and "--custom-evaluator NAME" in out
