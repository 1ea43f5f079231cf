"""ragas' context precision from per-context verdicts (0/1, one per retrieved context, in rank order), over many samples.

Definition (ragas 0.4.3, ``_calculate_average_precision`` of ``LLMContextPrecisionWithReference``
and of ``NonLLMContextPrecisionWithReference``). With verdicts v_1..v_n of a sample's retrieved
contexts and c_i = v_1 + ... + v_i::

    precision = (sum_i (c_i / i) * v_i) / (c_n + 1e-10)

an average precision over the retrieved contexts whose denominator is the number of useful ones
(plus 1e-10, so that a sample with none scores 0.0, and so does one with no verdict at all). It is
in [0, 1) (dimensionless): one useful context first scores 1 / (1 + 1e-10), not 1.

The numerator is summed as Python's ``sum`` sums ragas' list, so that values equal ragas' to the
bit: left to right up to Python 3.11, with Neumaier's compensation from Python 3.12 on (what
``sum`` of floats does there). Both are vectorized over the samples: one step per rank, never
one per sample.
"""

from __future__ import annotations

import sys

import numpy as np

#: Python's ``sum`` of floats compensates its rounding errors from 3.12 on (Neumaier's algorithm).
COMPENSATED_SUM = sys.version_info >= (3, 12)


def average_precision(verdicts: np.ndarray, offsets: np.ndarray, *, compensated: bool = COMPENSATED_SUM) -> np.ndarray:
    """ragas' context precision of each sample (float64, one per sample) from its flat 0/1 ``verdicts``.

    Sample ``s`` has the verdicts ``verdicts[offsets[s]:offsets[s + 1]]`` in rank order; ``offsets``
    has one more entry than there are samples. ``compensated`` chooses how the numerator is summed
    (see the module docstring); the default is what this Python's ``sum`` does.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    verdicts = np.asarray(verdicts).astype(np.int64)
    lengths = np.diff(offsets)
    samples = len(lengths)
    rank = np.arange(len(verdicts), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    useful = np.cumsum(verdicts)
    # c_i: the useful contexts up to rank i within the sample (the running count restarts at each sample).
    before = np.concatenate(([0], useful))[offsets[:-1]]
    counts = useful - np.repeat(before, lengths)
    # Each term as Python computes it: an int over an int (correctly rounded), times an int 0 or 1.
    terms = (counts / (rank + 1)) * verdicts
    numerator = _python_sums(terms, offsets, lengths, compensated)
    denominator = np.zeros(samples, dtype=np.int64)
    nonempty = lengths > 0
    denominator[nonempty] = counts[offsets[1:][nonempty] - 1]
    return numerator / (denominator + 1e-10)


def _python_sums(terms: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, compensated: bool) -> np.ndarray:
    """Each sample's ``sum(terms)`` as Python computes it, one vectorized step per rank.

    The samples are ordered by length, longest first, so that the samples that still have a term at
    rank r are a prefix of that order.
    """
    order = np.argsort(-lengths, kind="stable")
    starts = offsets[:-1][order]
    remaining = lengths[order]
    total = np.zeros(len(lengths), dtype=np.float64)
    compensation = np.zeros(len(lengths), dtype=np.float64)
    longest = int(remaining[0]) if len(remaining) else 0
    # How many samples have more than r terms, for every r (remaining is non-increasing).
    active = np.searchsorted(-remaining, -np.arange(longest), side="left")
    for r in range(longest):
        m = int(active[r])
        x = terms[starts[:m] + r]
        s = total[:m]
        t = s + x
        if compensated:
            compensation[:m] += np.where(np.abs(s) >= np.abs(x), (s - t) + x, (x - t) + s)
        total[:m] = t
    if compensated:
        # Python adds the compensation only when it is non-zero and finite.
        fix = (compensation != 0) & np.isfinite(compensation)
        total[fix] += compensation[fix]
    out = np.empty_like(total)
    out[order] = total
    return out
