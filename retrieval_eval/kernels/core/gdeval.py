"""gdeval's nDCG@k and ERR@k (TREC Web track's gdeval.pl 1.3) over all queries at once, with numpy.

For one query, with the run's documents ranked (score descending, equal scores by descending
document id), ``g_i`` the label of the document at rank i (1-based; 0 when unjudged or judged
<= 0) and ``n`` the ranked documents:

- DCG@k = sum_{i <= min(k, n)} (2^g_i - 1) / (ln(i + 1) / ln 2), one addition after the other
  from 0 (gdeval's ``dcg``; the discount is computed as gdeval computes it, a natural log
  divided by ln 2);
- nDCG@k = DCG@k / IDCG@k, IDCG@k the DCG@k of the query's positive labels sorted descending;
- ERR@k = sum_{i <= min(k, n)} R_i / i * prod_{j < i} (1 - R_j), R_i = (2^g_i - 1) / 2^4
  (gdeval's ``err``, its maximum grade 4), summed and multiplied in gdeval's order.

Each query is a row of a padded matrix whose running sums and products along the row
(``np.cumsum``, ``np.cumprod``) take one operation after the other, as gdeval's loop does; the
padding adds 0.0 or multiplies by 1.0, which changes nothing. The values are gdeval's to the bit.
A query without a positive label (gdeval skips it) is NaN; a judged query the run lacks is 0
(gdeval's ``-c``).
"""

from __future__ import annotations

import math

import numpy as np

from .bundles import IdealArrays, QueryPairs, RankedArrays
from .segments import gather, running, segments, two_to

#: gdeval's maximum grade ($MAX_JUDGMENT): ERR's stopping probability is (2^g - 1) / 2^4.
MAX_GRADE = 4
NDCG, ERR = 0, 1
N_COLUMNS = 2


def log2_discounts(depth: int) -> np.ndarray:
    """gdeval's discounts ln(i + 2) / ln 2 for the 0-based ranks i < ``depth`` (C's log, as Perl's)."""
    base = math.log(2.0)
    return np.array([math.log(i + 2) / base for i in range(depth)], dtype=np.float64)


def gdeval_measures(
    queries: QueryPairs, ranked: RankedArrays, ideal_lists: IdealArrays, k: int, discounts: np.ndarray
) -> np.ndarray:
    """nDCG@k and ERR@k (columns :data:`NDCG`, :data:`ERR`) of each query: float64 ``(n_queries, 2)``.

    ``ranked``: the run's documents ranked and labelled (labels at most :data:`MAX_GRADE`);
    ``ideal_lists``: each qrels query's labels sorted descending; ``discounts``: at least
    min(k, longest ranking or judgment list) entries of :func:`log2_discounts`.
    """
    run_query, qrels_query = queries
    n_queries = run_query.shape[0]
    n = np.minimum(k, gather(ranked.n_ranked, run_query, 0))
    q_of, i_of, starts = segments(gather(ranked.offsets, run_query, 0), n)
    gains = two_to(np.maximum(ranked.labels[starts + i_of], 0)) - 1.0
    width = int(n.max(initial=0))
    dcg = running(q_of, i_of, gains / discounts[i_of], n_queries, width)[:, -1]

    stop = gains / float(2**MAX_GRADE)
    keep_on = np.ones((n_queries, width + 1), dtype=np.float64)
    keep_on[q_of, i_of + 1] = 1.0 - stop
    # decay before rank i: the product of (1 - R_j) over j < i, from 1.0 (column 0).
    decay = np.cumprod(keep_on, axis=1)[q_of, i_of]
    err = running(q_of, i_of, stop * decay / (i_of + 1), n_queries, width)[:, -1]

    m = np.minimum(k, gather(ideal_lists.n_judged, qrels_query, 0))
    g_of, j_of, ideal_starts = segments(gather(ideal_lists.offsets, qrels_query, 0), m)
    ideal_gains = two_to(np.maximum(ideal_lists.labels[ideal_starts + j_of], 0)) - 1.0
    idcg = running(g_of, j_of, ideal_gains / discounts[j_of], n_queries, int(m.max(initial=0)))[:, -1]

    out = np.full((n_queries, N_COLUMNS), np.nan)
    # A query with a positive label has IDCG > 0 (its best label is the first of its list, k >= 1).
    seen = idcg > 0.0
    out[seen, NDCG] = dcg[seen] / idcg[seen]
    out[seen, ERR] = err[seen]
    return out
