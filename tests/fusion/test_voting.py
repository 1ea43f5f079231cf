"""The voting methods (bordafuse, w_bordafuse, condorcet, w_condorcet, rbc) against the oracle and against ranx 0.3.21.

- CPython's sort, as Condorcet needs it: the kernel's transcription (kernels/fusion/fusion_votes_sort.py)
  against Python's own ``sorted(key=cmp_to_key(...))`` on candidate sets of up to 400, with
  random, correlated and block-structured rankings (natural runs of every length, which reach
  every branch of the merge: galloping, the third-to-last merge of the final collapse).
- Every voting method under every normalization against tests/reference/fusion_voting.py, fed
  the normalized runs of tests/reference/fusion_scores.py: the same documents, scores to 1e-12
  relative, and the same order (the oracle's fused dict sorted with ranx's argsort).
- ranx itself (tests/reference/fusion_voting_ranx.py: ranx run by the interpreter in a child
  process, sorting as the compiled ranx does), in both legs: with ranx's candidates listed in
  the library's order, the fused runs are ranx's, ties included; with ranx's own set order, what
  the documented freedom leaves equal is (retrieval_eval.fusion.voting).
"""

from __future__ import annotations

import atexit
import functools
import math
from functools import cmp_to_key

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import ConfigError
from retrieval_eval.fusion import NORMALIZATIONS, align, fuse, fused_run, fused_scores, normalize
from retrieval_eval.io.arrays import read_only
from retrieval_eval.kernels.fusion.fusion_votes import condorcet_points
from tests.fusion.runs import runs as fusion_runs
from tests.fusion.test_fusion_oracle import as_lists
from tests.reference import fusion_scores as scores_oracle
from tests.reference import fusion_voting as oracle
from tests.reference.fusion_voting_ranx import RanxPeer

pytestmark = pytest.mark.filterwarnings("ignore::Warning")  # numba's type-safety warnings inside ranx

VOTING = ["bordafuse", "w_bordafuse", "condorcet", "w_condorcet", "rbc"]
NORMS = [*NORMALIZATIONS, None]
WEIGHTS = [0.0, 0.25, 0.5, 1.0, 2.0, -0.5]
# Past 15 documents a query reaches the part of numba's quicksort that moves ties out of input order.
RANX_DOCUMENTS = [f"d{i}" for i in range(24)]


@functools.cache
def ranx_peer() -> RanxPeer:
    """One child process running ranx for the whole session, ended with it."""
    peer = RanxPeer()
    atexit.register(peer.close)
    return peer


def params_for(method: str, n_runs: int, draw) -> dict:
    if method in ("w_bordafuse", "w_condorcet"):
        return {"weights": draw(st.lists(st.sampled_from(WEIGHTS), min_size=n_runs, max_size=n_runs))}
    if method == "rbc":
        return {"phi": draw(st.sampled_from([0.0, 0.3, 0.8, 0.95, 1.0]))}
    return {}


def oracle_fused(method: str, runs: list[dict], params: dict, candidates: dict | None = None) -> dict:
    """The oracle's fused dicts (documents in ranx's insertion order)."""
    if method == "rbc":
        return oracle.rbc(runs, params["phi"])
    weights = params.get("weights")
    if method in ("bordafuse", "w_bordafuse"):
        return oracle.bordafuse(runs, weights, candidates)
    return oracle.condorcet(runs, weights, candidates)


def in_ranx_order(fused: dict) -> dict:
    """``{query: [(doc, score), ...]}``: each fused dict sorted as ranx sorts the fused Run."""
    out = {}
    for q, documents in fused.items():
        items = list(documents.items())
        if items:
            out[q] = [items[i] for i in scores_oracle.ranx_argsort([-s for _, s in items])]
    return out


def assert_same(ours: dict, expected: dict, what: str) -> None:
    assert list(ours) == list(expected), what
    for q, documents in expected.items():
        assert [d for d, _ in ours[q]] == [d for d, _ in documents], (what, q)
        for (d, a), (_, b) in zip(ours[q], documents):
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300), (what, q, d, a, b)


# CPython's sort ---------------------------------------------------------------------------------


