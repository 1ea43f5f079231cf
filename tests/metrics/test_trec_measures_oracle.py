"""trec_eval's remaining standard measures against the plain-Python oracle of their C (tests/reference/trec_ranked.py), bit for bit.

Random collections (ties, negative labels, queries on one side only), random parameters (gain maps with
labels -2..6 and gains less than 1 apart, unsorted recall levels with repeats, utility's coefficients, p,
beta, multiples of R), under every combination of -l 0..3, -c, -M, -J and -N.
"""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, EvaluationOptions, Evaluator
from tests.metrics.test_trec_oracle import as_text, collection, frames
from tests.reference.trec_measures import reference_trec
from tests.reference.trec_ranked import reference_ranked

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

GAINS = [0.0, 0.3, 0.5, 0.7, 1.0, 2.5, 3.0, 4.5, 9.0, -1.0, -0.5]
NUMBERS = [-1.0, -0.5, 0.0, 0.01, 0.5, 1.0, 2.0]


def bits(value: float) -> bytes:
    return struct.pack(">d", value)


@st.composite
def parameters(draw):
    return {
        "pairs": draw(st.lists(st.tuples(st.integers(-2, 6), st.sampled_from(GAINS)), max_size=4)),
        "levels": draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.8, 1.0, 1.5]), min_size=1, max_size=5)),
        "multiples": draw(st.lists(st.sampled_from([-0.5, 0.0, 0.2, 0.35, 1.0, 1.5, 5.0]), min_size=1, max_size=3, unique=True)),
        "p": draw(st.sampled_from([None, 0.5, 0.8, 0.95])),
        "beta": draw(st.sampled_from([0.5, 1.0, 2.0])),
        "coefficients": draw(st.one_of(st.none(), st.tuples(*[st.sampled_from(NUMBERS)] * 4))),
    }


def metric_names(params, cutoffs):
    """Our name of each oracle name."""
    gains = ";".join(f"{label}:{gain!r}" for label, gain in params["pairs"])
    with_gains = f"(gains={gains})" if gains else ""
    p = params["p"]
    rbp_params = ",".join(part for part in (f"p={p!r}" if p is not None else "", f"gains={gains}" if gains else "") if part)
    utility = "utility" if params["coefficients"] is None else "utility(" + ",".join(
        f"{key}={value!r}" for key, value in zip("abcd", params["coefficients"])
    ) + ")"
    names = {
        "bing": "bing", "yaap": "yaap", "set_f": f"set_f(beta={params['beta']!r})", "utility": utility,
        "iprec_11pt": f"iprec_11pt(levels={';'.join(map(repr, params['levels']))})",
        "dcg": f"dcg{with_gains}", "ideal_dcg": f"ideal_dcg{with_gains}", "ndcg": f"ndcg{with_gains}",
        "ndcg_rel": f"ndcg_rel{with_gains}", "rndcg": f"rndcg{with_gains}", "g": f"g{with_gains}",
        "rbp": f"rbp({rbp_params})" if rbp_params else "rbp",
        "rbp_resid": f"rbp_resid(p={p!r})" if p is not None else "rbp_resid",
    }
    names.update({f"rprec_mult(mult={m!r})": f"rprec_mult(mult={m!r})" for m in params["multiples"]})
    names.update({f"unjudged@{k}": f"unjudged@{k}" for k in cutoffs})
    return names


@given(
    data=collection(),
    params=parameters(),
    rel_level=st.integers(0, 3),
    all_queries=st.booleans(),
    max_docs=st.one_of(st.none(), st.integers(1, 12)),
    judged_only=st.booleans(),
    collection_size=st.sampled_from([None, 5, 1000]),
    seed=st.integers(0, 2**16),
)
def test_kernels_equal_the_oracle(data, params, rel_level, all_queries, max_docs, judged_only, collection_size, seed):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run, seed)
    if run_frame.empty:
        return
    cutoffs = (1, 5, 20)
    names = metric_names(params, cutoffs)
    expected = reference_ranked(
        as_text(qrels), as_text(run), rel_level=rel_level, all_queries=all_queries, max_docs=max_docs,
        judged_only=judged_only, collection_size=collection_size or 0, cutoffs=cutoffs, **params,
    )
    options = EvaluationOptions(
        rel_level=rel_level, query_set="qrels" if all_queries else "both", max_docs=max_docs,
        judged_only=judged_only, collection_size=collection_size,
    )
    metrics = {name: REGISTRY.parse(ours, defaults={"rel": rel_level}) for name, ours in names.items()}
    result = Evaluator(qrels_frame, list(metrics.values()), options=options).evaluate(run_frame)
    queries = [str(q) for q in result.query_ids.to_pylist()]
    assert set(queries) == set(expected)
    for name, metric in metrics.items():
        for query, ours in zip(queries, result.values(metric).tolist()):
            theirs = expected[query][name]
            assert bits(ours) == bits(theirs), (query, name, str(metric), ours, theirs)


@given(
    data=collection(),
    rel_level=st.integers(1, 3),
    all_queries=st.booleans(),
    max_docs=st.one_of(st.none(), st.integers(1, 12)),
    seed=st.integers(0, 2**16),
)
def test_judged_only_equals_the_oracle_for_every_measure(data, rel_level, all_queries, max_docs, seed):
    """-J moves the judged documents up for the measures of the main walk too (tests/reference/trec_measures.py)."""
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run, seed)
    if run_frame.empty:
        return
    cutoffs = (1, 3, 10)
    expected = reference_trec(
        as_text(qrels), as_text(run), cutoffs=cutoffs, rel_level=rel_level, all_queries=all_queries,
        max_docs=max_docs, judged_only=True,
    )
    assume(expected)  # no query both judged and retrieved: nothing to compare
    names = [name for name in next(iter(expected.values()))]
    metrics = [REGISTRY.parse(name, defaults={"rel": rel_level}) for name in names]
    options = EvaluationOptions(
        rel_level=rel_level, query_set="qrels" if all_queries else "both", max_docs=max_docs, judged_only=True
    )
    result = Evaluator(qrels_frame, metrics, options=options).evaluate(run_frame)
    queries = [str(q) for q in result.query_ids.to_pylist()]
    assert set(queries) == set(expected)
    for name, metric in zip(names, metrics):
        for query, ours in zip(queries, result.values(metric).tolist()):
            theirs = expected[query][name]
            assert bits(ours) == bits(theirs) or (math.isnan(ours) and math.isnan(theirs)), (query, name, ours, theirs)
