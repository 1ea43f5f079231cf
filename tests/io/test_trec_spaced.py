"""The single-spaced fast path reads a file as the general TREC reader does, and declines whatever it could misread."""

from __future__ import annotations

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.io import trec, trec_spaced
from retrieval_eval.io.sources import resolve_source
from retrieval_eval.io.trec_spaced import read_single_spaced

RUN = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\r\n\nq2 Q0 d1 1 -0.5 tag"
QRELS = b"\xef\xbb\xbfq1 0 d1 1\nq1 0 d2 0\n"


@pytest.fixture(autouse=True)
def every_size_takes_the_fast_path(monkeypatch):
    """These files are small: the fast path, which leaves files under a megabyte to the general reader, takes them here."""
    monkeypatch.setattr(trec_spaced, "SMALLEST", 0)


def test_a_small_file_goes_to_the_general_reader(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_spaced, "SMALLEST", 1 << 20)
    path = tmp_path / "run.trec"
    path.write_bytes(RUN)
    assert read_single_spaced(resolve_source(path), trec.RUN_LAYOUT) is None


def general(src, layout):
    """The general reader alone: the fast path declined."""
    original = trec.read_single_spaced
    trec.read_single_spaced = lambda *_: None
    try:
        return trec.read_trec(src, layout)
    finally:
        trec.read_single_spaced = original


@pytest.mark.parametrize(("data", "layout"), [(RUN, trec.RUN_LAYOUT), (QRELS, trec.QRELS_LAYOUT)])
def test_a_single_spaced_file_takes_the_fast_path_and_reads_as_the_general_reader(tmp_path, data, layout):
    path = tmp_path / "file.trec"
    path.write_bytes(data)
    fast = read_single_spaced(resolve_source(path), layout)
    assert fast is not None
    assert fast.equals(general(resolve_source(path), layout))


@pytest.mark.parametrize(
    "data",
    [
        b"q1\tQ0 d1 1 2.5 tag\n",  # a tab separates fields too
        b"q1 Q0  d1 1 2.5 tag\n",  # two spaces: one separator, not an empty field
        b" q1 Q0 d1 1 2.5 tag\n",  # a leading space
        b"q1 Q0 d1 1 2.5 tag \n",  # a trailing space
        b"q1 Q0 d1 1 2.5 tag and more text\n",  # text after the tag
        b"# a comment\nq1 Q0 d1 1 2.5 tag\n",  # a comment
        b"q1 Q0 CR#93 1 2.5 tag\n",  # a '#' that is text: still declined, the general reader decides
        b"q1 Q0 d1 1 two tag\n",  # a score that does not parse: the general reader names the line
        b"q1 Q0 d1 1 2.5 t\xff\n",  # not UTF-8
        b"\n\n",  # no data lines
    ],
)
def test_anything_else_is_declined_and_read_or_refused_by_the_general_reader(tmp_path, data):
    path = tmp_path / "run.trec"
    path.write_bytes(data)
    assert read_single_spaced(resolve_source(path), trec.RUN_LAYOUT) is None
    try:
        expected = general(resolve_source(path), trec.RUN_LAYOUT)
    except InputError as error:
        with pytest.raises(InputError) as raised:
            trec.read_trec(resolve_source(path), trec.RUN_LAYOUT)
        assert str(raised.value) == str(error)
    else:
        assert trec.read_trec(resolve_source(path), trec.RUN_LAYOUT).equals(expected)