@st.composite
def rankings(draw) -> np.ndarray:
    """int64[n, n_runs]: each candidate's 1-based position in each run (0: absent), of several shapes."""
    n = draw(st.integers(1, 400))
    n_runs = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = draw(st.sampled_from(["random", "close", "loose", "blocks"]))
    if shape == "blocks":
        # Run 0 lists the candidates in order; the other runs agree on ascending blocks in
        # descending order, so the sort meets natural runs of the drawn lengths.
        lengths = draw(st.lists(st.integers(1, 250), min_size=1, max_size=8))
        n = sum(lengths)
        target = np.concatenate([np.arange(length) + sum(lengths[i + 1 :]) for i, length in enumerate(lengths)])
        ranks = np.empty((n, n_runs), dtype=np.int64)
        ranks[:, 0] = np.arange(1, n + 1)
        for r in range(1, n_runs):
            swapped = target.copy()
            for i in rng.integers(0, max(n - 1, 1), draw(st.integers(0, 5))) if n > 1 else []:
                swapped[[i, i + 1]] = swapped[[i + 1, i]]
            ranks[:, r] = swapped + 1
        return ranks
    base = rng.permutation(n)
    ranks = np.zeros((n, n_runs), dtype=np.int64)
    for r in range(n_runs):
        noise = {"random": None, "close": 1.0, "loose": 20.0}[shape]
        keys = rng.permutation(n) if noise is None else base + rng.normal(0, noise, n)
        present = rng.random(n) < rng.uniform(0.3, 1.0)
        order = np.argsort(np.where(present, keys, np.inf), kind="stable")[: int(present.sum())]
        ranks[order, r] = np.arange(1, len(order) + 1)
    return ranks


def python_sorted(ranks: np.ndarray, weights: np.ndarray) -> list[int]:
    """``sorted(range(n), key=cmp_to_key(compare))`` with ranx's Condorcet comparison (oracle's)."""
    position = np.where(ranks > 0, ranks - 1, oracle.ABSENT_POSITION).tolist()
    w = weights.tolist()

    def compare(x: int, y: int) -> int:
        ahead = [position[x][r] < position[y][r] for r in range(len(w))]
        return -1 if sum(v for v, a in zip(w, ahead) if a) >= sum(v for v, a in zip(w, ahead) if not a) else 1

    return sorted(range(len(position)), key=cmp_to_key(compare))


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(rankings(), st.data())
def test_condorcet_sorts_as_cpython_sorts(ranks, data):
    n, n_runs = ranks.shape
    weights = np.ones(n_runs) if data.draw(st.booleans()) else np.array(data.draw(
        st.lists(st.sampled_from([0.1, 0.2, 0.3, 0.5, 1.0]), min_size=n_runs, max_size=n_runs)))
    depths = read_only((ranks > 0).sum(axis=0)[None, :].astype(np.int64))
    fused = condorcet_points(read_only(np.array([0, n], dtype=np.int64)), read_only(ranks), depths, read_only(weights))
    order = python_sorted(ranks, weights)
    expected = np.empty(n)
    expected[order] = n - np.arange(n)
    assert fused.tolist() == expected.tolist()


def test_a_condorcet_cycle_is_sorted_by_the_order_the_candidates_come_in():
    # Three runs rank a > b > c, b > c > a and c > a > b: a beats b, b beats c and c beats a, 2 votes to 1.
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"b": 3.0, "c": 2.0, "a": 1.0}}, {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}]
    assert as_lists(fuse(runs, "condorcet", norm=None)) == {"q": [("a", 3.0), ("b", 2.0), ("c", 1.0)]}
    # ranx iterating its set as b, c, a gives another winner: the freedom retrieval_eval.fusion.voting documents.
    assert oracle.condorcet(runs, candidates={"q": ["b", "c", "a"]}) == {"q": {"b": 3.0, "c": 2.0, "a": 1.0}}


# The oracle -------------------------------------------------------------------------------------


