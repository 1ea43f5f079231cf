"""Invariants that every metric in the registry must satisfy (driven by the registry, not a hand-kept list)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, Metric, evaluate
from retrieval_eval.metrics.families import FAMILIES
from tests.strategies import collection, example_metric, label_scale, reads_standard_qrels, tables

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

#: The metrics these collections (qrels in the standard layout) can score.
DEFINITIONS = [d for d in REGISTRY if reads_standard_qrels(d)]


def is_count(definition) -> bool:
    """Counts (num_ret, total_retrieved_documents, ...) have no best value."""
    return definition.bounds(0, 1)[1] == math.inf


def all_metrics(k: int, label_max: int | None = None) -> list[Metric]:
    """Every metric at k; without gdeval's when a label may pass 4, since gdeval stops there (and so do they)."""
    return [example_metric(d, k) for d in DEFINITIONS if d.family != "gdeval" or label_max is None or label_max <= 4]


def per_query(queries, k, label_min, label_max, shuffle_seed=None):
    qrels, run = tables(queries, shuffle_seed)
    # Every judged query, and repeated documents allowed: the generated collections have both.
    result = evaluate(
        qrels, run, all_metrics(k, label_max), label_min=label_min, label_max=label_max,
        query_set="qrels", run_duplicates="last", qrels_duplicates="last",
    )
    # A metric left out (gdeval's, for labels above 4) is a column of NaN: undefined, which the checks skip.
    return result.per_query.set_index("query_id").reindex(columns=[str(m) for m in all_metrics(k)])


