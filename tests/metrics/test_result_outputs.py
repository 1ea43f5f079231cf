"""A result in the shapes other tools read: pytrec_eval's nested dict, the tidy long table, the summary's JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from retrieval_eval import evaluate

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")
TREC_NAMES = ["map", "P_5", "ndcg_cut_10", "recip_rank", "num_ret", "bpref"]


def _read_trec(path: str, fields: list[str]) -> dict:
    nested: dict = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        row = dict(zip(fields, parts))
        value = int(row["value"]) if fields[-1] == "value" and len(fields) == 4 else float(row["value"])
        nested.setdefault(row["query"], {})[row["doc"]] = value
    return nested


def test_to_dict_is_what_pytrec_eval_gives_for_its_names():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = _read_trec(QRELS, ["query", "iteration", "doc", "value"])
    run = _read_trec(RUN, ["query", "q0", "doc", "rank", "value", "tag"])
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES)).evaluate(run)
    ours = evaluate(QRELS, RUN, TREC_NAMES).to_dict()
    assert set(ours) == set(expected)
    for query, values in expected.items():
        assert set(ours[query]) == set(TREC_NAMES)
        for name in TREC_NAMES:
            assert type(ours[query][name]) is float
            assert math.isclose(ours[query][name], values[name], rel_tol=0, abs_tol=1e-12), (query, name)


def test_to_dict_holds_every_value_of_the_per_query_table_by_the_names_asked():
    result = evaluate(QRELS, RUN, ["P@5", "precision@5", "num_ret", "ndcg_exp@3"], query_set="qrels")
    nested = result.to_dict()
    table = result.per_query.set_index("query_id")
    assert list(nested) == list(table.index)
    for query, values in nested.items():
        assert list(values) == list(table.columns)
        for name, value in values.items():
            expected = float(table.at[query, name])
            assert value == expected or (math.isnan(value) and math.isnan(expected))


def test_the_long_table_has_a_row_per_query_and_name_in_order():
    result = evaluate(QRELS, RUN, ["nDCG@10", "map", "num_rel"], thresholds={"map": 0.1})
    long = result.to_long()
    wide = result.per_query
    names = ["nDCG@10", "map", "num_rel"]
    assert list(long.columns) == ["query_id", "metric", "value"] and long["value"].dtype == np.float64
    assert len(long) == len(wide) * len(names)
    assert list(long["query_id"]) == [query for query in wide["query_id"] for _ in names]
    assert list(long["metric"]) == names * len(wide)
    # Pivoted back, it is the wide table's metric columns (the thresholds' passed columns are not metrics).
    back = long.pivot(index="query_id", columns="metric", values="value").loc[wide["query_id"], names]
    np.testing.assert_array_equal(back.to_numpy(), wide[names].to_numpy(dtype=np.float64))


def test_the_long_table_of_no_queries_is_empty_with_its_columns():
    qrels = pd.DataFrame({"query_id": ["a"], "doc_id": ["x"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["b"], "doc_id": ["x"], "score": [1.0]})
    with pytest.warns(UserWarning):
        result = evaluate(qrels, run, ["map"])
    assert list(result.to_long().columns) == ["query_id", "metric", "value"] and result.to_long().empty
    assert result.to_dict() == {}


def test_the_summary_dict_is_json_with_the_names_asked():
    result = evaluate(QRELS, RUN, ["P@5", "map"], thresholds={"map": 0.2})
    document = json.loads(json.dumps(result.summary_dict()))
    assert list(document["metrics"]) == ["P@5", "map"]
    assert document["metrics"]["P@5"]["mean"] == result.means["P@5"]
    assert document["passed"] is result.passed and document["queries"]["evaluated"] == 25


def test_a_result_shows_a_few_lines_and_an_html_table():
    result = evaluate(QRELS, RUN, ["P@5", "map"])
    text = repr(result)
    assert text.startswith("EvaluationResult(run=") and len(text.splitlines()) <= 8 and "P@5" in text
    page = result._repr_html_()
    assert page.count("<table") == 2 and "P@5" in page and "q0" in page


def test_the_dict_and_the_long_table_need_no_pandas():
    script = f"""
import sys
import retrieval_eval as rx
result = rx.evaluate({QRELS!r}, {RUN!r}, ["map", "P@5"])
result.to_dict(), result.long_arrow(), result.summary_dict()
print("pandas" in sys.modules)
"""
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "False"
