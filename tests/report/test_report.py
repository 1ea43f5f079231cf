"""The sweep report: tables with significance marks in three formats, and the HTML page parsed back."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd
import pytest

from retrieval_eval.report import html_report, to_latex, to_markdown, write_report
from retrieval_eval.sweep.analysis import sweep
from tests.sweep.test_leaderboard import FAST, qrels, run


@pytest.fixture(scope="module")
def result():
    settings = [(5, "a", 0.0), (10, "a", 0.6), (5, "b", 0.5), (10, "b", 1.0)]
    runs = {f"k{k}_{mode}": run(good=good, seed=k) for k, mode, good in settings}
    parameters = pd.DataFrame(
        {"top_k": [k for k, _, _ in settings], "mode": [m for _, m, _ in settings]},
        index=pd.Index(list(runs), name="configuration"),
    )
    return sweep(qrels(), runs, ["ndcg@5", "map"], parameters=parameters, **FAST)


class _Counter(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "img":
            self.images.append(dict(attrs)["src"])


def test_the_html_report_holds_the_tables_and_the_plots(result, tmp_path):
    path = tmp_path / "report.html"
    write_report(result, path, title="Top-k & mode <sweep>")
    parser = _Counter()
    parser.feed(path.read_text(encoding="utf-8"))
    assert parser.tags["table"] == 2  # the leaderboard and the marginal effects
    assert parser.tags["tr"] == (1 + 4) + (1 + 4)
    # Per-query boxes, one plot per parameter, and the heatmap of the two.
    assert len(parser.images) == 4 and all(src.startswith("data:image/png;base64,iVBOR") for src in parser.images)
    assert "Top-k &amp; mode &lt;sweep&gt;" in path.read_text(encoding="utf-8")


def test_marks_in_markdown_and_latex(result):
    board = result.leaderboard
    markdown = to_markdown(result.table, board.metrics).splitlines()
    assert markdown[0].startswith("| configuration | ndcg@5 | map | rank |")
    assert markdown[2].startswith("| k10_b* |")
    assert any("†" in line for line in markdown[3:])  # k5_a is worse on every query
    latex = to_latex(result.table, board.metrics)
    assert "k10\\_b$^*$" in latex and "$^\\dagger$" in latex and latex.startswith("\\begin{tabular}{lrrr")


def test_a_cutoff_plot_is_a_png():
    from pathlib import Path

    from retrieval_eval.report.plots import cutoff_plot
    from retrieval_eval.sweep import cutoff_curve

    data = Path(__file__).resolve().parents[2] / "data"
    curve = cutoff_curve(str(data / "qrels.trec"), str(data / "run.trec"), "recall", 20)
    assert cutoff_plot({"run": curve}, "recall").startswith(b"\x89PNG")


def test_without_plots(result):
    parser = _Counter()
    parser.feed(html_report(result, with_plots=False))
    assert "img" not in parser.tags and parser.tags["table"] == 2
