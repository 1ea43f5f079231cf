"""Scores that float64 cannot hold exactly are refused, in every source, instead of rounded.

The report: ``[2**60 + 1, 2**60]`` as int64 scores rounded to the same float64 and ndcg@10 came
out 0.8597 instead of 1.0. The oracle of exactness is Python's own ``float(v) == v``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import Qrels, Run, evaluate
from retrieval_eval.errors import InputError
from retrieval_eval.io import read_run_table

BIG = [2**60 + 1, 2**60]


def _sources(tmp_path, scores):
    docs = [f"d{i}" for i in range(len(scores))]
    table = pa.table({"query_id": ["q"] * len(scores), "doc_id": docs, "score": pa.array(scores, pa.int64())})
    pq.write_table(table, tmp_path / "r.parquet")
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()))
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\n" + "".join(f"q,{d},{s}\n" for d, s in zip(docs, scores)))
    (tmp_path / "r.txt").write_text("".join(f"q Q0 {d} 1 {s} t\n" for d, s in zip(docs, scores)))
    return {
        "parquet": tmp_path / "r.parquet",
        "jsonl": tmp_path / "r.jsonl",
        "csv": tmp_path / "r.csv",
        "trec": tmp_path / "r.txt",
        "dataframe": table.to_pandas(),
        "object column": pd.DataFrame({"query_id": ["q"] * len(scores), "doc_id": docs, "score": pd.Series(scores, dtype=object)}),
        "table": table,
        "records": table.to_pylist(),
    }


@pytest.mark.parametrize("kind", ["parquet", "jsonl", "csv", "trec", "dataframe", "object column", "table", "records"])
def test_integer_scores_beyond_2_53_that_would_round_are_refused(tmp_path, kind):
    source = _sources(tmp_path, BIG)[kind]
    with pytest.raises(InputError, match=r"score '?1152921504606846977'? is an integer that float64 cannot hold exactly") as excinfo:
        Run.read(source)
    assert excinfo.value.row == 1 and excinfo.value.field == "score"


@pytest.mark.parametrize("kind", ["parquet", "jsonl", "csv", "trec", "dataframe", "table", "records"])
def test_large_integer_scores_that_float64_holds_are_read_exactly(tmp_path, kind):
    scores = [2**60, 2**61, -(2**62), 2**53, 2**63 - 2**10]
    assert read_run_table(_sources(tmp_path, scores)[kind])["score"].to_pylist() == [float(s) for s in scores]


def test_the_reproduction_ranks_exactly_or_refuses():
    qrels = Qrels.read(pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [2, 1]}))
    exact = pa.table({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": pa.array([2**61, 2**60], pa.int64())})
    assert evaluate(qrels, Run.read(exact), ["ndcg@10"]).means["ndcg@10"] == 1.0
    rounded = exact.set_column(2, "score", pa.array(BIG, pa.int64()))
    with pytest.raises(InputError):
        Run.read(rounded)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@given(data=st.data())
def test_exactness_matches_python_on_every_integer_width(dtype, data):
    info = np.iinfo(dtype)
    near = st.sampled_from([2**53, 2**60, 2**63, 2**64 - 1, -(2**53), -(2**63)])
    value = data.draw(st.one_of(st.integers(int(info.min), int(info.max)),
                                near.flatmap(lambda c: st.integers(c - 3, c + 3))).filter(lambda v: info.min <= v <= info.max))
    table = pa.table({"query_id": ["q"], "doc_id": ["d"], "score": pa.array(np.array([value], dtype=dtype))})
    if float(value) == value:
        assert read_run_table(table)["score"].to_pylist() == [float(value)]
    else:
        with pytest.raises(InputError, match=str(value)):
            read_run_table(table)


@pytest.mark.parametrize(
    "text, expected",
    [("1.5", 1.5), ("-1e3", -1000.0), ("inf", float("inf")), ("-Infinity", float("-inf")), ("9007199254740992", 2.0**53),
     ("1152921504606846976", 2.0**60), ("1152921504606846977.0", 2.0**60), ("0.1", 0.1), ("1.5e20", 1.5e20),
     ("-NaN", float("nan"))],
)
def test_score_text_that_is_read(tmp_path, text, expected):
    path = tmp_path / "r"
    path.write_text(f"q Q0 d 1 {text} t\n")
    (got,) = read_run_table(path)["score"].to_pylist()
    assert got == expected or (math.isnan(got) and math.isnan(expected))


@pytest.mark.parametrize(
    "text, message",
    [("9007199254740993", "cannot hold exactly"), ("-1152921504606846977", "cannot hold exactly"),
     ("1e400", "too large for float64"), ("-1e999", "too large for float64"), ("nan(1)", "must be a number"),
     ("0x10", "must be a number"), ("1_0", "must be a number"), ("١", "must be a number")],
)
def test_score_text_that_is_refused(tmp_path, text, message):
    for name, body in [("r", f"q Q0 d 1 {text} t\n"), ("r.csv", f"query_id,doc_id,score\nq,d,{text}\n")]:
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        with pytest.raises(InputError, match=message) as excinfo:
            read_run_table(path)
        assert excinfo.value.row == 1 and excinfo.value.field == "score"


@pytest.mark.parametrize("value", [2**63, 2**70, -(2**63) - 1])
@pytest.mark.parametrize("kind", ["object column", "records"])
def test_python_integers_beyond_int64_are_named(value, kind):
    scores = [1, value]
    source = (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": pd.Series(scores, dtype=object)})
              if kind == "object column" else [{"query_id": "q", "doc_id": d, "score": s} for d, s in zip("ab", scores)])
    with pytest.raises(InputError, match=f"{value} does not fit a 64-bit integer") as excinfo:
        read_run_table(source)
    assert (excinfo.value.row, excinfo.value.field) == (2, "score")
