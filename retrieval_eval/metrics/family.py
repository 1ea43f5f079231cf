"""``Family``: a group of metrics that share one reference, one tie order, one join and one kernel pass.

A family is a value: its definitions, the tie order and conventions of its reference, the kind
of join its kernels read (:mod:`.joins`: a full ranking, or only where the judged documents rank,
...), and its kernel passes. Each metric definition then takes its own values out of a pass's output
(:attr:`MetricDefinition.extract`), so the family knows nothing of individual metric names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LayoutError
from .definition import MetricDefinition
from .joins import JoinKind
from .names import Metric
from .options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    import numpy as np

    from ..data import Qrels
    from ..data.join import QueryAlignment

#: ``passes(qrels, joined, alignment, metrics, options)``: each kernel pass's output with the
#: metrics that read it.
Passes = Callable[
    ["Qrels", Any, "QueryAlignment", Sequence[Metric], EvaluationOptions], Iterable[tuple[Any, Sequence[Metric]]]
]


@dataclass(frozen=True, eq=False)
class Family:
    """A family of metrics (see the module docstring)."""

    name: str
    definitions: tuple[MetricDefinition, ...]
    ties: str
    conventions: Conventions
    #: The join its kernels read; the Evaluator asks the scored run for it.
    join: JoinKind
    passes: Passes
    #: The judgment layouts (:data:`~retrieval_eval.policies.JUDGMENT_FORMATS`) its metrics read.
    judgments: tuple[str, ...] = ("qrels",)
    #: What its metrics are, in a few words: their heading in ``retrieval-eval metrics``.
    title: str = ""
    _by_key: dict[tuple[str, bool], MetricDefinition] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_key", {(d.name, d.cutoff): d for d in self.definitions})

    def definition(self, metric: Metric) -> MetricDefinition:
        """The definition of one of this family's metrics."""
        return self._by_key[(metric.name, metric.k is not None)]

    def compute(
        self, qrels: Qrels, joined: Any, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
    ) -> dict[Metric, np.ndarray]:
        """Per-query values of ``metrics`` (all of this family) for the queries of ``alignment``."""
        columns: dict[Metric, np.ndarray] = {}
        for output, group in self.passes(qrels, joined, alignment, metrics, options):
            for metric in group:
                columns[metric] = self.definition(metric).extract(output, metric)
        return columns

    def check_judgments(self, qrels: Qrels, metrics: Sequence[Metric]) -> None:
        """Raise :class:`LayoutError` naming the first metric when ``qrels`` are in a layout this family cannot read.

        trec_eval refuses the same (form_res_rels.c reads only ``qrels``, form_res_rels_jg.c only
        ``qrels_jg``, form_prefs_counts.c only ``prefs`` and ``qrels_prefs``).
        """
        if qrels.judgments not in self.judgments and metrics:
            raise LayoutError(
                f"{metrics[0]} reads judgments in the {' or '.join(map(repr, self.judgments))} layout, but the qrels "
                f"({qrels.source}) were read as {qrels.judgments!r} (trec_eval's -R); read them in that layout, or "
                "ask for measures of this layout"
            )

    def check_labels(self, qrels: Qrels, metrics: Sequence[Metric]) -> None:
        """Raise :class:`InputError` naming the first of ``metrics`` that needs integer labels when ``qrels`` has one
        that is not a whole number (:attr:`MetricDefinition.float_labels`), with that label's row and value."""
        if qrels.integer_labels:
            return
        refusing = next((metric for metric in metrics if not self.definition(metric).takes_float_labels(metric)), None)
        row = None if refusing is None else qrels.first_non_integer_label()
        if row is not None:
            raise InputError(
                f"{refusing} needs integer relevance labels, got {qrels.describe_label(row)}; its definition "
                "counts whole grades (the README's 'Float labels' lists the measures that take them)",
                source=qrels.source, row=row + 1, field="relevance",
            )
