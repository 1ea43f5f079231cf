"""The fused runs against ranx 0.3.21's ``ranx.fuse`` itself, document by document, without the JIT.

Compiled, ranx's fusion functions cost seconds each in every process (their parallel builds are
not cached: 12-16 s measured for CombSUM alone, a minute for all of them), so they are compared
in the NUMBA_DISABLE_JIT leg, where ranx runs as Python and orders ties with numpy's argsort,
as our kernels then do. With the JIT, every method's formula and order (numba's quicksort, which
ranx's compiled Run.sort runs) is checked against the oracle of tests/reference/fusion_scores.py,
and ranx's compiled Run order against ours by the tests of ties="ranx". Here every score-based
method meets every normalization on random runs. The documented freedom: under
``borda`` ranx lists the candidates in a Python set's order, so there the scores of each
document (RRF and ISR: the scores of the query, whose assignment follows that order) are
compared, and the order only where scores differ.
"""

from __future__ import annotations

import math

import numba
import pytest
import ranx
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.fusion import NORMALIZATIONS, align, fuse, fused_run, fused_scores, normalize
from retrieval_eval.fusion.scores import METHODS
from tests.fusion.runs import params_for, runs
from tests.fusion.test_fusion_oracle import as_lists

pytestmark = pytest.mark.skipif(
    not numba.config.DISABLE_JIT, reason="ranx's compiled fusion functions take 12-60 s a process: compared without the JIT"
)
RANK_BASED = {"rrf", "isr", "log_isr", "logn_isr"}


def ranx_runs(dicts: list[dict]) -> list[ranx.Run]:
    """ranx Runs of the same queries (ranx.fuse asks for it): a query a run lacks is empty there."""
    queries = {q for d in dicts for q in d}
    return [ranx.Run({q: dict(d.get(q, {})) for q in sorted(queries)}) for d in dicts]


def assert_equals_ranx(ours: dict, theirs: ranx.Run, method: str, norm: str | None) -> None:
    expected = {q: list(theirs[q].items()) for q in theirs.keys() if len(theirs[q])}
    assert sorted(ours) == sorted(expected)
    for q, documents in expected.items():
        mine = ours[q]
        if norm == "borda":
            assert sorted(d for d, _ in mine) == sorted(d for d, _ in documents), (method, q)
            if method in RANK_BASED:
                pairs = zip(sorted(s for _, s in mine), sorted(s for _, s in documents))
            else:
                wanted = dict(documents)
                pairs = [(s, wanted[d]) for d, s in mine]
                assert [s for _, s in mine] == sorted((s for _, s in mine), reverse=True), (method, q)
        else:
            assert [d for d, _ in mine] == [d for d, _ in documents], (method, norm, q)
            pairs = zip((s for _, s in mine), (s for _, s in documents))
        for a, b in pairs:
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (method, norm, q, a, b)


def test_combsum_of_ranx_runs_is_ranxs_to_the_order_of_its_ties():
    # 20 and 18 documents whose scores tie within and across the runs: the sums tie in pairs,
    # and a query longer than 15 is where numba's quicksort leaves ties out of insertion order.
    first = {"q1": {f"d{i}": float(i % 4) for i in range(20)}, "q2": {"x": 1.0, "y": 1.0}}
    second = {"q1": {f"d{(i + 10) % 24}": float(i % 3) for i in range(18)}, "q2": {"y": 3.0, "z": 2.0}}
    inputs = ranx_runs([first, second])
    ours = fuse(inputs, "sum", norm=None)
    assert ours.in_ranx_order
    assert_equals_ranx(as_lists(ours), ranx.fuse(inputs, norm=None, method="sum"), "sum", None)


@settings(max_examples=max(3, settings.default.max_examples // 2))
@given(runs(max_runs=4), st.data())
def test_every_method_and_normalization_is_ranxs(dicts, data):
    inputs = ranx_runs(dicts)
    aligned = align(inputs)  # ranx Runs read in their own order (and their empty queries)
    for norm in [*NORMALIZATIONS, None]:
        normalized = normalize(aligned, norm)
        for method in METHODS:
            params = params_for(method.name, len(dicts), data.draw)
            ours = as_lists(fused_run(aligned, fused_scores(aligned, normalized, method, params)))
            assert_equals_ranx(ours, ranx.fuse(inputs, norm=norm, method=method.name, params=params), method.name, norm)
