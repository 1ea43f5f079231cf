"""The command line's per-query formats: pytrec_eval's nested JSON and the long CSV, the API's to_dict and to_long."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd

from retrieval_eval import evaluate
from retrieval_eval.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")
METRICS = ["P@5", "map", "ndcg_exp@3", "nDCG@10"]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _metric_flags():
    return [flag for name in METRICS for flag in ("-m", name)]


def test_pytrec_format_prints_to_dict_as_json(capsys):
    code, out, err = run_cli(capsys, "evaluate", QRELS, RUN, *_metric_flags(), "--format", "pytrec")
    assert code == 0 and err == ""
    expected = evaluate(QRELS, RUN, METRICS).to_dict()
    printed = json.loads(out)
    assert list(printed) == list(expected)
    for query, values in expected.items():
        assert list(printed[query]) == METRICS
        for name, value in values.items():
            assert printed[query][name] == (None if math.isnan(value) else value)


def test_long_format_prints_to_long_as_csv(capsys):
    code, out, err = run_cli(capsys, "evaluate", QRELS, RUN, *_metric_flags(), "--format", "long", "--query-set", "qrels")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "query_id,metric,value" and out.splitlines()[1].startswith("q0,P@5,")
    printed = pd.read_csv(io.StringIO(out), dtype={"query_id": str, "metric": str})
    expected = evaluate(QRELS, RUN, METRICS, query_set="qrels").to_long()
    pd.testing.assert_frame_equal(printed, expected, check_exact=True)


def test_long_format_quotes_only_ids_that_need_it(capsys, tmp_path):
    qrels, run = tmp_path / "q.csv", tmp_path / "r.csv"
    qrels.write_text('query_id,doc_id,relevance\n"a,1",x,1\nb,x,1\n')
    run.write_text('query_id,doc_id,score\n"a,1",x,1.0\nb,x,2.0\n')
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "map", "--format", "long")
    assert code == 0
    assert pd.read_csv(io.StringIO(out))["query_id"].tolist() == ["a,1", "b"]


def test_a_streamed_run_has_no_per_query_table_to_print(capsys):
    code, _, err = run_cli(capsys, "evaluate", QRELS, str(DATA / "run.parquet"), "--memory-budget", "1G", "-m", "map",
                           "--format", "pytrec")
    assert code == 2 and "--format pytrec prints from a per-query table in memory" in err
