"""What the commands print for people fits the terminal's width ($COLUMNS) and escapes every id a terminal would act on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.explain import explain
from retrieval_eval.report.explain_text import query_report, summary_report
from tests.report.test_views_terminal import has_control
from tests.test_cli import run_cli
from tests.test_cli_sweep_output import FAST, QRELS, SWEEP, runs  # noqa: F401 (a fixture)

DATA = Path(__file__).resolve().parents[1] / "data"
RUN, DENSE, AZURE = str(DATA / "run.trec"), str(DATA / "run_dense.trec"), str(DATA / "azure_rows.jsonl")
TEXTS = ["--topics", str(DATA / "topics.tsv"), "--docs", str(DATA / "docs.jsonl")]
WIDTHS = [80, 60]


def _fits(out: str, width: int) -> None:
    lines = out.splitlines()
    assert lines and max(map(len, lines)) <= width, max(lines, key=len)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_sweep_leaderboard_fits(capsys, monkeypatch, runs, width):  # noqa: F811
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run_cli(capsys, "sweep", QRELS, *runs, *SWEEP, "--all-pairs", *FAST)
    assert code == 0 and "rank  conf" in out
    _fits(out, width)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("query", [["--query", "q15"], []])
def test_explain_fits(capsys, monkeypatch, width, query):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run_cli(capsys, "explain", QRELS, RUN, DENSE, "-m", "ndcg@10", "-m", "total_ground_truth_documents",
                           "--top", "5", *TEXTS, *query)  # fmt: skip
    assert code == 0 and ("doc_id (a)" in out if query else "worst " in out)
    _fits(out, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_evaluate_with_thresholds_and_its_conventions_line_fit(capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run_cli(capsys, "evaluate", AZURE, "--azure", "--threshold", "holes_ratio=0.9", "--threshold", "fidelity=0.1")
    assert code == 0
    _fits(out, width)
    lines = out.splitlines()
    metrics = [line.split()[0] for line in lines[lines.index(next(line for line in lines if line.startswith("metric "))) + 1 :]]
    assert "total_ground_truth_documents" in metrics  # the metric whole: other columns go first
    code, out, _ = run_cli(capsys, "evaluate", QRELS, RUN, "-m", "map", "-m", "ndcg@10", "--threshold", "map=0.1")
    assert code == 0 and "ties: descending doc id" in " ".join(out.split())
    _fits(out, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_metrics_listing_fits_under_a_heading_per_family(capsys, monkeypatch, width):
    from retrieval_eval.metrics.families import FAMILIES
    from retrieval_eval.metrics.registry import REGISTRY

    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run_cli(capsys, "metrics")
    assert code == 0
    _fits(out, width)
    headings = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert [heading.split(":")[0] for heading in headings] == list(dict.fromkeys(d.family for d in REGISTRY))
    assert all(FAMILIES[name].title for name in FAMILIES)
    # Each metric under its family's heading.
    sections = out.split("\n\n")
    for definition in REGISTRY:
        section = next(section for section in sections if section.startswith(definition.family + ":"))
        assert f"  {definition.display_name} " in section + " "
    code, out, _ = run_cli(capsys, "metrics", "--trec")
    assert code == 0 and out.startswith("measure ")
    _fits(out, width)


def test_counts_shown_to_people_have_thousands_separators(capsys, tmp_path):
    qrels, run = tmp_path / "qrels.trec", tmp_path / "run.trec"
    qrels.write_text("".join(f"q{n} 0 d{n} 1\n" for n in range(1200)), encoding="utf-8")
    run.write_text("".join(f"q{n} Q0 d{n} 1 1.0 r\n" for n in range(1200)), encoding="utf-8")
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "P@1")
    assert code == 0 and "queries: 1,200 evaluated (1,200 judged and retrieved" in out
    # Machine formats as they were: trec_eval's output byte for byte, JSON and CSV numbers.
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "num_q", "-m", "num_ret", "--trec")
    assert code == 0 and out == "num_q                 \tall\t1200\nnum_ret               \tall\t1200\n"
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "num_ret", "--format", "json")
    assert json.loads(out)["queries"]["evaluated"] == 1200 and json.loads(out)["metrics"]["num_ret"]["mean"] == 1
    code, out, _ = run_cli(capsys, "evaluate", str(qrels), str(run), "-m", "num_ret", "--format", "csv")
    assert out.splitlines()[1] == "num_ret,1.0,0"


# -- hostile ids ------------------------------------------------------------------------------

# Ids of any characters but whitespace and lone surrogates (which readers refuse), with one a terminal acts on inside.
_SPLIT_AT = " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\u2028\u2029"
_ids = st.text(st.characters(blacklist_categories=("Cs", "Zs"), blacklist_characters=_SPLIT_AT), min_size=1, max_size=8)
_hostile = st.sampled_from(["\x1b[2K", "\x1b]0;title\x07", "\r", "\u202e", "\u2066", "\x9b", "\x7f", "\x08"])


@st.composite
def hostile_ids(draw):
    return draw(_ids) + draw(_hostile) + draw(_ids)


@settings(max_examples=25)
@given(st.lists(hostile_ids(), min_size=2, max_size=4, unique=True), st.lists(hostile_ids(), min_size=3, max_size=5, unique=True))
def test_no_line_explain_prints_holds_a_control_character(queries, docs):
    qrels = {"query_id": [q for q in queries for _ in docs[:2]], "doc_id": [d for _ in queries for d in docs[:2]],
             "relevance": [1, 2] * len(queries)}  # fmt: skip
    run = {"query_id": [q for q in queries for _ in docs], "doc_id": [d for _ in queries for d in docs],
           "score": [float(-i) for _ in queries for i in range(len(docs))]}  # fmt: skip
    swapped = {**run, "doc_id": list(reversed(run["doc_id"]))}
    import pandas as pd

    explanation = explain(pd.DataFrame(qrels), pd.DataFrame(run), pd.DataFrame(swapped), ["ndcg@3"], top=3)
    shown = [summary_report(explanation, width=60), *(query_report(explanation, q, width=60) for q in queries)]
    for text in shown:
        assert all(not has_control(line) and len(line) <= 60 for line in text.split("\n"))
    assert any("\\x1b" in text or "\\r" in text or "\\u202e" in text or "\\u2066" in text or "\\x9b" in text
               or "\\x7f" in text or "\\x08" in text for text in shown)  # fmt: skip


@settings(max_examples=15)
@given(st.lists(st.tuples(hostile_ids(), hostile_ids()), min_size=1, max_size=7, unique=True))
def test_no_line_qrels_merge_prints_holds_a_control_character(tmp_path_factory, pairs):
    folder = tmp_path_factory.mktemp("merge")
    old, new = folder / "old.jsonl", folder / "new.jsonl"
    rows = [{"query_id": query, "doc_id": doc} for query, doc in pairs]
    old.write_text("".join(json.dumps({**row, "relevance": 0}) + "\n" for row in rows), encoding="utf-8")
    new.write_text("".join(json.dumps({**row, "relevance": 1}) + "\n" for row in rows), encoding="utf-8")
    for duplicates in ("raise", "new"):
        capsys_out = _run_main(["qrels", "merge", str(old), str(new), "-o", str(folder / f"merged_{duplicates}.jsonl"),
                                "--duplicates", duplicates])  # fmt: skip
        assert "conflicting judgment" in capsys_out
        assert all(not has_control(line) for line in capsys_out.split("\n"))


def _run_main(argv: list[str]) -> str:
    """stdout and stderr of the command, as one text (hypothesis runs many examples in one test: no capsys)."""
    import contextlib
    import io

    from retrieval_eval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(argv)
    return out.getvalue() + err.getvalue()


def test_an_error_quoting_a_name_is_escaped(capsys):
    # The command's own messages quote what was given as it is (here an output's name): the error line escapes it.
    code, _, err = run_cli(capsys, "explain", QRELS, RUN, "-o", "out\x1b]0;owned\x07\rq\u202e.txt")
    assert code == 2 and err.startswith("retrieval-eval: error: -o out\\x1b]0;owned\\x07\\rq\\u202e.txt: expected")
    assert err.count("\n") == 1 and not has_control(err.rstrip("\n"))
