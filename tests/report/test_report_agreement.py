"""The report's judge-agreement section: in HTML and Markdown, escaped, from the sweep command's --agreement-qrels,
and in a real browser (no console error, nothing wider than a 1024-pixel window)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from retrieval_eval.cli import main
from retrieval_eval.judging.ranking_agreement import ranking_agreement
from retrieval_eval.report import html_report, markdown_report, write_report
from retrieval_eval.sweep.analysis import sweep
from tests.browser import OVERFLOW, Browser
from tests.sweep.test_leaderboard import FAST, qrels, run

#: Names to escape, and long enough to need a scrolling box at 1024 pixels.
NAMES = ["<b>bold</b>", "a*b*_c_", "x" * 90 + "_very_long_configuration_name", "plain", "pipe|name"]


def _judge() -> pd.DataFrame:
    """The sweep's qrels with the judge finding d3 relevant instead of d0 in every other query."""
    frame = qrels()
    odd = frame["query_id"].str[-1].astype(int) % 2 == 1
    frame.loc[odd & (frame["doc_id"] == "d0"), "relevance"] = 0
    frame.loc[odd & (frame["doc_id"] == "d3"), "relevance"] = 1
    return frame


@pytest.fixture(scope="module")
def swept():
    runs = {name: run(good=0.2 + 0.15 * index, seed=index) for index, name in enumerate(NAMES)}
    result = sweep(qrels(), runs, ["ndcg@5"], **FAST)
    return result, ranking_agreement(qrels(), _judge(), runs, "ndcg@5", alpha=0.5)


def test_the_html_section_shows_both_rankings_the_statistics_swaps_and_flips_escaped(swept):
    result, agreement = swept
    page = html_report(result, with_plots=False, agreement=agreement)
    section = page[page.index('<section id="judge-agreement">'):]
    section = section[: section.index("</section>")]
    assert "<h3>Ranked by the human qrels</h3>" in section and "<h3>Ranked by the judge</h3>" in section
    assert f"Kendall&#x27;s tau-b {agreement.kendall_tau:.4f}" in section and f"RBO_ext {agreement.rbo:.4f}" in section
    assert "&lt;b&gt;bold&lt;/b&gt;" in section and "<b>bold</b>" not in section
    assert f"{len(agreement.swapped)} pair" in section and f"{len(agreement.flips)} pair" in section
    assert ('class="swapped"' in section) == (len(agreement.swapped) > 0)
    assert ('class="flips"' in section) == (len(agreement.flips) > 0)
    assert 'id="judge-agreement"' not in html_report(result, with_plots=False)


def test_the_markdown_section_is_the_same_tables(swept):
    result, agreement = swept
    text = markdown_report(result, agreement=agreement)
    section = text[text.index("## Agreement with a judge"):]
    assert "### Ranked by the human qrels" in section and "### Significant differences that flip" in section
    assert "\\<b\\>bold\\</b\\>" in section and "a\\*b\\*\\_c\\_" in section and "pipe\\|name" in section
    human_table = section[section.index("### Ranked by the human qrels"): section.index("### Ranked by the judge")]
    assert human_table.count("\n| ") == len(NAMES) + 1  # header and one row per run
    assert "## Agreement with a judge" not in markdown_report(result)


def test_the_sweep_command_adds_the_section_with_agreement_qrels(tmp_path, capsys):
    human, judge = tmp_path / "qrels.tsv", tmp_path / "judge.tsv"
    qrels().to_csv(human, sep="\t", index=False)
    _judge().to_csv(judge, sep="\t", index=False)
    paths = []
    for index in range(3):
        path = tmp_path / f"run{index}.tsv"
        run(good=0.3 + 0.2 * index, seed=index).to_csv(path, sep="\t", index=False)
        paths.append(str(path))
    report = tmp_path / "report.html"
    argv = ["sweep", str(human), *paths, "-m", "ndcg@5", "--report", str(report), "--agreement-qrels", str(judge),
            "--resamples", "200", "--rounds", "200", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    json.loads(capsys.readouterr().out)  # stdout is the sweep's, unchanged
    page = report.read_text(encoding="utf-8")
    expected = ranking_agreement(str(human), str(judge), {f"run{i}.tsv": p for i, p in enumerate(paths)}, "ndcg@5")
    assert '<section id="judge-agreement">' in page and f"tau_AP {expected.tau_ap:.4f}" in page
    assert main(["sweep", str(human), *paths, "--agreement-qrels", str(judge)]) == 2
    assert "--agreement-qrels adds a section to the report" in capsys.readouterr().err


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    with Browser(chromium, tmp_path_factory.mktemp("chromium")) as opened:
        yield opened


def test_the_section_loads_clean_and_fits_1024_pixels(browser, swept, tmp_path):
    result, agreement = swept
    path = tmp_path / "agreement.html"
    write_report(result, path, with_plots=False, agreement=agreement)
    page = browser.open(path, width=1024, height=768)
    overflow = page.evaluate(OVERFLOW)
    assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"] <= 1024, overflow
    shown = page.evaluate('Array.from(document.querySelectorAll("#judge-agreement table")).map((t) => t.className)')
    assert len(agreement.swapped) and len(agreement.flips)  # every table of the section is on the page
    assert shown == ["ranking-human", "ranking-judge", "swapped", "flips"]
    browser.drain(0.2)
    assert page.errors == []
