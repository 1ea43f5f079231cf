"""An explanation at a glance: ``repr`` names the runs, the first metric, the numbers of queries and documents
shown and each metric's means (with B the delta over the shared queries); ``_repr_html_`` is the same as an
escaped fragment, whatever the number of queries."""

from __future__ import annotations

from retrieval_eval.explain import Explanation, explain
from tests.report.test_explorer_page_browser import DATA, synthetic
from tests.report.test_views import HOSTILE_RUN, parse, text_lines

QRELS, RUN, DENSE = (str(DATA / name) for name in ("qrels.trec", "run.trec", "run_dense.trec"))


def test_a_paired_explanation_in_a_few_lines_names_the_runs_metric_counts_and_means():
    explanation = explain(QRELS, RUN, DENSE, ["ndcg@10", "P@5"], top=10)
    lines = text_lines(repr(explanation))
    assert lines[0] == f"Explanation(a={RUN!r}, b={DENSE!r}, metric='ndcg@10', queries=25, top=10)"
    assert lines[1].split() == ["metric", "mean", "a", "mean", "b", "delta", "(b", "-", "a)"]
    queries = explanation.queries
    assert [line.split() for line in lines[2:]] == [
        [m, f"{queries[m].mean():.4f}", f"{queries[m + '_b'].mean():.4f}", f"{(queries[m + '_b'] - queries[m]).mean():.4f}"]
        for m in ("ndcg@10", "P@5")
    ]  # every query scored by both runs: the delta of the means is the mean of the deltas


def test_a_single_run_explanation_in_html_is_its_means_and_a_hostile_name_stays_text():
    single = explain(QRELS, RUN, metrics=["ndcg@10", "map"])
    hostile = Explanation(single.queries, single.ranked, single.missed, single.changes, single.metrics, (HOSTILE_RUN, None),
                          single.top, means=single.means)
    fragment = hostile._repr_html_()
    assert HOSTILE_RUN not in fragment
    parsed = parse(fragment)
    assert parsed.facts[0] == f"Explanation · a: {HOSTILE_RUN} · metric: ndcg@10 · queries: 25 · top: 20"
    table = parsed.table("means")
    assert table["header"] == ["metric", "mean a"] and table["foot"] is None
    assert table["rows"] == [[m, f"{single.means['a'][m]:.4f}"] for m in ("ndcg@10", "map")]
    assert repr(hostile).startswith(f"Explanation(a={HOSTILE_RUN!r}, metric='ndcg@10', ")


def test_a_large_explanation_is_as_short_and_says_what_a_run_lacks():
    large = synthetic(2_000, 3)
    assert len(text_lines(repr(large))) == 3 and len(large._repr_html_()) < 5_000
    queries = large.queries.copy()
    queries.loc[0, ["ndcg@10_b", "ndcg@10_delta"]] = float("nan")  # B does not define the first query
    lacking = Explanation(queries, large.ranked, large.missed, large.changes, large.metrics, large.run_names, large.top,
                          lacking={"a": [], "b": [queries.loc[0, "query_id"]]})
    parsed = parse(lacking._repr_html_())
    assert parsed.notes == [lacking.comparison_note()] and "1,999" not in parsed.notes[0]
    shared = queries.iloc[1:]
    assert parsed.table("means")["rows"][0][3] == f"{(shared['ndcg@10_b'] - shared['ndcg@10']).mean():.4f}"
