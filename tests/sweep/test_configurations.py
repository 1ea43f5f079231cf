"""Configurations from run files (file-name pattern, sidecar JSON) and from one long table."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep.configurations import runs_from_files, runs_from_table

PATTERN = r"k(?P<top_k>\d+)_c(?P<chunk>\d+)_(?P<mode>\w+)\."


def test_parameters_from_file_names_and_sidecars(tmp_path):
    paths = []
    for name in ("k5_c256_hybrid.trec", "k10_c512_vector.trec"):
        (tmp_path / name).write_text("q1 Q0 d1 1 1.0 run\n", encoding="utf-8")
        paths.append(tmp_path / name)
    (tmp_path / "k10_c512_vector.trec.json").write_text(json.dumps({"latency_ms": 41.5, "top_k": 10}), encoding="utf-8")
    runs, parameters = runs_from_files(paths, param_pattern=PATTERN)
    assert list(runs) == ["k5_c256_hybrid.trec", "k10_c512_vector.trec"]
    assert parameters.loc["k5_c256_hybrid.trec", ["top_k", "chunk", "mode"]].tolist() == [5, 256, "hybrid"]
    assert parameters.loc["k10_c512_vector.trec", "latency_ms"] == 41.5
    assert pd.isna(parameters.loc["k5_c256_hybrid.trec", "latency_ms"])


def test_a_file_name_the_pattern_does_not_match_is_an_error_naming_it(tmp_path):
    path = tmp_path / "baseline.trec"
    path.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"baseline\.trec: the file name does not match the parameter pattern"):
        runs_from_files([path], param_pattern=PATTERN)


def test_a_sidecar_that_disagrees_with_the_file_name_is_an_error(tmp_path):
    path = tmp_path / "k5_c256_hybrid.trec"
    path.write_text("", encoding="utf-8")
    (tmp_path / "k5_c256_hybrid.json").write_text(json.dumps({"top_k": 6}), encoding="utf-8")
    with pytest.raises(InputError, match="parameter 'top_k' is 5 in the file name but 6 in the sidecar"):
        runs_from_files([path], param_pattern=PATTERN)


@pytest.mark.parametrize(("pattern", "message"), [("(", "invalid --param-pattern"), (r"k(\d+)", "has no named group")])
def test_bad_patterns(tmp_path, pattern, message):
    with pytest.raises(ConfigError, match=message):
        runs_from_files([tmp_path / "x"], param_pattern=pattern)


def test_runs_from_a_long_table():
    table = pd.DataFrame(
        {"top_k": [5, 5, 10], "reranker": ["on", "on", "off"], "query_id": ["q", "q", "q"],
         "doc_id": ["a", "b", "a"], "score": [1.0, 0.5, 0.9]}
    )  # fmt: skip
    runs, parameters = runs_from_table(table, ["top_k", "reranker"])
    assert list(runs) == ["top_k=5,reranker=on", "top_k=10,reranker=off"]
    assert runs["top_k=5,reranker=on"].columns.tolist() == ["query_id", "doc_id", "score"]
    assert parameters.loc["top_k=10,reranker=off"].tolist() == [10, "off"]
    with pytest.raises(InputError, match="no parameter column 'chunk'"):
        runs_from_table(table, ["chunk"])
