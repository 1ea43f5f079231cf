"""Every form a user may hold the same judgments and results in gives the same per-query values, to the bit.

The forms: TREC text, CSV, JSON Lines and parquet files; pandas, polars (eager and lazy) and pyterrier-shaped
frames; pyarrow Tables; lists of dicts; pytrec_eval's nested dicts; ranx objects; ir_measures and ir_datasets
named tuples (in lists and generators) and an ir_datasets dataset over the TREC files. Each is scored with
TREC measures, whose ranking (score, then document id) does not depend on the order rows come in: ranx sorts
them, a dict keeps them by query. A nested dict or a ranx object cannot hold a document twice in a query, so
the data has none.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import retrieval_eval as rx

pl = pytest.importorskip("polars")
ranx = pytest.importorskip("ranx")
ir_measures = pytest.importorskip("ir_measures")
ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.formats import GenericScoredDoc, TrecQrel, TrecQrels, TrecScoredDocs  # noqa: E402
from ir_datasets.util import LocalDownload  # noqa: E402

METRICS = ["ndcg@10", "map", "P@5", "recip_rank", "bpref"]
# Three characters each: ranx compiles its kernels again for each width of document id.
DOCS = [f"d{i:02d}" for i in range(16)]
SCORES = st.one_of(st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0]), st.floats(-1e300, 1e300, allow_nan=False))

Rows = list[tuple]


@st.composite
def collections(draw) -> tuple[Rows, Rows]:
    """(qrels rows, run rows), each (query_id, doc_id, value), no document twice in a query, at least a row each."""
    queries = draw(st.lists(st.sampled_from([f"q{i}" for i in range(8)]), min_size=1, max_size=5, unique=True))
    qrels, run = [], []
    for query in queries:
        judged = draw(st.lists(st.sampled_from(DOCS), max_size=6, unique=True))
        qrels += [(query, doc, draw(st.integers(0, 3))) for doc in judged]
        retrieved = draw(st.lists(st.sampled_from(DOCS), max_size=8, unique=True))
        run += [(query, doc, draw(SCORES)) for doc in retrieved]
    # Every query is judged or retrieved, and each side has a row: the two no-rows errors are tested elsewhere.
    qrels = qrels or [(queries[0], DOCS[0], 1)]
    run = run or [(queries[-1], DOCS[-1], 1.0)]
    return qrels, run


def columns(rows: Rows, value: str) -> dict[str, list]:
    return {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], value: [r[2] for r in rows]}


def table(rows: Rows, value: str) -> pa.Table:
    return pa.table(columns(rows, value), schema=pa.schema([("query_id", pa.string()), ("doc_id", pa.string()),
                                                           (value, pa.int64() if value == "relevance" else pa.float64())]))


def nested(rows: Rows) -> dict:
    out: dict = {}
    for query, doc, value in rows:
        out.setdefault(query, {})[doc] = value
    return out


def trec_files(qrels: Rows, run: Rows, folder: Path) -> tuple[Path, Path]:
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {label}\n" for q, d, label in qrels))
    (folder / "run.txt").write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for i, (q, d, s) in enumerate(run)))
    return folder / "qrels.txt", folder / "run.txt"


def csv_files(qrels: Rows, run: Rows, folder: Path) -> tuple[Path, Path]:
    paths = []
    for name, rows, header in (("qrels.csv", qrels, ["qid", "docno", "label"]), ("run.csv", run, ["qid", "docno", "score"])):
        with open(folder / name, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(header)
            writer.writerows((q, d, repr(v)) for q, d, v in rows)
        paths.append(folder / name)
    return tuple(paths)


def jsonl_files(qrels: Rows, run: Rows, folder: Path) -> tuple[Path, Path]:
    for name, rows, value in (("qrels.jsonl", qrels, "relevance"), ("run.jsonl", run, "score")):
        (folder / name).write_text("".join(json.dumps({"query_id": q, "doc_id": d, value: v}) + "\n" for q, d, v in rows))
    return folder / "qrels.jsonl", folder / "run.jsonl"


def parquet_files(qrels: Rows, run: Rows, folder: Path) -> tuple[Path, Path]:
    pq.write_table(table(qrels, "relevance"), folder / "qrels.parquet")
    pq.write_table(table(run, "score"), folder / "run.parquet")
    return folder / "qrels.parquet", folder / "run.parquet"


def pandas_frames(qrels: Rows, run: Rows, _: Path):
    return table(qrels, "relevance").to_pandas(), table(run, "score").to_pandas()


def polars_frames(qrels: Rows, run: Rows, _: Path, *, lazy: bool = False):
    frames = pl.DataFrame(columns(qrels, "rel")), pl.DataFrame(columns(run, "score"), schema_overrides={"score": pl.Float64})
    return tuple(frame.lazy() for frame in frames) if lazy else frames


def pyterrier_frames(qrels: Rows, run: Rows, _: Path):
    """Frames shaped as pyterrier's: qrels (qid, docno, label); results (qid, query, docid, docno, rank, score)."""
    import pandas as pd

    results = pd.DataFrame({"qid": [r[0] for r in run], "query": [f"text of {r[0]}" for r in run], "docid": range(len(run)),
                            "docno": [r[1] for r in run], "rank": range(len(run)), "score": [r[2] for r in run]})
    return pd.DataFrame({"qid": [r[0] for r in qrels], "docno": [r[1] for r in qrels], "label": [r[2] for r in qrels]}), results


