"""The short views of every result: a few lines of text, and an HTML fragment parsed back (structure, numbers, escaping)."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import retrieval_eval as rx
from retrieval_eval import views
from retrieval_eval.executions import check_document, check_log
from retrieval_eval.sweep import sweep
from retrieval_eval.views import ROWS, TEXT_ROWS, cell_text, one_line
from tests.sweep.test_leaderboard import FAST, qrels, run

DATA = Path(__file__).resolve().parents[2] / "data"
QRELS, RUN = str(DATA / "qrels.trec"), str(DATA / "run.trec")
HOSTILE_RUN = "<script>alert(1)</script>"
# A text view is its title line, a table's header, TEXT_ROWS rows and the "… k more rows" line.
TEXT_LINES = 1 + 1 + TEXT_ROWS + 1
_VOID = frozenset({"br", "col", "hr", "img", "input", "link", "meta", "wbr"})


class Fragment(HTMLParser):
    """An HTML fragment parsed back: well formed or an AssertionError, its facts, tables and notes as text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.facts: list[str] = []
        self.notes: list[str] = []
        self.style = ""
        self.tables: list[dict] = []
        self._text: list[str] | None = None
        self._paragraph: list[str] | None = None
        self.feed(text)
        self.close()
        assert not self.stack, f"unclosed: {self.stack}"

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.starts.append((tag, attributes))
        if tag not in _VOID:
            self.stack.append(tag)
        classes = (attributes.get("class") or "").split()
        if tag == "table":
            self.tables.append({"caption": "", "header": [], "rows": [], "foot": None, "numeric": []})
        elif tag == "tr" and "tbody" in self.stack:
            self.tables[-1]["rows"].append([])
            self.tables[-1]["numeric"].append([])
        elif tag == "td" and "tbody" in self.stack:
            self.tables[-1]["numeric"][-1].append("rx-num" in classes)
        if tag == "p":
            self._paragraph = {"rx-facts": self.facts, "rx-note": self.notes}.get(classes[0] if classes else "")
        if tag in ("caption", "th", "td", "style") or (tag == "p" and self._paragraph is not None):
            self._text = []

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:] or 'nothing'}"
        self.stack.pop()
        if self._text is None:
            return
        text = "".join(self._text)
        if tag == "caption":
            self.tables[-1]["caption"] = text
        elif tag == "th":
            self.tables[-1]["header"].append(text)
        elif tag == "td" and "tbody" in self.stack:
            self.tables[-1]["rows"][-1].append(text)
        elif tag == "td" and "tfoot" in self.stack:
            self.tables[-1]["foot"] = text
        elif tag == "style":
            self.style = text
        elif tag == "p" and self._paragraph is not None:
            self._paragraph.append(text)
        else:
            return
        self._text = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def table(self, caption_start: str) -> dict:
        matches = [table for table in self.tables if table["caption"].startswith(caption_start)]
        assert len(matches) == 1, [table["caption"] for table in self.tables]
        return matches[0]


def parse(fragment: str) -> Fragment:
    """Parse a view and check what every view holds: one scoped block, its style scoped, nothing that runs."""
    parsed = Fragment(fragment)
    assert parsed.starts[0] == ("div", {"class": "retrieval-eval"})
    assert fragment.rstrip().endswith("</div>") and parsed.starts.count(("style", {})) == 1
    for tag, attributes in parsed.starts:
        assert tag != "script" and not any(name.startswith("on") for name in attributes), (tag, attributes)
    for rule in parsed.style.split("}")[:-1]:
        for selector in rule.split("{")[0].split(","):
            assert selector.strip().startswith(".retrieval-eval"), selector
    assert len(parsed.facts) == 1
    return parsed


def text_lines(view: str) -> list[str]:
    lines = view.splitlines()
    assert 2 <= len(lines) <= TEXT_LINES, view
    return lines


def four(value: float) -> str:
    """The oracle of a shown number: NaN or 4 decimals."""
    return "NaN" if math.isnan(value) else f"{value:.4f}"


# -- cells ------------------------------------------------------------------------------------


def test_cells_show_integers_whole_numbers_to_four_decimals_nan_and_none_apart():
    cases = {
        3: "3", np.int64(-7): "-7", np.uint8(255): "255", 0.5: "0.5000", np.float32(0.25): "0.2500",
        1 / 3: "0.3333", 2 / 3: "0.6667", 1e-9: "0.0000", math.nan: "NaN", np.float64("nan"): "NaN",
        math.inf: "inf", None: "", True: "True", np.bool_(False): "False", "P@5": "P@5",
    }  # fmt: skip
    for value, text in cases.items():
        assert cell_text(value) == text, value


