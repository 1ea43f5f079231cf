"""Every command takes a flag that sets one value once, and standard input as one input at most."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")
DOCUMENT, LOG, CHECKS = str(DATA / "eval_document.json"), str(DATA / "executions.jsonl"), str(DATA / "checks.json")


def _usage_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", DOCUMENT, "--format", "json", "--format", "table"],
        ["check", "--executions", LOG, "--config", CHECKS, "--config", CHECKS],
        ["check", DOCUMENT, "--partial-match-mode", "token_f1", "--partial-match-mode", "upstream_v1"],
        ["sweep", QRELS, RUN, "--alpha", "0.05", "--alpha", "0.1"],
        ["sweep", QRELS, RUN, "--objective", "map", "--objective", "ndcg@10"],
        ["sweep", QRELS, RUN, "--seed", "1", "--seed", "1"],
    ],
)
def test_a_flag_given_twice_is_a_usage_error_naming_both(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    flag = next(item for item in argv if item.startswith("--") and argv.count(item) == 2)
    error = _usage_error(capsys, argv)
    assert "given twice" in error and error.count(flag) >= 2


@pytest.mark.parametrize(
    "argv",
    [["evaluate", "-", "-"], ["evaluate", "/dev/stdin", "-"], ["sweep", QRELS, "-", "/dev/stdin"]],
)
def test_standard_input_is_one_input_at_most(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 2
    assert "standard input can be only one of the inputs" in capsys.readouterr().err
