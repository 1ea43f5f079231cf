"""Chunk runs mapped to documents: every way of naming the document, against a plain-Python oracle."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep.chunks import chunks_to_documents


def _oracle(rows: list[tuple[str, str, float]], document) -> list[tuple[str, str, float, str]]:
    best: dict[tuple[str, str], tuple[int, float, str]] = {}
    for position, (query, chunk, score) in enumerate(rows):
        key = (query, document(chunk))
        if key not in best or score > best[key][1]:
            best[key] = (position, score, chunk)
    kept = sorted((position, key, score, chunk) for key, (position, score, chunk) in best.items())
    return [(key[0], key[1], score, chunk) for _, key, score, chunk in kept]


chunk_rows = st.lists(
    st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(["a#1", "a#2", "b#1", "b#2", "c", "a#b#3"]),
              st.sampled_from([0.1, 0.5, 0.9])),
    max_size=25,
)  # fmt: skip


@given(chunk_rows)
def test_each_document_keeps_its_best_chunk(rows):
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    out = chunks_to_documents(run, separator="#")
    expected = _oracle(rows, lambda chunk: chunk.rpartition("#")[0] if "#" in chunk else chunk)
    assert list(out.itertuples(index=False, name=None)) == expected


@given(chunk_rows)
def test_a_pattern_and_a_column_name_the_same_documents(rows):
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    by_pattern = chunks_to_documents(run, pattern=r"(?P<doc>[a-c])")
    by_column = chunks_to_documents(run.assign(document=run["doc_id"].str[0]), column="document")
    assert list(by_pattern.itertuples(index=False, name=None)) == _oracle(rows, lambda chunk: chunk[0])
    pd.testing.assert_frame_equal(by_pattern, by_column)


def test_a_pattern_without_groups_takes_the_whole_match():
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["doc12_p3"], "score": [1.0]})
    assert chunks_to_documents(run, pattern=r"doc\d+")["doc_id"].tolist() == ["doc12"]


def test_bad_input():
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a#1", "zzz"], "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=r"row 2, field 'doc_id': the chunk id 'zzz' does not match"):
        chunks_to_documents(run, pattern=r"(?P<doc>\w)#")
    with pytest.raises(ConfigError, match="exactly one of separator, pattern or column"):
        chunks_to_documents(run, separator="#", pattern="x")
    with pytest.raises(InputError, match="no column 'document'"):
        chunks_to_documents(run, column="document")
    with pytest.raises(ConfigError, match="invalid pattern"):
        chunks_to_documents(run, pattern="(")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [({"separator": 5}, "separator must be text, got 5"), ({"pattern": ["#"]}, r"pattern must be text, got \['#'\]"),
     ({"separator": "#", "run": [("q", "d#1", 1.0)]}, r"run must be a pandas DataFrame \(query_id, doc_id, score\), got list")],
    ids=["separator", "pattern", "run"],
)  # fmt: skip
def test_a_misused_argument_is_named(arguments, message):
    run = arguments.pop("run", pd.DataFrame({"query_id": ["q"], "doc_id": ["d#1"], "score": [1.0]}))
    with pytest.raises(ConfigError, match=f"^{message}$"):
        chunks_to_documents(run, **arguments)
