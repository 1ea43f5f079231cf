"""trec_eval's measures over judgment groups (``-R qrels_jg``): map_avgjg, P_avgjg, Rprec_mult_avgjg.

A query judged by several groups (assessors) is scored against each group's judgments on its own,
then the scores are averaged over the groups, in the order of their names (form_res_rels_jg.c,
m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c). For one group, as form_res_rels_jg.c builds it:

- the run's documents are ranked by score descending, equal scores by descending document id,
  cut at ``depth`` (``-M``); each ranked document's value is the group's label when the group
  judges it with a label >= 0, else a negative value (not judged, or judged with a negative
  label). With ``judged_only`` (``-J``) the documents without a label >= 0 are dropped and those
  below move up. ``num_ret`` is the length of that list, ``num_rel_ret`` its documents with
  value >= ``rel_level`` and ``num_rel`` the group's judged documents with label >= ``rel_level``;
- average precision: sum over relevant ranks i (1-based) of rel_so_far / i, / num_rel (0 when
  none is retrieved);
- precision at cutoff c: relevant documents in the top c / c (the rest of the top c counts as
  non-relevant when fewer were retrieved);
- precision at mult * R: cutoff c = (long)(mult * num_rel + 0.9); relevant documents in the top
  c / c when c <= num_ret, num_rel_ret / c beyond; 0 when c < 1.

The query's value is the sum of the groups' values in group order, divided by the number of
groups when there are more than one: trec_eval's doubles, added in its order.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only
from ..core.bundles import JoinRule, JudgmentArrays, QueryPairs, RunArrays
from ..core.duplicate_policy import KEEP_LAST
from ..core.judgments import resolve_duplicates
from ..core.ranking import judgment_positions
from ..core.sorting import stable_order
from ..core.tiebreak import TIES_DOCID_DESCENDING, order_ties_by_id_descending

NOT_JUDGED = -1  # trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED both rank as a document without a label >= 0


@jit
def group_values(
    ranking: np.ndarray, slots: np.ndarray, judged_labels: np.ndarray, depth: int, judged_only: bool
) -> np.ndarray:
    """One group's value of each ranked document (its label, or NOT_JUDGED), in rank order, down to ``depth``.

    ``slots[d]``: document d's slot in the group's judgments (-1 when not judged there).
    """
    m = min(ranking.shape[0], depth)
    values = np.empty(m, dtype=np.int64)
    n = 0
    for j in range(m):
        slot = slots[ranking[j]]
        value = judged_labels[slot] if slot >= 0 else NOT_JUDGED
        if value < 0:
            value = NOT_JUDGED
        if value >= 0 or not judged_only:
            values[n] = value
            n += 1
    return values[:n]


@jit
def average_precision(values: np.ndarray, num_rel: int, rel_level: int) -> float:
    """m_map_avgjg.c for one group: sum of precision at each relevant rank / num_rel (0 when none retrieved)."""
    rel_so_far = 0
    total = 0.0
    for i in range(values.shape[0]):
        if values[i] >= rel_level:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total / num_rel if rel_so_far else 0.0


@jit
def add_precisions(values: np.ndarray, cutoffs: np.ndarray, rel_level: int, out: np.ndarray) -> None:
    """m_P_avgjg.c for one group: adds relevant-in-top-c / c to ``out[j]`` for each cutoff c = ``cutoffs[j]``."""
    relevant_above = _relevant_above(values, rel_level)
    n = values.shape[0]
    for j in range(cutoffs.shape[0]):
        c = cutoffs[j]
        out[j] += relevant_above[min(c, n)] / c


@jit
def add_precisions_at_multiples(
    values: np.ndarray, num_rel: int, multiples: np.ndarray, rel_level: int, out: np.ndarray
) -> None:
    """m_Rprec_mult_avgjg.c for one group: adds precision at cutoff (long)(mult * num_rel + 0.9) to ``out[j]``.

    trec_eval walks the ranking upwards from its last document and adds, at each cutoff it meets,
    relevant-so-far / cutoff, stopping once no relevant document is left above; a cutoff past the
    ranking gets num_rel_ret / cutoff. The same doubles, one cutoff at a time.
    """
    relevant_above = _relevant_above(values, rel_level)
    n = values.shape[0]
    for j in range(multiples.shape[0]):
        c = int(multiples[j] * num_rel + 0.9)
        if c > n:
            out[j] += relevant_above[n] / c
        elif c >= 1 and relevant_above[c] > 0:
            out[j] += relevant_above[c] / c


@jit
def _relevant_above(values: np.ndarray, rel_level: int) -> np.ndarray:
    """counts[i]: documents with value >= rel_level among the first i."""
    counts = np.zeros(values.shape[0] + 1, dtype=np.int64)
    for i in range(values.shape[0]):
        counts[i + 1] = counts[i] + (1 if values[i] >= rel_level else 0)
    return counts


@jit
def _ranking(q: int, run: RunArrays, rule: JoinRule) -> tuple[np.ndarray, np.ndarray, int]:
    """Run query q's distinct documents (their first rows) and their order by score (the ranking), and q's first repeated row."""
    rows = run.order[run.group_offsets[q] : run.group_offsets[q + 1]]
    first_rows, kept, duplicate_row = resolve_duplicates(
        rows, run.keys, run.offsets, run.data, rule.is_string, run.scores, rule.duplicate_policy
    )
    ranking = stable_order(kept, True)
    if rule.tie_order == TIES_DOCID_DESCENDING:
        order_ties_by_id_descending(ranking, kept, first_rows, run.keys, run.offsets, run.data, rule.is_string)
    return first_rows, ranking, duplicate_row


@jit
def _query_measures(
    e: int,
    queries: QueryPairs,
    run: RunArrays,
    query_segments: np.ndarray,
    groups: JudgmentArrays,
    rule: JoinRule,
    rel_level: int,
    depth: int,
    judged_only: bool,
    cutoffs: np.ndarray,
    multiples: np.ndarray,
    average: np.ndarray,
    precision: np.ndarray,
    at_multiples: np.ndarray,
    duplicate_rows: np.ndarray,
) -> None:
    """Evaluated query e's slots of the outputs (see :func:`judgment_group_measures`)."""
    if queries.run_query[e] >= 0:
        first_rows, ranking, duplicate_rows[e] = _ranking(queries.run_query[e], run, rule)
    else:  # a judged query the run lacks (trec_eval -c): nothing retrieved
        first_rows = np.empty(0, dtype=np.int64)
        ranking = np.empty(0, dtype=np.int64)
    q = queries.qrels_query[e]
    if q < 0:
        return  # not judged: no group to average over
    n_groups = query_segments[q + 1] - query_segments[q]
    for s in range(query_segments[q], query_segments[q + 1]):
        slots = judgment_positions(
            first_rows, run.keys, run.offsets, run.data, s, groups.group_offsets, groups.rows, groups.keys,
            groups.n_judged, groups.offsets, groups.data, rule.is_string,
        )
        values = group_values(ranking, slots, groups.labels, depth, judged_only)
        num_rel = 0
        for slot in range(groups.group_offsets[s], groups.group_offsets[s] + groups.n_judged[s]):
            if groups.labels[slot] >= 0 and groups.labels[slot] >= rel_level:
                num_rel += 1
        average[e] += average_precision(values, num_rel, rel_level)
        add_precisions(values, cutoffs, rel_level, precision[e])
        add_precisions_at_multiples(values, num_rel, multiples, rel_level, at_multiples[e])
    if n_groups > 1:
        average[e] /= n_groups
        for j in range(cutoffs.shape[0]):
            precision[e, j] /= n_groups
        for j in range(multiples.shape[0]):
            at_multiples[e, j] /= n_groups


