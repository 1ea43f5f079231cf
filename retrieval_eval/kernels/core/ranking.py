"""The single join: rank each query's retrieved documents once and label each ranked document once."""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from .bundles import JoinRule, JudgmentArrays, RunArrays
from .duplicate_policy import KEEP_LAST
from .hashing import same_bytes
from .judgments import resolve_duplicates
from .ranking_numpy import numpy_rank_and_label
from .sorting import stable_order
from .tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING, order_ties_by_id_descending, order_ties_by_key


@jit
def find_judgment(
    row: int,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    judged_rows: np.ndarray,
    judged_keys: np.ndarray,
    qrels_offsets: np.ndarray,
    qrels_data: np.ndarray,
    is_string: bool,
) -> int:
    """Position of run row ``row``'s document among one query's judged documents (sorted by key), or -1."""
    key = run_keys[row]
    lo = 0
    hi = judged_keys.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if judged_keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    while lo < judged_keys.shape[0] and judged_keys[lo] == key:
        if not is_string or same_bytes(run_offsets, run_data, row, qrels_offsets, qrels_data, judged_rows[lo]):
            return lo
        lo += 1
    return -1


@jit
def judgment_positions(
    first_rows: np.ndarray,
    run_keys: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    group: int,
    judged_group_offsets: np.ndarray,
    judged_rows: np.ndarray,
    judged_keys: np.ndarray,
    n_judged: np.ndarray,
    qrels_offsets: np.ndarray,
    qrels_data: np.ndarray,
    is_string: bool,
) -> np.ndarray:
    """For each distinct document (its row in ``first_rows``), its slot in the judgment index, or -1.

    ``group`` is the query's group in the judgment index (-1: no judgments, every slot is -1).
    A slot indexes ``judged_labels`` and the other arrays of the index directly. Loose arrays,
    not bundles: the preference and judgment-group indexes have the same layout in other arrays.
    """
    m = first_rows.shape[0]
    slots = np.full(m, -1, dtype=np.int64)
    if group < 0:
        return slots
    start = judged_group_offsets[group]
    stop = start + n_judged[group]
    g_rows = judged_rows[start:stop]
    g_keys = judged_keys[start:stop]
    for d in range(m):
        hit = find_judgment(first_rows[d], run_keys, run_offsets, run_data, g_rows, g_keys, qrels_offsets, qrels_data, is_string)
        if hit >= 0:
            slots[d] = start + hit
    return slots


@jit
def query_documents(
    q: int, run: RunArrays, judgments: JudgmentArrays, group: int, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The prologue of every ranking join, for run query q (judged as group ``group`` of the index, -1: none).

    Returns ``(first_rows, kept, slots, duplicate_row)``: its distinct documents in order of first
    occurrence (the row of each), the score ``rule.duplicate_policy`` keeps for each, each one's
    slot in the judgment index (-1: unjudged), and its first repeated row under RAISE (else -1).
    """
    rows = run.order[run.group_offsets[q] : run.group_offsets[q + 1]]
    first_rows, kept, duplicate_row = resolve_duplicates(
        rows, run.keys, run.offsets, run.data, rule.is_string, run.scores, rule.duplicate_policy
    )
    slots = judgment_positions(
        first_rows, run.keys, run.offsets, run.data, group, judgments.group_offsets, judgments.rows, judgments.keys,
        judgments.n_judged, judgments.offsets, judgments.data, rule.is_string,
    )
    return first_rows, kept, slots, duplicate_row


def join_example() -> tuple:
    """The join kernels' arguments: one query retrieving integer documents 1 and 2, of which 1 is judged 1."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    run = RunArrays(
        read_only([0, 2], np.int64), read_only([0, 1], np.int64), read_only([1, 2], np.uint64), no_offsets, no_bytes,
        read_only([2.0, 1.0], np.float64),
    )
    judgments = JudgmentArrays(
        read_only([0, 1], np.int64), read_only([0], np.int64), read_only([1], np.uint64), read_only([1], np.int64),
        read_only([1], np.int64), no_offsets, no_bytes,
    )
    # The run's queries among the judged ones: computed per run, writable.
    return run, judgments, np.zeros(1, dtype=np.int64), JoinRule(KEEP_LAST, TIES_DOCID_DESCENDING, read_only([], np.int64), False)


@parallel_jit(example=join_example, python=numpy_rank_and_label)
def rank_and_label(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rank every run query's distinct documents by score and label them from the qrels.

    Ranking: score descending; equal scores keep input order (``TIES_INPUT_ORDER``: stable sort,
    a repeated document at the position of its first occurrence), go by descending document id
    (``TIES_DOCID_DESCENDING``, trec_eval) or by ascending ``rule.tie_keys`` of the rows of their
    first occurrences (``TIES_ASCENDING_KEY``; an int64 per run row, e.g. ranx's order from
    :func:`retrieval_eval.kernels.core.ranx_ties.ranx_tie_keys`). A repeated document takes the
    score chosen by ``rule.duplicate_policy``. ``group_of_query[q]`` is run query q's group in
    the judgment index, or -1 when q has no judgments. An unjudged document gets label 0.

    Returns padded CSR arrays over ``run.group_offsets``: ``ranked_labels`` and
    ``ranked_judged`` (bool) in rank order, then ``n_ranked`` per query and ``duplicate_rows``
    (first repeated row per query under the RAISE policy, else -1).
    """
    n_queries = run.group_offsets.shape[0] - 1
    total = run.order.shape[0]
    # Zeros, not garbage, in the padding past each query's count: outputs are the same bits on every run.
    ranked_labels = np.zeros(total, dtype=judgments.labels.dtype)
    ranked_judged = np.zeros(total, dtype=np.bool_)
    n_ranked = np.empty(n_queries, dtype=np.int64)
    duplicate_rows = np.empty(n_queries, dtype=np.int64)
    for q in prange(n_queries):
        base = run.group_offsets[q]
        # The parallel build's loop index is unsigned: as int64 it calls the same specialization as the serial one.
        first_rows, kept_scores, slots, duplicate_rows[q] = query_documents(np.int64(q), run, judgments, group_of_query[q], rule)
        ranking = stable_order(kept_scores, True)
        if rule.tie_order == TIES_DOCID_DESCENDING:
            order_ties_by_id_descending(ranking, kept_scores, first_rows, run.keys, run.offsets, run.data, rule.is_string)
        elif rule.tie_order == TIES_ASCENDING_KEY:
            order_ties_by_key(ranking, kept_scores, first_rows, rule.tie_keys)
        m = ranking.shape[0]
        n_ranked[q] = m
        for j in range(m):
            slot = slots[ranking[j]]
            ranked_labels[base + j] = judgments.labels[slot] if slot >= 0 else 0
            ranked_judged[base + j] = slot >= 0
    return ranked_labels, ranked_judged, n_ranked, duplicate_rows
