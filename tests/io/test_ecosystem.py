"""What users of the IR ecosystem hold, read as files are: polars frames, nested dicts, ranx objects,
named tuples (ir_measures, ir_datasets), ir_datasets datasets and pyterrier frames.

Each kind is read with a real object of its library and compared with the same rows read from a
file or an Arrow table (the oracle: the readers every other test holds to their definition); its
errors are the messages a file with the same fault gives.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import retrieval_eval as rx
from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.io import ecosystem, read_qrels_table, read_run_table, source_label

# ranx, ir_measures and ir_datasets (which ranx imports) are the peers of the dev extra; polars and
# pyterrier are imported by the tests that need them.
ranx = pytest.importorskip("ranx")
ir_measures = pytest.importorskip("ir_measures")
ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.formats import GenericScoredDoc, TrecQrel, TrecQrels, TrecScoredDocs  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

# Every document id is two characters long: ranx compiles its kernels again for each width of id.
QRELS_ROWS = [("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d3", 1), ("q2", "d1", 3)]
RUN_ROWS = [("q1", "d2", 3.5), ("q1", "d1", 0.125), ("q2", "d3", -1.0), ("q3", "d9", 7.0)]


def rows(table: pa.Table) -> list[tuple]:
    return list(zip(*(table.column(name).to_pylist() for name in table.column_names)))


def nested(rows_: list[tuple]) -> dict:
    out: dict = {}
    for query, doc, value in rows_:
        out.setdefault(query, {})[doc] = value
    return out


def failure(read, source, **options) -> InputError:
    with pytest.raises(InputError) as raised:
        read(source, **options)
    return raised.value


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


# --- polars -----------------------------------------------------------------------------------


@pytest.fixture
def pl():
    return pytest.importorskip("polars")


@pytest.mark.parametrize("lazy", [False, True])
def test_polars_frames_read_as_their_rows(pl, lazy):
    qrels = pl.DataFrame({"qid": [r[0] for r in QRELS_ROWS], "docno": [r[1] for r in QRELS_ROWS], "label": [r[2] for r in QRELS_ROWS]})
    run = pl.DataFrame({"query_id": [r[0] for r in RUN_ROWS], "doc_id": [r[1] for r in RUN_ROWS], "score": [r[2] for r in RUN_ROWS]})
    if lazy:
        qrels, run = qrels.lazy(), run.lazy()
    assert rows(read_qrels_table(qrels)) == QRELS_ROWS
    assert rows(read_run_table(run)) == RUN_ROWS
    assert source_label(run) == ("<polars LazyFrame>" if lazy else "<polars DataFrame>")


def test_polars_categorical_and_integer_ids(pl):
    frame = pl.DataFrame(
        {"qid": pl.Series(["q1", "q2"], dtype=pl.Categorical), "docno": [7, 8], "rel": pl.Series([1, 0], dtype=pl.Int8)}
    )
    table = read_qrels_table(frame)
    assert rows(table) == [("q1", 7, 1), ("q2", 8, 0)]
    assert table.schema.field("doc_id").type == pa.int64() and table.schema.field("relevance").type == pa.int64()


def test_polars_errors_are_those_of_a_table(pl):
    bad = {"qid": ["q1", "q1"], "docno": ["a", "b"], "rel": [1.0, float("nan")]}
    error = failure(read_qrels_table, pl.DataFrame(bad))
    assert str(error) == "<polars DataFrame>, row 2, field 'rel': relevance must be a finite number, got nan"
    assert error.detail == failure(read_qrels_table, pa.table(bad)).detail
    floats = {"qid": ["q1", "q1"], "docno": ["a", "b"], "rel": [1.0, 0.5]}
    assert read_qrels_table(pl.DataFrame(floats))["relevance"].to_pylist() == [1.0, 0.5]  # float labels
    assert "missing column 'score'" in str(failure(read_run_table, pl.DataFrame({"qid": ["q"], "docno": ["d"]}).lazy()))
    empty = pl.DataFrame({"qid": [], "docno": [], "score": []}, schema={"qid": pl.String, "docno": pl.String, "score": pl.Float64})
    assert str(failure(read_run_table, empty)) == "<polars DataFrame>: no rows"
    nulls = pl.DataFrame({"qid": ["q", None], "docno": ["a", "b"], "score": [1.0, 2.0]})
    assert str(failure(read_run_table, nulls)).startswith("<polars DataFrame>, row 2, field 'qid': 1 missing (null)")


def test_a_polars_frame_is_read_wherever_a_table_is(pl):
    from retrieval_eval.io import read_azure_rows

    records = [
        {"query_id": "a", "retrieval_ground_truth": [{"document_id": "x", "query_relevance_label": 2}],
         "retrieved_documents": [{"document_id": "x", "relevance_score": 0.5}, {"document_id": "y", "relevance_score": 0.25}]},
        {"query_id": "b", "retrieval_ground_truth": [{"document_id": "z", "query_relevance_label": 0}], "retrieved_documents": []},
    ]
    from_polars, from_arrow = read_azure_rows(pl.DataFrame(records)), read_azure_rows(pa.Table.from_pylist(records))
    assert rows(from_polars.qrels) == rows(from_arrow.qrels) == [("a", "x", 2), ("b", "z", 0)]
    assert rows(from_polars.run) == rows(from_arrow.run) == [("a", "x", 0.5), ("a", "y", 0.25)]


def test_a_polars_frame_is_read_through_arrow_without_pandas(pl, tmp_path):
    out = modules_after(
        """
        import polars as pl
        from retrieval_eval.data import Qrels, Run
        frame = pl.DataFrame({"qid": ["q1", "q2"], "docno": ["a", "b"], "rel": [1, 0]})
        print(Qrels.read(frame).n_queries, len(Run.read(frame.rename({"rel": "score"}).lazy())))
        """,
        tmp_path,
    )
    assert out.lines == ["2 2"] and "pandas" not in out.modules


# --- nested dicts (pytrec_eval's shape) ---------------------------------------------------------


def test_nested_dicts_read_as_their_rows():
    assert rows(read_qrels_table(nested(QRELS_ROWS))) == QRELS_ROWS
    assert rows(read_run_table(nested(RUN_ROWS))) == RUN_ROWS
    assert rows(read_qrels_table({1: {10: 1}, 2: {20: 0, 21: 2}})) == [(1, 10, 1), (2, 20, 0), (2, 21, 2)]
    assert source_label({}) == "<dict>"


def test_a_float_label_in_a_nested_dict_reads_as_a_file_reads_it(tmp_path):
    from_dict = read_qrels_table({"q1": {"a": 1, "b": 1.5}})
    path = write_jsonl(tmp_path / "q.jsonl",
                       [{"query_id": "q1", "doc_id": "a", "relevance": 1}, {"query_id": "q1", "doc_id": "b", "relevance": 1.5}])
    assert from_dict["relevance"].type == pa.float64() and from_dict["relevance"].equals(read_qrels_table(path)["relevance"])
    assert from_dict["relevance"].to_pylist() == [1.0, 1.5]
    error = failure(read_qrels_table, {"q1": {"a": 1, "b": float("inf")}})
    assert str(error) == "<dict>, row 2, field 'relevance': relevance must be a finite number, got inf"
    assert "must be numeric" in str(failure(read_run_table, {"q1": {"a": "high"}}))
    assert "mixed int/str ids" in str(failure(read_run_table, {"q1": {"a": 1.0, 2: 0.5}}))


def test_a_nested_dict_whose_query_holds_no_dict_names_the_query():
    error = failure(read_run_table, {"q1": {"a": 1.0}, "q2": [("b", 0.5)]})
    assert str(error) == (
        "<dict>: query 'q2': expected a dict {doc_id: score} (pytrec_eval's {query_id: {doc_id: score}}), got list"
    )


def test_nested_dicts_without_rows_and_with_what_they_cannot_hold():
    assert str(failure(read_qrels_table, {})) == "<dict>: no rows"
    assert str(failure(read_run_table, {"q1": {}, "q2": {}})) == "<dict>: no rows"
    assert "missing column 'group'" in str(failure(read_qrels_table, {"q": {"d": 1}}, judgments="qrels_jg"))
    with pytest.raises(ConfigError, match="columns= does not apply to a nested dict"):
        read_qrels_table({"q": {"d": 1}}, columns={"query_id": "topic"})


def test_nan_scores_in_a_nested_dict_reach_the_data_layer_check():
    with pytest.raises(InputError, match=r"^<dict>, row 1, field 'score': 1 NaN score\(s\)"):
        rx.Run.read({"q": {"d": float("nan")}})


# --- ranx ---------------------------------------------------------------------------------------


def test_ranx_objects_read_as_their_dicts():
    qrels, run = ranx.Qrels(nested(QRELS_ROWS)), ranx.Run(nested(RUN_ROWS), name="bm25")
    assert sorted(rows(read_qrels_table(qrels))) == sorted(QRELS_ROWS)
    assert sorted(rows(read_run_table(run))) == sorted(RUN_ROWS)
    assert (source_label(qrels), source_label(run)) == ("<ranx Qrels>", "<ranx Run>")


def test_ranx_scores_come_back_to_the_bit():
    # ranx holds scores as float64: every one of these, reaching beyond float32 and decimal text, is kept exactly.
    rng = np.random.default_rng(7)
    scores = np.concatenate([rng.standard_normal(200) * 10.0 ** rng.integers(-300, 300, 200), [5e-324, -0.0, 1 / 3]])
    docs = [a + b for a in "abcdefghijklmnop" for b in "abcdefghijklmnop"][: len(scores)]
    table = read_run_table(ranx.Run({"q1": dict(zip(docs, scores.tolist()))}))
    read = dict(zip(table["doc_id"].to_pylist(), np.asarray(table["score"].to_numpy()).view(np.uint64).tolist()))
    assert read == dict(zip(docs, scores.view(np.uint64).tolist()))


# --- named tuples (ir_measures, ir_datasets) ------------------------------------------------------


@pytest.mark.parametrize("container", [list, tuple, iter, lambda rows_: (row for row in rows_)])
def test_named_tuples_read_as_their_rows(container):
    qrels = [ir_measures.Qrel(*row) for row in QRELS_ROWS]
    run = [ir_measures.ScoredDoc(*row) for row in RUN_ROWS]
    assert rows(read_qrels_table(container(qrels))) == QRELS_ROWS
    assert rows(read_run_table(container(run))) == RUN_ROWS


def test_ir_datasets_tuples_with_extra_fields_and_mixed_classes():
    qrels = [TrecQrel(q, d, label, "Q0") for q, d, label in QRELS_ROWS[:2]] + [ir_measures.Qrel(*row) for row in QRELS_ROWS[2:]]
    assert rows(read_qrels_table(qrels)) == QRELS_ROWS  # iteration is ignored
    assert rows(read_run_table(GenericScoredDoc(*row) for row in RUN_ROWS)) == RUN_ROWS
    groups = read_qrels_table([TrecQrel("q", "d", 1, "g7")], judgments="qrels_jg", columns={"group": "iteration"})
    assert rows(groups) == [("q", "d", 1, "g7")]


def test_labels_of_named_tuples():
    qrels = [ir_measures.Qrel("q", "d", 1)]
    assert source_label(qrels) == "<list of Qrel>" and source_label(tuple(qrels)) == "<tuple of Qrel>"
    generator = (row for row in qrels)
    assert source_label(generator) == "<iterable>"  # not read yet: its first row is unknown
    built = rx.Qrels.read(generator)
    assert built.source == source_label(generator) == "<iterable of Qrel>"


def test_named_tuple_errors_name_the_row():
    good = ir_measures.Qrel("q", "a", 1)
    assert read_qrels_table([good, ir_measures.Qrel("q", "b", 1.5)])["relevance"].to_pylist() == [1.0, 1.5]
    assert str(failure(read_qrels_table, [good, ir_measures.Qrel("q", "b", float("inf"))])) == (
        "<list of Qrel>, row 2, field 'relevance': relevance must be a finite number, got inf"
    )
    assert str(failure(read_qrels_table, iter([good, {"query_id": "q"}]))) == (
        "<iterable of Qrel>, row 2: expected a named tuple (such as ir_datasets' TrecQrel or ir_measures' Qrel), got dict"
    )
    assert str(failure(read_qrels_table, [good, ir_measures.ScoredDoc("q", "b", 1.0)])) == (
        "<list of Qrel>, row 2: a ScoredDoc has no field 'relevance' (its fields: 'query_id', 'doc_id', 'score'); "
        "every row needs the fields chosen from the first"
    )
    # A qrels table's "score" is its label (BEIR's qrels, ranx's Qrels.to_dataframe()), so a ScoredDoc's score is
    # read as one: a probability of relevance, a float label; infinity is refused naming the field.
    assert read_qrels_table([ir_measures.ScoredDoc("q", "b", 0.25)])["relevance"].to_pylist() == [0.25]
    not_labels = failure(read_qrels_table, [ir_measures.ScoredDoc("q", "b", float("inf"))])
    assert not_labels.field == "score" and "relevance must be a finite number, got inf" in str(not_labels)
    Judgment = namedtuple("Judgment", "query_id doc_id")
    missing = failure(read_qrels_table, [Judgment("q", "b")])
    assert missing.field == "relevance" and "columns found: ['query_id', 'doc_id']" in str(missing)
    assert str(failure(read_run_table, iter([3, 4]))) == "<iterable of dicts>, row 1: expected a record (object), got int"


def test_a_bad_row_after_the_first_chunk_is_named_by_its_row(monkeypatch):
    monkeypatch.setattr(ecosystem, "_CHUNK", 3)
    qrels = [ir_measures.Qrel("q", f"d{i}", 1) for i in range(7)] + [ir_measures.ScoredDoc("q", "x", 1.0)]
    assert failure(read_qrels_table, iter(qrels)).row == 8
    assert rows(read_qrels_table(iter(qrels[:7]))) == [("q", f"d{i}", 1) for i in range(7)]


def test_an_iterator_is_read_once():
    generator = (ir_measures.ScoredDoc(*row) for row in RUN_ROWS)
    assert len(read_run_table(generator)) == len(RUN_ROWS)
    assert str(failure(read_run_table, generator)) == (
        "<iterable of ScoredDoc>: no rows (this iterator was read before; an iterator is read once)"
    )
    assert str(failure(read_run_table, iter([]))) == "<iterable>: no rows"
    assert str(failure(read_run_table, [])) == "<list of dicts>: no rows"


# --- ir_datasets datasets -----------------------------------------------------------------------


def local_dataset(tmp_path: Path, *, scored: bool = True) -> ir_datasets.Dataset:
    """A real ir_datasets dataset over local TREC files (no download)."""
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in QRELS_ROWS))
    (tmp_path / "run.txt").write_text("".join(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in enumerate(RUN_ROWS)))
    scoreddocs = TrecScoredDocs(LocalDownload(tmp_path / "run.txt")) if scored else None
    return ir_datasets.Dataset(TrecQrels(LocalDownload(tmp_path / "qrels.txt"), {}), scoreddocs)


def test_an_ir_datasets_dataset_gives_its_qrels_and_scoreddocs(tmp_path):
    dataset = local_dataset(tmp_path)
    assert rows(read_qrels_table(dataset)) == rows(read_qrels_table(tmp_path / "qrels.txt")) == QRELS_ROWS
    assert rows(read_run_table(dataset)) == rows(read_run_table(tmp_path / "run.txt")) == RUN_ROWS
    assert rows(read_qrels_table(dataset.qrels_iter())) == QRELS_ROWS
    assert source_label(dataset) == "<ir_datasets dataset>"
    result = rx.evaluate(dataset, dataset, ["map", "P@5"])
    expected = rx.evaluate(tmp_path / "qrels.txt", tmp_path / "run.txt", ["map", "P@5"])
    assert result.query_ids.equals(expected.query_ids) and np.array_equal(result.values("map"), expected.values("map"))


def test_a_dataset_without_scoreddocs_is_no_run(tmp_path):
    assert str(failure(read_run_table, local_dataset(tmp_path, scored=False))) == (
        "<ir_datasets dataset>: this ir_datasets dataset has no scoreddocs (no scoreddocs_iter())"
    )


# --- pyterrier frames ---------------------------------------------------------------------------


def terrier_frames(pt):
    """A result frame as Terrier's retriever builds it (qid, query, docid, docno, rank, score) and qrels as pt.io reads them."""
    queries = pt.new.queries(["first query", "second"], qid=["q1", "q2"])
    builder = pt.new.DataFrameBuilder(["docid", "docno", "rank", "score"])
    builder.extend({"docid": [41, 17], "docno": ["d2", "d1"], "rank": [0, 1], "score": [3.5, 0.125]})
    builder.extend({"docid": [5, 99], "docno": ["d3", "d9"], "rank": [0, 1], "score": [-1.0, -2.0]})
    return builder.to_df(merge_on_index=queries)


