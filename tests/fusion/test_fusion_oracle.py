"""Every score-based method under every normalization against the plain-Python oracle (tests/reference/fusion_scores.py).

The same runs go through the steps a sweep takes (align once, normalize once per
normalization, fuse per method) and through ``fuse`` itself with input and output cuts: the
same documents per query, the same order (ties included: the oracle sorts with ranx's
argsort) and scores equal to 1e-12 relative.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.fusion import NORMALIZATIONS, align, fuse, fused_run, fused_scores, normalize
from retrieval_eval.fusion.scores import METHODS
from tests.fusion.runs import params_for, runs
from tests.reference import fusion_scores as oracle

SCORE_METHODS = [method.name for method in METHODS]
NORMS = [*NORMALIZATIONS, None]


def as_lists(run) -> dict:
    """A Run's rows as ``{query: [(doc, score), ...]}`` in row order."""
    table = run.table.to_pydict()
    out: dict = {}
    for q, d, s in zip(table["query_id"], table["doc_id"], table["score"]):
        out.setdefault(q, []).append((d, s))
    return out


def assert_same_fusion(ours: dict, expected: dict, what: str) -> None:
    assert list(ours) == list(expected), what
    for q, documents in expected.items():
        assert [d for d, _ in ours[q]] == [d for d, _ in documents], (what, q)
        for (d, a), (_, b) in zip(ours[q], documents):
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300), (what, q, d, a, b)


# Each example checks all 112 pairs of method and normalization: an eighth of the profile's examples is plenty.
@settings(max_examples=max(5, settings.default.max_examples // 8))
@given(runs(), st.data())
def test_every_method_and_normalization_is_the_oracles(dicts, data):
    aligned = align(dicts)
    for norm in NORMS:
        normalized = normalize(aligned, norm)
        expected = oracle.normalized(dicts, norm)
        for method in SCORE_METHODS:
            params = params_for(method, len(dicts), data.draw)
            run = fused_run(aligned, fused_scores(aligned, normalized, method, params))
            want = {q: oracle.fused(per_run, method, params) for q, per_run in expected.items()}
            assert_same_fusion(as_lists(run), want, f"{method} {norm} {params}")


@settings(max_examples=max(10, settings.default.max_examples // 4))
@given(runs(), st.sampled_from(SCORE_METHODS), st.sampled_from(NORMS), st.integers(1, 8), st.integers(1, 8), st.data())
def test_fuse_cuts_the_inputs_and_the_output(dicts, method, norm, top_k_in, top_k_out, data):
    params = params_for(method, len(dicts), data.draw)
    run = fuse(dicts, method, norm=norm, params=params, top_k_in=top_k_in, top_k_out=top_k_out)
    expected = oracle.fuse(dicts, method, norm, params, top_k_in=top_k_in, top_k_out=top_k_out)
    assert_same_fusion(as_lists(run), expected, f"{method} {norm}")
    assert run.in_ranx_order == (norm != "borda")
