"""The sweep report in a real browser (headless Chromium, one process for the module): no console error, every
image decoded, nothing wider than a 1024-pixel window but the tables that scroll in their own box; and the same
checks catch a page that breaks them."""

from __future__ import annotations

import pytest

from retrieval_eval.report import write_report
from retrieval_eval.report.html import figure_data
from tests.browser import BROKEN_IMAGES, OVERFLOW, Browser

from .sweeps import with_comparisons
from .test_report import identical_leaders

pytest.importorskip("matplotlib")

#: Each scrolling box: how wide and tall its content is against the box itself.
_SCROLL_BOXES = """
Array.from(document.querySelectorAll("div.scroll")).map((box) => ({
  table: box.firstElementChild.className, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
  scrollHeight: box.scrollHeight, clientHeight: box.clientHeight}))
"""
#: Each image: its decoded size and the size it is shown at, and the width of the figure that holds it.
_IMAGE_SIZES = """
Array.from(document.images).map((image) => ({alt: image.alt, natural: image.naturalWidth,
  shown: image.getBoundingClientRect().width, figure: image.parentElement.getBoundingClientRect().width}))
"""


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    with Browser(chromium, tmp_path_factory.mktemp("chromium")) as opened:
        yield opened


def _fits(page) -> None:
    overflow = page.evaluate(OVERFLOW)
    assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"] <= 1024, overflow


def test_the_grid_report_loads_clean_decodes_every_plot_and_fits_1024_pixels(browser, grid, grid_report):
    page = browser.open(grid_report, width=1024, height=768)
    assert page.evaluate(BROKEN_IMAGES) == []
    _fits(page)
    images = page.evaluate(_IMAGE_SIZES)
    assert [image["alt"] for image in images] == [data.title.replace("\n", " ") for data in figure_data(grid)]
    for image in images:  # decoded, and as wide as its column (two plots side by side) lets it be
        # (the shown width counts the image's 1-pixel border on each side)
        assert image["natural"] > 0 and abs(image["shown"] - min(image["natural"] + 2, image["figure"])) <= 0.5, image
    assert any(image["shown"] < image["natural"] for image in images)  # some scaled down: wider than their column
    boxes = page.evaluate(_SCROLL_BOXES)
    assert [box["table"] for box in boxes] == ["leaderboard", "wins", "losses", "effects"]
    browser.drain(0.2)
    assert page.errors == []


def test_identical_leaders_show_their_sentence_and_no_empty_table(browser, tmp_path):
    path = tmp_path / "identical.html"
    write_report(identical_leaders(), path)
    page = browser.open(path, width=1024, height=768)
    _fits(page)
    duel = page.evaluate("document.getElementById('head-to-head').innerText")
    assert "are identical on ndcg@5 on every one of the 30 queries" in duel
    assert page.evaluate("document.querySelectorAll('#head-to-head table').length") == 0
    browser.drain(0.2)
    assert page.errors == []


def test_a_wide_leaderboard_and_a_long_pairwise_table_scroll_in_their_own_boxes(browser, fusion, tmp_path):
    result = with_comparisons(fusion)
    path = tmp_path / "fusion.html"
    write_report(result, path)
    page = browser.open(path, width=1024, height=768)
    assert page.evaluate(BROKEN_IMAGES) == []
    _fits(page)
    boxes = {box["table"]: box for box in page.evaluate(_SCROLL_BOXES)}
    leaderboard, pairs = boxes["leaderboard"], boxes["pairwise"]
    assert leaderboard["scrollWidth"] > leaderboard["clientWidth"]  # wider than the page: it scrolls, the page does not
    assert pairs["scrollHeight"] > pairs["clientHeight"]  # 105 pairs in a box of its own height
    browser.drain(0.2)
    assert page.errors == []
    # The same page without its scrolling boxes overflows, and the check says where.
    broken = tmp_path / "no-scroll.html"
    broken.write_text(path.read_text(encoding="utf-8").replace(".scroll { overflow-x: auto;", ".scroll {"), encoding="utf-8")
    overflow = browser.open(broken, width=1024).evaluate(OVERFLOW)
    assert overflow["scrollWidth"] > overflow["clientWidth"]
    assert any(line.startswith("table.leaderboard right edge") for line in overflow["outside"]), overflow


