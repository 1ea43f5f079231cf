"""The gdeval family: ERR@k and nDCG@k exactly as the TREC Web track's gdeval.pl (1.3) computes them.

Ranking is gdeval's: score descending, equal scores by descending document id (Perl's ``lt``
and ``gt``, byte order, as trec_eval). Gain is exponential, 2^g - 1, with g the label of a
judgment above 0 (a label of 0 or below is not relevant, as gdeval drops such judgments);
labels above 4, gdeval's maximum grade, are an error, as gdeval stops at them. A query without
a judgment above 0 is skipped (NaN, left out of the mean), as gdeval prints no line for it
(``err(skip=false)@k`` scores it 0, as ir_measures' ERR@k, which fills its default where gdeval prints
nothing); a judged query the run lacks is 0 under ``query_set="qrels"`` (gdeval's ``-c``).
Formulas: :mod:`retrieval_eval.kernels.core.gdeval`; gdeval's printed lines, its ``amean`` and
its risk-sensitive URisk against a baseline: :mod:`retrieval_eval.frontends.gdeval`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...errors import InputError
from ...kernels.core import gdeval as kernel
from ...kernels.core.bundles import IdealArrays, RankedArrays
from ..definition import MetricDefinition, unit_interval
from ..family import Family
from ..joins import RANKED_RUN
from ..names import Metric
from ..options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ...data import Qrels, RankedRun
    from ...data.join import QueryAlignment

FAMILY = "gdeval"
#: gdeval's reporting depth when its ``-k`` is not given.
DEFAULT_K = 20


@dataclass(frozen=True, eq=False)
class GdevalPass:
    """The family's kernel output: one ``(n_queries, 2)`` matrix (nDCG, ERR) per cutoff asked for."""

    matrices: dict[int, np.ndarray]


def _column(column: int) -> Callable[[GdevalPass, Metric], np.ndarray]:
    return lambda output, metric: output.matrices[metric.k][:, column]


def _err(output: GdevalPass, metric: Metric) -> np.ndarray:
    """ERR's column; with ``skip=false`` a query gdeval skips (NaN, no label above 0) is 0, ir_measures' default."""
    values = output.matrices[metric.k][:, kernel.ERR]
    return values if dict(metric.params).get("skip", "true") == "true" else np.nan_to_num(values, nan=0.0)


_CONVENTIONS = (
    " Ranking: score descending, ties by descending document id. Labels above 4 are an error, as in gdeval; "
    "a label of 0 or below is not relevant. NaN (skipped, as gdeval skips it) for a query without a label above 0; "
    "gdeval's default k is 20."
)
DEFINITIONS = (
    MetricDefinition(
        "err", FAMILY,
        "gdeval's Expected Reciprocal Rank (Chapelle et al. 2009): sum_{i<=k} R_i/i prod_{j<i} (1 - R_j), "
        "R_i = (2^g_i - 1)/2^4, g_i the label at rank i." + _CONVENTIONS + " skip=false scores a query without a "
        "label above 0 as 0, not NaN: ir_measures' ERR@k (it runs gdeval and gives such a query its default, 0).",
        higher_is_better=True, cutoff=True, bounds=unit_interval, params=(("skip", "true"),), extract=_err,
    ),
    MetricDefinition(
        "gdeval_ndcg", FAMILY,
        "gdeval's nDCG: sum_{i<=k} (2^g_i - 1)/log2(i+1) over the same sum for the query's labels above 0 sorted "
        "descending, both cut at k (ir_measures nDCG(dcg='exp-log2')@k, which runs gdeval). Its values are "
        "ndcg_burges@k's where a query has a label above 0; it differs from trec_eval's ndcg@k (linear gain "
        "g_i) and ndcg_burges@k (0, not skipped, without a label above 0; any label) and from Azure's ndcg_exp@k "
        "(ties in input order)." + _CONVENTIONS,
        higher_is_better=True, cutoff=True, bounds=unit_interval, extract=_column(kernel.NDCG),
    ),
)


def check_labels(qrels: Qrels) -> None:
    """gdeval stops at a label above its maximum grade 4 ("format error"): so do its metrics here."""
    above = qrels.labels > kernel.MAX_GRADE
    if above.any():
        row = int(np.argmax(above))
        raise InputError(
            f"{int(above.sum())} label(s) above 4, first {int(qrels.labels[row])}: gdeval's metrics (err, gdeval_ndcg) "
            "take labels up to 4, gdeval's maximum grade",
            source=qrels.source, row=row + 1, field="relevance",
        )


def _passes(
    qrels: Qrels, ranked: RankedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[GdevalPass, Sequence[Metric]]]:
    """One kernel pass per distinct k, both metrics at once."""
    check_labels(qrels)
    cutoffs = sorted({metric.k for metric in metrics})
    longest = max(int(ranked.n_ranked.max(initial=0)), int(qrels.n_judged.max(initial=0)))
    discounts = kernel.log2_discounts(min(cutoffs[-1], longest))
    arrays = RankedArrays(ranked.offsets, ranked.n_ranked, ranked.labels, ranked.judged, ranked.retrieved_rows)
    ideal = IdealArrays(qrels.queries.offsets, qrels.n_judged, qrels.ideal_labels)
    yield GdevalPass({k: kernel.gdeval_measures(alignment.pairs, arrays, ideal, k, discounts) for k in cutoffs}), metrics


#: gdeval scores the queries both judged and retrieved (``-c``: every judged one); a document
#: repeated in a run, which gdeval would count at each of its ranks, is an error as in trec_eval.
GDEVAL = Family(
    FAMILY, DEFINITIONS, ties="docid", conventions=Conventions(query_set="both", duplicates="raise"),
    join=RANKED_RUN, passes=_passes, title="the TREC Web track's gdeval.pl: ERR@k and nDCG@k (gain 2^g - 1, labels up to 4)",
)