def hand_built_frames(_):
    import pandas as pd

    return pd.DataFrame(
        {"qid": ["q1", "q1", "q2", "q2"], "query": ["first query", "first query", "second", "second"], "docid": [41, 17, 5, 99],
         "docno": ["d2", "d1", "d3", "d9"], "rank": [0, 1, 0, 1], "score": [3.5, 0.125, -1.0, -2.0]}
    )


@pytest.mark.parametrize("build", [hand_built_frames, terrier_frames])
def test_a_pyterrier_result_frame_reads_docno_as_the_document_id(build, tmp_path):
    pt = pytest.importorskip("pyterrier") if build is terrier_frames else None
    frame = build(pt)
    assert list(frame.columns) == ["qid", "query", "docid", "docno", "rank", "score"]
    assert rows(read_run_table(frame)) == [("q1", "d2", 3.5), ("q1", "d1", 0.125), ("q2", "d3", -1.0), ("q2", "d9", -2.0)]


def test_pyterrier_qrels_as_pt_io_reads_them(tmp_path):
    pt = pytest.importorskip("pyterrier")
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in QRELS_ROWS))
    frame = pt.io.read_qrels(str(tmp_path / "qrels.txt"))
    assert list(frame.columns) == ["qid", "docno", "label"]
    assert rows(read_qrels_table(frame)) == QRELS_ROWS


