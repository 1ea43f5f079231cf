"""Plain-Python oracle for Azure's ``DocumentRetrievalEvaluator`` metrics, generalised to any cut-off ``k``.

Written from the team's specification of azure-ai-evaluation 1.18.10 (``shared/specs/azure-document-retrieval.md``
beside the repository) using only the standard library, independently of the ``retrieval_eval`` package. It evaluates one query.

Semantics copied from the SDK:

* Ground truth ``G = [(g_j, l_j)]``: a repeated id keeps the label of its *last* row.
* Retrieved ``R = [(d_i, s_i)]``: a repeated id keeps the position of its *first* row and the score of its *last*
  row. The ``n`` distinct ids are ranked by score, descending, with a stable sort (ties keep first-occurrence order).
* ``r_i`` is the label of the doc at rank ``i``; an unjudged doc has label ``0`` whatever the label range.
* ``i_1 >= i_2 >= ...`` are the labels of all distinct judged docs (retrieved or not), sorted descending.
* Branch 1, no retrieved rows: the five quality metrics, ``holes``, ``holes_ratio`` and ``holes@k`` are 0.
* Branch 2, every ``r_i == 0``: the five quality metrics are 0; the hole counts are computed normally.
* Branch 3, otherwise::

      ndcg_exp@k       = DCG@k / IDCG@k,  DCG@k = sum_{i<=min(k,n)} (2^r_i - 1) / log2(i + 1),
                                          IDCG@k = sum_{i<=min(k,|Q|)} (2^i_i - 1) / log2(i + 1)
      xdcg@k           = 25 * sum_{i<=min(k,n)} r_i * 0.6^(i-1) / sum_{i<=k} 0.6^(i-1)
      fidelity         = sum_{d in distinct(R), l(d) >= m+1} w(l(d)) / sum_{d in Q, Q[d] >= m+1} w(Q[d]),
                         w(v) = 2^(v+1) - 1   (m = label_min; NaN when the denominator is 0)
      top1_relevance   = r_1
      max_relevance@k  = max(r_1 .. r_min(k,n))

* Always: ``holes`` = number of distinct retrieved ids not judged; ``holes_ratio = holes / |R|`` (rows, duplicates
  included); ``total_retrieved_documents = |R|`` and ``total_ground_truth_documents = |G|`` (rows).

``retrieval_eval.evaluate``'s ndcg_exp (``azure_gains=False``) gives a label below 0 the gain 0 (``2^max(l, 0) - 1``,
trec_eval's reading of negative labels), so it lies in [0, 1], and is 0 when the ideal DCG is 0.

Extension not in the SDK: ``holes@k`` = (unjudged docs among the top ``min(k, n)`` ranked docs) / ``k``.

Where the SDK is wrong, the oracle does the right thing instead:

* fidelity weights ``w(v)`` are applied to each label's own count (the SDK pairs string-sorted label counts with
  numerically sorted weights, which differs for labels of mixed digit counts or signs);
* fidelity is computed exactly (``Fraction``) and rounded once, only over labels that occur, so a large
  ``label_max`` cannot overflow it (ndcg/xdcg use float arithmetic in the SDK's operation order, so a label that
  occurs and exceeds 1023 still raises ``OverflowError``);
* ``bool`` labels are plain ints 0/1 (the SDK raises ``KeyError`` in fidelity);
* an unjudged doc (label 0) counts in the fidelity numerator with weight ``w(0) = 1`` whenever ``0 >= m + 1``, even
  when 0 lies above ``label_max`` (the SDK raises ``KeyError``);
* ``IDCG@k == 0`` (only possible with negative labels) gives ``ndcg_exp@k = NaN`` instead of ``ZeroDivisionError``;
* NaN scores raise ``ValueError`` instead of producing an input-order-dependent ranking.

Input validation mirrors the SDK with ``ValueError``: ``label_min < label_max``, non-empty ground truth, non-None
ids, integral labels within ``[label_min, label_max]``, real-valued scores. The SDK's 10 000-row cap is not applied.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from fractions import Fraction

XDCG_DISCOUNT = 0.6
XDCG_SCALE = 25


def reference_docret(
    ground_truth: Sequence[tuple[Hashable, int]],
    retrieved: Sequence[tuple[Hashable, float]],
    k: int = 3,
    label_min: int = 0,
    label_max: int = 4,
    *,
    azure_gains: bool = True,
) -> dict[str, float]:
    """Compute the Azure document-retrieval metrics of one query at cut-off ``k`` (see the module docstring).

    :param ground_truth: ``(document_id, label)`` rows; labels are integral values in ``[label_min, label_max]``.
    :param retrieved: ``(document_id, score)`` rows, in input order; scores are real numbers, not NaN.
    :param k: rank cut-off for ``ndcg_exp``, ``xdcg``, ``max_relevance`` and ``holes@k``.
    :param label_min: lowest label; it (and anything below) is "irrelevant" for fidelity.
    :param label_max: highest label.
    :param azure_gains: ndcg_exp with the SDK's gains ``2^l - 1`` for every label (the drop-in's); False: as
        ``retrieval_eval.evaluate`` defines it, a label below 0 has gain 0 and an ideal DCG of 0 gives 0.
    :return: float values for ``ndcg_exp@k, xdcg@k, fidelity, top1_relevance, max_relevance@k, holes,
        holes_ratio, holes@k, total_retrieved_documents, total_ground_truth_documents``, in that order.
    :raises ValueError: on invalid configuration or input (see the module docstring).
    """
    _validate(ground_truth, retrieved, k, label_min, label_max)

    qrels: dict[Hashable, int] = {doc_id: int(label) for doc_id, label in ground_truth}
    scores: dict[Hashable, float] = {doc_id: score for doc_id, score in retrieved}
    ranked = sorted(scores, key=scores.__getitem__, reverse=True)
    labels = [qrels.get(doc_id, 0) for doc_id in ranked]

    holes = sum(doc_id not in qrels for doc_id in ranked)
    holes_at_k = sum(doc_id not in qrels for doc_id in ranked[:k]) / k

    if not retrieved:
        ndcg = xdcg = fidelity = top1 = max_rel = 0.0
        holes_ratio = 0.0
    else:
        holes_ratio = holes / len(retrieved)
        if not any(labels):
            ndcg = xdcg = fidelity = top1 = max_rel = 0.0
        else:
            top = labels[:k]
            ideal = sorted(qrels.values(), reverse=True)[:k]
            if azure_gains:
                ndcg = _ratio(_dcg(top), _dcg(ideal))
            else:
                ideal_dcg = _dcg([max(label, 0) for label in ideal])
                ndcg = _dcg([max(label, 0) for label in top]) / ideal_dcg if ideal_dcg else 0.0
            xdcg = _xdcg(top, k)
            fidelity = _fidelity(labels, qrels.values(), label_min + 1)
            top1 = labels[0]
            max_rel = max(top)

    return {
        f"ndcg_exp@{k}": float(ndcg),
        f"xdcg@{k}": float(xdcg),
        "fidelity": float(fidelity),
        "top1_relevance": float(top1),
        f"max_relevance@{k}": float(max_rel),
        "holes": float(holes),
        "holes_ratio": float(holes_ratio),
        f"holes@{k}": float(holes_at_k),
        "total_retrieved_documents": float(len(retrieved)),
        "total_ground_truth_documents": float(len(ground_truth)),
    }


def _validate(
    ground_truth: Sequence[tuple[Hashable, int]],
    retrieved: Sequence[tuple[Hashable, float]],
    k: int,
    label_min: int,
    label_max: int,
) -> None:
    """Raise ``ValueError`` unless the configuration and every row are valid."""
    for name, value in (("k", k), ("label_min", label_min), ("label_max", label_max)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if label_min >= label_max:
        raise ValueError(f"label_min ({label_min}) must be < label_max ({label_max})")
    if not ground_truth:
        raise ValueError("ground truth must contain at least one row")
    for doc_id, label in ground_truth:
        if doc_id is None:
            raise ValueError("ground-truth document id is None")
        if not isinstance(label, numbers.Integral):
            raise ValueError(f"label {label!r} of document {doc_id!r} is not an integer")
        if not label_min <= label <= label_max:
            raise ValueError(f"label {label} of document {doc_id!r} is outside [{label_min}, {label_max}]")
    for doc_id, score in retrieved:
        if doc_id is None:
            raise ValueError("retrieved document id is None")
        if not isinstance(score, numbers.Real):
            raise ValueError(f"score {score!r} of document {doc_id!r} is not a real number")
        if math.isnan(score):
            raise ValueError(f"score of document {doc_id!r} is NaN")


def _ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, or NaN when the denominator is 0."""
    return math.nan if denominator == 0 else numerator / denominator


