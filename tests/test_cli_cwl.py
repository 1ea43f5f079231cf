"""``retrieval-eval cwl``: cwl_eval's command line, its lines on stdout byte for byte (against ``python -m
cwl.cwl_eval`` on the same files), one-line errors with exit 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from retrieval_eval.cli import main

cwl = pytest.importorskip("cwl")


def _files(tmp_path):
    files = {
        "qrels": "1 0 a 1\n1 0 b 0.5\n1 0 c 0\n2 0 a 1\n",
        "run": "1 A a 1 3 r\n1 B x 2 2 r\n1 A b 3 1 r\n3 A a 1 1 r\n2 B a 1 1 r\n2 B c 2 1 r\n",
        "costs": "A 2.37\nB 0.61\n",
        "metrics": "TBGCWLMetric(5)\nUMeasureCWLMetric(7.0)\nINSTCWLMetric(1)\nBPMCWLMetric(1.5,4)\nRRCWLMetric()\n",
        "graded": "PrecisionCWLMetric(2)\nAPCWLMetric()\nTBGCWLMetric(3)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in files}


def _cwl_eval(tmp_path, args):
    """cwl_eval's stdout (it imports a metrics file's classes as ``ruler.measures.*``, from its own folder)."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(cwl.__file__))
    done = subprocess.run([sys.executable, "-m", "cwl.cwl_eval", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.replace("-0.0000", "0.0000")  # its sign of a zero is rounding noise (cwl_run's docstring)


@pytest.mark.parametrize("flags", [
    [],
    ["-r", "-n"],
    ["-m", "{metrics}", "-c", "{costs}", "-r", "-n", "--max_cost", "3", "--min_cost", "0.5", "--max_depth", "20"],
    ["--metrics_file", "{graded}", "--cost_file", "{costs}", "--colnames", "--residuals", "--max_gain", "2"],
])
def test_the_command_prints_cwl_evals_lines(tmp_path, capsys, flags):
    paths = _files(tmp_path)
    args = [flag.format(**paths) for flag in flags] + [paths["qrels"], paths["run"]]
    assert main(["cwl", *args]) == 0
    assert capsys.readouterr().out == _cwl_eval(tmp_path, args)


@pytest.mark.parametrize(("flags", "message"), [
    (["--max_gain", "0.6"], "qrels: gain 1 (topic 1, document a) is outside [0, 0.6]"),
    (["--max_cost", "x"], "--max_cost must be a number, got 'x'"),
    (["-m", "{run}"], "run, row 1: expected a measure such as RBPCWLMetric(0.8)"),
    (["-c", "{metrics}"], "metrics, row 1: expected 2 whitespace-separated fields"),
    (["-m", "{missing}"], "missing: cannot read the metrics file"),
    (["-m", "{metrics}", "-r", "--max_gain", "2"], "cwl_inst (cwl_eval's INSTCWLMetric) takes gains in [0, 1], found 2"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, flags, message):
    paths = _files(tmp_path) | {"missing": str(tmp_path / "missing")}
    assert main(["cwl", *[flag.format(**paths) for flag in flags], paths["qrels"], paths["run"]]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and message in captured.err