def _example() -> tuple:
    """One evaluated query retrieving integer documents 1 and 2, judged by one group (document 1, label 1)."""
    no_offsets, no_bytes = read_only([0], np.int64), read_only([], np.uint8)
    run = RunArrays(read_only([0, 2], np.int64), read_only([0, 1], np.int64), read_only([1, 2], np.uint64), no_offsets,
                    no_bytes, read_only([2.0, 1.0], np.float64))
    groups = JudgmentArrays(read_only([0, 1], np.int64), read_only([0], np.int64), read_only([1], np.uint64),
                            read_only([1], np.int64), read_only([1], np.int64), no_offsets, no_bytes)
    alignment = np.zeros(1, dtype=np.int64)  # computed per run, as the cutoffs and multiples: writable
    rule = JoinRule(KEEP_LAST, TIES_DOCID_DESCENDING, read_only([], np.int64), False)
    return (QueryPairs(alignment, alignment), run, read_only([0, 1], np.int64), groups, rule, 1,
            np.iinfo(np.int64).max, False, np.array([5], dtype=np.int64), np.array([1.0], dtype=np.float64))


def _work(queries: QueryPairs, run: RunArrays, query_segments: np.ndarray, groups: JudgmentArrays, *rest: object) -> int:
    """A call's rows: the run's rows and the judgments'."""
    return run.order.shape[0] + groups.rows.shape[0]


@parallel_jit(example=_example, work=_work)
def judgment_group_measures(
    queries: QueryPairs,
    run: RunArrays,
    query_segments: np.ndarray,
    groups: JudgmentArrays,
    rule: JoinRule,
    rel_level: int,
    depth: int,
    judged_only: bool,
    cutoffs: np.ndarray,
    multiples: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """map_avgjg, P_avgjg at ``cutoffs`` and Rprec_mult_avgjg at ``multiples`` for each evaluated query.

    Evaluated query e is run query ``queries.run_query[e]`` and judged query
    ``queries.qrels_query[e]`` (-1 when absent); ``run``: the run's rows grouped by query. Judged
    query q's groups are the segments ``query_segments[q] : query_segments[q + 1]``, and segment
    s's judgments are group s of ``groups`` (the segments of
    :class:`retrieval_eval.data.judgment_groups.JudgmentGroups`, with the qrels' id bytes). A
    document repeated in the run takes the score ``rule.duplicate_policy`` chooses;
    ``rule.tie_order`` orders equal scores (by descending id, trec_eval, or input order).

    Returns ``(average[e], precision[e, j], at_multiples[e, j], duplicate_rows[e])``, the last
    the query's first repeated run row under RAISE, else -1.
    """
    n = queries.run_query.shape[0]
    average = np.zeros(n, dtype=np.float64)
    precision = np.zeros((n, cutoffs.shape[0]), dtype=np.float64)
    at_multiples = np.zeros((n, multiples.shape[0]), dtype=np.float64)
    duplicate_rows = np.full(n, -1, dtype=np.int64)
    for e in prange(n):
        # As int64, the parallel build's unsigned loop index calls the serial build's specialization.
        _query_measures(
            np.int64(e), queries, run, query_segments, groups, rule, rel_level, depth, judged_only, cutoffs, multiples,
            average, precision, at_multiples, duplicate_rows,
        )
    return average, precision, at_multiples, duplicate_rows