def test_a_text_is_shown_on_one_line_and_cut():
    assert one_line("a\nb\tc\x00") == "a\\nb\\tc\\x00"
    assert one_line("x" * 100, 10) == "x" * 9 + "…" and one_line("short", 10) == "short"


# -- evaluations ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluation():
    return rx.evaluate(QRELS, RUN, ["ndcg@10", "map", "P@5"], thresholds={"ndcg@10": 0.3, "map": 0.5})


def test_an_evaluation_in_a_few_lines_names_the_run_counts_verdict_and_means(evaluation):
    lines = text_lines(views.result_repr(evaluation))
    counts = ", ".join(f"{key}={value}" for key, value in evaluation.query_counts.items())
    assert lines[0] == f"EvaluationResult(run={evaluation.run!r}, {counts}, passed=False)"
    assert evaluation.query_counts["evaluated"] == 25 and lines[1].split() == [
        "metric", "mean", "undefined", "threshold", "passed", "pass_rate"
    ]  # fmt: skip
    rows = [line.split() for line in lines[2:]]
    records = evaluation.summary_records()
    assert [row[:3] for row in rows] == [[r["metric"], four(r["mean"]), str(r["undefined"])] for r in records]
    ndcg, map_, precision = rows
    assert ndcg[3:] == [">=", "0.3000", "True", four(evaluation.summary.loc["ndcg@10", "pass_rate"])]
    assert map_[3:] == [">=", "0.5000", "False", four(records[1]["pass_rate"])] and precision[3:] == []
    assert views.summary_repr(evaluation) == views.result_repr(evaluation)


def test_an_evaluation_in_html_holds_the_summary_and_the_first_queries(evaluation):
    parsed = parse(views.result_html(evaluation))
    assert parsed.facts[0].startswith(f"EvaluationResult · run: {evaluation.run} · evaluated: 25 · ")
    assert "evaluated: 25" in parsed.facts[0] and "passed: False" in parsed.facts[0]
    summary = parsed.table("summary")
    assert summary["header"] == ["metric", "mean", "undefined", "threshold", "passed", "pass_rate"]
    records = evaluation.summary_records()
    assert summary["rows"][0] == ["ndcg@10", four(records[0]["mean"]), "0", ">= 0.3000", "True", four(records[0]["pass_rate"])]
    assert summary["rows"][2] == ["P@5", four(records[2]["mean"]), "0", "", "", ""]  # no threshold: nothing applies
    assert summary["numeric"][2] == [False, True, True, False, False, False] and summary["foot"] is None
    per_query = parsed.table("per query")
    assert per_query["caption"] == "per query: first 10 of 25 (all in .per_query)"
    assert per_query["header"] == ["query_id", "ndcg@10", "map", "P@5", "ndcg@10_passed", "map_passed"]
    ids = evaluation.query_ids.to_pylist()
    assert [row[0] for row in per_query["rows"]] == ids[:ROWS]
    assert [row[2] for row in per_query["rows"]] == [four(value) for value in evaluation.values("map")[:ROWS]]
    passed = evaluation.values("map")[:ROWS] >= 0.5
    assert [row[5] for row in per_query["rows"]] == [str(bool(value)) for value in passed]
    assert per_query["foot"] == f"… {25 - ROWS} more rows"


def test_a_summary_without_thresholds_has_no_threshold_columns():
    summary = rx.evaluate(QRELS, RUN, ["map"])
    parsed = parse(views.summary_html(summary))
    assert parsed.table("summary")["header"] == ["metric", "mean", "undefined"]
    assert "passed: None" in parsed.facts[0]
    assert text_lines(views.summary_repr(summary))[0].endswith("both=25, passed=None)")


def _tables(ids: list[str], documents: int = 3) -> tuple[pa.Table, pa.Table]:
    rows = [(query, f"d{d}") for query in ids for d in range(documents)]
    queries, docs = [query for query, _ in rows], [doc for _, doc in rows]
    qrels = pa.table({"query_id": queries, "doc_id": docs, "relevance": [i % 2 for i in range(len(rows))]})
    run = pa.table({"query_id": queries, "doc_id": docs, "score": [float(i % 5) for i in range(len(rows))]})
    return qrels, run


_ID_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from('&<>"\''), min_size=1, max_size=6)


