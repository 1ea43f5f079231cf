"""``EvaluationOptions``: every option of an evaluation in one frozen, validated value.

The options are checked once, when the value is made, so an :class:`~retrieval_eval.Evaluator`
and every client of it (sweeps, streaming, Dask, the command line) read settled values. The
command line takes its choices and defaults from here (:data:`~retrieval_eval.policies.QUERY_SETS`
and the field defaults). A plain dataclass rather than a pydantic model: the command line
imports it before anything else, and its messages name the option as the user wrote it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..constraints import Choices, check_flag, int64_value, integer_at_least, is_integer, must_be
from ..errors import ConfigError
from ..policies import DUPLICATE_POLICIES, JUDGMENT_FORMATS, QUERY_SETS, TIE_POLICIES

#: Azure's evaluator scores the top 3.
DEFAULT_K = 3


@dataclass(frozen=True)
class LabelRange:
    """The configured label scale ``[label_min, label_max]`` (Azure's ground_truth_label_min/max).

    ``label_min`` is the "irrelevant" grade: fidelity counts only labels above it.
    """

    label_min: int = 0
    label_max: int = 4

    def __post_init__(self) -> None:
        for name in ("label_min", "label_max"):
            value = getattr(self, name)
            if not is_integer(value):
                raise must_be(name, "an integer", value)
            object.__setattr__(self, name, int64_value(name, value, why=" (the kernels' int64)"))
        if self.label_min >= self.label_max:
            raise ConfigError(f"label_max ({self.label_max}) must be greater than label_min ({self.label_min})")


@dataclass(frozen=True)
class Conventions:
    """What an evaluation does where the user did not say: the reference system's behaviour."""

    query_set: str
    duplicates: str


@dataclass(frozen=True)
class EvaluationOptions:
    """How an evaluation scores: cutoffs, label scale, query set, ties, duplicates.

    Policies left at None follow the reference of the metrics asked for when an evaluator
    settles them (:meth:`settled`): trec_eval's when any TREC measure is asked for
    (``query_set="both"``, duplicates raise), azure-ai-evaluation's otherwise
    (``query_set="qrels"``, the last duplicate wins). ``ties`` left at None follows each
    metric's own reference.

    Parameters
    ----------
    k
        Default cutoff for metric names written without ``@k`` (Azure's evaluator uses 3).
    rel_level
        TREC measures: a document is relevant when its label is >= rel_level (trec_eval's
        ``-l``), unless the metric's name sets ``rel`` itself (``precision(rel=2)@10``); any
        integer, as trec_eval takes it (0 makes label 0 relevant).
    label_min, label_max
        The label scale of the document-retrieval metrics (Azure's ground_truth_label_min/max);
        labels outside it are an error when such a metric is asked for. ``label_min`` is the
        irrelevant grade for fidelity.
    query_set
        ``"qrels"`` (every judged query; one the run lacks counts as retrieving nothing;
        trec_eval's ``-c``), ``"both"`` (only queries in both; trec_eval's default), ``"union"``
        (also the run's unjudged queries).
    ties
        How equal scores are ordered for every metric: ``"docid"`` (descending document id,
        trec_eval), ``"input"`` (input order, azure-ai-evaluation) or ``"ranx"`` (the order of a
        ``ranx.Run`` built from the same run: its documents in first-occurrence order sorted by
        an unstable quicksort, numba's, or numpy's under ``NUMBA_DISABLE_JIT``; ranx's numbers
        with ``run_duplicates="last"``, ranx's rule for a repeated document). ranx gives plain
        dicts yet another order, and re-sorts a Run under ``make_comparable=True``; judgment
        groups and preferences refuse ``"ranx"`` (ranx has neither). ``"average"`` orders no ties:
        each measure is its expected value over every ordering of tied scores, all equally likely
        (:mod:`retrieval_eval.metrics.tie_average`; the rank measures with a closed form, and
        those no order changes).
    max_docs
        TREC measures: rank only the top max_docs documents of each query (trec_eval's ``-M``;
        0 leaves every ranking empty, as there).
    run_duplicates, qrels_duplicates
        A document repeated within a query: which score/label counts, ``"last"``, ``"first"``,
        ``"max"``, or ``"raise"`` (an error naming the first repeated row).
    judged_only
        TREC measures: drop every retrieved document the qrels do not judge before ranking
        (trec_eval's ``-J``); the documents below move up.
    collection_size
        TREC measures: the number of documents in the collection (trec_eval's ``-N``, 0 or more;
        None is trec_eval's default, 0), read by utility.
    judgments
        How the qrels are laid out (trec_eval's ``-R``), one of
        :data:`~retrieval_eval.policies.JUDGMENT_FORMATS`: ``"qrels"`` (the default), or judgment
        groups (``"qrels_jg"``) and preferences (``"qrels_prefs"``, ``"prefs"``) for the measures
        that read them.

    Examples
    --------
    >>> EvaluationOptions(k=10, query_set="qrels").k
    10
    >>> EvaluationOptions(ties="score")
    Traceback (most recent call last):
    ...
    retrieval_eval.errors.ConfigError: ties must be one of ['docid', 'input', 'ranx', 'average'], got 'score'
    """

    k: int = DEFAULT_K
    rel_level: int = 1
    label_min: int = 0
    label_max: int = 4
    query_set: str | None = None
    ties: str | None = None
    max_docs: int | None = None
    run_duplicates: str | None = None
    qrels_duplicates: str | None = None
    judged_only: bool = False
    collection_size: int | None = None
    judgments: str = "qrels"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", integer_at_least("the cutoff k", self.k))
        # trec_eval's -l takes any long: 0 and negative levels too.
        object.__setattr__(self, "rel_level", int64_value("rel_level", self.rel_level))
        if self.max_docs is not None:
            object.__setattr__(self, "max_docs", integer_at_least("max_docs", self.max_docs, least=0))
        if self.collection_size is not None:
            object.__setattr__(self, "collection_size", integer_at_least("collection_size", self.collection_size, least=0))
        check_flag("judged_only", self.judged_only)
        _choice("judgments", self.judgments, JUDGMENT_FORMATS)
        labels = LabelRange(self.label_min, self.label_max)  # checks the range
        object.__setattr__(self, "label_min", labels.label_min)
        object.__setattr__(self, "label_max", labels.label_max)
        _choice("query_set", self.query_set, QUERY_SETS)
        _choice("ties", self.ties, TIE_POLICIES)
        _choice("run duplicates", self.run_duplicates, DUPLICATE_POLICIES)
        _choice("qrels duplicates", self.qrels_duplicates, DUPLICATE_POLICIES)

    @property
    def labels(self) -> LabelRange:
        return LabelRange(self.label_min, self.label_max)

    def settled(self, conventions: Conventions) -> "EvaluationOptions":
        """These options with the query set and duplicate policies left at None taken from ``conventions``."""
        return dataclasses.replace(
            self,
            query_set=self.query_set or conventions.query_set,
            run_duplicates=self.run_duplicates or conventions.duplicates,
            qrels_duplicates=self.qrels_duplicates or conventions.duplicates,
        )

    @classmethod
    def default(cls, name: str) -> Any:
        """The default of field ``name`` (what the command line shows)."""
        return next(field.default for field in dataclasses.fields(cls) if field.name == name)


def _choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    if value is not None:
        Choices(choices, bracketed=True).check(name, value)
