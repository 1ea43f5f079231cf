"""``ties="average"``: each measure's expected value over every ordering of tied scores.

Under this tie policy a query's documents of equal score are taken in every order, all equally
likely (independently for each group of equal scores), and a measure's value is its mean over
those orderings: the value a random tie-breaker gives on average, without sampling. The
formulas are closed forms (McSherry and Najork, ECIR 2008; see
:mod:`retrieval_eval.kernels.core.tie_average`). A family takes part through a
:class:`TieAveraging` in :data:`AVERAGING`: the measures it has an expected value for, and the
measures no ordering changes (set measures, counts), which it computes as usual. Any other
measure asked for under ``ties="average"`` is an error naming it, before anything is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError
from ..kernels.core.segments import gather, segments
from ..kernels.core.tie_average import TiedPositions
from ..kernels.core.tie_average import tied_positions as positions_of
from ..policies import TIE_AVERAGE
from .names import Metric
from .options import EvaluationOptions

if TYPE_CHECKING:
    from ..data import Qrels
    from ..data.join import QueryAlignment, TiedRun
    from .family import Family

#: ``values(qrels, tied, alignment, metrics, options)``: the expected value of each metric, per evaluated query.
Values = Callable[["Qrels", "TiedRun", "QueryAlignment", Sequence[Metric], EvaluationOptions], dict[Metric, np.ndarray]]


@dataclass(frozen=True)
class TieAveraging:
    """How a family gives its measures under ``ties="average"``.

    ``averaged``: the (name, has cutoff) of the definitions whose expected value ``values``
    computes, for the metrics ``accepts`` (say, without a parameter the closed form lacks);
    ``order_free``: those of the definitions whose value no order of the ranking changes,
    computed by the family's own pass under its reference's tie order.
    """

    averaged: frozenset[tuple[str, bool]]
    values: Values
    order_free: frozenset[tuple[str, bool]]
    accepts: Callable[[Metric], bool] = lambda metric: True

    def is_averaged(self, metric: Metric) -> bool:
        return (metric.name, metric.k is not None) in self.averaged and self.accepts(metric)

    def supports(self, metric: Metric) -> bool:
        return self.is_averaged(metric) or (metric.name, metric.k is not None) in self.order_free

    def listing(self) -> str:
        """The averaged measures, as listed (``precision@k``)."""
        return ", ".join(f"{name}@k" if cutoff else name for name, cutoff in sorted(self.averaged))


def _averagings() -> dict[str, TieAveraging]:
    from .families.document_retrieval.tie_average import DOCUMENT_RETRIEVAL_AVERAGING
    from .families.trec.tie_average import TREC_AVERAGING

    return {"trec": TREC_AVERAGING, "document_retrieval": DOCUMENT_RETRIEVAL_AVERAGING}


def check_supported(metrics: Sequence[Metric], family_of: Callable[[Metric], str], options: EvaluationOptions) -> None:
    """Raise :class:`ConfigError` naming the first metric without a tie-averaged value, or an option it does not take."""
    averagings = _averagings()
    for metric in metrics:
        family = family_of(metric)
        averaging = averagings.get(family)
        if averaging is None:
            raise ConfigError(f"{metric} has no tie-averaged value (ties='average'): the {family} measures have none; "
                              "choose a tie order (docid, input) for it")
        if not averaging.supports(metric):
            raise ConfigError(
                f"{metric} has no tie-averaged value (ties='average'); those of the {family} measures are "
                f"{averaging.listing()}, and the ones no order changes (set measures, counts)"
            )
    if options.max_docs is not None or options.judged_only:
        raise ConfigError(
            "ties='average' does not take max_docs or judged_only (trec_eval's -M, -J): a cut inside a group of "
            "tied scores changes which documents are ranked; leave them out or choose another tie order"
        )


def compute(
    family: Family, qrels: Qrels, tied: TiedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> dict[Metric, np.ndarray]:
    """Per-query values of ``metrics`` (all of ``family``, all supported) under ``ties="average"``."""
    averaging = _averagings()[family.name]
    averaged = [metric for metric in metrics if averaging.is_averaged(metric)]
    order_free = [metric for metric in metrics if not averaging.is_averaged(metric)]
    columns = averaging.values(qrels, tied, alignment, averaged, options) if averaged else {}
    if order_free:
        # The family's own join of the same run, under its reference's tie order.
        joined = tied.ranked.run.join(family.join, qrels, tied.duplicates, family.ties)
        columns.update(family.compute(qrels, joined, alignment, order_free, options))
    return columns


def tied_positions(tied: TiedRun, alignment: QueryAlignment) -> tuple[TiedPositions, np.ndarray, np.ndarray]:
    """The ranked documents of the evaluated queries (a query the run lacks has none), with their labels and judged flags."""
    ranked = tied.ranked
    n = gather(ranked.n_ranked, alignment.run_query, 0)
    query, rank, starts = segments(gather(ranked.offsets, alignment.run_query, 0), n)
    index = starts + rank
    positions = positions_of(query, rank, tied.group_start[index], tied.group_size[index], n)
    return positions, ranked.labels[index], ranked.judged[index]


def is_average(ties: str) -> bool:
    """The tie policy is ``"average"``."""
    return ties == TIE_AVERAGE