def test_a_wide_window_is_used_up_to_160em_and_the_wide_leaderboard_scrolls_less(browser, fusion, tmp_path):
    path = tmp_path / "fusion.html"
    write_report(with_comparisons(fusion), path)
    boxes = {}
    for width in (1024, 2400, 3200):
        page = browser.open(path, width=width, height=900)
        sizes = page.evaluate("({body: document.body.getBoundingClientRect().width, window: document.documentElement.clientWidth,"
                              " em: parseFloat(getComputedStyle(document.body).fontSize)})")
        assert sizes["body"] == pytest.approx(min(sizes["window"], 160 * sizes["em"]), abs=1), sizes  # not capped at 80em
        boxes[width] = {box["table"]: box for box in page.evaluate(_SCROLL_BOXES)}["leaderboard"]["clientWidth"]
        overflow = page.evaluate(OVERFLOW)
        assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"], overflow
        browser.drain(0.1)
        assert page.errors == []
    assert boxes[1024] < boxes[2400] < boxes[3200]


def test_the_checks_catch_a_console_error_a_broken_image_and_a_page_too_wide(browser, tmp_path):
    wide = '<table><tr><td style="white-space: nowrap">' + "wide " * 400 + "</td></tr></table>"
    (tmp_path / "bad.html").write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        f'{wide}<div style="overflow-x: auto"><div id="inside" style="width: 3000px">scrolls in its box</div></div>'
        '<img alt="truncated" src="data:image/png;base64,iVBORw0KGgoAAAA"><img alt="absent" src="absent.png">'
        '<img alt="fine" src="data:image/gif;base64,R0lGODlhAQABAAAAACwAAAAAAQABAAA=">'
        '<script>console.error("boom", 3); undefined_function();</script></body></html>',
        encoding="utf-8",
    )
    page = browser.open(tmp_path / "bad.html", width=1024)
    assert sorted(page.evaluate(BROKEN_IMAGES)) == ["absent", "truncated"]
    overflow = page.evaluate(OVERFLOW)
    assert overflow["scrollWidth"] > overflow["clientWidth"] == 1024
    assert overflow["outside"][0].startswith("table right edge") and not any("#inside" in line for line in overflow["outside"])
    browser.drain(0.2)
    errors = page.errors  # in the order the browser reported them, which varies
    assert "console.error: boom 3" in errors
    assert f"exception: ReferenceError: undefined_function is not defined ({page.url}:1)" in errors
    assert f"network: Failed to load resource: net::ERR_FILE_NOT_FOUND {(tmp_path / 'absent.png').as_uri()}" in errors


def test_which_differences_are_real_loads_clean_and_its_tables_scroll_in_their_boxes(browser, tmp_path):
    from retrieval_eval.sweep import sweep
    from tests.sweep.test_significance import METRICS, collection

    qrels, runs = collection(40, 20, seed=5)  # 780 pairs: the pairs' table is far taller than its box
    result = sweep(qrels, runs, METRICS, resamples=100, rounds=100).with_significance(permutations=300, resamples=100, splits=20)
    path = tmp_path / "significance.html"
    write_report(result, path)
    page = browser.open(path, width=1024, height=768)
    assert page.evaluate(BROKEN_IMAGES) == []
    _fits(page)
    boxes = {box["table"]: box for box in page.evaluate(_SCROLL_BOXES)}
    for table in ("comparison", "discrimination", "correlations", "topic-set-sizes", "anova", "tukey-pairs"):
        assert table in boxes, table
    pairs = boxes["tukey-pairs"]
    assert pairs["scrollHeight"] > pairs["clientHeight"] > 0  # scrolls in its own box, the page stays short
    assert "Achieved significance level by pair" in [image["alt"] for image in page.evaluate(_IMAGE_SIZES)]
    browser.drain(0.2)
    assert page.errors == []
