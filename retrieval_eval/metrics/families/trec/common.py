"""What the TREC family's modules share: its name, how a measure is declared, and the inputs of its kernel passes.

Every TREC measure reads where the judged documents of each query rank
(:class:`~retrieval_eval.data.join.JudgedRanks`). :class:`TrecInputs` holds them once per
evaluation, after trec_eval's ``-J`` (only judged documents ranked) when it is asked for, with
the ranking depth (``-M``) and the length of the stand-in ranking that trec_eval's ``-c``
scores a judged query against when the run lacks it.

Each definition's ``requires(metric)`` names the pass that computes it first (:data:`MAIN`, the
walk over the judged documents in :mod:`retrieval_eval.kernels.trec.trec`, or :data:`RANKED`, the
passes over every rank and over levels of num_rel), then what that pass must compute for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ....kernels.core.bundles import FoundArrays, IdealArrays, QueryPairs
from ....kernels.trec import trec as kernel
from ...definition import MetricDefinition, unit_interval
from ...names import Metric
from ...options import EvaluationOptions

if TYPE_CHECKING:
    from ....data import JudgedRanks, Qrels
    from ....data.join import QueryAlignment

FAMILY = "trec"
REL = (("rel", "1"),)
#: The passes a TREC measure can be computed by (the first item of its ``requires``).
MAIN = "main"
RANKED = "ranked"


def unbounded(label_min: int, label_max: int) -> tuple[float, float]:
    """Bounds of a measure that takes any real value (utility, yaap)."""
    return (-math.inf, math.inf)


def measure(
    name: str,
    definition: str,
    *,
    cutoff: bool = False,
    rel: bool = True,
    params: tuple[tuple[str, str | None], ...] = (),
    requires: Any = None,
    **extra: Any,
) -> MetricDefinition:
    """A TREC measure: higher is better and bounded by [0, 1] unless ``extra`` says otherwise.

    ``rel``: it takes the relevance level ``rel``; ``params``: its other parameters;
    ``requires``: the pass that computes it (default :data:`MAIN`). It takes float labels
    (:attr:`MetricDefinition.float_labels`) unless ``extra`` says otherwise.
    """
    extra.setdefault("bounds", unit_interval)
    extra.setdefault("higher_is_better", True)
    # Relevance is label >= rel, unjudged is label < 0 and ndcg's gain is the label: each holds for any
    # real label (the measures over trec_eval's gain map, which counts whole grades, say False).
    extra.setdefault("float_labels", True)
    return MetricDefinition(
        name, FAMILY, definition, cutoff=cutoff, params=params + (REL if rel else ()),
        requires=requires or (lambda metric: (MAIN,)), **extra,
    )


def relevance_level(metric: Metric) -> int:
    """The ``rel`` of a metric (1 unless its name says otherwise)."""
    return int(dict(metric.params).get("rel", "1"))


def parameter(metric: Metric, key: str, default: str) -> str:
    """A parameter's canonical text (its default when the canonical name leaves it out)."""
    return dict(metric.params).get(key, default)


@dataclass(frozen=True, eq=False)
class TrecInputs:
    """What every pass of the TREC family reads, built once per evaluation (see the module docstring).

    ``ranked``: where the judged documents rank, with only the judged ones ranked under ``-J``;
    ``depth``: the documents ranked per query (``-M``, or no limit); ``stand_in``: the length of
    the ranking of unjudged documents a judged query the run lacks is scored against (trec_eval's
    one bogus document, none under ``-J``, which throws it out, or ``-M 0``); ``discounts[j] = log2(j + 2)``,
    as long as the longest ranking and the longest list of judgments.
    """

    qrels: Qrels
    ranked: JudgedRanks
    alignment: QueryAlignment
    options: EvaluationOptions

    @property
    def depth(self) -> int:
        return np.iinfo(np.int64).max if self.options.max_docs is None else self.options.max_docs

    @property
    def stand_in(self) -> int:
        # -M cuts the stand-in ranking too: -M 0 leaves it empty, as every other.
        return 0 if self.options.judged_only else min(1, self.depth)

    @cached_property
    def discounts(self) -> np.ndarray:
        longest = max(int(self.ranked.n_ranked.max(initial=0)), int(self.qrels.n_judged.max(initial=0)), 1)
        return kernel.log2_table(longest)

    @cached_property
    def stand_ins(self) -> np.ndarray:
        """Per evaluated query: the run lacks it, so it was scored against the stand-in ranking."""
        return self.alignment.run_query < 0

    def arguments(self) -> tuple[QueryPairs, FoundArrays]:
        """The leading arguments of every TREC pass kernel: the queries and where their judged documents rank."""
        ranked, alignment = self.ranked, self.alignment
        return (
            alignment.pairs,
            FoundArrays(ranked.offsets, ranked.n_found, ranked.ranks, ranked.labels, ranked.n_ranked),
        )

    def judgments(self) -> tuple[IdealArrays]:
        """The argument that gives each query's judged labels, best first."""
        return (IdealArrays(self.qrels.queries.offsets, self.qrels.n_judged, self.qrels.ideal_labels),)
