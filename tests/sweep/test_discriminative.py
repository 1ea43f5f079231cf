"""Discriminative power and swap rates: the share of significant pairs and the ASL curve from their
definitions, swap rates against a plain-Python reference written from Voorhees & Buckley's definition,
the same numbers whatever the batches, the order of the configurations and the seed's bits; one table
per metric, best first."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep import discriminative, leaderboard
from retrieval_eval.sweep.discriminative import asl_curve, discriminative_power, metric_discrimination, swap_rates
from retrieval_eval.sweep.stats import randomization_test_of_differences


def _pvalues(matrix: np.ndarray, rounds: int = 200) -> np.ndarray:
    """Every pair's randomization-test p-value, pairs in np.triu_indices order."""
    first, second = np.triu_indices(len(matrix), 1)
    return randomization_test_of_differences(matrix[first] - matrix[second], rounds=rounds, seed=0)


def _matrix(seed: int, configurations: int = 6, queries: int = 21, spread: float = 0.3) -> np.ndarray:
    """Scores in quarters (sums of them are exact), configurations of increasing level."""
    rng = np.random.default_rng(seed)
    level = np.linspace(0.0, spread, configurations)[:, None]
    return np.clip(np.round((level + rng.normal(0.4, 0.25, (configurations, queries))) * 4) / 4, 0, 1)


def test_discriminative_power_is_the_share_of_significant_pairs_and_the_asl_curve_their_sorted_p_values():
    matrix = _matrix(1, configurations=8, spread=0.6)
    p = _pvalues(matrix)
    for alpha in (0.01, 0.05, 0.2):
        assert discriminative_power(p, alpha) == sum(1 for value in p if value <= alpha) / 28
    curve = asl_curve(p)
    assert curve.tolist() == sorted(p.tolist()) and 0 < discriminative_power(p, 0.05) < 1
    assert discriminative_power(np.array([0.05, 0.0500001, 1.0]), 0.05) == 1 / 3  # p <= alpha counts
    assert math.isnan(discriminative_power(np.empty(0), 0.05)) and asl_curve(np.empty(0)).size == 0


