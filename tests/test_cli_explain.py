"""``retrieval-eval explain``: one query's lists as an aligned table, the summary, the per-query table
written atomically, and exit 2 with one line on bad input."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from retrieval_eval.cli import main
from retrieval_eval.errors import ConfigError
from retrieval_eval.explain import explain

DATA = Path(__file__).resolve().parents[1] / "data"
QRELS, RUN, DENSE = (str(DATA / name) for name in ("qrels.trec", "run.trec", "run_dense.trec"))


def test_query_prints_both_lists_side_by_side_with_labels_holes_and_changes(capsys):
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "--query", "q3", "--top", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    explanation = explain(QRELS, RUN, DENSE, ["ndcg@10"], top=5).query("q3")
    header = next(i for i, line in enumerate(out) if line.startswith("rank"))
    rows = [line.split() for line in out[header + 1 : header + 6]]
    changes = explanation.changes.set_index("doc_id")
    for rank, cells in enumerate(rows, start=1):
        assert cells[0] == str(rank)
        a = explanation.ranked[(explanation.ranked["run"] == "a") & (explanation.ranked["rank"] == rank)].iloc[0]
        label = "hole" if math.isnan(a["label"]) else str(int(a["label"]))
        assert cells[1:3] == [a["doc_id"], label]
        assert float(cells[3]) == pytest.approx(a["score"], rel=1e-5)
        if a["doc_id"] in changes.index:
            change = changes.loc[a["doc_id"]]
            mark = "left" if change["change"] == "left" else f"-> {int(change['rank_b'])}"
            assert " ".join(cells[4:4 + len(mark.split())]) == mark
    column_b = out[header].index("doc_id (b)")  # aligned: B's doc id starts at its header in every row
    for rank, line in enumerate(out[header + 1 : header + 6], start=1):
        b = explanation.ranked[(explanation.ranked["run"] == "b") & (explanation.ranked["rank"] == rank)].iloc[0]
        assert line[column_b:].startswith(b["doc_id"])
    missed = explanation.missed[explanation.missed["run"] == "a"]
    assert out[-2] == "relevant, not retrieved by a: " + ", ".join(
        f"{d} ({int(label)})" for d, label in zip(missed["doc_id"], missed["label"]))
    assert "ndcg@10" in out[2] and f"{explanation.row['ndcg@10_delta']:+.4f}" in out[2]


def test_summary_gives_means_wins_and_the_worst_queries(capsys):
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "-m", "P@5", "--worst", "3"]) == 0
    out = capsys.readouterr().out
    explanation = explain(QRELS, RUN, DENSE, ["ndcg@10", "P@5"])
    outcomes = explanation.queries["outcome"].value_counts()
    assert f"{outcomes.get('win', 0)} wins, {outcomes.get('tie', 0)} ties, {outcomes.get('loss', 0)} losses" in out
    worst = explanation.queries.nsmallest(3, "ndcg@10_delta")["query_id"].tolist()
    listed = out.split("worst 3 queries")[1].splitlines()[2:5]
    assert [line.split()[0] for line in listed] == worst
    assert f"{explanation.means['a']['ndcg@10']:.4f}" in out


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_output_writes_the_queries_table(tmp_path, capsys, suffix):
    output = tmp_path / f"explain{suffix}"
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "-o", str(output)]) == 0
    expected = explain(QRELS, RUN, DENSE, ["ndcg@10"]).queries
    read = {".parquet": pd.read_parquet, ".csv": pd.read_csv, ".jsonl": lambda p: pd.read_json(p, lines=True)}[suffix]
    written = read(output)
    assert written["query_id"].astype(str).tolist() == expected["query_id"].tolist()
    pd.testing.assert_series_equal(written["ndcg@10_delta"], expected["ndcg@10_delta"], check_exact=False, rtol=1e-12)
    assert [p.name for p in tmp_path.iterdir()] == [output.name]  # nothing left beside it


def test_output_html_is_the_explorer_page(tmp_path, capsys):
    output = tmp_path / "explain.html"
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "-o", str(output)]) == 0
    page = output.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and "q24" in page
    assert capsys.readouterr().out.strip() == f"25 queries -> {output}"


def test_a_run_of_other_queries_exits_2_with_one_line(tmp_path, capsys):
    other = tmp_path / "other.trec"
    other.write_text("elsewhere Q0 d1 1 1.0 tag\n")
    assert main(["explain", QRELS, str(other), "-m", "P@5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no judged query of the qrels" in err and "\n" not in err


def many_missed(tmp_path: Path, missed: int) -> tuple[str, str]:
    """Qrels where query q1 has ``missed`` relevant documents the run does not retrieve (and one it does)."""
    qrels, run = tmp_path / "qrels.trec", tmp_path / "run.trec"
    qrels.write_text("q1 0 found 1\n" + "".join(f"q1 0 gone{i} {1 + i % 2}\n" for i in range(missed)))
    run.write_text("q1 Q0 found 1 2.0 r\nq1 Q0 hole 2 1.0 r\n")
    return str(qrels), str(run)


@pytest.mark.parametrize(("missed", "more"), [(0, None), (10, None), (11, "1"), (189, "179"), (1189, "1,179")])
def test_query_lists_the_first_10_missed_documents_and_how_many_more(tmp_path, capsys, missed, more):
    qrels, run = many_missed(tmp_path, missed)
    assert main(["explain", qrels, run, "-m", "P@5", "--query", "q1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = max(i for i, text in enumerate(lines) if text.startswith("relevant, not retrieved by a:"))
    line = " ".join(text.strip() for text in lines[start:])  # wrapped at the terminal's width, at spaces
    gone = explain(qrels, run, metrics=["P@5"]).query("q1").missed
    assert len(gone) == missed
    listed = ", ".join(f"{doc} ({int(label)})" for doc, label in zip(gone["doc_id"][:10], gone["label"][:10])) or "none"
    assert line == f"relevant, not retrieved by a: {listed}" + (f", ... {more} more" if more else "")


@pytest.mark.parametrize(("metric", "worst"), [("ndcg@10", 3), ("holes@10", 4), ("P@5", 0)])
def test_a_single_run_summary_lists_its_worst_queries_as_asked(capsys, metric, worst):
    assert main(["explain", QRELS, RUN, "-m", metric, "--worst", str(worst)]) == 0
    out = capsys.readouterr().out
    queries = explain(QRELS, RUN, metrics=[metric]).queries
    # the lowest values first, or the highest for a metric where lower is better (holes@10); ties in the queries' order
    expected = queries.sort_values(metric, ascending=metric != "holes@10", kind="stable").head(worst)
    if not worst:
        assert "worst" not in out
        return
    listed = out.split(f"worst {worst} queries by {metric}:\n")[1].splitlines()
    assert listed[0].split() == ["query", "a"]
    assert [line.split() for line in listed[1:]] == [[q, f"{v:.4f}"] for q, v in zip(expected["query_id"], expected[metric])]


def test_a_metric_named_as_a_column_is_refused_saying_whether_it_has_other_names(monkeypatch):
    with pytest.raises(ConfigError) as refused:
        explain(QRELS, RUN, metrics=["holes"])
    assert str(refused.value).endswith(": it has no other name, so explain cannot show it; an Evaluator gives it per "
                                       "query (retrieval-eval evaluate -m holes -o per_query.parquet)")
    from retrieval_eval.explain import tables

    monkeypatch.setattr(tables, "RESERVED", (*tables.RESERVED, "ndcg_cut.10"))  # a column of that name
    with pytest.raises(ConfigError, match=r": ask for it as 'ndcg@10' or 'ndcg_cut_10'$"):
        explain(QRELS, RUN, metrics=["ndcg_cut.10"])


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--query", "nope"], "query 'nope' is not among"),
        (["-o", "out.txt"], "expected .html"),
        (["--topics", "absent.tsv"], "absent.tsv: cannot be read"),
        (["-m", "holes"], "name of a column"),
        (["-o", RUN], None),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, monkeypatch, extra, match):
    monkeypatch.chdir(tmp_path)
    assert main(["explain", QRELS, RUN, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("retrieval-eval: error:") and "\n" not in err
    if match is not None:
        assert match in err
    assert Path(RUN).read_text().startswith("q0")  # an input is never written over


def test_topics_and_docs_make_the_query_readable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # both runs' whole titles side by side
    topics, docs = tmp_path / "topics.tsv", tmp_path / "docs.jsonl"
    topics.write_text("q15\twhat entered the dense top five\n", encoding="utf-8")
    shown = explain(QRELS, RUN, DENSE, ["ndcg@10"], top=2).query("q15")
    titles = {doc: f"Title of {doc}" for doc in shown.ranked["doc_id"]}
    docs.write_text("".join(f'{{"doc_id": "{doc}", "title": "{title}"}}\n' for doc, title in titles.items())
                    + '{"doc_id": "unshown", "title": "never shown"}\n', encoding="utf-8")  # fmt: skip
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "--query", "q15", "--top", "2",
                 "--topics", str(topics), "--docs", str(docs)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "query q15: what entered the dense top five"
    assert all(title in out for title in titles.values()) and "never shown" not in out
    monkeypatch.setenv("COLUMNS", "100")  # the titles elided in the middle
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "--query", "q15", "--top", "2",
                 "--topics", str(topics), "--docs", str(docs)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 100 and "Title…" in out and "not shown" not in out
    monkeypatch.setenv("COLUMNS", "76")  # too narrow for them: the titles are left out, and said to be
    assert main(["explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "--query", "q15", "--top", "2",
                 "--topics", str(topics), "--docs", str(docs)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "Title" not in out and "not shown: title (b), title (a) (a wider terminal shows them)" in out
    assert max(map(len, out.splitlines())) <= 76


def test_explain_help_loads_no_heavy_module():
    from tests.test_cli_imports import loaded_after

    assert not loaded_after(["explain", "--help"]) & {"pandas", "numba", "scipy", "pyarrow", "pydantic", "matplotlib"}


def test_a_run_lacking_a_query_is_compared_over_the_shared_queries_and_named(capsys, tmp_path):
    lines = (DATA / "run_dense.trec").read_text().splitlines(keepends=True)
    lacking = tmp_path / "dense_without_q3.trec"
    lacking.write_text("".join(line for line in lines if not line.startswith("q3 ")))
    args = [str(DATA / "qrels.trec"), str(DATA / "run.trec"), str(lacking), "-m", "ndcg_cut.10"]
    assert main(["explain", *args]) == 0
    out = capsys.readouterr().out
    explanation = explain(*args[:3], ["ndcg_cut.10"])
    queries = explanation.queries[explanation.queries["query_id"] != "q3"]
    shared = queries["ndcg_cut.10_b"].mean() - queries["ndcg_cut.10"].mean()
    row = next(line for line in out.splitlines() if line.startswith("ndcg_cut.10 "))
    assert row.split()[-1] == f"{shared:+.4f}" != f"{explanation.means['b']['ndcg_cut.10'] - explanation.means['a']['ndcg_cut.10']:+.4f}"
    assert "deltas are over the queries both runs define: b lacks 1 query the other run has (q3)\n" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["explain", QRELS, RUN, "--top", "0"], "argument --top: expected an integer from 1 to 2^63 - 1, got 0"),
        (["explain", QRELS, RUN, "--top", "99999999999999999999"],
         "argument --top: expected an integer from 1 to 2^63 - 1, got 99999999999999999999"),
        (["explain", QRELS, RUN, "--top", "9" * 5000],
         "argument --top: expected an integer from 1 to 2^63 - 1, got a number of 5000 digits"),
        (["explain", QRELS, RUN, "--worst", "-1"], "argument --worst: expected an integer from 0 to 2^63 - 1, got -1"),
        (["explain", QRELS, RUN, "--top", "ten"], "argument --top: expected an integer, got 'ten'"),
        (["pool", RUN, "--depth", "0", "-o", "p.tsv"], "argument --depth/-k: expected an integer from 1 to 2^63 - 1, got 0"),
        (["fuse", RUN, RUN, "--top-k-in", "-3", "-o", "f.trec"], "argument --top-k-in: expected an integer from 1 to 2^63 - 1, got -3"),
        (["fuse", RUN, RUN, "--top-k-out", "0", "-o", "f.trec"], "argument --top-k-out: expected an integer from 1 to 2^63 - 1, got 0"),
    ],
)
def test_a_count_past_int64_or_below_its_least_is_a_usage_error_naming_the_option(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as raised:
        main(argv)
    assert raised.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"error: {message}")


@pytest.mark.parametrize("top", [10**20, 0, True, 2.0])
def test_the_library_refuses_a_top_it_cannot_index_with(top):
    with pytest.raises(ConfigError, match="top must be a positive integer \\(documents per query\\) up to 2\\^63 - 1, got"):
        explain(QRELS, RUN, top=top)
