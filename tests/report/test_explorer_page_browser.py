"""The explorer page in a real browser (headless Chromium, one process for the module): it loads clean and fits
1024 pixels; sorting and filtering show the rows pandas gives for the same sort and filter; a click opens the
query's detail with the explanation's documents (what changed first, ten missed documents and more on demand, a top
of 100,000 a hundred rows at a time); the keys move the selection; a hostile id stays text; a wide window is used up
to 160em; and a 10,000-query x 20-document page (two runs) becomes interactive within a bound, its time and size
measured."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from retrieval_eval.explain import Explanation, explain
from retrieval_eval.report.explorer_page import write_explorer
from tests.browser import BROKEN_IMAGES, OVERFLOW, Browser

DATA = Path(__file__).resolve().parents[2] / "data"
#: The first cell (query id) of each row the query table shows.
VISIBLE = "Array.from(document.querySelectorAll('#queries tbody tr')).map((tr) => tr.firstChild.textContent)"
#: How many rows the filter keeps, as the pager says.
KEPT = "Number(/ of (\\d+)/.exec(document.getElementById('count').textContent)[1])"
#: Awaits the script's ready flag (a large page's data is inflated after the load event) and gives it.
READY = """new Promise((resolve) => { const check = () => (typeof window.explorerReady === "number"
  ? resolve(window.explorerReady) : setTimeout(check, 5)); check(); })"""
CLICK = "(selector) => document.querySelector(selector).dispatchEvent(new MouseEvent('click', {bubbles: true}))"


@pytest.fixture(scope="module")
def browser(chromium, tmp_path_factory):
    with Browser(chromium, tmp_path_factory.mktemp("chromium")) as opened:
        yield opened


@pytest.fixture(scope="module")
def paired() -> Explanation:
    return explain(DATA / "qrels.trec", DATA / "run.trec", DATA / "run_dense.trec", ["ndcg@10", "P@5"], top=10)


@pytest.fixture(scope="module")
def page(browser, paired, tmp_path_factory):
    path = tmp_path_factory.mktemp("explorer") / "explorer.html"
    write_explorer(paired, path)
    return _open(browser, path)


def _open(browser, path: Path, height: int = 768):
    """The page at ``path`` in a 1024-pixel window, once its script is ready."""
    page = browser.open(path, width=1024, height=height)
    page.evaluate(READY)
    return page


def _click(page, selector: str) -> None:
    page.evaluate(f"({CLICK})({json.dumps(selector)})")


def _sort(page, key: str) -> None:
    """Sort by ``key`` ascending (one click, or two when it is sorted by ``key`` already)."""
    header = f'#queries th[data-key="{key}"]'
    while page.evaluate(f"document.querySelector({json.dumps(header)}).getAttribute('aria-sort')") != "ascending":
        _click(page, header)


def _set(page, element: str, value: str, event: str = "input") -> None:
    page.evaluate(f"(() => {{ const e = document.getElementById({json.dumps(element)}); e.value = {json.dumps(value)};"
                  f" e.dispatchEvent(new Event({json.dumps(event)})); }})()")


def _key(page, key: str, code: int) -> None:
    text = {"Enter": "\r"}.get(key, key if len(key) == 1 else "")
    for kind in ("keyDown", "keyUp"):
        page.call("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code, text=text)


def _reset(page) -> None:
    page.evaluate("document.activeElement.blur()")
    for element in ("filter", "range-min", "range-max"):
        _set(page, element, "")
    for element in ("outcome",):
        _set(page, element, "", "change")
    page.evaluate("(() => { const e = document.getElementById('has-holes'); e.checked = false;"
                  " e.dispatchEvent(new Event('change')); })()")


def test_the_page_loads_clean_with_the_summary_and_fits_1024_pixels(browser, page, paired):
    assert page.evaluate("typeof window.explorerReady") == "number"
    assert page.evaluate(BROKEN_IMAGES) == []
    overflow = page.evaluate(OVERFLOW)
    assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"] <= 1024, overflow
    means = page.evaluate("Array.from(document.querySelectorAll('#means tbody tr')).map((tr) =>"
                          " Array.from(tr.children).map((td) => td.textContent))")
    queries = paired.queries
    assert means == [[m, f"{queries[m].mean():.4f}", f"{queries[m + '_b'].mean():.4f}", f"{queries[m + '_delta'].mean():.4f}"]
                     for m in paired.metrics]
    counts = queries["outcome"].value_counts()
    assert page.evaluate("document.getElementById('outcomes').textContent") == (
        f"B against A on ndcg@10: {counts.get('win', 0)} wins, {counts.get('tie', 0)} ties, {counts.get('loss', 0)} losses")
    bars = page.evaluate("Array.from(document.querySelectorAll('#distribution rect')).map((r) =>"
                         " Number(r.querySelector('title').textContent.split(' ')[0]))")
    assert len(bars) == 21 and sum(bars) == queries["ndcg@10_delta"].notna().sum()
    worst = page.evaluate("Array.from(document.querySelectorAll('#worst button')).map((b) => b.textContent.split(' (')[0])")
    losses = queries[queries["ndcg@10_delta"] < 0].sort_values("ndcg@10_delta", kind="stable")
    assert worst == losses["query_id"].head(8).tolist() and len(worst) == min(8, len(losses)) > 0  # only where B is worse
    assert page.evaluate(VISIBLE) == queries["query_id"].tolist()
    first = queries.iloc[0]
    expected = [first["query_id"]]
    for m in paired.metrics:
        expected += [f"{first[m]:.4f}", f"{first[m + '_b']:.4f}", f"{first[m + '_delta']:.4f}"]
    expected += [str(first[key]) for key in ("holes", "missed", "holes_b", "missed_b")] + [first["outcome"]]
    assert _shown(page, "#queries tbody tr")[0] == expected  # metrics with 4 decimals, counts as they are
    browser.drain(0.2)
    assert page.errors == []


def test_a_run_lacking_a_query_is_compared_over_the_shared_queries_on_the_page(browser, page, tmp_path):
    assert page.evaluate("document.getElementById('shared-queries')") is None  # both runs score every query
    lines = (DATA / "run_dense.trec").read_text().splitlines(keepends=True)
    lacking = tmp_path / "dense_without_q3.trec"
    lacking.write_text("".join(line for line in lines if not line.startswith("q3 ")))
    explanation = explain(DATA / "qrels.trec", DATA / "run.trec", lacking, ["ndcg_cut.10"], top=10)
    write_explorer(explanation, tmp_path / "explorer.html")
    shown = _open(browser, tmp_path / "explorer.html")
    shared = explanation.queries[explanation.queries["query_id"] != "q3"]
    delta = shared["ndcg_cut.10_b"].mean() - shared["ndcg_cut.10"].mean()
    assert _shown(shown, "#means tbody tr")[0][3] == f"{delta:.4f}"
    assert shown.evaluate("document.getElementById('shared-queries').textContent") == explanation.comparison_note()
    assert "b lacks 1 query the other run has (q3)" in explanation.comparison_note()
    browser.drain(0.2)
    assert shown.errors == []


@pytest.mark.parametrize("column", ["query_id", "ndcg@10", "P@5_delta", "holes_b", "outcome"])
def test_a_header_click_sorts_as_pandas_ascending_then_descending(page, paired, column):
    _reset(page)
    for ascending in (True, False):
        _click(page, f'#queries th[data-key="{column}"]')
        expected = paired.queries.sort_values(column, ascending=ascending, kind="stable", na_position="last")
        assert page.evaluate(VISIBLE) == expected["query_id"].tolist(), (column, ascending)
    assert page.evaluate(f"document.querySelector('#queries th[data-key=\"{column}\"]').getAttribute('aria-sort')") == "descending"


def test_the_filters_keep_the_rows_pandas_keeps(page, paired):
    _reset(page)
    _sort(page, "ndcg@10")
    frame = paired.queries.sort_values("ndcg@10", kind="stable", na_position="last")
    _set(page, "filter", "Q1")  # a query id (case-insensitive substring)
    expected = frame[frame["query_id"].str.lower().str.contains("q1", regex=False)]
    assert page.evaluate(VISIBLE) == expected["query_id"].tolist() and page.evaluate(KEPT) == len(expected)
    _set(page, "filter", "")
    _set(page, "range-column", "ndcg@10_delta", "change")
    _set(page, "range-min", "-0.1")
    _set(page, "range-max", "0.2")
    expected = frame[frame["ndcg@10_delta"].between(-0.1, 0.2)]
    assert 0 < len(expected) < len(frame) and page.evaluate(VISIBLE) == expected["query_id"].tolist()
    _set(page, "range-min", "")
    _set(page, "range-max", "")
    _set(page, "outcome", "loss", "change")
    expected = frame[frame["outcome"] == "loss"]
    assert 0 < len(expected) < len(frame) and page.evaluate(VISIBLE) == expected["query_id"].tolist()
    page.evaluate("(() => { const e = document.getElementById('has-holes'); e.checked = true;"
                  " e.dispatchEvent(new Event('change')); })()")
    expected = expected[(expected["holes"] > 0) | (expected["holes_b"] > 0)]
    assert page.evaluate(VISIBLE) == expected["query_id"].tolist()
    _set(page, "filter", "no such query")
    assert page.evaluate(VISIBLE) == [] and page.evaluate(KEPT) == 0
    _reset(page)


def _shown(page, selector: str) -> list[list[str]]:
    return page.evaluate(f"Array.from(document.querySelectorAll({json.dumps(selector)})).map((tr) =>"
                         " Array.from(tr.children).map((td) => td.textContent))")


def test_a_click_opens_the_detail_with_the_explanations_documents(page, paired):
    _reset(page)
    _sort(page, "query_id")
    row = 3
    query = page.evaluate(VISIBLE)[row]
    _click(page, f"#queries tbody tr:nth-child({row + 1}) td:nth-child(2)")
    assert page.evaluate("document.querySelector('#queries tr.selected').firstChild.textContent") == query
    assert page.evaluate("document.querySelector('#detail h2').textContent") == f"Query {query}"
    headers = "Array.from(document.querySelectorAll('#detail .ranked[data-run=a] th')).map((th) => th.textContent)"
    assert page.evaluate(headers) == ["rank", "doc", "label", "score"]  # no title column without document texts
    ranked, missed = paired.ranked, paired.missed
    for run in ("a", "b"):
        rows = ranked[(ranked["query_id"] == query) & (ranked["run"] == run)].sort_values("rank")
        shown = _shown(page, f"#detail .ranked[data-run={run}] tbody tr")
        assert [cells[:2] for cells in shown] == [[str(rank), doc] for rank, doc in zip(rows["rank"], rows["doc_id"])]
        labels = ["hole" if np.isnan(label) else f"{label:g}" for label in rows["label"]]
        assert [cells[-2] for cells in shown] == labels and "hole" in labels  # (rank, doc, label, score: no titles)
        holes = page.evaluate(f"document.querySelectorAll('#detail .ranked[data-run={run}] tr.hole').length")
        assert holes == rows["label"].isna().sum()
        gone = missed[(missed["query_id"] == query) & (missed["run"] == run)]
        shown = _shown(page, f"#detail .missed[data-run={run}] tbody tr")
        assert sorted((cells[0], cells[-1]) for cells in shown) == sorted(zip(gone["doc_id"], gone["label"].map("{:g}".format)))
    changes = paired.changes[paired.changes["query_id"] == query]
    shown = _shown(page, "#detail .changes tbody tr")
    assert sorted((cells[0], cells[1]) for cells in shown) == sorted(zip(changes["doc_id"], changes["change"]))
    assert len(changes) > 0


def test_the_keys_move_the_selection_open_it_and_focus_the_filter(page, paired):
    _reset(page)
    _sort(page, "query_id")
    ids = sorted(paired.queries["query_id"].tolist())
    _click(page, "#queries tbody tr:nth-child(1)")
    selected = "document.querySelector('#queries tr.selected').firstChild.textContent"
    assert page.evaluate(selected) == ids[0]
    _key(page, "j", 74)
    _key(page, "ArrowDown", 40)
    assert page.evaluate(selected) == ids[2]
    _key(page, "k", 75)
    assert page.evaluate(selected) == ids[1]
    _key(page, "ArrowUp", 38)
    _key(page, "ArrowUp", 38)  # stays on the first row
    assert page.evaluate(selected) == ids[0]
    _key(page, "j", 74)
    _key(page, "Enter", 13)
    assert page.evaluate("document.querySelector('#detail h2').textContent") == f"Query {ids[1]}"
    _key(page, "/", 191)
    assert page.evaluate("document.activeElement.id") == "filter"
    assert page.evaluate("document.getElementById('filter').value") == ""  # the key focused, it did not type


def test_a_one_run_page_and_an_empty_page_load_clean(browser, tmp_path):
    single = explain(DATA / "qrels.trec", DATA / "run.trec", metrics=["ndcg@10"], top=5)
    path = tmp_path / "one.html"
    write_explorer(single, path)
    page = _open(browser, path)
    headers = page.evaluate("Array.from(document.querySelectorAll('#queries th')).map((th) => th.dataset.key)")
    assert headers == ["query_id", "ndcg@10", "holes", "missed"]
    assert page.evaluate("[document.getElementById('outcome'), document.getElementById('outcomes')]") == [None, None]
    _sort(page, "ndcg@10")
    _click(page, "#queries tbody tr:nth-child(1)")
    query = single.queries.sort_values("ndcg@10", kind="stable")["query_id"].iloc[0]
    rows = single.ranked[single.ranked["query_id"] == query].sort_values("rank")
    assert page.evaluate("document.querySelectorAll('#detail .ranked').length") == 1
    assert [cells[1] for cells in _shown(page, "#detail .ranked tbody tr")] == rows["doc_id"].tolist()
    empty = Explanation(single.queries.iloc[:0], single.ranked.iloc[:0], single.missed.iloc[:0], single.changes.iloc[:0],
                        single.metrics, single.run_names, single.top)
    write_explorer(empty, tmp_path / "empty.html")
    blank = _open(browser, tmp_path / "empty.html")
    assert page.evaluate(VISIBLE) != [] and blank.evaluate(VISIBLE) == [] and blank.evaluate(KEPT) == 0
    _key(blank, "j", 74)
    browser.drain(0.2)
    assert page.errors == [] and blank.errors == []


@pytest.mark.parametrize(("higher", "worst"), [(True, ["q1", "q3", "q2"]), (False, ["q2", "q3", "q1"])])
def test_the_worst_queries_follow_the_metrics_direction_and_the_means_are_the_explanations(browser, tmp_path, higher, worst):
    queries = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "text": None, "m": [0.2, 0.9, 0.5], "holes": 0, "missed": 0})
    ranked = pd.DataFrame(columns=["query_id", "run", "rank", "doc_id", "score", "label", "title"])
    missed = pd.DataFrame(columns=["query_id", "run", "doc_id", "label", "title"])
    changes = pd.DataFrame(columns=["query_id", "doc_id", "change", "rank_a", "rank_b"])
    explanation = Explanation(queries, ranked, missed, changes, ["m"], ("a.run", None), 20,
                              means={"a": {"m": 0.125}}, higher_is_better={"m": higher})
    write_explorer(explanation, tmp_path / "direction.html")
    page = _open(browser, tmp_path / "direction.html")
    assert page.evaluate("Array.from(document.querySelectorAll('#worst button')).map((b) => b.textContent)") == [
        f"{q} ({v:.4f})" for q, v in zip(worst, queries.set_index("query_id").loc[worst, "m"])]
    assert _shown(page, "#means tbody tr") == [["m", "0.1250"]]  # the explanation's mean, not recomputed


HOSTILE = "</script><img src=x onerror=\"window.pwned=1\"><!--"


def test_a_hostile_id_title_and_text_stay_text(browser, tmp_path):
    queries = pd.DataFrame({"query_id": [HOSTILE, "q2"], "text": ["<b>bold</b> " + HOSTILE, None],
                            "ndcg@10": [0.5, 1.0], "holes": [1, 0], "missed": [1, 0]})
    ranked = pd.DataFrame({"query_id": [HOSTILE, HOSTILE, "q2"], "run": "a", "rank": [1, 3, 1],
                           "doc_id": [HOSTILE, "d&amp;", "d1"], "score": [2.0, 1.0, 3.0], "label": [np.nan, 1.0, 2.0],
                           "title": ["<script>window.pwned=2</script>", HOSTILE, None]})
    missed = pd.DataFrame({"query_id": [HOSTILE], "run": ["a"], "doc_id": ["<i>gone</i>"], "label": [2.0], "title": [None]})
    changes = pd.DataFrame({"query_id": [], "doc_id": [], "change": [], "rank_a": [], "rank_b": []})
    explanation = Explanation(queries, ranked, missed, changes, ["ndcg@10"], (HOSTILE, None), 20)
    path = tmp_path / "hostile.html"
    write_explorer(explanation, path, title=HOSTILE)
    page = _open(browser, path)
    _click(page, "#queries tbody tr:nth-child(1)")
    assert page.evaluate("[document.images.length, typeof window.pwned, document.querySelectorAll('b, i').length]") == [
        0, "undefined", 0]
    assert page.evaluate("document.title") == HOSTILE and page.evaluate(VISIBLE) == [HOSTILE, "q2"]
    assert _shown(page, "#detail .ranked tbody tr") == [
        ["1", HOSTILE, "<script>window.pwned=2</script>", "hole", "2"],
        ["3", "d&amp;", HOSTILE, "1", "1"]]  # a rank that is not the row's place is kept
    assert _shown(page, "#detail .missed tbody tr") == [["<i>gone</i>", "2"]]  # no missed document has a title
    assert page.evaluate("document.querySelector('#detail .query-text').textContent") == "<b>bold</b> " + HOSTILE
    overflow = page.evaluate(OVERFLOW)
    assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"] <= 1024, overflow
    browser.drain(0.2)
    assert page.errors == []


def synthetic(n_queries: int, depth: int, seed: int = 0) -> Explanation:
    """A paired explanation of ``n_queries`` x ``depth`` documents per run, built column-wise (B ranks A's
    documents rotated by a query-dependent shift, so the runs share documents, as two retrievers do)."""
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(n_queries).astype(str)).astype(object)
    values = rng.random((2, n_queries))
    queries = pd.DataFrame({"query_id": qids, "text": np.char.add("what about topic ", np.arange(n_queries).astype(str)),
                            "ndcg@10": values[0], "ndcg@10_b": values[1], "holes": rng.integers(0, depth, n_queries),
                            "missed": rng.integers(0, 5, n_queries), "holes_b": rng.integers(0, depth, n_queries),
                            "missed_b": rng.integers(0, 5, n_queries)})
    queries["ndcg@10_delta"] = queries["ndcg@10_b"] - queries["ndcg@10"]
    queries["outcome"] = np.where(queries["ndcg@10_delta"] > 0, "win", np.where(queries["ndcg@10_delta"] < 0, "loss", "tie"))
    rows = n_queries * depth
    query = np.repeat(np.arange(n_queries), depth)
    rank = np.tile(np.arange(1, depth + 1), n_queries)
    doc_a = np.char.add("clueweb12-", rng.integers(0, 10**9, rows).astype(str))
    shift = np.repeat(rng.integers(0, depth, n_queries), depth)
    doc_b = doc_a[query * depth + (rank - 1 + shift) % depth]
    labels = rng.integers(0, 3, (2, rows)).astype(float)
    labels[rng.random((2, rows)) < 0.3] = np.nan
    ranked = pd.DataFrame({"query_id": np.concatenate([qids[query]] * 2), "run": np.repeat(["a", "b"], rows),
                           "rank": np.concatenate([rank] * 2), "doc_id": np.concatenate([doc_a, doc_b]),
                           "score": np.concatenate([100.0 - rank + rng.random(rows)] * 2), "label": labels.ravel()})
    ranked["title"] = np.char.add("A document about ", ranked["doc_id"].to_numpy().astype(str))
    missed = pd.DataFrame({"query_id": qids, "run": "a", "doc_id": np.char.add("missed-", qids.astype(str)),
                           "label": 2.0, "title": None})
    moved = pd.DataFrame({"query_id": qids[query], "doc_id": doc_a, "change": "moved", "rank_a": rank.astype(float),
                          "rank_b": ((rank - 1 - np.repeat(rng.integers(0, depth, n_queries), depth)) % depth + 1).astype(float)})
    return Explanation(queries, ranked, missed, moved, ["ndcg@10"], ("bm25", "dense"), depth)


def test_a_10000_query_page_becomes_interactive_within_10_seconds(browser, tmp_path, record_property):
    explanation = synthetic(10_000, 20)
    path = tmp_path / "large.html"
    write_explorer(explanation, path)
    size = path.stat().st_size
    page = _open(browser, path)
    ready = page.evaluate("window.explorerReady")  # ms from navigation: reading, inflating, parsing, the first page
    assert page.evaluate("document.getElementById('explorer-data').dataset.encoding") == "gzip+base64"
    record_property("explorer_ready_ms", ready)
    record_property("explorer_bytes", size)
    print(f"\n10,000 queries x 20 documents x 2 runs: {size / 1e6:.2f} MB, interactive after {ready:.0f} ms")
    assert ready < 10_000
    assert size < 15e6  # the data once, compressed: 2 x 200,000 ranked rows with their titles
    assert page.evaluate("document.querySelectorAll('#queries tbody tr').length") == 50  # one page in the DOM
    _click(page, '#queries th[data-key="ndcg@10_delta"]')
    expected = explanation.queries.sort_values("ndcg@10_delta", kind="stable")["query_id"]
    assert page.evaluate(VISIBLE) == expected.head(50).tolist()
    _click(page, "#next")
    assert page.evaluate(VISIBLE) == expected.iloc[50:100].tolist()
    _click(page, "#queries tbody tr:nth-child(1)")
    query = expected.iloc[50]
    docs = explanation.ranked[(explanation.ranked["query_id"] == query) & (explanation.ranked["run"] == "b")]
    shown = _shown(page, "#detail .ranked[data-run=b] tbody tr")
    assert [cells[1] for cells in shown] == docs.sort_values("rank")["doc_id"].tolist()
    overflow = page.evaluate(OVERFLOW)  # with the detail open, titles and all
    assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"] <= 1024, overflow
    assert re.fullmatch(r"rows 51–100 of 10000, page 2 of 200", page.evaluate("document.getElementById('count').textContent"))
    browser.drain(0.2)
    assert page.errors == []


def test_labels_a_judge_gave_are_marked(browser, tmp_path):
    """A judged qrels file (its sources in the sidecar): the detail marks exactly the judge's labels with '*'."""
    import pyarrow as pa

    from retrieval_eval.judging.provenance import judge_source, write_labels

    qrels = pd.read_csv(DATA / "qrels.trec", sep=" ", header=None, names=["query_id", "it", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    run = pd.read_csv(DATA / "run.trec", sep=" ", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                      dtype={"query_id": str, "doc_id": str})
    q0 = run[run["query_id"] == "q0"]
    unjudged = q0[~q0["doc_id"].isin(qrels["doc_id"])]["doc_id"].head(3).tolist()
    labels = pa.table({
        "query_id": qrels["query_id"].tolist() + ["q0"] * len(unjudged),
        "doc_id": qrels["doc_id"].tolist() + unjudged,
        "relevance": pa.array(qrels["relevance"].tolist() + [2] * len(unjudged), pa.int64()),
        "source": ["human"] * len(qrels) + [judge_source("feedc0ffee123456")] * len(unjudged),
    })
    write_labels(labels, tmp_path / "judged.trec")
    explanation = explain(tmp_path / "judged.trec", DATA / "run.trec", None, ["ndcg@10"], top=10)
    write_explorer(explanation, tmp_path / "page.html")
    page = _open(browser, tmp_path / "page.html")
    _click(page, "#queries tbody tr")
    marked = page.evaluate("Array.from(document.querySelectorAll('.ranked td.judged')).map((td) => "
                           "td.parentNode.children[1].textContent)")
    shown = set(explanation.query("q0").ranked["doc_id"])
    assert sorted(marked) == sorted(doc for doc in unjudged if doc in shown) and marked
    assert page.errors == []


#: The classes of the detail's lists in the order of the page.
DETAIL_ORDER = "Array.from(document.querySelectorAll('#detail .list')).map((list) => list.classList[1] + (list.dataset.run || ''))"
#: Per list of the detail (by selector): its rows' first cells and its "more" button's text (null: none).
LIST = """(selector) => { const list = document.querySelector(selector); const more = list.querySelector('button.more');
  return {rows: Array.from(list.querySelectorAll('tbody tr')).map((tr) => tr.children[0].textContent),
          second: Array.from(list.querySelectorAll('tbody tr')).map((tr) => tr.children[1].textContent),
          more: more ? more.textContent : null}; }"""


def _list(page, selector: str) -> dict:
    return page.evaluate(f"({LIST})({json.dumps(selector)})")


def test_the_detail_shows_the_changes_first_and_ten_missed_documents_then_more_on_demand(browser, tmp_path):
    qrels, run_a, run_b = tmp_path / "qrels.trec", tmp_path / "a.trec", tmp_path / "b.trec"
    qrels.write_text("q1 0 found 1\n" + "".join(f"q1 0 gone{i} {1 + i % 2}\n" for i in range(189)) + "q2 0 d 1\n")
    run_a.write_text("q1 Q0 found 1 2.0 a\nq1 Q0 hole 2 1.0 a\nq2 Q0 d 1 1.0 a\n")
    run_b.write_text("q1 Q0 hole 1 2.0 b\nq1 Q0 found 2 1.0 b\nq1 Q0 gone0 3 0.5 b\nq2 Q0 d 1 1.0 b\n")
    explanation = explain(qrels, run_a, run_b, ["P@5"])
    write_explorer(explanation, tmp_path / "page.html")
    page = _open(browser, tmp_path / "page.html")
    _click(page, "#queries tbody tr:nth-child(1)")
    assert page.evaluate("document.querySelector('#detail h2').textContent") == "Query q1"
    assert page.evaluate(DETAIL_ORDER) == ["changes", "rankeda", "rankedb", "misseda", "missedb"]
    gone = explanation.query("q1").missed
    docs = {run: gone[gone["run"] == run]["doc_id"].tolist() for run in ("a", "b")}
    assert (len(docs["a"]), len(docs["b"])) == (189, 188)
    assert page.evaluate("document.querySelector('#detail .missed[data-run=a] caption').textContent") == (
        f"relevant, not retrieved by {run_a} (189)")
    shown = _list(page, "#detail .missed[data-run=a]")
    assert shown["rows"] == docs["a"][:10] and shown["more"] == "… 179 more: show 100"
    _click(page, "#detail .missed[data-run=a] button.more")
    shown = _list(page, "#detail .missed[data-run=a]")
    assert shown["rows"] == docs["a"][:110] and shown["more"] == "… 79 more: show 79"
    _click(page, "#detail .missed[data-run=a] button.more")
    shown = _list(page, "#detail .missed[data-run=a]")
    assert shown["rows"] == docs["a"] and shown["more"] is None  # every document, exactly, and no button left
    assert _list(page, "#detail .missed[data-run=b]")["rows"] == docs["b"][:10]  # each list grows on its own
    changes = explanation.query("q1").changes
    shown = _list(page, "#detail .changes")
    assert list(zip(shown["rows"], shown["second"])) == list(zip(changes["doc_id"], changes["change"])) and shown["more"] is None
    _click(page, "#queries tbody tr:nth-child(2)")  # a query with nothing missed: empty lists, no button
    assert page.evaluate("document.querySelectorAll('#detail button.more').length") == 0
    browser.drain(0.2)
    assert page.errors == []


def test_a_top_of_100000_documents_opens_its_detail_with_100_rows_and_a_more_control(browser, tmp_path):
    explanation = synthetic(2, 100_000, seed=1)
    path = tmp_path / "deep.html"
    write_explorer(explanation, path)
    page = _open(browser, path)
    _click(page, "#queries tbody tr:nth-child(2)")
    query = explanation.queries["query_id"].iloc[1]
    assert page.evaluate("document.querySelector('#detail h2').textContent") == f"Query {query}"
    assert page.evaluate("document.querySelectorAll('#detail tr').length") < 500  # not 400,000 rows at once
    ranked = explanation.ranked[(explanation.ranked["query_id"] == query) & (explanation.ranked["run"] == "b")]
    shown = _list(page, "#detail .ranked[data-run=b]")
    assert shown["rows"] == [str(rank) for rank in range(1, 101)] and shown["second"] == ranked["doc_id"].head(100).tolist()
    assert shown["more"] == "… 99,900 more: show 100"
    _click(page, "#detail .ranked[data-run=b] button.more")
    shown = _list(page, "#detail .ranked[data-run=b]")
    assert shown["second"] == ranked["doc_id"].head(200).tolist() and shown["more"] == "… 99,800 more: show 100"
    assert _list(page, "#detail .ranked[data-run=a]")["more"] == "… 99,900 more: show 100"
    assert _list(page, "#detail .changes")["more"] == "… 99,900 more: show 100"
    browser.drain(0.2)
    assert page.errors == []


#: The body's width and the window's, and an em of the body, in CSS pixels.
WIDTHS = """({body: document.body.getBoundingClientRect().width, window: document.documentElement.clientWidth,
  em: parseFloat(getComputedStyle(document.body).fontSize)})"""


def test_a_wide_window_is_used_up_to_160em(browser, page):
    for width in (2000, 3000):
        wide = browser.open(page.url, width=width, height=900)
        wide.evaluate(READY)
        sizes = wide.evaluate(WIDTHS)
        assert sizes["body"] == pytest.approx(min(sizes["window"], 160 * sizes["em"]), abs=1), sizes  # not 80em
        assert sizes["body"] > 80 * sizes["em"]
        overflow = wide.evaluate(OVERFLOW)
        assert overflow["outside"] == [] and overflow["scrollWidth"] <= overflow["clientWidth"], overflow
