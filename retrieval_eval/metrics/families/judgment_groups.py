"""The judgment-groups family: trec_eval's measures averaged over judgment groups (``-R qrels_jg``).

``map_avgjg``, ``p_avgjg@k`` and ``rprec_mult_avgjg(mult=M)`` are trec_eval's map, P and
Rprec_mult computed against each judgment group of a query (an assessor's judgments) and averaged
over the groups, in byte order of their names; they read qrels in the ``qrels_jg`` layout only, as
trec_eval does. Ranking, ``rel`` (``-l``), ``max_docs`` (``-M``) and ``judged_only`` (``-J``) are
trec_eval's. Formulas: :mod:`retrieval_eval.kernels.trec.judgment_groups`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...kernels.trec.judgment_groups import judgment_group_measures
from ..definition import MetricDefinition, unit_interval
from ..family import Family
from ..joins import JoinKind
from ..names import Metric
from ..options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ...data import Qrels, Run
    from ...data.group_join import GroupedRun
    from ...data.join import QueryAlignment

FAMILY = "judgment_groups"
_REL = (("rel", "1"),)


@dataclass(frozen=True, eq=False)
class GroupPass:
    """One kernel pass: ``average[e]``, ``precision[e, j]`` at ``cutoffs[j]``, ``at_multiples[e, j]`` at ``multiples[j]``."""

    average: np.ndarray
    precision: np.ndarray
    at_multiples: np.ndarray
    cutoffs: tuple[int, ...]
    multiples: tuple[float, ...]


def multiple(metric: Metric) -> float:
    """The ``mult`` of ``rprec_mult_avgjg(mult=M)``."""
    return float(dict(metric.params)["mult"])


def _measure(name: str, definition: str, **extra: object) -> MetricDefinition:
    return MetricDefinition(name, FAMILY, definition, higher_is_better=True, bounds=unit_interval, **extra)


DEFINITIONS = (
    _measure(
        "map_avgjg", "trec_eval's map against each judgment group of the query, averaged over the groups "
        "(trec_eval map_avgjg).", params=_REL, trec_name="map_avgjg",
        extract=lambda output, metric: output.average,
    ),
    _measure(
        "p_avgjg", "Relevant documents in the top k / k against each judgment group, averaged over the groups "
        "(trec_eval P_avgjg).", cutoff=True, params=_REL, aliases=("p_avgjg_{k}", "p_avgjg.{k}"),
        trec_name="P_avgjg_{k}",
        extract=lambda output, metric: output.precision[:, output.cutoffs.index(metric.k)],
    ),
    _measure(
        "rprec_mult_avgjg", "Precision at rank (long)(mult * R + 0.9), R the group's relevant documents, against "
        "each judgment group, averaged over the groups (trec_eval Rprec_mult_avgjg).",
        params=(("mult", None),) + _REL, trec_name="Rprec_mult_avgjg_{mult}",
        extract=lambda output, metric: output.at_multiples[:, output.multiples.index(multiple(metric))],
        requires=lambda metric: (multiple(metric),),
    ),
)


def relevance_level(metric: Metric) -> int:
    return int(dict(metric.params).get("rel", "1"))


def _join(qrels: Qrels, run: Run, duplicates: str, ties: str) -> GroupedRun:
    from ...data.group_join import group_run

    return group_run(qrels, run, duplicates, ties)


#: The ranked run labelled in each judgment group (:class:`~retrieval_eval.data.group_join.GroupedRun`).
GROUPED_RUN = JoinKind("grouped run", _join)


def _passes(
    qrels: Qrels, grouped: GroupedRun, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[GroupPass, list[Metric]]]:
    """One kernel pass per relevance level, every measure, cutoff and multiple of that level at once."""
    depth = np.iinfo(np.int64).max if options.max_docs is None else options.max_docs
    for rel in sorted({relevance_level(m) for m in metrics}):
        at_level = [m for m in metrics if relevance_level(m) == rel]
        cutoffs = tuple(sorted({m.k for m in at_level if m.k is not None}))
        multiples = tuple(sorted({level for m in at_level for level in JUDGMENT_GROUPS.definition(m).requires(m)}))
        average, precision, at_multiples, duplicate_rows = judgment_group_measures(
            alignment.pairs,
            grouped.arrays,
            *grouped.judgments,
            grouped.rule,
            rel,
            depth,
            options.judged_only,
            np.array(cutoffs, dtype=np.int64),
            np.array(multiples, dtype=np.float64),
        )
        grouped.raise_on_duplicates(duplicate_rows)
        yield GroupPass(average, precision, at_multiples, cutoffs, multiples), at_level


#: trec_eval's conventions (ties by descending document id, the queries both judged and retrieved,
#: a repeated document an error); the qrels must be in the ``qrels_jg`` layout.
JUDGMENT_GROUPS = Family(
    FAMILY, DEFINITIONS, ties="docid", conventions=Conventions(query_set="both", duplicates="raise"),
    join=GROUPED_RUN, passes=_passes, judgments=("qrels_jg",), title="trec_eval 10 over judgment groups (-R qrels_jg)",
)
