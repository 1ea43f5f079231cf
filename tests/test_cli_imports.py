"""What each command loads: --help and metrics need neither pandas, numba nor scipy; evaluate needs no scipy,
matplotlib or dask; and the summary printed without pandas reads as pandas would print it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from retrieval_eval import evaluate
from retrieval_eval.report.evaluation_text import summary_text

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")


def loaded_after(argv: list[str]) -> set[str]:
    """Top-level modules imported by running the command ``argv`` in a fresh interpreter."""
    code = (
        "import json, sys\n"
        "from retrieval_eval.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted({name.partition('.')[0] for name in sys.modules})), file=sys.stderr)\n"
    )
    # What a user's command loads: the kernels in their default mode (the suite pins "compiled").
    env = {**os.environ, "RETRIEVAL_EVAL_KERNELS": "auto"}
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return set(json.loads(completed.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"], ["metrics"], ["check", "--help"], ["agree", "--help"],
                                  ["judge", "--help"], ["tasks", "--help"]])
def test_help_and_listings_load_no_heavy_module(argv):
    assert not loaded_after(argv) & {"pandas", "numba", "scipy", "pyarrow", "pydantic", "matplotlib", "dask"}


def test_evaluate_loads_no_statistics_plotting_cluster_or_pandas_module(tmp_path):
    output = tmp_path / "per_query.csv"
    loaded = loaded_after(["evaluate", QRELS, RUN, "-m", "map", "-m", "ndcg_exp@3", "--trec", "-o", str(output)])
    assert "pyarrow" in loaded and output.read_text().startswith("query_id,map,ndcg_exp@3\n")  # it really ran
    assert not loaded & {"scipy", "matplotlib", "dask", "distributed", "pydantic", "pandas"}


def test_the_written_table_is_the_per_query_table(tmp_path):
    result = evaluate(QRELS, RUN, ["map", "num_ret", "ndcg_exp@3"], thresholds={"map": 0.2})
    result.write(tmp_path / "per_query.parquet")
    import pandas as pd

    written = pd.read_parquet(tmp_path / "per_query.parquet")
    pd.testing.assert_frame_equal(written, result.per_query, check_dtype=False, check_exact=True)
    assert written.dtypes.to_dict() == result.per_query.dtypes.to_dict() | {"query_id": written.dtypes["query_id"]}


@pytest.mark.parametrize("thresholds", [None, {"ndcg_exp@3": 0.2, "holes": 12}])
def test_the_summary_prints_each_metric_and_a_dash_where_no_threshold_applies(thresholds):
    # It was laid out as pandas prints it, with NaN and <NA> in the columns of a metric without a threshold.
    result = evaluate(QRELS, RUN, thresholds=thresholds)
    text = summary_text(result, "table", "measures: ...").splitlines()[3:]
    if thresholds:
        assert text.pop() == "verdict: PASS"
    header, *rows = text
    assert header.split() == ["metric", "mean", "undefined"] + (["threshold", "passed", "pass_rate"] if thresholds else [])
    for line, row in zip(rows, result.summary_records(), strict=True):
        metric = row["metric"]
        expected = [metric, f"{row['mean']:.4f}", f"{row['undefined']:,}"]
        if thresholds and metric in thresholds:
            bound = f"{'>=' if row['higher_is_better'] else '<='} {row['threshold']:.4f}"
            expected += [*bound.split(), str(row["passed"]), f"{row['pass_rate']:.4f}"]
        elif thresholds:
            expected += ["-", "-", "-"]
        assert line.split() == expected and "NaN" not in line and "<NA>" not in line
    assert len({len(line) for line in text}) == 1  # every column aligned
    csv = summary_text(result, "csv", "measures: ...")
    assert csv == result.summary.reset_index().to_csv(index=False).rstrip("\n")


def test_compile_runs_every_build_ahead_of_time(monkeypatch, capsys):
    from retrieval_eval import cli, kernels

    calls = []

    def fake_compile_all(progress=None, jobs=1):
        calls.append((progress, jobs))
        return {"trec.trec_measures": 1.5, "trec.trec_measures (parallel)": 2.0}

    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(kernels, "compile_all", fake_compile_all)
    assert cli.main(["compile", "--jobs", "3"]) == 0
    assert calls == [(None, 3)]  # no progress bar when stderr is not a terminal
    assert re.match(r"compiled 2 kernel builds in \d+\.\d s, 3\.5 s of builds in 3 processes", capsys.readouterr().out)
    assert cli.main(["compile"]) == 0 and calls[-1][1] == len(os.sched_getaffinity(0))  # every core it may use
    assert cli.main(["compile", "-j", "0"]) == 2
    assert "--jobs must be an integer >= 1, got 0" in capsys.readouterr().err
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert cli.main(["compile"]) == 2
    assert "NUMBA_DISABLE_JIT is set" in capsys.readouterr().err