@given(ids=st.lists(_ID_TEXT, min_size=1, max_size=30, unique=True), metrics=st.integers(1, 12))
def test_whatever_the_queries_and_metrics_a_view_stays_short_and_shows_ids_as_given(ids, metrics):
    names = ["map", "ndcg", "recip_rank", "bpref", "rprec", "num_rel", "num_ret", *(f"P@{k}" for k in range(1, 6))]
    qrels, run = _tables(ids)
    result = rx.Evaluator(qrels, names[:metrics]).evaluate(run, name="run\nwith <b>two</b> lines")
    lines = text_lines(views.result_repr(result))
    assert lines[0].startswith("EvaluationResult(run='run\\nwith <b>two</b> lines', ")
    assert len(lines) == 2 + min(metrics, TEXT_ROWS) + (metrics > TEXT_ROWS)
    parsed = parse(views.result_html(result))
    assert "run: run\nwith <b>two</b> lines" in parsed.facts[0]
    per_query = parsed.table("per query")
    assert [row[0] for row in per_query["rows"]] == result.query_ids.to_pylist()[:ROWS]
    assert per_query["foot"] == (f"… {len(ids) - ROWS} more {'row' if len(ids) == ROWS + 1 else 'rows'}" if len(ids) > ROWS else None)
    summary = parsed.table("summary")
    assert len(summary["rows"]) == min(metrics, ROWS) and summary["header"][0] == "metric"


def test_a_hostile_run_name_and_query_ids_are_text_not_markup():
    ids = ['&<>"', "<img src=x onerror=alert(1)>", "a&amp;b", "q'1"]
    qrels, run = _tables(ids)
    result = rx.Evaluator(qrels, ["map"]).evaluate(run, name=HOSTILE_RUN)
    fragment = views.result_html(result)
    assert HOSTILE_RUN not in fragment and "<img" not in fragment and "&amp;amp;b" in fragment
    parsed = parse(fragment)  # no script, no event handler
    assert f"run: {HOSTILE_RUN}" in parsed.facts[0]
    assert [row[0] for row in parsed.table("per query")["rows"]] == result.query_ids.to_pylist()
    assert set(result.query_ids.to_pylist()) == set(ids)
    assert views.result_repr(result).splitlines()[0].startswith(f"EvaluationResult(run={HOSTILE_RUN!r}, ")


def test_showing_an_evaluation_imports_no_pandas():
    script = f"""
import sys
import retrieval_eval as rx
from retrieval_eval import views
result = rx.evaluate({QRELS!r}, {RUN!r}, ["ndcg@10", "map"], thresholds={{"map": 0.2}})
output = rx.trec_eval({QRELS!r}, {RUN!r}, ["map", "P.5"], per_query=True)
assert "pandas" not in sys.modules, "the evaluation itself loaded pandas"
shown = [views.result_repr(result), views.result_html(result), views.summary_repr(result),
         views.summary_html(result), repr(result), repr(output), output._repr_html_()]
shown.append(result._repr_html_())
print(sorted(name for name in sys.modules if name.split(".")[0] == "pandas"))
"""
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, env=os.environ)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == "[]"


def test_a_trec_eval_output_shows_its_summary_lines_as_trec_eval_printed_them():
    output = rx.trec_eval(QRELS, RUN, ["map", "P.5", "num_q"], per_query=True)
    lines = text_lines(repr(output))
    assert lines[0] == f"TrecEvalOutput(run={output.result.run!r}, queries=25, lines={len(output.lines)})"
    summary = [line.split("\t") for line in output.lines if line.split("\t")[1] == "all"]
    assert [line.split() for line in lines[2:]] == [[name.strip(), query, value] for name, query, value in summary]
    printed = {name.strip(): value for name, _, value in summary}
    assert printed["map"] == four(output.result.summary_records()[0]["mean"]) and printed["num_q"] == "25"
    table = parse(output._repr_html_()).table("trec_eval summary lines")
    assert table["rows"] == [[name.strip(), query, value] for name, query, value in summary]
    assert table["caption"] == f"trec_eval summary lines: 3 of {len(output.lines)} lines (all in .lines)"


def test_a_trec_eval_output_without_summary_shows_its_first_lines():
    output = rx.trec_eval(QRELS, RUN, ["map"], per_query=True, summary=False)
    table = parse(output._repr_html_()).table("trec_eval lines")
    assert table["rows"] == [[name.strip(), query, value] for name, query, value in (line.split("\t") for line in output.lines[:ROWS])]
    assert table["foot"] == f"… {len(output.lines) - ROWS} more rows"