def _dcg(labels: Sequence[int]) -> float:
    """``sum_i (2^labels[i-1] - 1) / log2(i + 1)`` over ranks ``i = 1..len(labels)``, summed in rank order."""
    return sum((math.pow(2, label) - 1) / math.log2(rank + 1) for rank, label in enumerate(labels, start=1))


def _xdcg(labels: Sequence[int], k: int) -> float:
    """``25 * sum_i labels[i-1] * 0.6^(i-1) / sum_{i=1..k} 0.6^(i-1)``; the denominator always spans ``k`` ranks."""
    numerator = sum(
        XDCG_SCALE * label * math.pow(XDCG_DISCOUNT, rank - 1) for rank, label in enumerate(labels, start=1)
    )
    denominator = sum(math.pow(XDCG_DISCOUNT, rank - 1) for rank in range(1, k + 1))
    return numerator / denominator


def _fidelity(retrieved_labels: Iterable[int], judged_labels: Iterable[int], lowest_relevant: int) -> float:
    """``S(retrieved_labels) / S(judged_labels)`` rounded once to the nearest float, NaN when the denominator is 0.

    ``S(labels) = sum_v count(v) * (2^(v+1) - 1)`` over the labels ``v >= lowest_relevant`` that occur, computed
    exactly with ``Fraction``. (Float sums agree with it while they stay below 2^53, e.g. for labels <= 40.)
    """
    numerator = _weighted_label_sum(retrieved_labels, lowest_relevant)
    denominator = _weighted_label_sum(judged_labels, lowest_relevant)
    return math.nan if denominator == 0 else float(numerator / denominator)


def _weighted_label_sum(labels: Iterable[int], lowest_relevant: int) -> Fraction:
    """Exact ``sum_v count(v) * (2^(v+1) - 1)`` over the labels ``v >= lowest_relevant`` that occur."""
    counts = Counter(label for label in labels if label >= lowest_relevant)
    return sum((count * (Fraction(2) ** (label + 1) - 1) for label, count in counts.items()), Fraction(0))