def ir_datasets_dataset(qrels: Rows, run: Rows, folder: Path):
    qrels_path, run_path = trec_files(qrels, run, folder)
    dataset = ir_datasets.Dataset(TrecQrels(LocalDownload(qrels_path), {}), TrecScoredDocs(LocalDownload(run_path)))
    return dataset, dataset


FORMS: dict[str, Callable] = {
    "trec": trec_files,
    "csv": csv_files,
    "jsonl": jsonl_files,
    "parquet": parquet_files,
    "pandas": pandas_frames,
    "polars": polars_frames,
    "polars lazy": lambda qrels, run, folder: polars_frames(qrels, run, folder, lazy=True),
    "pyterrier": pyterrier_frames,
    "arrow": lambda qrels, run, _: (table(qrels, "relevance"), table(run, "score")),
    "list of dicts": lambda qrels, run, _: (table(qrels, "relevance").to_pylist(), table(run, "score").to_pylist()),
    "nested dict": lambda qrels, run, _: (nested(qrels), nested(run)),
    "ranx": lambda qrels, run, _: (ranx.Qrels(nested(qrels)), ranx.Run(nested(run))),
    "ir_measures tuples": lambda qrels, run, _: ([ir_measures.Qrel(*r) for r in qrels], [ir_measures.ScoredDoc(*r) for r in run]),
    "ir_datasets generators": lambda qrels, run, _: ((TrecQrel(*r, "0") for r in qrels), (GenericScoredDoc(*r) for r in run)),
    "ir_datasets dataset": ir_datasets_dataset,
}


def per_query(result) -> dict[str, dict[str, int]]:
    """Each metric's value per query, as the bits of its float64."""
    ids = result.query_ids.to_pylist()
    return {metric: dict(zip(ids, np.asarray(result.values(metric), dtype=np.float64).view(np.uint64).tolist())) for metric in METRICS}


# Judged and retrieved queries may not meet: every form must then give the same (zero) values too.
@pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")
@given(data=collections())
def test_every_form_of_the_same_data_gives_the_same_values(data):
    qrels, run = data
    expected = per_query(rx.evaluate(table(qrels, "relevance"), table(run, "score"), METRICS))
    with tempfile.TemporaryDirectory() as folder:
        got = {}
        for form, build in FORMS.items():
            (Path(folder) / form).mkdir()
            got[form] = per_query(rx.evaluate(*build(qrels, run, Path(folder) / form), METRICS))
    assert got == dict.fromkeys(FORMS, expected)


def test_the_constructors_point_to_read_for_anything_but_the_canonical_table():
    # Run(df) and Qrels(df) were an AttributeError deep in the grouping (issue 27, item 12).
    import pandas as pd

    from retrieval_eval import Qrels, Run

    frame = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "score": [1.0], "relevance": [1]})
    for kind in (Run, Qrels):
        with pytest.raises(TypeError, match=rf"^{kind.__name__}\(\.\.\.\) takes the canonical pyarrow Table of a reader, "
                           rf"got DataFrame: read files, DataFrames and other sources with {kind.__name__}\.read\(source\)$"):
            kind(frame)
