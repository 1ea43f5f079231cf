"""Reading files and joining a run with its qrels never imports pandas (0.3 s, more than the work).

pandas is imported only for pandas objects. pyarrow imports it too, the first time it converts
between numpy or Python values and Arrow, so these paths convert through the buffers
(``io/arrays.py``); a stray ``to_numpy()`` or ``pa.array(...)`` on them makes these tests fail.
Each check runs in a fresh interpreter, where nothing has imported pandas yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import retrieval_eval

# The fresh interpreter imports the package this test process imported.
_PACKAGE_ROOT = str(Path(retrieval_eval.__file__).resolve().parents[1])
_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")]))}

_QRELS = "q1 0 d1 2\nq1 0 d2 0\n# a comment\n\nq2 0 d3 1\nq3 0 d9 1\n"
_RUN = "q1 Q0 d2 1 3.5 tag\nq1 Q0 d1 2 3.5 tag\nq2 Q0 d3 1 9 tag\nq4 Q0 d7 1 1 tag\n"


def _run_python(code: str, cwd) -> str:
    script = "import sys\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, env=_ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_importing_io_and_data_does_not_import_pandas(tmp_path):
    out = _run_python(
        """
        import retrieval_eval.io, retrieval_eval.data
        print(sorted(m for m in ("pandas", "pyarrow.dataset", "pyarrow.parquet") if m in sys.modules))
        """,
        tmp_path,
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize("query_set", ["qrels", "both", "union"])
def test_reading_trec_files_and_the_join_do_not_import_pandas(tmp_path, query_set):
    (tmp_path / "qrels.txt").write_text(_QRELS)
    (tmp_path / "run.txt").write_text(_RUN)
    out = _run_python(
        f"""
        from retrieval_eval.data import Qrels, Run, rank_judged, rank_run
        from retrieval_eval.data.join import align_queries
        from retrieval_eval.io import write_json, write_table

        qrels, run = Qrels.read("qrels.txt"), Run.read("run.txt")
        alignment = align_queries(qrels, run, {query_set!r})
        ranked = rank_run(qrels, run, ties="docid")
        judged = rank_judged(qrels, run)
        write_table(qrels.table, "out.csv")
        write_json({{"queries": alignment.query_ids.to_pylist()}}, "out.json")
        print(alignment.query_ids.to_pylist(), ranked.labels.tolist(), judged.n_found.tolist())
        print("pandas" in sys.modules)
        """,
        tmp_path,
    )
    queries, imported = out.strip().splitlines()
    # The work really ran: run queries q1, q2, q4; q1's tie on 3.5 is ordered by descending doc
    # id (d2, then d1); q1 found both its judged documents, q2 its one, q4 none.
    expected_queries = {"qrels": ["q1", "q2", "q3"], "both": ["q1", "q2"], "union": ["q1", "q2", "q3", "q4"]}
    assert queries == f"{expected_queries[query_set]} [0, 2, 1, 0] [2, 1, 0]"
    assert imported == "False"


def test_azure_rows_from_json_lines_do_not_import_pandas(tmp_path):
    rows = [
        '{"query_id": "a", "retrieval_ground_truth": [{"document_id": "x", "query_relevance_label": 1}],'
        ' "retrieved_documents": [{"document_id": "x", "relevance_score": 0.5}]}',
        '{"query_id": "b", "retrieval_ground_truth": [{"document_id": "y", "query_relevance_label": 2}],'
        ' "retrieved_documents": []}',
    ]
    (tmp_path / "rows.jsonl").write_text("\n".join(rows) + "\n")
    out = _run_python(
        """
        from retrieval_eval.data import load_azure_rows
        rows = load_azure_rows("rows.jsonl")
        print(rows.query_ids.to_pylist(), len(rows.qrels), len(rows.run), "pandas" in sys.modules)
        """,
        tmp_path,
    )
    assert out.strip() == "['a', 'b'] 2 1 False"


def test_nested_dicts_and_records_are_read_without_pandas(tmp_path):
    out = _run_python(
        """
        import retrieval_eval as rx
        qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}
        run = {"q1": {"d1": 0.5, "d2": 1.5}, "q2": {"d3": 2.0, "d9": 1.0}}
        records = [{"query_id": q, "doc_id": d, "score": s} for q, docs in run.items() for d, s in docs.items()]
        print(rx.evaluate(qrels, run, ["map"]).means == rx.evaluate(qrels, records, ["map"]).means, "pandas" in sys.modules)
        """,
        tmp_path,
    )
    assert out.split() == ["True", "False"]