def _reference_swap_rates(matrix: np.ndarray, splits: int, seed: int, bins) -> tuple[list[int], list[int]]:
    """From the definition: each split the order of n uniform draws of one PCG64 stream, its first h queries
    one half and the next h the other; per pair and split the mean differences d1, d2; a swap where they
    have opposite signs; binned by floor(|d1| / width)."""
    m, n = matrix.shape
    h = n // 2
    orders = np.argsort(np.random.default_rng(seed).random((splits, n)), axis=1, kind="stable")
    cases = []
    for order in orders:
        one, two = order[:h].tolist(), order[h : 2 * h].tolist()
        for a in range(m):
            for b in range(a + 1, m):
                d1 = sum(matrix[a, q] - matrix[b, q] for q in one) / h
                d2 = sum(matrix[a, q] - matrix[b, q] for q in two) / h
                cases.append((abs(d1), (d1 > 0 and d2 < 0) or (d1 < 0 and d2 > 0)))
    largest = max(size for size, _ in cases)
    if isinstance(bins, int):
        width, count = (largest / bins if largest else 1.0), bins
    else:
        width, count = bins, int(largest // bins) + 1
    totals, swaps = [0] * count, [0] * count
    for size, swap in cases:
        index = min(math.floor(size / width), count - 1)
        totals[index] += 1
        swaps[index] += swap
    return totals, swaps


@pytest.mark.parametrize(("queries", "bins"), [(21, 10), (20, 4), (9, 0.25), (14, 0.1)])
def test_swap_rates_are_the_definition(queries, bins):
    matrix = _matrix(queries, configurations=5, queries=queries)
    frame = swap_rates(matrix, splits=60, seed=7, bins=bins)
    totals, swaps = _reference_swap_rates(matrix, 60, 7, bins)
    per_bin = frame.drop(index="all")
    assert per_bin["cases"].tolist() == totals and per_bin["swaps"].tolist() == swaps
    assert per_bin["swap_rate"].tolist() == pytest.approx([s / t if t else math.nan for s, t in zip(swaps, totals)], nan_ok=True)
    assert frame.loc["all", "cases"] == 60 * 10 and frame.loc["all", "swaps"] == sum(swaps)
    assert frame.loc["all", "swap_rate"] == sum(swaps) / 600 and 0 < sum(swaps) < 600
    assert (per_bin["high"] - per_bin["low"]).to_numpy() == pytest.approx(per_bin["high"].iloc[0])  # equal widths
    assert per_bin["low"].iloc[0] == 0 and list(frame.columns) == list(discriminative.SWAP_COLUMNS)


def test_the_batches_change_nothing(monkeypatch):
    matrix = _matrix(3, configurations=7, queries=16)
    whole = swap_rates(matrix, splits=50, seed=2, bins=0.05)
    monkeypatch.setattr(discriminative, "_BATCH_CELLS", 64)  # 2 splits a batch, 4 pairs a product
    assert discriminative._split_batches(50, 16, 7)[:2] == [(0, 2), (2, 2)]
    pd.testing.assert_frame_equal(swap_rates(matrix, splits=50, seed=2, bins=0.05), whole)


def test_a_zero_difference_is_a_case_and_never_a_swap():
    # b equals a on every query: every case is d1 = d2 = 0. c beats a by the same margin on every query.
    a = np.array([0.0, 0.25, 0.5, 1.0, 0.75, 0.25])
    frame = swap_rates(np.stack([a, a, a + 0.25]), splits=30, seed=0, bins=2)
    assert frame.loc["all", "cases"] == 90 and frame.loc["all", "swaps"] == 0
    assert frame.loc[0, "cases"] == 30 and frame.loc[1, "cases"] == 60  # the ties, then the two pairs 0.25 apart
    lone = swap_rates(a[None, :], splits=5)
    assert lone["cases"].sum() == 0 and lone["swap_rate"].isna().all()


def test_tiny_differences_swap_as_large_ones_do():
    # Scaling by a power of two is exact: the same cases swap, in the same bins, whose edges scale.
    matrix = _matrix(6, configurations=5, queries=12)
    base, tiny = swap_rates(matrix, splits=40, seed=3), swap_rates(matrix * 2.0**-600, splits=40, seed=3)
    assert tiny[["cases", "swaps"]].equals(base[["cases", "swaps"]]) and base.loc["all", "swaps"] > 0
    assert (tiny["high"] * 2.0**600).tolist() == base["high"].tolist()


configurations = st.integers(2, 5).flatmap(
    lambda m: st.lists(st.lists(st.integers(0, 4), min_size=8, max_size=8), min_size=m, max_size=m)
)


@given(configurations, st.randoms(use_true_random=False), st.integers(0, 2**32), st.sampled_from([3, 0.125]))
def test_the_order_of_the_configurations_changes_nothing(rows, random, seed, bins):
    matrix = np.array(rows, dtype=np.float64) / 4
    order = list(range(len(rows)))
    random.shuffle(order)
    base = swap_rates(matrix, splits=25, seed=seed, bins=bins)
    pd.testing.assert_frame_equal(swap_rates(matrix[order], splits=25, seed=seed, bins=bins), base)
    identical = swap_rates(np.repeat(matrix[:1], len(rows), axis=0), splits=25, seed=seed, bins=bins)
    assert identical.loc["all", "swaps"] == 0 and identical.loc[0, "cases"] == identical.loc["all", "cases"]


def test_the_same_seed_gives_the_same_bits_and_another_seed_other_splits():
    matrix = _matrix(4, configurations=6, queries=30)
    one, two = swap_rates(matrix, splits=40, seed=5), swap_rates(matrix, splits=40, seed=5)
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    assert not swap_rates(matrix, splits=40, seed=6)["swaps"].equals(one["swaps"])


def test_metrics_are_ranked_by_discriminative_power_on_their_defined_queries():
    strong, weak = _matrix(8, configurations=5, queries=24, spread=0.8), _matrix(9, configurations=5, queries=24, spread=0.0)
    holed = weak.copy()
    holed[2, [3, 10]] = np.nan  # undefined for one configuration on two queries: those two are left out
    scores = {"weak": pd.DataFrame(holed), "strong": pd.DataFrame(strong)}
    defined = np.delete(weak, [3, 10], axis=1)
    p = {"weak": _pvalues(defined), "strong": _pvalues(strong)}
    frame = metric_discrimination(scores, p, alpha=0.05, splits=30, seed=1)
    assert frame["metric"].tolist() == ["strong", "weak"] and list(frame.columns) == list(discriminative.DISCRIMINATION_COLUMNS)
    row = frame.set_index("metric").loc["weak"]
    assert (row["queries"], row["pairs"], row["significant"]) == (22, 10, np.count_nonzero(p["weak"] <= 0.05))
    assert row["discriminative_power"] == discriminative_power(p["weak"], 0.05)
    assert row["swap_rate"] == swap_rates(defined, splits=30, seed=1).loc["all", "swap_rate"]
    # Equal discriminative power: the lower swap rate first, then the order given.
    tied = metric_discrimination({"a": pd.DataFrame(weak), "b": pd.DataFrame(strong)}, {"a": np.ones(10), "b": np.ones(10)}, splits=30)
    rates = dict(zip(tied["metric"], tied["swap_rate"]))
    assert tied["metric"].tolist() == sorted(rates, key=lambda name: rates[name])


def test_a_leaderboard_s_metrics_are_ranked_as_their_matrices_are():
    rng = np.random.default_rng(2)
    queries = [f"q{index:02d}" for index in range(14)]
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in queries for d in range(8)],
                         columns=["query_id", "doc_id", "relevance"])  # fmt: skip
    runs = {f"config{index}": pd.DataFrame([(q, f"d{d}", float(8 - rank)) for q in queries
                                            for rank, d in enumerate(rng.permutation(10)[:6])],
                                           columns=["query_id", "doc_id", "score"]) for index in range(4)}  # fmt: skip
    board = leaderboard(qrels, runs, ["ndcg@5", "P@3"], resamples=20, rounds=20)
    p = {metric: _pvalues(table.dropna(axis=1).to_numpy()) for metric, table in board.metric_scores.items()}
    frame = metric_discrimination(board.metric_scores, p, splits=20).set_index("metric")
    assert sorted(frame.index) == ["P@3", "ndcg@5"] and frame["pairs"].tolist() == [6, 6] and frame["queries"].tolist() == [14, 14]
    for metric, table in board.metric_scores.items():
        assert frame.loc[metric, "swap_rate"] == swap_rates(table.to_numpy(), splits=20).loc["all", "swap_rate"]


