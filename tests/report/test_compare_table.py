"""The comparison table (ranx's compare report made familiar) and the "which differences are real" section:
the beaten keys as ranges, the same cells in every format, names escaped, text fitted to the width; the
section in the HTML and Markdown reports and in the JSON."""

from __future__ import annotations

import json

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.report import html_report, markdown_report
from retrieval_eval.report.compare_table import compare_table, comparison_grid, key_ranges
from retrieval_eval.report.significance import significance_text
from retrieval_eval.report.sweep_text import sweep_json
from retrieval_eval.sweep import sweep
from tests.sweep.test_significance import METRICS, collection

KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"]


@pytest.mark.parametrize(
    ("beaten", "expected"),
    [([], ""), (["c"], "c"), (["c", "d"], "c,d"), (["c", "d", "e", "f", "h"], "c–f,h"), (["b", "d", "f", "g", "h"], "b,d,f–h")],
)
def test_consecutive_keys_are_written_as_a_range(beaten, expected):
    assert key_ranges(beaten, KEYS) == expected


@pytest.fixture(scope="module")
def result():
    qrels, runs = collection(5, 24, seed=11)
    runs = {("a|b*_<x>" if name == "c4" else name): run for name, run in runs.items()}  # a name every format must escape
    return sweep(qrels, runs, METRICS, resamples=200, rounds=200, significance=False).with_significance(
        permutations=500, resamples=200, splits=50
    )


def test_every_format_holds_the_same_cells(result):
    significance = result.significance
    grid = comparison_grid(significance)
    assert grid.header == ["key", "configuration", *METRICS]
    assert [row[1] for row in grid.rows] == list(result.leaderboard.table.index)
    keys = significance.keys
    for row in grid.rows:
        for metric, cell in zip(METRICS, row[2:]):
            entry = significance.comparison.query("configuration == @row[1] and metric == @metric").iloc[0]
            assert cell == f"{entry['mean']:.4f} {key_ranges(entry['beats'], list(keys.values()))}".rstrip()
    markdown = compare_table(significance, "markdown")
    assert "a\\|b\\*\\_\\<x\\>" in markdown and markdown.count("\n") == len(grid.rows) + 1
    latex = compare_table(significance, "latex")
    assert "a|b*\\_<x>" in latex and latex.startswith("\\begin{tabular}{llrrr}")
    page = compare_table(significance, "html")
    assert "a|b*_&lt;x&gt;" in page and page.count("<tr>") == len(grid.rows) + 1
    with pytest.raises(ConfigError, match="the comparison table is written as text, markdown, latex, html; got 'csv'"):
        compare_table(significance, "csv")


@pytest.mark.parametrize("width", [40, 60, 100])
def test_the_terminal_section_fits_the_width(result, width):
    lines = significance_text(result.significance, width)
    assert max(map(len, lines)) <= width
    assert "which differences are real:" in lines


def test_the_reports_and_the_json_hold_the_section(result):
    page = html_report(result, with_plots=False)
    assert '<section id="significance"><h2>Which differences are real</h2>' in page
    for css in ("comparison", "discrimination", "correlations", "topic-set-sizes", "anova", "tukey-pairs"):
        assert f'<table class="{css}">' in page
    assert "## Which differences are real" in markdown_report(result)
    document = json.loads(sweep_json(result))["significance"]
    assert len(document["pairs"]) == 10 and document["permutations"] == 500
    assert document["summary"] == result.significance.summary()
    assert [row["beats"] for row in document["comparison"]] == result.significance.comparison["beats"].tolist()
    assert json.loads(sweep_json(sweep(*collection(2, 5, seed=1), METRICS, resamples=50, rounds=50)))["significance"] is None


def test_the_report_plots_each_metric_s_achieved_significance_level_curve(result):
    from retrieval_eval.report.html import figure_data

    curves = figure_data(result)[-1]
    assert curves.title == "Achieved significance level by pair"
    assert [name for name, _, _ in curves.lines] == METRICS
    for metric, x, y in curves.lines:
        assert x.tolist() == list(range(1, 11)) and y.tolist() == sorted(result.significance.pvalues[metric].tolist())
    assert figure_data(sweep(*collection(3, 8, seed=2), METRICS, resamples=50, rounds=50))[-1].title != curves.title
