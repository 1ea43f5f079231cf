"""`retrieval-eval sweep --significance` and its flags: the section in the terminal and the JSON, the comparison
table written whole in the format of its extension, and bad flags one line each."""

from __future__ import annotations

import json

import pytest

from tests.test_cli import run_cli
from tests.test_cli_sweep import FAST, QRELS, _runs

SMALL = [*FAST, "--permutations", "400", "--splits", "40"]


def test_the_terminal_and_the_json_show_which_differences_are_real(capsys, tmp_path):
    runs = _runs(tmp_path)
    code, stdout, err = run_cli(capsys, "sweep", QRELS, *runs, "-m", "ndcg@10", "-m", "P@5", "--significance", *SMALL)
    assert code == 0 and err == ""
    assert "which differences are real:" in stdout and "randomised Tukey HSD (400 permutations" in stdout
    assert "key  configuration" in stdout
    code, stdout, err = run_cli(capsys, "sweep", QRELS, *runs, "-m", "ndcg@10", "--min-difference", "0.03", "--power", "0.9",
                                "--format", "json", *SMALL)  # fmt: skip
    assert code == 0
    document = json.loads(stdout)["significance"]  # a flag of the group asks for the statistics by itself
    assert document["power"] == 0.9 and document["topic_set_sizes"][-1]["min_difference"] == 0.03
    assert len(document["topic_set_sizes"]) == 2  # the lead over the runner-up, then 0.03
    assert document["topic_set_variance"] == "residual"
    code, stdout, _ = run_cli(capsys, "sweep", QRELS, *runs, "--topic-set-variance", "within-system", "--format", "json", *SMALL)
    assert code == 0 and json.loads(stdout)["significance"]["topic_set_variance"] == "within-system"


@pytest.mark.parametrize(("name", "start"), [("table.md", "| key | configuration |"), ("table.tex", "\\begin{tabular}"),
                                             ("table.html", '<table class="comparison">'), ("table.txt", "each mean")])
def test_compare_writes_the_table_in_the_format_of_its_extension(capsys, tmp_path, name, start):
    code, _, err = run_cli(capsys, "sweep", QRELS, *_runs(tmp_path), "--compare", str(tmp_path / name), *SMALL)
    assert code == 0 and err == ""
    assert (tmp_path / name).read_text(encoding="utf-8").startswith(start)


def test_bad_flags_are_one_line_and_write_nothing(capsys, tmp_path):
    runs = _runs(tmp_path)
    for flags, message in [
        (["--compare", str(tmp_path / "table.csv")],
         "--compare " + str(tmp_path / "table.csv") + ": the table is written as .md, .tex, .html or .txt (from the extension)"),
        (["--permutations", "0"], "permutations must be an integer from 1 to 1000000, got 0"),
        (["--power", "2"], "power must be a number in (0, 1), got 2.0"),
        (["--compare", runs[0][:-5] + ".md", "--min-difference", "-1"],
         "min_differences must be positive numbers (in the objective's units), got -1.0"),
    ]:
        code, stdout, err = run_cli(capsys, "sweep", QRELS, *runs, *flags, *FAST)
        assert (code, stdout) == (2, ""), flags
        assert err.splitlines() == [f"retrieval-eval: error: {message}"], flags
    assert sorted(path.name for path in tmp_path.iterdir() if path.suffix in (".md", ".csv")) == []
