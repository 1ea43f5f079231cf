"""The output-path guard: an output that is, holds or is inside an input (or another output) is refused."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from retrieval_eval.errors import OutputError
from retrieval_eval.io import write_json, write_table
from retrieval_eval.io.atomic import atomic_write
from retrieval_eval.io.output_paths import check_output_paths


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """``runs/a.csv`` and ``q.csv`` in a fresh working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.csv").write_text("a\n")
    (tmp_path / "q.csv").write_text("q\n")
    return tmp_path


# How an output may name an input (q.csv, a file) or a directory input (runs): each must be refused.
def _is(tree):
    return "q.csv", "q.csv", "it is the input q.csv"


def _other_spelling(tree):
    return str(tree / "runs" / ".." / "q.csv"), "q.csv", "it is the input q.csv"


def _hard_link(tree):
    os.link("q.csv", "hard.csv")
    return "hard.csv", "q.csv", "it is the same file as the input q.csv"


def _symlink(tree):
    os.symlink("q.csv", "link.csv")
    return "link.csv", "q.csv", "it is the same file as the input q.csv"


def _symlink_to_the_directory(tree):
    os.symlink("runs", "link")
    return "link", "runs", "it is the same file as the input runs"


def _directory_holding_it(tree):
    return "runs", "runs/a.csv", "the input runs/a.csv is inside it"


def _working_directory(tree):
    return ".", "q.csv", "the input q.csv is inside it"


def _new_path_inside_it(tree):
    return "runs/out", "runs", "it is inside the input runs"


def _inside_it_through_a_symlink(tree):
    os.symlink("runs", "link")
    return "link/out", "runs", "it is inside the input runs"


def _deep_inside_it(tree):
    return "runs/x/y/out.parquet", "runs", "it is inside the input runs"


RELATIONS = [_is, _other_spelling, _hard_link, _symlink, _symlink_to_the_directory, _directory_holding_it,
             _working_directory, _new_path_inside_it, _inside_it_through_a_symlink, _deep_inside_it]


@pytest.mark.parametrize("relation", RELATIONS, ids=lambda f: f.__name__.strip("_"))
def test_an_output_over_an_input_is_refused(tree, relation):
    output, source, message = relation(tree)
    with pytest.raises(OutputError, match=f"^-o {_escaped(output)}: refused: {_escaped(message)}"):
        check_output_paths({"-o": output}, ["elsewhere.csv", source])


@pytest.mark.parametrize("output", ["new.csv", "runs2", "q.csv.out", "runs.parquet"])
def test_an_output_beside_the_inputs_passes(tree, output):
    check_output_paths({"-o": output, "--summary-output": None}, ["q.csv", "runs", "runs/a.csv", None])


def test_a_sibling_with_a_common_prefix_is_not_inside(tree):
    # runs2/out shares the string prefix "runs" with the input directory, not the directory.
    check_output_paths({"-o": "runs2/out"}, ["runs"])


def test_missing_inputs_are_left_to_their_readers(tree):
    check_output_paths({"-o": "missing.csv"}, ["missing.csv"])


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        ("s.json", "s.json", "it is -o s.json"),
        ("s.json", "./s.json", "it is -o s.json"),
        ("out", "out/s.json", "it is inside -o out"),
        ("out/s.json", "out", "-o out/s.json is inside it"),
    ],
)
def test_two_outputs_may_not_overlap(tree, first, second, message):
    with pytest.raises(OutputError, match=f"^--summary-output {_escaped(os.path.normpath(second))}: refused: {message}"):
        check_output_paths({"-o": first, "--summary-output": second}, [])


def test_two_existing_outputs_linked_to_each_other(tree):
    os.link("q.csv", "hard.csv")
    with pytest.raises(OutputError, match="it is the same file as -o q.csv"):
        check_output_paths({"-o": "q.csv", "--report": "hard.csv"}, [])


def _escaped(text: str) -> str:
    return re.escape(str(text))


WRITERS = {
    "write_table": lambda path, inputs: write_table(pa.table({"a": [1]}), path, inputs=inputs),
    "write_json": lambda path, inputs: write_json({"a": 1}, path, inputs=inputs),
    "atomic_write": lambda path, inputs: atomic_write(path, lambda temp: open(temp, "w").write("x"), inputs=inputs),
}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("relation", [_is, _hard_link, _symlink, _working_directory], ids=lambda f: f.__name__.strip("_"))
def test_every_writer_refuses_its_inputs(tree, writer, relation):
    output, source, _ = relation(tree)
    before = (tree / source).read_bytes()
    with pytest.raises(OutputError, match=f"^output {_escaped(output)}: refused"):
        WRITERS[writer](output, [source])
    assert (tree / source).read_bytes() == before
    assert not any(name.startswith(".") for name in os.listdir(tree))


@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_writer_writes_beside_its_inputs(tree, writer):
    WRITERS[writer]("new.json", ["q.csv", "runs"])
    assert (tree / "new.json").exists()


# The rule against an oracle written from its definition with strings: realpaths compared as
# prefixes, and os.path.samefile for "the same file", over trees with a symlink and a hard link.
_DIRECTORIES = ["a", "a/b", "c"]
_FILES = ["a/f", "a/b/g", "c/h", "k"]
_NEW = ["new", "a/new", "a/b/new", "ls/new", "ls/b/new"]


def _oracle_refuses(output: str, source: str) -> bool:
    real_output, real_source = os.path.realpath(output), os.path.realpath(source)
    if os.path.exists(output):
        below = [os.path.join(root, name) for root, _, names in os.walk(source) for name in names]
        if any(os.path.samefile(output, path) for path in [source, *below]):
            return True
    return real_source.startswith(real_output + os.sep) or real_output.startswith(real_source + os.sep)


@given(
    link_to=st.sampled_from(_DIRECTORIES + _FILES),
    hard_link_to=st.sampled_from(_FILES),
    output=st.sampled_from(_DIRECTORIES + _FILES + _NEW + ["ls", "lh", "."]),
    source=st.sampled_from(_DIRECTORIES + _FILES + ["ls", "lh", "."]),
)
def test_the_rule_matches_its_definition(link_to, hard_link_to, output, source):
    with tempfile.TemporaryDirectory() as root, _working_directory_at(root):
        for directory in _DIRECTORIES:
            os.makedirs(directory)
        for file in _FILES:
            Path(file).write_text(file)
        os.symlink(link_to, "ls")
        os.link(hard_link_to, "lh")
        assume(os.path.isdir(os.path.dirname(output) or "."))  # not "below" a file (ls/new with ls a file)
        expected = _oracle_refuses(output, source)
        try:
            check_output_paths({"-o": output}, [source])
        except OutputError:
            refused = True
        else:
            refused = False
        assert refused == expected


@contextlib.contextmanager
def _working_directory_at(path: str):
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)