def same(a, b) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@given(data=st.data(), scale=label_scale(), k=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_query_order_does_not_matter(data, scale, k, seed):
    queries = data.draw(collection(*scale, int_ids=False))
    reordered = dict(reversed(list(queries.items())))
    a = per_query(queries, k, *scale)
    b = per_query(reordered, k, *scale, shuffle_seed=seed)
    for query in queries:
        for column in a.columns:
            assert same(a.loc[query, column], b.loc[query, column]), (query, column)


@given(data=st.data(), scale=label_scale(low=0), k=st.integers(1, 8))
def test_bounds_hold(data, scale, k):
    queries = data.draw(collection(*scale, int_ids=False))
    table = per_query(queries, k, *scale)
    for definition in DEFINITIONS:
        low, high = definition.bounds(*scale)
        column = table[str(example_metric(definition, k))].to_numpy(dtype=float)
        defined = column[~np.isnan(column)]
        # The bounds are exact in real arithmetic; trec_eval's sums of float terms may pass them by
        # rounding (rbp_resid of 12 unjudged documents, sum of (1-p)p^i plus p^12, is 1.0000000000000002).
        slack = 4 * np.finfo(np.float64).eps * max(1.0, abs(low), abs(high))
        assert (defined >= low - slack).all() and (defined <= high + slack).all(), (definition.name, defined, low, high)


def perfect_run(gt):
    """Every judged document, best label first, with strictly decreasing scores."""
    labels = dict(gt)
    ranked = sorted(labels, key=lambda d: -labels[d])
    return [(doc, float(len(ranked) - i)) for i, doc in enumerate(ranked)]


@given(data=st.data(), scale=label_scale(low=0), k=st.integers(1, 8))
def test_a_perfect_ranking_is_never_beaten(data, scale, k):
    """On a non-negative scale, the ideal ranking scores at least as well as any run on every quality metric."""
    queries = data.draw(collection(*scale, int_ids=False))
    perfect = {q: (gt, perfect_run(gt)) for q, (gt, _) in queries.items()}
    ideal = per_query(perfect, k, *scale)
    other = per_query(queries, k, *scale)
    for definition in DEFINITIONS:
        if is_count(definition) or not definition.ranking:
            continue
        name = str(example_metric(definition, k))
        for query in queries:
            best, value = ideal.loc[query, name], other.loc[query, name]
            if math.isnan(value) or math.isnan(best):
                continue  # undefined (e.g. fidelity with nothing above label_min): nothing to compare
            assert (best >= value) if definition.higher_is_better else (best <= value), (name, query, best, value)


@given(data=st.data(), scale=label_scale(low=0), k=st.integers(1, 8))
def test_a_perfect_ranking_reaches_the_maximum(data, scale, k):
    label_min, _ = scale
    queries = data.draw(collection(*scale, int_ids=False))
    perfect = {q: (gt, perfect_run(gt)) for q, (gt, _) in queries.items()}
    table = per_query(perfect, k, *scale)
    for query, (gt, _) in perfect.items():
        labels = dict(gt).values()
        row = table.loc[query]
        assert row["holes"] == 0 and row["holes_ratio"] == 0 and row[f"holes@{k}"] == 0
        assert row["top1_relevance"] == row[f"max_relevance@{k}"] == max(labels)
        if max(labels) > 0:
            assert row[f"ndcg_exp@{k}"] == pytest.approx(1.0, abs=1e-15)
        if max(labels) > label_min:
            assert row["fidelity"] == 1.0
        # TREC measures: every relevant document on top, every judged document retrieved.
        if max(labels) > 0:
            assert row["ndcg"] == pytest.approx(1.0, abs=1e-15) and row[f"ndcg@{k}"] == pytest.approx(1.0, abs=1e-15)
            assert row["ndcg_burges"] == pytest.approx(1.0, abs=1e-15)
            assert row["map"] == row["rprec"] == row["bpref"] == row["recip_rank"] == row[f"success@{k}"] == 1.0
            assert row["infap"] == pytest.approx(1.0, abs=1e-4)  # trec_eval's epsilon (1e-5) biases it below 1
            assert row["num_rel_ret"] == row["num_rel"]
        assert row[f"judged@{k}"] == 1.0


@given(data=st.data(), scale=label_scale(low=0), k=st.integers(1, 8),
       extra=st.lists(st.sampled_from(["d0", "d5", "new1", "new2"]), min_size=1, max_size=5))
def test_documents_below_k_do_not_change_cutoff_metrics(data, scale, k, extra):
    """On a non-negative scale. (Azure's "nothing relevant retrieved" branch looks at the whole list:
    with negative labels a document below k can move a query into the formula branch, where an
    ideal DCG of 0 gives NaN instead of the branch's 0.)"""
    queries = data.draw(collection(*scale, int_ids=False))
    longer = {}
    for q, (gt, ret) in queries.items():
        floor = min((s for _, s in ret), default=0.0)
        # Below every score; at -inf only input order among ties keeps the appended documents last.
        tail = [(d, floor - 1.0 - i if math.isfinite(floor) else -math.inf) for i, d in enumerate(extra) if d not in dict(ret)]
        longer[q] = (gt, ret + tail)
    a = per_query(queries, k, *scale)
    b = per_query(longer, k, *scale)
    for definition in DEFINITIONS:
        if not definition.cutoff:
            continue
        name = f"{definition.name}@{k}"
        for q, (_, ret) in queries.items():
            tail_last = FAMILIES[definition.family].ties == "input" or all(math.isfinite(s) for _, s in ret)
            if len(dict(ret)) >= k and tail_last:
                assert same(a.loc[q, name], b.loc[q, name]), (name, q)


@given(data=st.data(), scale=label_scale(low=0), k=st.integers(1, 8))
def test_metrics_that_grow_with_k_never_decrease(data, scale, k):
    queries = data.draw(collection(*scale, int_ids=False))
    growing = [d for d in DEFINITIONS if d.grows_with_k]
    assert growing
    at_k = per_query(queries, k, *scale)
    deeper = per_query(queries, k + 1, *scale)
    for definition in growing:
        for query in queries:
            low, high = at_k.loc[query, f"{definition.name}@{k}"], deeper.loc[query, f"{definition.name}@{k + 1}"]
            assert math.isnan(low) or low <= high, (definition.name, query, low, high)