def test_a_dataset_result_shows_its_summary_and_where_the_per_query_dataset_is(tmp_path, monkeypatch):
    # Short relative paths: the first line is cut at the view's width, and a checkout's or a test worker's
    # temporary folder can be long enough to reach it.
    monkeypatch.chdir(tmp_path)
    shutil.copy(DATA / "run.parquet", "run.parquet")
    output = Path("per_query")
    result = rx.evaluate_dataset(QRELS, "run.parquet", ["ndcg@10", "map"], output=output)
    lines = text_lines(repr(result))
    assert lines[0].startswith(f"DatasetResult(run={result.run!r}, evaluated=25, ") and lines[0].endswith(f"output={str(output)!r})")
    assert [line.split()[:2] for line in lines[2:]] == [[r["metric"], four(r["mean"])] for r in result.summary_records()]
    parsed = parse(result._repr_html_())
    assert f"output: {output}" in parsed.facts[0] and len(parsed.table("summary")["rows"]) == 2


# -- sweeps -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep_result():
    names = [f"k{k:02d}" for k in range(ROWS + 2)]
    names[-1] = HOSTILE_RUN  # the best: shown in every view
    runs = {name: run(good=index / (ROWS + 2), seed=index) for index, name in enumerate(names)}
    parameters = pd.DataFrame({"<i>top_k</i>": range(len(names))}, index=pd.Index(names, name="configuration"))
    return sweep(qrels(), runs, ["ndcg@5", "map"], parameters=parameters, **FAST)


def test_a_sweep_in_a_few_lines_is_its_top_configurations(sweep_result):
    board = sweep_result.leaderboard
    for view, title in ((repr(sweep_result), "SweepResult"), (repr(board), "Leaderboard")):
        lines = text_lines(view)
        assert lines[0] == f"{title}(objective='ndcg@5', configurations={ROWS + 2}, queries=30, best={board.table.index[0]!r})"
        assert lines[1].split() == ["configuration", "rank", "ndcg@5", "ci_low", "ci_high", "tied_with_best"]
        top = board.table.head(TEXT_ROWS)
        expected = [
            [one_line(str(name)), str(row["rank"]), four(row["ndcg@5"]), four(row["ci_low"]), four(row["ci_high"]),
             str(row["tied_with_best"])]
            for name, row in top.iterrows()
        ]
        assert [line.split() for line in lines[2:-1]] == expected and lines[-1] == f"  … {ROWS + 2 - TEXT_ROWS} more rows"


def test_a_sweep_in_html_ranks_the_top_configurations_with_their_parameters(sweep_result):
    board = sweep_result.leaderboard
    table = parse(sweep_result._repr_html_()).table("leaderboard by ndcg@5")
    assert table["header"][:5] == ["configuration", "rank", "ndcg@5", "map", "ci_low"]
    assert table["header"][-2:] == ["tied_with_best", "<i>top_k</i>"]  # the parameters after the leaderboard's columns
    top = board.table.head(ROWS)
    assert [row[0] for row in table["rows"]] == list(top.index)
    assert [row[2] for row in table["rows"]] == [four(value) for value in top["ndcg@5"]]
    assert [row[-1] for row in table["rows"]] == [str(sweep_result.parameters.at[name, "<i>top_k</i>"]) for name in top.index]
    assert table["foot"] == "… 2 more rows" and table["rows"][0][0] == HOSTILE_RUN
    plain = parse(board._repr_html_()).table("leaderboard")
    assert "<i>top_k</i>" not in plain["header"] and [row[0] for row in plain["rows"]] == list(top.index)


# -- checks -----------------------------------------------------------------------------------


def _evaluator_rows(summary) -> list[list[str]]:
    return [[name, *(cell_text(value) for value in row)] for name, row in summary.evaluators.astype(object).iterrows()]


def test_a_document_check_shows_its_verdict_and_the_counts_of_each_check():
    check = check_document(DATA / "eval_document.json")
    summary = check.summary
    lines = text_lines(repr(check))
    items = ", ".join(f"{status!r}: {count}" for status, count in summary.statuses.items())
    assert lines[0] == f"DocumentCheck(verdict={check.verdict!r}, items={{{items}}}, ran={summary.ran}, unchecked={summary.unchecked})"
    assert lines[1].split() == ["evaluator", "pass", "fail", "error", "skipped", "pass_rate"]
    assert [line.split() for line in lines[2:-1]] == _evaluator_rows(summary)[:TEXT_ROWS]
    assert "NaN" in lines[2]  # an evaluator that never ran has no pass rate
    parsed = parse(check._repr_html_())
    assert f"verdict: {check.verdict}" in parsed.facts[0]
    assert parsed.table("evaluators")["rows"] == _evaluator_rows(summary)
    codes = parsed.table("diagnostic codes")
    assert codes["rows"] == [[evaluator, code, str(count)] for evaluator, code, count in summary.codes.itertuples(index=False)]
    assert parsed.table("statuses")["rows"] == [[unit, status] for unit, status in check.statuses.items()]
    assert text_lines(repr(summary))[0] == lines[0].replace("DocumentCheck", "CheckSummary")
    assert parse(summary._repr_html_()).table("evaluators")["rows"] == _evaluator_rows(summary)


