"""Answer F1 over whole columns: the token counts of every row in one kernel pass (:mod:`~retrieval_eval.kernels.text.answer_tokens`).

The kernel needs, for each non-ASCII code point of the data, its lower case, class and case
flags (:func:`~retrieval_eval.kernels.text.answer_tokens.describe`); Python computes those once per
distinct code point met in the process, never per row. The rows the kernel flags (two distinct
tokens with one 64-bit hash, which no real text is known to hold) are counted with the
definition, :func:`.answer_f1.shared_token_count`.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.arrays import read_only, string_buffers
from ..kernels.text import answer_tokens as kernel
from ..kernels.text.contains import code_points_in_rows
from .answer_f1 import f1_from_counts, shared_token_count


def f1_scores(responses: pa.ChunkedArray | pa.Array, ground_truths: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The F1 of each response against the ground truth on its row (float64, one per row; no nulls)."""
    r_offsets, r_data = string_buffers(responses)
    t_offsets, t_data = string_buffers(ground_truths)
    every_row = np.arange(len(r_offsets) - 1)
    present = code_points_in_rows(r_offsets, r_data, every_row) | code_points_in_rows(t_offsets, t_data, every_row)
    points = read_only(np.flatnonzero(present).astype(np.int64))
    predicted, reference, shared, flagged = kernel.answer_token_counts(
        r_offsets, r_data, t_offsets, t_data, points, kernel.code_point_table(points), kernel.ASCII_TABLE
    )
    flagged_rows = np.flatnonzero(flagged)
    if flagged_rows.size:
        predicted, reference, shared = predicted.copy(), reference.copy(), shared.copy()
        picks = pa.array(flagged_rows)
        pairs = zip(pc.take(responses, picks).to_pylist(), pc.take(ground_truths, picks).to_pylist())
        for row, (response, truth) in zip(flagged_rows, pairs):
            predicted[row], reference[row], shared[row] = shared_token_count(response, truth)
    return f1_from_counts(shared, predicted, reference)
