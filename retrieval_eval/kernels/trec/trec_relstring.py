"""trec_eval's relstring (m_relstring.c): the relevance of each of a query's top documents, one character each.

For the first min(length, n) ranked documents: the label when it is 0-9, ``>`` above 9, ``-`` for
a document the qrels do not list, ``.`` for one listed with a negative label (in the pool,
unjudged).
"""

from __future__ import annotations

import numpy as np

from .._config import jit, read_only


def _example() -> tuple:
    """One query that retrieved 2 documents, the first judged 1; strings of 10 characters."""
    return (
        np.zeros(1, dtype=np.int64), read_only([0, 2], np.int64), np.ones(1, dtype=np.int64),
        np.zeros(2, dtype=np.int64), np.array([1, 0], dtype=np.int64), np.full(1, 2, dtype=np.int64),
        np.iinfo(np.int64).max, 1, 10,
    )


@jit(example=_example)
def relevance_string_bytes(
    run_query: np.ndarray,
    found_offsets: np.ndarray,
    n_found: np.ndarray,
    found_ranks: np.ndarray,
    found_labels: np.ndarray,
    n_ranked: np.ndarray,
    max_docs: int,
    stand_in: int,
    length: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each evaluated query's relevance string as ASCII: ``(offsets, data)``, query q's at ``data[offsets[q]:offsets[q + 1]]``.

    The queries and their judged ranks as for :func:`retrieval_eval.kernels.trec.trec.trec_measures`;
    a query the run lacks has ``stand_in`` documents, none of them in the pool.
    """
    n_queries = run_query.shape[0]
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    for q in range(n_queries):
        rq = run_query[q]
        n = min(n_ranked[rq], max_docs) if rq >= 0 else stand_in
        offsets[q + 1] = offsets[q] + max(min(length, n), 0)
    data = np.full(offsets[n_queries], ord("-"), dtype=np.uint8)
    for q in range(n_queries):
        rq = run_query[q]
        if rq < 0:
            continue
        shown = offsets[q + 1] - offsets[q]
        base = found_offsets[rq]
        for t in range(n_found[rq]):
            rank = found_ranks[base + t]
            if rank >= shown:
                break
            label = found_labels[base + t]
            if label > 9:
                data[offsets[q] + rank] = ord(">")
            elif label >= 0:
                data[offsets[q] + rank] = ord("0") + label
            else:
                data[offsets[q] + rank] = ord(".")
    return offsets, data
