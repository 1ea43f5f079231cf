"""``retrieval-eval check`` with a judge, and ``retrieval-eval tasks``, against a scripted server on 127.0.0.1."""

from __future__ import annotations

import argparse
import json

import pytest

from retrieval_eval.cli import main
from retrieval_eval.cli.judge_flags import add_judge_flags, judge_settings
from retrieval_eval.errors import ConfigError
from tests.executions.judged_support import by_prompt
from tests.executions.schema_validation import schema_errors
from tests.judging.server import ScriptedServer

DOCUMENT = {"schemaVersion": "1.6.0", "items": [
    {"prompt": "Is a joint check needed?", "response": "Yes, above $10,000.", "evaluators": {"Relevance": {}}},
    {"prompt": "What is the deductible?", "response": "I cannot help.", "evaluators": {"Relevance": {"threshold": 4}}},
]}  # fmt: skip


@pytest.fixture
def document(tmp_path):
    path = tmp_path / "document.json"
    path.write_text(json.dumps(DOCUMENT))
    return str(path)


def test_a_judged_check_writes_the_scores_and_prints_the_totals_on_stderr(document, tmp_path, capsys, eval_schema):
    output, cache = tmp_path / "scored.json", tmp_path / "cache"
    script = by_prompt({"joint check": {"score": 5, "reason": "direct"}}, {"score": 3, "reason": "partial"})
    with ScriptedServer(script) as server:
        argv = ["check", document, "--base-url", server.url, "--model", "judge", "--cache", str(cache), "-o", str(output)]
        assert main(argv) == 1  # the second item fails its threshold of 4
        assert len(server.requests) == 2
        err = capsys.readouterr().err
        assert main(argv[:-2]) == 1 and len(server.requests) == 2  # the cache answered everything
        again = capsys.readouterr().err
    scored = json.loads(output.read_text())
    assert [item["scores"]["relevance"]["result"] for item in scored["items"]] == ["pass", "fail"]
    assert not schema_errors(eval_schema, scored)
    assert "2 requests" in err and "judge tokens:" in err and "matched by" not in err  # no RetrievalResult
    assert "2 from the cache, 0 requests" in again


def test_without_a_model_the_judged_evaluators_are_skipped_and_nothing_is_checked(document, capsys):
    assert main(["check", document]) == 3
    assert "judge tokens" not in capsys.readouterr().err


def test_judge_flags_without_a_model_are_a_usage_error(document, capsys):
    assert main(["check", document, "--cache", "somewhere"]) == 2
    assert "--cache needs a judge: give --model" in capsys.readouterr().err
    assert main(["check", document, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--budget", "1"]) == 2
    assert "--budget COST needs the model's price" in capsys.readouterr().err


def _parsed(*argv: str, required: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_judge_flags(parser, required=required)
    return parser.parse_args(list(argv))


def test_judge_settings_from_the_flags(tmp_path, monkeypatch):
    assert judge_settings(_parsed()) is None
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m": {"prompt": 1.0, "completion": 2.0}}))
    settings = judge_settings(_parsed("--base-url", "http://127.0.0.1:8000/v1", "--model", "m", "--concurrency", "3",
                                      "--requests-per-minute", "60", "--max-retries", "0", "--timeout", "5",
                                      "--cache-mode", "replay", "--cache", "c.jsonl", "--embedding-model", "e",
                                      "--budget", "0.5", "--prices", str(prices)))
    assert (settings.limits.concurrency, settings.limits.requests_per_minute, settings.retry.max_retries) == (3, 60, 0)
    assert (settings.timeout, settings.cache_mode, settings.embedding_model, settings.budget.max_cost) == (5, "replay", "e", 0.5)
    assert settings.endpoint.url("chat/completions") == "http://127.0.0.1:8000/v1/chat/completions"
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9000")
    azure = judge_settings(_parsed("--azure", "--model", "gpt-deploy"))
    assert azure.endpoint.url("chat/completions").startswith("http://127.0.0.1:9000/openai/deployments/gpt-deploy/")
    with pytest.raises(ConfigError, match="need the judge's model"):
        judge_settings(_parsed("--azure"))
    with pytest.raises(SystemExit):
        _parsed("--concurrency", "0")


def test_the_tasks_command(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    lines = [{"name": "t1", "query": "q", "criteria": [{"name": "a", "instruction": "i"}, {"name": "b", "instruction": "i"}],
              "response": "r"}]
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary, table = tmp_path / "summary.json", tmp_path / "tasks.csv"
    with ScriptedServer(by_prompt({"Criterion: a": {"score": 1, "reason": "ok"}}, {"score": 0, "reason": "no"})) as server:
        code = main(["tasks", str(tasks), "--base-url", server.url, "--model", "judge", "-o", str(table),
                     "--summary-output", str(summary), "--min-score", "0.6"])
    assert code == 1  # 0.5 < 0.6
    written = json.loads(summary.read_text())
    assert written["overall"] == 0.5 and written["judge"]["requests"] == 2
    assert table.read_text().splitlines()[0].startswith('"task"') or table.read_text().startswith("task")
    captured = capsys.readouterr()
    assert "overall: 0.50" in captured.out and "judge tokens:" in captured.err


def test_the_tasks_command_names_a_bad_line(tmp_path, capsys):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"name": "t1", "query": "q"}\n')
    assert main(["tasks", str(tasks), "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == 2
    assert "tasks.jsonl, row 1, field 'criteria'" in capsys.readouterr().err
