"""The python build of :func:`retrieval_eval.kernels.core.judged_ranks.rank_judged_documents`, in whole-array numpy.

The kernel works a query at a time, a document at a time: fast compiled, slow interpreted. This
build gives the same arrays to the bit in a few sorts over every document at once. The id keys
of the run and of the judgments get dense codes together; repeated documents collapse in one
sort by (query, code), confirmed on the bytes (a hash collision redoes it on exact codes of the
bytes); the judged documents are found by one search of the judgments' (group, code) pairs,
confirmed on the bytes; and one sort by (query, score, tie) ranks every distinct document, the
descending-id order of ties taking exact ranks of the bytes of only the documents that tie.
"""

from __future__ import annotations

import numpy as np

from .bundles import JoinRule, JudgmentArrays, RunArrays
from .duplicate_policy import KEEP_LAST, KEEP_MAX, RAISE
from .tiebreak import TIES_ASCENDING_KEY, TIES_DOCID_DESCENDING

_WORD = 7  # bytes of an id compared per sorting step, with their count in the low byte of a uint64


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Each value's rank among the distinct values (equal values, equal codes), and how many there are."""
    distinct, codes = np.unique(values, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), distinct.shape[0]


def byte_ranks(offsets: np.ndarray, data: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows``, the rank of its id's bytes among theirs (int64 below ``rows.shape[0]``).

    Equal ids get equal ranks, and ascending ranks are ascending ids as
    :func:`retrieval_eval.kernels.core.tiebreak.compare_ids` orders strings: unsigned bytes, a prefix
    first. A rank is the position where its group of equal ids starts in that order. The groups
    are split 7 bytes at a time, each step sorting only the rows still tied on a uint64 of the
    7 bytes (big-endian, zeros past an id's end) and, in its low byte, how many of them the id
    has (8 when it goes on): among equal bytes a shorter id is a prefix of a longer one, and
    goes first. Rows that end within a step's bytes and still tie are equal.
    """
    starts = offsets[rows]
    lengths = offsets[rows + 1] - starts
    padded = np.concatenate((data, np.zeros(1, dtype=np.uint8)))  # the end of the last id can be read
    n = rows.shape[0]
    ranks = np.zeros(n, dtype=np.int64)
    tied = np.arange(n) if n > 1 else np.empty(0, dtype=np.int64)
    position = 0
    while tied.shape[0]:
        tied_lengths = lengths[tied]
        key = np.minimum(tied_lengths - position, _WORD + 1).astype(np.uint64)
        for j in range(_WORD):
            # Past its end a row reads its end (a byte of the next id, or the pad) and zeroes it.
            byte = padded[starts[tied] + np.minimum(position + j, tied_lengths)].astype(np.uint64)
            byte[tied_lengths <= position + j] = 0
            key |= byte << np.uint64(8 * (_WORD - j))
        codes, n_codes = dense_codes(key)
        # One sort by (group, key); rows of equal pairs stay tied, so their order among themselves is free.
        pairs = ranks[tied] * n_codes + codes
        order = np.argsort(pairs)
        tied, pairs = tied[order], pairs[order]
        group = ranks[tied]
        steps = np.arange(tied.shape[0])
        new_group = np.ones(tied.shape[0], dtype=np.bool_)
        new_group[1:] = group[1:] != group[:-1]
        new_split = np.ones(tied.shape[0], dtype=np.bool_)
        new_split[1:] = pairs[1:] != pairs[:-1]
        # A split of a group starts where the group starts plus the rows of the splits before it.
        ranks[tied] = group + np.maximum.accumulate(np.where(new_split, steps, 0)) - np.maximum.accumulate(
            np.where(new_group, steps, 0)
        )
        split = np.cumsum(new_split) - 1
        position += _WORD
        # The rows of a split agree on whether they go on past this step's bytes.
        tied = tied[(np.bincount(split)[split] > 1) & (lengths[tied] > position)]
    return ranks


def decimal_ranks(values: np.ndarray) -> np.ndarray:
    """The rank of each int64's decimal text among theirs, as trec_eval orders integer ids (9 after 10)."""
    # A sign and 19 digits at most; no NUL bytes, so numpy's order of the texts is strcmp's.
    return dense_codes(values.astype("S21"))[0]


def same_bytes_pairs(
    offsets_a: np.ndarray, data_a: np.ndarray, rows_a: np.ndarray, offsets_b: np.ndarray, data_b: np.ndarray, rows_b: np.ndarray
) -> np.ndarray:
    """For each pair ``(rows_a[i], rows_b[i])``, whether the two rows hold the same bytes."""
    start_a = offsets_a[rows_a]
    start_b = offsets_b[rows_b]
    length = offsets_a[rows_a + 1] - start_a
    same = length == offsets_b[rows_b + 1] - start_b
    pairs = np.flatnonzero(same & (length > 0))
    pair_lengths = length[pairs]
    pair_of_byte = np.repeat(pairs, pair_lengths)
    within = np.arange(pair_of_byte.shape[0]) - np.repeat(np.cumsum(pair_lengths) - pair_lengths, pair_lengths)
    differ = data_a[start_a[pair_of_byte] + within] != data_b[start_b[pair_of_byte] + within]
    same[pair_of_byte[differ]] = False
    return same


def judgment_slots(
    rows: np.ndarray,
    targets: np.ndarray,
    judged_targets: np.ndarray,
    judged_slots: np.ndarray,
    judged_rows: np.ndarray,
    run_offsets: np.ndarray,
    run_data: np.ndarray,
    qrels_offsets: np.ndarray,
    qrels_data: np.ndarray,
    is_string: bool,
) -> np.ndarray:
    """For each run row ``rows[i]`` looked up as ``targets[i]`` (-1: no judgments), its slot in the judgment index, or -1.

    ``judged_targets`` (ascending) are the (group, key code) pairs of the index's slots
    ``judged_slots``, as one int64 each. As :func:`retrieval_eval.kernels.core.ranking.find_judgment`
    finds a slot: the first of the query's slots with an equal key, and for strings equal bytes
    too (more than one slot to try only on a hash collision).
    """
    slots = np.full(rows.shape[0], -1, dtype=np.int64)
    at = np.searchsorted(judged_targets, targets)
    pending = np.flatnonzero(targets >= 0)
    while pending.shape[0]:
        pending = pending[at[pending] < judged_targets.shape[0]]
        pending = pending[judged_targets[at[pending]] == targets[pending]]
        if not is_string:
            slots[pending] = judged_slots[at[pending]]
            break
        candidates = judged_slots[at[pending]]
        same = same_bytes_pairs(run_offsets, run_data, rows[pending], qrels_offsets, qrels_data, judged_rows[candidates])
        slots[pending[same]] = candidates[same]
        pending = pending[~same]
        at[pending] += 1
    return slots


def distinct_documents(query: np.ndarray, codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blocks of equal (query, code) among rows 0..n-1, in order of (query, code).

    Returns ``(by_code, block_starts, first_index)``: the rows sorted, where each block starts,
    and each block's first row. Within a block the rows are in no order (the sort is not
    stable): callers choose occurrences by row.
    """
    by_code = np.argsort(query * n_codes + codes)
    pair = query[by_code] * n_codes + codes[by_code]
    first = np.ones(by_code.shape[0], dtype=np.bool_)
    first[1:] = pair[1:] != pair[:-1]
    block_starts = np.flatnonzero(first)
    return by_code, block_starts, np.minimum.reduceat(by_code, block_starts)


def collapse_duplicates(
    query: np.ndarray,
    rows: np.ndarray,
    codes: np.ndarray,
    n_codes: int,
    offsets: np.ndarray,
    data: np.ndarray,
    is_string: bool,
    values: np.ndarray,
    policy: int,
    n_queries: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``rows`` (by query ``query``, in input order within it) collapsed to distinct documents.

    ``codes`` are dense codes of the rows' id keys (``n_codes`` of them). Returns
    ``(first_index, kept, duplicate_rows)``: for each distinct document, in order of (query,
    code), the position of its first occurrence; the value ``policy`` keeps of ``values`` (that
    of the first occurrence, the last one or the first greatest, as
    :func:`retrieval_eval.kernels.core.judgments.resolve_duplicates` keeps it); and per query the
    first repeated row under RAISE, else -1. For strings, equal keys must be equal bytes: a
    block whose ids differ (a hash collision) redoes every block on exact ranks of the bytes.
    """
    n = rows.shape[0]
    duplicate_rows = np.full(n_queries, -1, dtype=np.int64)
    by_code, block_starts, first_index = distinct_documents(query, codes, n_codes)
    if is_string:
        block = np.repeat(np.arange(block_starts.shape[0]), np.diff(np.append(block_starts, n)))
        repeats = np.flatnonzero(by_code != first_index[block])
        repeated_rows, first_rows = rows[by_code[repeats]], rows[first_index[block[repeats]]]
        if not same_bytes_pairs(offsets, data, repeated_rows, offsets, data, first_rows).all():
            by_code, block_starts, first_index = distinct_documents(query, byte_ranks(offsets, data, rows), n)
    if policy == KEEP_LAST:
        chosen = np.maximum.reduceat(by_code, block_starts)
    elif policy == KEEP_MAX:
        # The first occurrence of the greatest value: the kernel replaces its choice only by a greater one.
        block_values = values[rows[by_code]]
        greatest = np.maximum.reduceat(block_values, block_starts)
        attains = block_values == np.repeat(greatest, np.diff(np.append(block_starts, n)))
        chosen = np.minimum.reduceat(np.where(attains, by_code, n), block_starts)
    else:
        chosen = first_index
    if policy == RAISE:
        repeated = np.ones(n, dtype=np.bool_)
        repeated[first_index] = False
        repeats = np.flatnonzero(repeated)  # in input order: the earliest of a query first
        repeat_query = query[repeats]
        earliest = np.flatnonzero(np.append(True, repeat_query[1:] != repeat_query[:-1])) if repeats.shape[0] else repeats
        duplicate_rows[repeat_query[earliest]] = rows[repeats[earliest]]
    return first_index, values[rows[chosen]], duplicate_rows


def rank_distinct_documents(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every run query's distinct documents in rank order, with their judgments (the join kernels' arguments).

    Returns ``(n_ranked, duplicate_rows, ranked_query, ranked_primary, ranked_group, slots, scores)``:
    per query as the join kernels return them, then for every distinct document, by query and in
    rank order, its query, its code of (query, score), its code of the tie key's group (equal codes
    of both: documents neither ranks above the other), its slot in the judgment index (or -1) and
    the score the duplicate policy kept.
    Equal ``rule.tie_keys`` (``TIES_ASCENDING_KEY``) are one group: any dtype whose order is the tie order.
    """
    run_group_offsets, run_order, run_keys, run_offsets, run_data, scores = run
    judged_group_offsets, judged_rows, judged_keys, _, n_judged, qrels_offsets, qrels_data = judgments
    duplicate_policy, tie_order, tie_keys, is_string = rule
    n_queries = run_group_offsets.shape[0] - 1
    n_ranked = np.zeros(n_queries, dtype=np.int64)
    duplicate_rows = np.full(n_queries, -1, dtype=np.int64)
    # Position i of the run's rows in query order (input order within a query), and its query.
    positions = np.arange(run_group_offsets[0], run_group_offsets[-1])
    n = positions.shape[0]
    if n == 0:
        none = np.empty(0, dtype=np.int64)
        return n_ranked, duplicate_rows, none, none, none, none, np.empty(0, dtype=np.float64)
    query = np.repeat(np.arange(n_queries), np.diff(run_group_offsets))
    rows = run_order[positions]
    # The index's slots past each group's count are padding.
    judged_group = np.repeat(np.arange(n_judged.shape[0]), n_judged)
    judged_slots = judged_group_offsets[judged_group] + (
        np.arange(judged_group.shape[0]) - np.repeat(np.cumsum(n_judged) - n_judged, n_judged)
    )
    codes, n_codes = dense_codes(np.concatenate((run_keys[rows], judged_keys[judged_slots])))
    run_codes = codes[:n]

    first_index, kept, duplicate_rows[:] = collapse_duplicates(
        query, rows, run_codes, n_codes, run_offsets, run_data, is_string, scores, duplicate_policy, n_queries
    )
    doc_rows = rows[first_index]
    doc_query = query[first_index]
    n_ranked[:] = np.bincount(doc_query, minlength=n_queries)

    # Every distinct document in rank order: score descending, then the tie order (whose codes tell
    # apart the documents of a query), by one sort of (query and score code, tie code).
    score_codes, n_scores = dense_codes(-kept)  # -0.0 and 0.0 are one score, as the kernel compares them
    primary = dense_codes(doc_query * n_scores + score_codes)[0]
    m = primary.shape[0]
    if tie_order == TIES_DOCID_DESCENDING:
        # Ids are ordered only where they tie on score; an untied document's code is never compared.
        tied = np.flatnonzero(np.bincount(primary)[primary] > 1)
        if is_string:
            id_ranks = byte_ranks(run_offsets, run_data, doc_rows[tied])
        else:
            id_ranks = decimal_ranks(run_keys[doc_rows[tied]].view(np.int64))
        tie = np.zeros(m, dtype=np.int64)
        tie[tied] = (m - 1) - id_ranks
        tie_group = tie
    elif tie_order == TIES_ASCENDING_KEY:
        # Equal tie keys in order of first occurrence, yet one group: the kernel ranks neither above the other.
        tie_group = dense_codes(tie_keys[doc_rows])[0]
        tie = dense_codes(tie_group * n + first_index)[0]
    else:
        tie = tie_group = first_index
    ranking = np.argsort(primary * n + tie)
    ranked_query = doc_query[ranking]
    groups = group_of_query[ranked_query]
    targets = np.where(groups >= 0, groups * n_codes + run_codes[first_index[ranking]], -1)
    judged_targets = judged_group * n_codes + codes[n:]
    slots = judgment_slots(
        doc_rows[ranking], targets, judged_targets, judged_slots, judged_rows, run_offsets, run_data,
        qrels_offsets, qrels_data, is_string,
    )
    return n_ranked, duplicate_rows, ranked_query, primary[ranking], tie_group[ranking], slots, kept[ranking]


def numpy_rank_judged_documents(
    run: RunArrays, judgments: JudgmentArrays, group_of_query: np.ndarray, rule: JoinRule
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~retrieval_eval.kernels.core.judged_ranks.rank_judged_documents` (same arguments, same outputs)."""
    n_queries = run.group_offsets.shape[0] - 1
    total = run.order.shape[0]
    ranks = np.zeros(total, dtype=np.int64)
    labels = np.zeros(total, dtype=judgments.labels.dtype)
    n_found = np.zeros(n_queries, dtype=np.int64)
    n_ranked, duplicate_rows, ranked_query, ranked_primary, ranked_group, slots, _ = rank_distinct_documents(
        run, judgments, group_of_query, rule
    )
    m = ranked_query.shape[0]
    if m == 0:
        return ranks, labels, n_found, n_ranked, duplicate_rows
    # A document's rank counts the documents above it and those it does not precede (equal tie keys), as
    # the kernel's binary search does: the end of its group of equal (query, score, tie), less the query's start.
    group_ends = np.ones(m, dtype=np.bool_)
    group_ends[:-1] = (ranked_primary[1:] != ranked_primary[:-1]) | (ranked_group[1:] != ranked_group[:-1])
    ends = np.flatnonzero(group_ends)
    last_of_group = ends[np.cumsum(np.append(True, group_ends[:-1])) - 1]
    query_starts = np.cumsum(n_ranked) - n_ranked
    rank = last_of_group - query_starts[ranked_query]
    found = np.flatnonzero(slots >= 0)
    found_query = ranked_query[found]
    n_found[:] = np.bincount(found_query, minlength=n_queries)
    within = np.arange(found.shape[0]) - (np.cumsum(n_found) - n_found)[found_query]
    out = run.group_offsets[found_query] + within
    ranks[out] = rank[found]
    labels[out] = judgments.labels[slots[found]]
    return ranks, labels, n_found, n_ranked, duplicate_rows
