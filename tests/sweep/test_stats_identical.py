"""The statistics after their kernels give the bits they gave before: the same seed, the same intervals and p-values.

The oracles are the numpy code the bootstrap and the randomization test ran before their counting
steps moved to kernels (retrieval_eval/kernels/core/resampling.py): a flat index, ``np.bincount`` and a
cast for the counts, an int8 product and a cast for the signs. Batches are forced small here
(``_BATCH_CELLS``) so that every call crosses many of them, with a last one shorter than the rest.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.kernels.core.resampling import resample_counts, sign_flips
from retrieval_eval.sweep import bootstrap_ci, randomization_test
from retrieval_eval.sweep import stats as module


def _batches(total: int, width: int, cells: int) -> list[int]:
    size = max(1, cells // max(width, 1))
    return [min(size, total - start) for start in range(0, total, size)]


def bootstrap_before(scores: np.ndarray, resamples: int, level: float, seed: int, cells: int) -> tuple[np.ndarray, np.ndarray]:
    n = scores.shape[-1]
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, scores.shape[0]))
    done = 0
    for size in _batches(resamples, n, cells):
        picks = rng.integers(0, n, size=(size, n))
        flat = (np.arange(size)[:, None] * n + picks).ravel()
        counts = np.bincount(flat, minlength=size * n).reshape(size, n).astype(np.float64)
        means[done : done + size] = counts @ scores.T / n
        done += size
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return low, high


def randomization_before(scores: np.ndarray, baseline: np.ndarray, rounds: int, seed: int, cells: int) -> np.ndarray:
    differences = scores - baseline
    n = differences.shape[-1]
    observed = np.abs(differences.sum(axis=-1))
    threshold = observed - 1e-12 * np.maximum(observed, 1.0)
    rng = np.random.default_rng(seed)
    at_least = np.zeros(differences.shape[:-1], dtype=np.int64)
    for size in _batches(rounds, n, cells):
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        flipped = np.abs(signs.astype(np.float64) @ differences.T)
        at_least += np.count_nonzero(flipped >= threshold, axis=0)
    return (1 + at_least) / (1 + rounds)


def _scores(seed: int, configurations: int, queries: int, grades: int) -> np.ndarray:
    """Per-query scores on a grid of ``grades`` values (0 for continuous): many exact ties and equal flips."""
    values = np.random.default_rng(seed).random((configurations, queries))
    return np.round(values * grades) / grades if grades else values


@settings(max_examples=20)
@given(
    seed=st.integers(0, 2**32),
    configurations=st.integers(1, 5),
    queries=st.integers(2, 60),
    grades=st.sampled_from([0, 1, 4, 10]),
    cells=st.sampled_from([7, 50, 4_000_000]),
    draws=st.integers(1, 400),
)
def test_the_same_seed_gives_the_same_intervals_and_p_values_as_before(seed, configurations, queries, grades, cells, draws):
    scores = _scores(seed, configurations + 1, queries, grades)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_BATCH_CELLS", cells)
        low, high = bootstrap_ci(scores, resamples=draws, level=0.9, seed=seed)
        p = randomization_test(scores[1:], scores[0], rounds=draws, seed=seed)
    expected_low, expected_high = bootstrap_before(scores, draws, 0.9, seed, cells)
    assert low.tobytes() == expected_low.tobytes() and high.tobytes() == expected_high.tobytes()
    assert p.tobytes() == randomization_before(scores[1:], scores[0], draws, seed, cells).tobytes()


def test_a_large_leaderboard_s_statistics_are_those_of_before():
    # The default batches, several of them: 3 configurations x 20k queries, graded like ndcg@10 at 10 levels.
    scores = _scores(7, 3, 20_000, 10)
    low, high = bootstrap_ci(scores, resamples=600, seed=3)
    assert np.array_equal(np.stack([low, high]), np.stack(bootstrap_before(scores, 600, 0.95, 3, module._BATCH_CELLS)))
    p = randomization_test(scores[1:], scores[0], rounds=600, seed=3)
    assert np.array_equal(p, randomization_before(scores[1:], scores[0], 600, 3, module._BATCH_CELLS))


def test_the_counting_kernels_from_their_definitions():
    picks = np.array([[0, 2, 2, 2], [3, 1, 0, 1]], dtype=np.int32)
    counts = np.full((2, 4), 9.0)  # whatever the buffer held before
    resample_counts(picks, counts)
    assert counts.tolist() == [[1, 0, 3, 0], [1, 2, 0, 1]]
    bits = np.array([[0, 1, 1], [1, 0, 0]], dtype=np.int8)
    signs = np.empty((2, 3))
    sign_flips(bits, signs)
    assert signs.tolist() == [[-1, 1, 1], [1, -1, -1]]


def test_progress_counts_the_draws_after_each_batch(monkeypatch):
    monkeypatch.setattr(module, "_BATCH_CELLS", 40)  # 10 queries: 4 draws a batch
    scores = _scores(1, 2, 10, 0)
    calls = []
    bootstrap_ci(scores, resamples=10, progress=lambda *args: calls.append(("bootstrap", *args)))
    randomization_test(scores[1:], scores[0], rounds=9, progress=lambda *args: calls.append(("rounds", *args)))
    assert calls == [("bootstrap", 4, 10), ("bootstrap", 8, 10), ("bootstrap", 10, 10),
                     ("rounds", 4, 9), ("rounds", 8, 9), ("rounds", 9, 9)]  # fmt: skip
