"""trec_eval's ``-J``: rank only the judged documents (form_res_rels.c, ``judged_docs_only_flag``).

trec_eval first cuts each ranking at ``-M`` documents, then throws out every document the qrels
do not list or list with a negative label (unjudged in the pool); the judged ones keep their
order and move up, so the judged document that ranked j-th among them now has rank j and the
query retrieved as many documents as it has judged ones left.
"""

from __future__ import annotations

import numpy as np

from .._config import parallel_jit, prange, read_only


def _example() -> tuple:
    """One query that retrieved 3 documents: an unjudged one at rank 0, a judged one at rank 2."""
    return (
        read_only([0, 3], np.int64), np.full(1, 2, dtype=np.int64), np.array([0, 2, 0], dtype=np.int64),
        np.array([-1, 1, 0], dtype=np.int64), np.full(1, 3, dtype=np.int64), np.iinfo(np.int64).max,
    )


@parallel_jit(example=_example)
def judged_only(
    offsets: np.ndarray, n_found: np.ndarray, ranks: np.ndarray, labels: np.ndarray, n_ranked: np.ndarray, max_docs: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The judged ranks of :class:`~retrieval_eval.data.join.JudgedRanks` with only judged documents ranked.

    Run query r's judged documents are at 0-based ``ranks[offsets[r] + t]`` (ascending) with
    ``labels[...]``, t < ``n_found[r]``. Returns ``(ranks, labels, n_found, n_ranked)`` in the same
    layout: the documents among the top ``max_docs`` with a label >= 0, ranked 0, 1, ... in their
    order, and ``n_ranked`` = ``n_found`` = how many they are.
    """
    n_queries = n_found.shape[0]
    out_ranks = np.zeros(ranks.shape[0], dtype=np.int64)
    out_labels = np.zeros(labels.shape[0], dtype=labels.dtype)
    out_found = np.zeros(n_queries, dtype=np.int64)
    for r in prange(n_queries):
        base = offsets[r]
        kept = 0
        for t in range(n_found[r]):
            if ranks[base + t] >= min(n_ranked[r], max_docs):
                break
            if labels[base + t] >= 0:
                out_ranks[base + kept] = kept
                out_labels[base + kept] = labels[base + t]
                kept += 1
        out_found[r] = kept
    return out_ranks, out_labels, out_found, out_found.copy()