@pytest.mark.parametrize(
    "columns, chosen",
    [
        (["qid", "docid", "docno", "score"], "docno"),
        (["qid", "DocNo", "DOCID", "score"], "DocNo"),
        (["qid", "docid", "score"], "docid"),  # alone, docid is the document id
        (["qid", "doc_id", "docno", "score"], None),
        (["qid", "doc_id", "docid", "score"], None),
        (["qid", "docid", "docno", "doc", "score"], None),
    ],
)
def test_docid_yields_to_docno_and_no_other_pair_is_settled(columns, chosen):
    table = pa.table({name: ["q"] if name == "qid" else [1.0] if name == "score" else [name] for name in columns})
    if chosen is None:
        with pytest.raises(InputError, match="ambiguous column for 'doc_id'"):
            read_run_table(table)
    else:
        assert read_run_table(table)["doc_id"].to_pylist() == [chosen]


# --- every kind -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [3, np.array(["q", "d", "1"]), io.StringIO("q 0 d 1\n"), {"q", "d"}, b"q 0 d 1"])
def test_an_unsupported_object_is_told_every_kind_there_is(source):
    message = str(failure(read_qrels_table, source))
    assert message.startswith(f"unsupported source of type {type(source).__name__}; expected a path, a pandas or polars DataFrame")
    for kind in ("pyarrow Table", "list of dicts", "nested dict", "ranx Qrels or Run", "ir_datasets dataset", "named tuples"):
        assert kind in message


class Modules:
    def __init__(self, stdout: str) -> None:
        *self.lines, loaded = stdout.strip().splitlines()
        self.modules = set(json.loads(loaded))


def modules_after(code: str, cwd: Path) -> Modules:
    """What ``code`` prints, and the top-level modules loaded when it ends, in a fresh interpreter."""
    import textwrap

    root = str(Path(rx.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    script = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return Modules(done.stdout)


def test_files_are_read_without_importing_any_peer(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in QRELS_ROWS))
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"qid": [r[0] for r in RUN_ROWS], "docno": [r[1] for r in RUN_ROWS], "score": [r[2] for r in RUN_ROWS]}),
                   tmp_path / "run.parquet")
    out = modules_after(
        """
        import retrieval_eval as rx
        qrels = rx.Qrels.read("qrels.txt")
        result = rx.evaluate(qrels, rx.Run.read("run.parquet"), ["map"])
        print(qrels.n_queries, result.query_ids.to_pylist())
        """,
        tmp_path,
    )
    assert out.lines == ["2 ['q1', 'q2']"]
    assert not out.modules & {"polars", "ranx", "ir_datasets", "ir_measures", "pyterrier", "pytrec_eval"}
