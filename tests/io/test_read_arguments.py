"""Misused arguments of the readers (and Qrels.read / Run.read) are named as ConfigError, not met
later as an unrelated exception (the report: columns=['query_id'] raised a bare ValueError)."""

from __future__ import annotations

import pandas as pd
import pytest

from retrieval_eval import Qrels, Run
from retrieval_eval.errors import ConfigError
from retrieval_eval.io import read_qrels_table, read_run_table

QRELS = "query_id,doc_id,relevance\n1,d,1\n"
RUN = "query_id,doc_id,score\n1,d,1.5\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.csv").write_text(QRELS)
    (tmp_path / "r.csv").write_text(RUN)
    return tmp_path / "q.csv", tmp_path / "r.csv"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"columns": ["query_id"]}, "columns= must map canonical names"),
        ({"columns": "query_id"}, "columns= must map canonical names"),
        ({"columns": {"query_id": 1.5}}, "columns= must map canonical names"),
        ({"columns": {"query_id": True}}, "columns= must map canonical names"),
        ({"columns": {1: "query_id"}}, "columns= must map canonical names"),
        ({"columns": {"qid": "query_id"}}, "columns= has keys \\['qid'\\]"),
        ({"format": 3}, "format= must be a format name"),
        ({"format": "xml"}, "unknown input format 'xml'"),
    ],
)
@pytest.mark.parametrize("reader", ["qrels", "run", "Qrels.read", "Run.read"])
def test_misused_arguments_are_config_errors(files, options, message, reader):
    qrels, run = files
    call = {"qrels": lambda: read_qrels_table(qrels, **options), "run": lambda: read_run_table(run, **options),
            "Qrels.read": lambda: Qrels.read(qrels, **options), "Run.read": lambda: Run.read(run, **options)}[reader]
    with pytest.raises(ConfigError, match=message):
        call()


@pytest.mark.parametrize("options, message", [({"duplicates": 3}, "duplicates must be one of"),
                                              ({"duplicates": "none"}, "duplicates must be one of")])
def test_qrels_read_options(files, options, message):
    with pytest.raises(ConfigError, match=message):
        Qrels.read(files[0], **options)


@pytest.mark.parametrize("name", [3, ["a"], b"run"])
def test_run_name_must_be_a_string(files, name):
    with pytest.raises(ConfigError, match="name= must be a string"):
        Run.read(files[1], name=name)


def test_integer_column_labels_of_a_dataframe_can_be_named():
    frame = pd.DataFrame({0: ["q"], 1: ["d"], 2: [1]})
    table = read_qrels_table(frame, columns={"query_id": 0, "doc_id": 1, "relevance": 2})
    assert table.to_pylist() == [{"query_id": "q", "doc_id": "d", "relevance": 1}]