@settings(max_examples=max(5, settings.default.max_examples // 5))
@given(fusion_runs(), st.data())
def test_every_voting_method_and_normalization_is_the_oracles(dicts, data):
    aligned = align(dicts)
    ranked = scores_oracle.normalized(dicts, None)
    candidates = {q: list(dict.fromkeys(d for items in per_run for d, _ in items)) for q, per_run in ranked.items()}
    for norm in NORMS:
        per_query = scores_oracle.normalized(dicts, norm)
        normalized_runs = [{q: dict(per_run[r]) for q, per_run in per_query.items()} for r in range(len(dicts))]
        normalized = normalize(aligned, norm)
        for method in VOTING:
            params = params_for(method, len(dicts), data.draw)
            run = fused_run(aligned, fused_scores(aligned, normalized, method, params))
            expected = in_ranx_order(oracle_fused(method, normalized_runs, params, candidates))
            assert_same(as_lists(run), expected, f"{method} {norm} {params}")


def test_the_weighted_methods_need_one_weight_per_run_and_rbc_a_phi_in_0_1():
    runs = [{"q": {"a": 1.0}}, {"q": {"b": 1.0}}]
    with pytest.raises(ConfigError, match=r"weights must be 2 numbers \(one per run\), got 3"):
        fuse(runs, "w_condorcet", weights=[1, 2, 3])
    with pytest.raises(ConfigError, match="fusion method 'w_bordafuse' needs weights="):
        fuse(runs, "w_bordafuse")
    with pytest.raises(ConfigError, match=r"phi must be a finite number >= 0 and <= 1, got 1.5"):
        fuse(runs, "rbc", phi=1.5)
    with pytest.raises(ConfigError, match="fusion method 'condorcet' has no parameter 'weights'"):
        fuse(runs, "condorcet", weights=[1, 1])


# ranx -------------------------------------------------------------------------------------------


@st.composite
def small_runs(draw) -> list[dict]:
    """2-5 runs over up to 4 queries (some runs lacking some), 1-20 documents per query, full of ties."""
    n_runs = draw(st.integers(2, 5))
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    values = st.sampled_from([0.0, 1.0, 1.0, 2.5, -1.0, 7.25])
    runs = []
    for _ in range(n_runs):
        run = {}
        for q in draw(st.lists(st.sampled_from(queries), min_size=1, max_size=len(queries), unique=True)):
            docs = draw(st.lists(st.sampled_from(RANX_DOCUMENTS), min_size=1, max_size=20, unique=True))
            run[q] = {d: draw(values) for d in docs}
        runs.append(run)
    return runs


def nonempty(fused: dict) -> dict:
    return {q: docs for q, docs in fused.items() if docs}


@settings(max_examples=max(4, settings.default.max_examples // 10))
@given(small_runs(), st.sampled_from(["min-max", "min-max-inverted", "borda", "rank", None]), st.data())
def test_voting_methods_are_ranxs_with_its_candidates_in_our_order(dicts, norm, data):
    for method in VOTING:
        params = params_for(method, len(dicts), data.draw)
        expected = nonempty(ranx_peer().fuse(dicts, method, params, norm, candidates="first"))
        ours = as_lists(fuse(dicts, method, norm=norm, params=params))
        assert sorted(ours) == sorted(expected), method
        assert_same({q: ours[q] for q in expected}, expected, f"{method} {norm} {params}")


@settings(max_examples=max(4, settings.default.max_examples // 10))
@given(small_runs(), st.data())
def test_voting_methods_are_ranxs_up_to_the_order_of_its_set(dicts, data):
    for method in ["bordafuse", "w_bordafuse", "condorcet"]:
        params = params_for(method, len(dicts), data.draw)
        expected = nonempty(ranx_peer().fuse(dicts, method, params, "min-max", candidates="set"))
        ours = as_lists(fuse(dicts, method, params=params))
        assert sorted(ours) == sorted(expected), method
        for q, documents in expected.items():
            mine = dict(ours[q])
            assert sorted(mine) == sorted(d for d, _ in documents), (method, q)
            if method == "condorcet":  # the same scores n, n - 1, ..., 1, not always for the same documents
                assert sorted(mine.values()) == sorted(s for _, s in documents), q
            else:  # each document's points, whatever the order; ties in any order
                for d, s in documents:
                    assert math.isclose(mine[d], s, rel_tol=1e-12), (method, q, d)
                assert [s for _, s in ours[q]] == sorted(mine.values(), reverse=True), (method, q)
