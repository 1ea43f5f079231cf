"""Answer F1 over whole columns: the token counts of every row in one kernel pass (:mod:`~retrieval_eval.kernels.answer_tokens`).

The kernel needs, for each non-ASCII code point of the data, its lower case (``str.lower`` of
the code point alone) and that code point's class (word, space, ASCII punctuation, other);
Python computes those once per distinct code point, never per row. The rows the kernel flags
(a capital sigma, whose lower case depends on its neighbours; a capital I with dot, whose lower
case is two code points; two distinct tokens with one hash) are counted with the definition,
:func:`.f1_score.shared_token_count`.
"""

from __future__ import annotations

import string
import threading

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.arrays import read_only, string_buffers
from ..kernels import answer_tokens as kernel
from ..kernels import start_of_work
from ..kernels.contains import code_points_in_rows
from .f1_score import f1_from_counts, shared_token_count


def f1_scores(responses: pa.ChunkedArray | pa.Array, ground_truths: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The F1 of each response against the ground truth on its row (float64, one per row; no nulls)."""
    start_of_work()
    r_offsets, r_data = string_buffers(responses)
    t_offsets, t_data = string_buffers(ground_truths)
    every_row = np.arange(len(r_offsets) - 1)
    present = code_points_in_rows(r_offsets, r_data, every_row) | code_points_in_rows(t_offsets, t_data, every_row)
    tables = _LOWER_CASES.tables(np.flatnonzero(present))
    predicted, reference, shared, flagged = kernel.answer_token_counts(
        r_offsets, r_data, t_offsets, t_data, *tables, kernel.ASCII_CLASSES
    )
    flagged_rows = np.flatnonzero(flagged)
    if flagged_rows.size:
        predicted, reference, shared = predicted.copy(), reference.copy(), shared.copy()
        picks = pa.array(flagged_rows)
        pairs = zip(pc.take(responses, picks).to_pylist(), pc.take(ground_truths, picks).to_pylist())
        for row, (response, truth) in zip(flagged_rows, pairs):
            predicted[row], reference[row], shared[row] = shared_token_count(response, truth)
    return f1_from_counts(shared, predicted, reference)


def _class(char: str) -> int:
    if char in string.punctuation:
        return kernel.DROPPED
    if char.isspace():
        return kernel.SPACE
    if char.isalnum() or char == "_":
        return kernel.WORD
    return kernel.OTHER


class _LowerCases:
    """``chr(c).lower()`` and its class for the non-ASCII code points ``c`` met so far.

    Kept across calls (a process scoring many files meets the same alphabet again); the tables
    given out are new arrays each time, never changed afterwards.
    """

    def __init__(self) -> None:
        self._lowered: dict[int, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def tables(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(points, lowered, classes) for the sorted ``points``, as the kernel takes them."""
        with self._lock:
            for point in points.tolist():
                if point not in self._lowered:
                    lowered = chr(point).lower()
                    unread = point in kernel.UNREAD_POINTS or len(lowered) != 1
                    self._lowered[point] = (point, kernel.UNREAD) if unread else (ord(lowered), _class(lowered))
            entries = [self._lowered[point] for point in points.tolist()]
        return (
            read_only(points.astype(np.int64)),
            read_only(np.array([lowered for lowered, _ in entries], dtype=np.int64)),
            read_only(np.array([kind for _, kind in entries], dtype=np.uint8)),
        )


_LOWER_CASES = _LowerCases()
