"""The orders of equal scores after a ranking by score: trec_eval's, and by a key given per run row.

trec_eval's: among equal scores, document ids in descending byte order (C ``strcmp``). Integer
ids are compared as trec_eval would see them in a run file, as decimal text: among equal scores 9
ranks before 10 ("9" > "10").

By key: among equal scores, ascending ``tie_keys[row]`` (an int64 per run row, computed before the
ranking; ranx's order is one, see :mod:`retrieval_eval.kernels.core.ranx_ties`).
"""

from __future__ import annotations

import numpy as np

from .._config import jit
from .sorting import stable_order

# Among equal scores: input order (azure-ai-evaluation), descending document id (trec_eval) or
# ascending tie key (ranx). The preference family's ascending id is 2 (kernels/trec/prefs_ranks.py).
TIES_INPUT_ORDER = 0
TIES_DOCID_DESCENDING = 1
TIES_ASCENDING_KEY = 3

_DIGITS = 21  # a sign and the 19 digits of an int64, with room to spare


@jit
def decimal_text(value: np.int64, out: np.ndarray) -> int:
    """Write the decimal text of ``value`` as ASCII bytes into ``out``; return its length."""
    negative = value < 0
    # The magnitude of the most negative int64 only fits unsigned.
    magnitude = np.uint64(-(value + 1)) + np.uint64(1) if negative else np.uint64(value)
    reversed_digits = np.empty(_DIGITS, dtype=np.uint8)
    n = 0
    while True:
        reversed_digits[n] = np.uint8(np.uint64(48) + magnitude % np.uint64(10))
        magnitude //= np.uint64(10)
        n += 1
        if magnitude == np.uint64(0):
            break
    length = 0
    if negative:
        out[0] = 45  # '-'
        length = 1
    for j in range(n - 1, -1, -1):
        out[length] = reversed_digits[j]
        length += 1
    return length


@jit
def _compare_bytes(a: np.ndarray, a_start: int, a_len: int, b: np.ndarray, b_start: int, b_len: int) -> int:
    """-1, 0 or 1 as ``strcmp`` orders the two byte strings (unsigned bytes; a prefix comes first)."""
    for j in range(min(a_len, b_len)):
        x = a[a_start + j]
        y = b[b_start + j]
        if x != y:
            return -1 if x < y else 1
    if a_len == b_len:
        return 0
    return -1 if a_len < b_len else 1


@jit
def compare_ids(keys: np.ndarray, offsets: np.ndarray, data: np.ndarray, is_string: bool, row_a: int, row_b: int) -> int:
    """-1, 0 or 1: the order of the ids of two rows as trec_eval compares document ids."""
    if is_string:
        a = offsets[row_a]
        b = offsets[row_b]
        return _compare_bytes(data, a, offsets[row_a + 1] - a, data, b, offsets[row_b + 1] - b)
    text_a = np.empty(_DIGITS, dtype=np.uint8)
    text_b = np.empty(_DIGITS, dtype=np.uint8)
    len_a = decimal_text(np.int64(keys[row_a]), text_a)
    len_b = decimal_text(np.int64(keys[row_b]), text_b)
    return _compare_bytes(text_a, 0, len_a, text_b, 0, len_b)


@jit
def tie_run_stop(ranking: np.ndarray, scores: np.ndarray, start: int) -> int:
    """The end (exclusive) of the run of equal ``scores[ranking[j]]`` that begins at ``start``."""
    stop = start + 1
    while stop < ranking.shape[0] and scores[ranking[stop]] == scores[ranking[start]]:
        stop += 1
    return stop


@jit
def order_ties_by_id_descending(
    ranking: np.ndarray,
    scores: np.ndarray,
    rows: np.ndarray,
    keys: np.ndarray,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
) -> None:
    """Within each run of equal ``scores[ranking[j]]``, reorder ``ranking`` by descending id, in place.

    ``ranking`` is already sorted by score; ``rows[ranking[j]]`` is the row whose id breaks the tie.
    Runs of ties are short in practice, so an insertion sort per run is enough.
    """
    n = ranking.shape[0]
    start = 0
    while start < n:
        stop = tie_run_stop(ranking, scores, start)
        for i in range(start + 1, stop):
            moving = ranking[i]
            j = i - 1
            while j >= start and compare_ids(keys, offsets, data, is_string, rows[ranking[j]], rows[moving]) < 0:
                ranking[j + 1] = ranking[j]
                j -= 1
            ranking[j + 1] = moving
        start = stop


@jit
def order_ties_by_key(ranking: np.ndarray, scores: np.ndarray, rows: np.ndarray, tie_keys: np.ndarray) -> None:
    """Within each run of equal ``scores[ranking[j]]``, reorder ``ranking`` by ascending ``tie_keys[rows[ranking[j]]]``, in place.

    ``ranking`` is already sorted by score. A run of ties is sorted like any other array (an
    insertion sort when short, a merge sort beyond): all of a query's documents may tie. The
    negated keys are sorted as the scores are, float64 and descending, so that a kernel calling
    this compiles one specialization of the sort, not two (each one costs about 0.5 s); exact for
    keys up to 2**53 (ranx's keys are positions within a query).
    """
    n = ranking.shape[0]
    start = 0
    while start < n:
        stop = tie_run_stop(ranking, scores, start)
        if stop - start > 1:
            tied = ranking[start:stop].copy()
            keys = np.empty(stop - start, dtype=np.float64)
            for i in range(stop - start):
                keys[i] = -tie_keys[rows[tied[i]]]
            by_key = stable_order(keys, True)
            for i in range(stop - start):
                ranking[start + i] = tied[by_key[i]]
        start = stop
