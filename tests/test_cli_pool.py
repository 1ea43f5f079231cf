"""The pool and qrels merge commands: outputs by extension, whole or not at all, conflicts reported, exit 2 on bad input."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from retrieval_eval import evaluate
from retrieval_eval.cli import main
from retrieval_eval.cli import pool as cli_pool
from retrieval_eval.pooling import merge as merge_module
from retrieval_eval.pooling import pool, pools

RUN_A = "1 Q0 a 1 3.0 A\n1 Q0 b 2 2.0 A\n1 Q0 c 3 2.0 A\n2 Q0 a 1 1.0 A\n"
RUN_B = "1 Q0 d 1 5.0 B\n1 Q0 a 2 4.0 B\n10 Q0 x 1 1.0 B\n"
QRELS = "1 0 a 1\n2 0 z 0\n"


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in {"a.trec": RUN_A, "b.trec": RUN_B, "qrels.trec": QRELS}.items():
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


def test_the_command_line_literals_are_the_librarys():
    assert cli_pool.POOL_TIES == pools.POOL_TIES and cli_pool.MERGE_POLICIES == merge_module.MERGE_POLICIES


@pytest.mark.parametrize("extension", [".tsv", ".jsonl", ".parquet"])
def test_pool_writes_the_librarys_pool(files, tmp_path, extension, capsys):
    output = tmp_path / f"pool{extension}"
    assert main(["pool", files["a.trec"], files["b.trec"], "--depth", "2", "--qrels", files["qrels.trec"], "-o", str(output)]) == 0
    expected = pool([files["a.trec"], files["b.trec"]], 2, qrels=files["qrels.trec"])
    # a's top 2 of query 1: a, then c (tie with b, doc id descending); a is judged. b: d, a; query 10: x.
    assert expected[["query_id", "doc_id"]].values.tolist() == [["1", "c"], ["1", "d"], ["10", "x"], ["2", "a"]]
    written = {".tsv": lambda p: pd.read_csv(p, sep="\t", dtype=str), ".jsonl": lambda p: pd.read_json(p, lines=True, dtype=False),
               ".parquet": pd.read_parquet}[extension](output)
    runs = [",".join(r) for r in expected["runs"]] if extension == ".tsv" else [list(r) for r in expected["runs"]]
    assert written["doc_id"].tolist() == expected["doc_id"].tolist()
    assert [r if extension == ".tsv" else list(r) for r in written["runs"]] == runs
    assert [int(v) for v in written["best_rank"]] == expected["best_rank"].tolist()
    assert "pooled 4 documents of 3 queries from 2 runs at depth 2" in capsys.readouterr().out


def test_judging_the_pool_and_merging_it_leaves_no_hole(files, tmp_path):
    judged = tmp_path / "judged.tsv"
    assert main(["pool", files["a.trec"], files["b.trec"], "--depth", "2", "--qrels", files["qrels.trec"], "-o", str(judged)]) == 0
    frame = pd.read_csv(judged, sep="\t", dtype=str)
    frame.assign(relevance=1).to_csv(judged, sep="\t", index=False)  # the assessors add a column to the pool
    merged = tmp_path / "qrels_v2.trec"
    assert main(["qrels", "merge", files["qrels.trec"], str(judged), "-o", str(merged)]) == 0
    assert merged.read_text() == "1 0 a 1\n1 0 c 1\n1 0 d 1\n10 0 x 1\n2 0 a 1\n2 0 z 0\n"
    for run in (files["a.trec"], files["b.trec"]):
        result = evaluate(str(merged), run, ["holes@2"], ties="docid", query_set="union")
        assert result.values("holes@2").tolist() == [0.0] * len(result.query_ids)


def test_conflicts_raise_by_default_with_no_output_and_are_written(files, tmp_path, capsys):
    new = tmp_path / "new.trec"
    new.write_text("1 0 a 2\n2 0 z 0\n3 0 q 1\n")
    output, conflicts = tmp_path / "out.trec", tmp_path / "conflicts.tsv"
    assert main(["qrels", "merge", files["qrels.trec"], str(new), "-o", str(output), "--conflicts", str(conflicts)]) == 2
    assert not output.exists()
    err = capsys.readouterr().err
    assert "1 conflicting judgment, not merged" in err and "query 1 doc a: old 1, new 2" in err
    assert pd.read_csv(conflicts, sep="\t", dtype=str).values.tolist() == [["1", "a", "1", "2"]]
    assert main(["qrels", "merge", files["qrels.trec"], str(new), "-o", str(output), "--duplicates", "max"]) == 0
    assert output.read_text() == "1 0 a 2\n2 0 z 0\n3 0 q 1\n"
    assert "settled by --duplicates max" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["pool", "{a}", "--depth", "2", "-o", "{a}"], "{a}"),
    (["pool", "{a}", "{missing}", "--depth", "2", "-o", "{out}"], "missing.trec"),
    (["pool", "{a}", "--depth", "2", "-o", "{tmp}/pool.xlsx"], "extension"),
    (["qrels", "merge", "{q}", "{missing}", "-o", "{out}"], "missing.trec"),
])
def test_bad_input_exits_2_with_one_line_and_no_output(files, tmp_path, capsys, argv, message):
    names = {"a": files["a.trec"], "q": files["qrels.trec"], "missing": str(tmp_path / "missing.trec"),
             "out": str(tmp_path / "out.tsv"), "tmp": str(tmp_path)}
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main([part.format(**names) for part in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("retrieval-eval: error:") and message.format(**names) in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("argv", [["pool", "--help"], ["qrels", "merge", "--help"]])
def test_help_has_examples_and_loads_no_heavy_module(argv):
    code = ("import sys\nfrom retrieval_eval.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass\n"
            "print(sorted({m.partition('.')[0] for m in sys.modules} & {'pandas', 'numba', 'pyarrow', 'scipy'}),"
            " file=sys.stderr)") % (argv,)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "examples:" in done.stdout and done.stderr.strip().splitlines()[-1] == "[]"


def _jsonl_run(path, doc_ids):
    import json

    path.write_text("".join(json.dumps({"query_id": "q1", "doc_id": d, "score": 10.0 - i}) + "\n" for i, d in enumerate(doc_ids)))
    return str(path)


def test_a_pool_tsv_quotes_only_the_fields_that_need_it_and_reads_back(tmp_path, capsys):
    import csv

    ids = ["plain", "a,b", 'say "hi"', "tab\there", "l'x"]
    run = _jsonl_run(tmp_path / "run.jsonl", ids)
    output = tmp_path / "pool.tsv"
    assert main(["pool", run, "--depth", "5", "-o", str(output)]) == 0
    lines = output.read_text().splitlines()
    run_name = run  # a run is named by its path
    assert lines[0] == "query_id\tdoc_id\truns\tbest_rank\tn_runs"
    assert f"q1\tplain\t{run_name}\t1\t1" in lines and f'q1\t"tab\there"\t{run_name}\t4\t1' in lines
    assert f'q1\t"say ""hi"""\t{run_name}\t3\t1' in lines and f"q1\ta,b\t{run_name}\t2\t1" in lines
    with open(output, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert sorted(row["doc_id"] for row in rows) == sorted(ids)
    # The assessors add a relevance column; the package's reader takes the judged pool back, every id as it was.
    judged = tmp_path / "judged.tsv"
    with open(judged, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerows([["query_id", "doc_id", "relevance"], *(["q1", row["doc_id"], "1"] for row in rows)])
    other = tmp_path / "other.trec"
    other.write_text("q2 0 other 1\n")
    merged = tmp_path / "merged.tsv"
    assert main(["qrels", "merge", str(judged), str(other), "-o", str(merged)]) == 0
    with open(merged, newline="", encoding="utf-8") as handle:
        assert sorted(row["doc_id"] for row in csv.DictReader(handle, delimiter="\t")) == sorted([*ids, "other"])


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_pool_for_assessors_writes_a_formula_as_text_and_says_so(tmp_path, capsys, start):
    import csv

    run = _jsonl_run(tmp_path / "run.jsonl", [f"{start}HYPERLINK(1)", "plain", "'=already text"])
    guarded, verbatim, jsonl = tmp_path / "pool.csv", tmp_path / "verbatim.csv", tmp_path / "pool.jsonl"
    assert main(["pool", run, "--depth", "3", "-o", str(guarded)]) == 0
    err = capsys.readouterr().err
    assert err == (f"retrieval-eval: 1 cell(s) of {guarded} start with =, +, -, @, a tab or a carriage return: written with "
                   "a leading ' so that a spreadsheet shows them as text (--no-formula-guard: as they are)\n")
    with open(guarded, newline="", encoding="utf-8") as handle:
        doc_ids = sorted(row["doc_id"] for row in csv.DictReader(handle))
    assert doc_ids == sorted([f"'{start}HYPERLINK(1)", "plain", "'=already text"])
    assert main(["pool", run, "--depth", "3", "-o", str(verbatim), "--no-formula-guard"]) == 0
    assert main(["pool", run, "--depth", "3", "-o", str(jsonl)]) == 0  # a machine format: never altered
    assert capsys.readouterr().err == ""
    with open(verbatim, newline="", encoding="utf-8") as handle:
        assert f"{start}HYPERLINK(1)" in [row["doc_id"] for row in csv.DictReader(handle)]
    assert f"{start}HYPERLINK(1)" in pd.read_json(jsonl, lines=True, dtype=False)["doc_id"].tolist()
