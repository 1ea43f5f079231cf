"""Where a run ranks each judged document of the preference measures.

trec_eval's preference measures sort a query's retrieved documents by score descending and equal
scores by docno *ascending* (form_prefs_counts.c, ``comp_sim_docno``: ``strcmp(p1->docno,
p2->docno)``), the reverse of the order its other measures use. Each judged document of the
query (see :mod:`retrieval_eval.kernels.trec.prefs_index`) gets its 0-based rank in that order, or -1
when the run did not retrieve it; cutting at ``max_docs`` is left to the measures.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from ..core.bundles import PreferenceLookup, RunArrays
from ..core.duplicate_policy import KEEP_LAST
from ..core.judgments import resolve_duplicates
from ..core.ranking import find_judgment
from ..core.sorting import stable_order
from ..core.tiebreak import TIES_INPUT_ORDER
from .prefs_index import order_by_id

#: Among equal scores, ascending document id (trec_eval's preference measures).
TIES_DOCID_ASCENDING = 2


@jit
def _rank_query(
    q: int,
    run: RunArrays,
    duplicate_policy: int,
    tie_order: int,
    qrels_of_run: np.ndarray,
    lookup: PreferenceLookup,
    is_string: bool,
    doc_rank: np.ndarray,
    duplicate_rows: np.ndarray,
) -> None:
    rows = run.order[run.group_offsets[q] : run.group_offsets[q + 1]]
    first_rows, kept, duplicate_rows[q] = resolve_duplicates(
        rows, run.keys, run.offsets, run.data, is_string, run.scores, duplicate_policy
    )
    c = qrels_of_run[q]
    if c < 0:
        return
    m = first_rows.shape[0]
    if tie_order == TIES_INPUT_ORDER:
        ranking = stable_order(kept, True)
    else:
        # A stable sort by score of the documents in ascending id order leaves equal scores in that order.
        by_id = order_by_id(first_rows, run.keys, run.offsets, run.data, is_string)
        by_score = stable_order(kept[by_id], True)
        ranking = np.empty(m, dtype=np.int64)
        for r in range(m):
            ranking[r] = by_id[by_score[r]]
    base = lookup.entry_offsets[c]
    judged_rows = lookup.rows[base : base + lookup.n_docs[c]]
    judged_keys = lookup.keys[base : base + lookup.n_docs[c]]
    for r in range(m):
        hit = find_judgment(
            first_rows[ranking[r]], run.keys, run.offsets, run.data, judged_rows, judged_keys, lookup.offsets, lookup.data,
            is_string,
        )
        if hit >= 0:
            doc_rank[base + lookup.doc[base + hit]] = r


def _example() -> tuple:
    """One query retrieving integer documents 1 and 2 with equal scores, both judged."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    run = RunArrays(
        read_only([0, 2], np.int64), read_only([0, 1], np.int64), read_only([1, 2], np.uint64), no_offsets, no_bytes,
        read_only([1.0, 1.0], np.float64),
    )
    lookup = PreferenceLookup(
        read_only([0, 2], np.int64), read_only([2], np.int64), read_only([0, 1], np.int64), read_only([1, 2], np.uint64),
        read_only([0, 1], np.int64), no_offsets, no_bytes,
    )
    # The run's queries among the judged ones: computed per run, writable.
    return run, KEEP_LAST, TIES_DOCID_ASCENDING, np.zeros(1, dtype=np.int64), lookup, False


@parallel_jit(example=_example)
def rank_preference_documents(
    run: RunArrays, duplicate_policy: int, tie_order: int, qrels_of_run: np.ndarray, lookup: PreferenceLookup, is_string: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The rank of every judged document of the preference measures in the run.

    Run query q's distinct documents (a repeated one takes the score ``duplicate_policy`` keeps)
    are ranked by score descending, equal scores by ascending id (``TIES_DOCID_ASCENDING``) or in
    input order (``TIES_INPUT_ORDER``). ``qrels_of_run[q]`` is q's query in the judgment index of
    :func:`~retrieval_eval.kernels.trec.prefs_index.index_preference_judgments` (-1: none), whose
    documents ``lookup`` gives by key. Returns ``doc_rank``, padded CSR over ``lookup.entry_offsets``
    like the index's ``doc_rows``: the 0-based rank
    of each judged document, -1 when not retrieved; and per run query ``duplicate_rows`` (its
    first repeated row under RAISE, else -1).
    """
    n_run_queries = run.group_offsets.shape[0] - 1
    doc_rank = np.full(lookup.entry_offsets[lookup.entry_offsets.shape[0] - 1], -1, dtype=np.int64)
    duplicate_rows = np.empty(n_run_queries, dtype=np.int64)
    for q in prange(n_run_queries):
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        _rank_query(np.int64(q), run, duplicate_policy, tie_order, qrels_of_run, lookup, is_string, doc_rank, duplicate_rows)
    return doc_rank, duplicate_rows