def _error(call, error, message):
    with pytest.raises(error, match=message) as raised:
        call()
    assert "\n" not in str(raised.value)


def test_bad_inputs_fail_in_one_line():
    matrix = _matrix(1)
    _error(lambda: swap_rates(matrix[:, :1]), InputError, "split the queries in two halves: 1 query, need two or more")
    _error(lambda: swap_rates(np.where(matrix > 0.9, np.nan, matrix)), InputError,
           r"scores must be finite; configuration \d+ query \d+ is nan")
    _error(lambda: swap_rates(matrix[0]), InputError, "configurations x queries matrix")
    for bins in (0, -1.0, True, "10", float("inf")):
        _error(lambda: swap_rates(matrix, bins=bins), ConfigError, "bins must be a number of bins")
    _error(lambda: swap_rates(matrix, splits=0), ConfigError, "splits must be an integer from 1 to 1000000")
    _error(lambda: discriminative_power(np.array([0.1, 1.5]), 0.05), InputError, r"p-values must be in \[0, 1\]; 1 are not, first pair 1")
    _error(lambda: discriminative_power(np.array([0.1]), 1.0), ConfigError, r"alpha must be a number in \(0, 1\)")
    _error(lambda: asl_curve(np.array([np.nan])), InputError, r"p-values must be in \[0, 1\]")
    scores = {"ndcg": pd.DataFrame(matrix)}
    _error(lambda: metric_discrimination(scores, {"ndcg": np.ones(3)}), InputError, "ndcg has 15 pairs of configurations but 3 p-values")
    _error(lambda: metric_discrimination(scores, {"map": np.ones(15)}), ConfigError, "must name the same metrics; 'map' is in one only")
    holed = matrix.copy()
    holed[0, 1:] = np.nan
    _error(lambda: metric_discrimination({"ndcg": holed}, {"ndcg": np.ones(15)}), InputError,
           "ndcg \\(on the 1 queries where it is defined for every configuration\\): swap rates split")
