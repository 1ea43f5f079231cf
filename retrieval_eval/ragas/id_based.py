"""ragas' ID-based context precision and recall over many samples, column-wise.

Definitions (ragas 0.4.3, ``IDBasedContextPrecision`` and ``IDBasedContextRecall``). Every id is
compared as its text (``str(id)``: the integer 7 and the string ``"7"`` are one id) and each list
is taken as a set (a repeated id counts once). With R the set of a sample's retrieved context ids
and F the set of its reference context ids::

    precision = |R ∩ F| / |R|     (NaN when R is empty)
    recall    = |R ∩ F| / |F|     (NaN when F is empty)

both in [0, 1] (dimensionless), to the bit as ragas computes them (an int over an int).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.arrays import numpy_view
from ..io.context_rows import Lists


def id_based_context_precision_recall(retrieved: Lists, reference: Lists) -> tuple[np.ndarray, np.ndarray]:
    """(precision, recall) of every sample (float64 each, one per sample; NaN where ragas gives NaN)."""
    hits, distinct_retrieved, distinct_reference = id_overlap(retrieved, reference)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(distinct_retrieved > 0, hits / distinct_retrieved, np.nan)
        recall = np.where(distinct_reference > 0, hits / distinct_reference, np.nan)
    return precision, recall


def id_overlap(retrieved: Lists, reference: Lists) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sample: ids in both sets, distinct retrieved ids, distinct reference ids (int64 each)."""
    samples = len(retrieved)
    if len(reference) != samples:
        raise ValueError(f"{samples} samples of retrieved ids but {len(reference)} of reference ids")
    texts = pa.chunked_array([_as_text(retrieved.values), _as_text(reference.values)])
    codes = numpy_view(pc.dictionary_encode(texts).combine_chunks().indices).astype(np.int64)
    distinct = int(codes.max()) + 1 if codes.size else 1
    split = len(retrieved.values)
    # One key per (sample, id): sets within each sample are the distinct keys.
    retrieved_keys = np.unique(np.repeat(np.arange(samples), retrieved.lengths) * distinct + codes[:split])
    reference_keys = np.unique(np.repeat(np.arange(samples), reference.lengths) * distinct + codes[split:])
    shared = np.intersect1d(retrieved_keys, reference_keys, assume_unique=True)
    return (
        np.bincount(shared // distinct, minlength=samples),
        np.bincount(retrieved_keys // distinct, minlength=samples),
        np.bincount(reference_keys // distinct, minlength=samples),
    )


def _as_text(ids: pa.Array) -> pa.Array:
    """Ids as ragas compares them, ``str(id)``: int64 ids as their decimal text, text as it is."""
    return ids.cast(pa.large_string())