def test_a_log_check_shows_its_verdict_counts_and_records(tmp_path):
    records = [json.loads(line) for line in (DATA / "executions.jsonl").read_text(encoding="utf-8").splitlines()]
    original, records[0]["id"] = records[0]["id"], HOSTILE_RUN
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    config = json.loads((DATA / "checks.json").read_text(encoding="utf-8"))
    config["items"][HOSTILE_RUN] = config["items"].pop(original)
    check = check_log(log, config)
    lines = text_lines(repr(check))
    assert lines[0].startswith(f"LogCheck(verdict={check.verdict!r}, items=") and f"ran={check.results.num_rows}" in lines[0]
    parsed = parse(check._repr_html_())
    assert parsed.table("evaluators")["rows"] == _evaluator_rows(check.summary)
    statuses = parsed.table("statuses")
    assert statuses["header"] == ["id", "status"]
    assert statuses["rows"] == [[record["id"], status] for record, status in zip(records, check.statuses)]
    assert statuses["rows"][0][0] == HOSTILE_RUN


# -- every kind -------------------------------------------------------------------------------

# Each would mark a page's body if a browser ran it (tests/report/test_views_browser.py).
SCRIPT_NAME = "<script>document.body.setAttribute('data-hostile', 'script')</script>"
IMAGE_NAME = "<img src=x onerror=\"document.body.setAttribute('data-hostile', 'image')\">"


def views_of_each_kind(tmp_path: Path) -> dict[str, tuple[object, str]]:
    """One result of each kind and its HTML view, with hostile names wherever the user names something."""
    qrels_table, run_table = _tables(["q1", IMAGE_NAME, '&<>"', "a&amp;b"])
    evaluation = rx.Evaluator(qrels_table, ["map", "ndcg@10"], thresholds={"map": 0.5}).evaluate(run_table, name=SCRIPT_NAME)
    runs = {name: run(good=good, seed=seed) for seed, (name, good) in enumerate([(SCRIPT_NAME, 0.9), ("b", 0.5), (IMAGE_NAME, 0.2)])}
    parameters = pd.DataFrame({SCRIPT_NAME: [1, 2, 3]}, index=pd.Index(list(runs), name="configuration"))
    swept = sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, **FAST)
    records = [json.loads(line) for line in (DATA / "executions.jsonl").read_text(encoding="utf-8").splitlines()]
    records[-1]["id"] = SCRIPT_NAME
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    document = check_document(DATA / "eval_document.json")
    checks = {"default_evaluators": {"RetrievalResult": {"capability": "OneDriveAndSharePoint", "max_rank": 5}}}
    # EvaluationResult's own _repr_html_ is wired in metrics/result.py to these functions.
    fragments = {
        "evaluation": (evaluation, views.result_html(evaluation)),
        "summary": (evaluation, views.summary_html(evaluation)),
    }
    results = {
        "trec_eval": rx.trec_eval(QRELS, RUN, ["map", "P.5"]),
        "dataset": rx.evaluate_dataset(QRELS, str(DATA / "run.parquet"), ["map"]),
        "sweep": swept,
        "leaderboard": swept.leaderboard,
        "document": document,
        "check_summary": document.summary,
        "log": check_log(log, checks),
    }
    return fragments | {name: (result, result._repr_html_()) for name, result in results.items()}


def test_every_caption_names_the_attribute_that_holds_the_whole_table(tmp_path):
    for name, (result, fragment) in views_of_each_kind(tmp_path).items():
        for table in parse(fragment).tables:
            count, where = re.fullmatch(r".*?(\d+)\D*\(all in \.([\w.]+)\)", table["caption"]).groups()
            whole = result
            for attribute in where.split("."):
                whole = getattr(whole, attribute)
            assert len(whole) == int(count), (name, table["caption"])
            more = re.fullmatch(r"… (\d+) more rows?", table["foot"] or "")
            hidden = int(more.group(1)) if more else 0
            assert more or table["foot"] in (None, "no rows"), table["foot"]
            # trec_eval's view holds its summary lines, of all its lines.
            rows = [line for line in whole if line.split("\t")[1] == "all"] if where == "lines" else whole
            assert len(table["rows"]) == min(ROWS, len(rows)) and len(table["rows"]) + hidden == len(rows)
