"""The randomised Tukey HSD test: every pair of configurations at once, paired by query.

Given m configurations scored on the same n queries (a configurations x queries matrix), the
null hypothesis is that the configurations are interchangeable: on each query the m scores
could have come from any of them. A permutation assigns each query's m scores to the m
configurations in a random order, independently from query to query (the scores stay paired
by query: a hard query is hard for every configuration in every permutation), and takes the
range of the configurations' means, max - min. Over B permutations, the p-value of the pair
(a, b) is

    p_ab = (1 + #{permutations whose range >= |mean_a - mean_b|}) / (1 + B).

Every pair is compared with the null distribution of the *largest* difference among all m
configurations, so rejecting the pairs with p_ab <= alpha controls the family-wise error rate
(the chance of calling any truly equal pair different) over all m(m - 1)/2 pairs at alpha,
without a further correction (Holm or Bonferroni would correct twice). A p-value is an
estimate that is never 0: with B permutations none below 1 / (1 + B) can be shown.

References: B. Carterette, "Multiple testing in statistical analysis of systems-based
information retrieval experiments", ACM TOIS 30(1), 2012 (the randomised Tukey HSD test);
T. Sakai, *Laboratory Experiments in Information Retrieval*, Springer 2018, chapter 4.

Implementation: the means are compared as sums over the queries (the same order ranks both),
and with a relative tolerance (a permutation that reproduces the observed difference counts,
whatever the rounding), as :func:`~.stats.randomization_test_of_differences` does. The draws
come from a counter-based generator keyed by (seed, permutation, query)
(:mod:`retrieval_eval.kernels.core.permutation`): the same bits whatever the thread count,
batch size or build. Each query's scores are sorted before they are permuted, so the draws,
and the p-values, do not depend on the order the configurations are given in; they do depend
on the order of the queries (the draws are keyed by the query's position), through the random
draws only: another order gives other draws from the same distribution.
"""

from __future__ import annotations

import numpy as np

from ..kernels.core.permutation import permuted_ranges
from .settings import PERMUTATIONS, SEED
from .stats import DrawProgress, draw_batches


def randomised_tukey_hsd(
    matrix: np.ndarray,
    *,
    permutations: int = PERMUTATIONS.default,
    seed: int = SEED.default,
    progress: DrawProgress | None = None,
) -> np.ndarray:
    """The randomised Tukey HSD p-value of every pair of rows of ``matrix`` (configurations x queries).

    Returns m(m - 1)/2 p-values in ``np.triu_indices(m, 1)`` order (pairs (0, 1), (0, 2), ...,
    (m - 2, m - 1)), each in [1 / (1 + permutations), 1], as the module docstring defines them.
    ``progress(done, total)`` is called with the permutations done after each batch of them.
    """
    matrix = _checked(matrix)
    sums = _sums(matrix)
    first, second = np.triu_indices(matrix.shape[0], 1)
    observed = np.abs(sums[first] - sums[second])
    threshold = observed - 1e-12 * np.maximum(observed, 1.0)
    ranges = np.sort(_null_range_sums(matrix, permutations, seed, progress))
    at_least = ranges.shape[0] - np.searchsorted(ranges, threshold, side="left")
    return (1 + at_least) / (1 + ranges.shape[0])


def tukey_null_ranges(
    matrix: np.ndarray,
    *,
    permutations: int = PERMUTATIONS.default,
    seed: int = SEED.default,
    progress: DrawProgress | None = None,
) -> np.ndarray:
    """The range (max - min) of the configurations' mean scores under each permutation, in permutation order.

    The null distribution :func:`randomised_tukey_hsd` compares every pair's difference of
    means with (the same draws for the same ``seed``), in the units of the scores.
    """
    matrix = _checked(matrix)
    return _null_range_sums(matrix, permutations, seed, progress) / matrix.shape[1]


def _null_range_sums(matrix: np.ndarray, permutations: int, seed: int, progress: DrawProgress | None) -> np.ndarray:
    """The permuted ranges of the configurations' sums, ``permutations`` of them, in batches of bounded memory."""
    permutations, seed = PERMUTATIONS.check(permutations), SEED.check(seed)
    # Sorted, each query's scores are the same whatever order the configurations come in; + 0.0
    # makes -0.0 +0.0, so that the sort (which ties them) gives the same bits either way. In C
    # order, the one the kernel is compiled for (the transposed view would be a second compile).
    by_query = np.sort(np.add(matrix.T, 0.0, order="C"), axis=1)
    # Any seed numpy takes (arbitrarily large integers) as one well-mixed 64-bit key.
    key = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0]
    ranges = np.empty(permutations)
    done = 0
    for size in draw_batches(permutations, by_query.size):
        ranges[done : done + size] = permuted_ranges(by_query, key, done, size)
        done += size
        if progress is not None:
            progress(done, permutations)
    return ranges


def _sums(matrix: np.ndarray) -> np.ndarray:
    """Each configuration's sum over the queries, added query after query as the permuted sums are (the same bits)."""
    return np.cumsum(matrix + 0.0, axis=1)[:, -1]


def _checked(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ValueError(
            f"the randomised Tukey HSD needs a configurations x queries matrix of at least two configurations "
            f"and two queries; got shape {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise ValueError("scores must be finite, not NaN or infinite (undefined per-query values cannot be paired)")
    return matrix
