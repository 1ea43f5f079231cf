"""An ir_measures provider that computes with retrieval_eval: ``ir_measures.calc_aggregate``, ``iter_calc`` and
pyterrier's ``pt.Experiment`` on retrieval_eval's core.

Use the provider directly::

    from retrieval_eval.compat.ir_measures_provider import provider
    provider.calc_aggregate([nDCG@10, P@5, AP(rel=2)], qrels, run)   # {nDCG@10: ..., P@5: ..., AP(rel=2): ...}
    evaluator = provider.evaluator(measures, qrels)                    # qrels indexed once, then any number of runs
    evaluator.calc_aggregate(run)

or register it, so that ir_measures' own functions (and pyterrier's, which call them) use it::

    from retrieval_eval.compat.ir_measures_provider import register
    register()                 # first in ir_measures.DefaultPipeline: calc_aggregate, iter_calc, pt.Experiment
    register(default=False)    # only in ir_measures.providers.registry["retrieval_eval"]

It computes the measures of :data:`SUPPORTED_MEASURES` (every measure of the name table
:data:`~retrieval_eval.metrics.spellings.ir_measures.MEASURES`, and NumQ) as ir_measures' providers do
(pytrec_eval's for most, its compat and accuracy providers for Compat and Accuracy): the queries
of the qrels, a judged query the run lacks scoring the measure's default (0), the run's unjudged
queries left out; equal scores ordered as each measure's family orders them (descending document
id for trec_eval's, ascending for Compat, input order for Accuracy); ``judged_only=True`` ranking
only the judged documents (trec_eval's ``-J``); ``rel`` the lowest relevant label. A measure whose
provider reports no value where the registry metric is NaN (Accuracy; ``omits_undefined`` in the
table) gets none there, nor a default, and its mean is over the queries reported. Other measures
are left to the next provider of the pipeline.

How a measure becomes available here: an entry in ``MEASURES`` (its ir_measures parameters and
defaults, and the registry metric they mean: min_rel/max_rel of cwl_eval's measures are such
parameters) is all it takes; the provider declares it with any parameters and asks the table
whether the very measure has a registry metric. The qrels are read in the layout each metric's
family reads (:func:`_layout`): ndeval's diversity measures read them as ``qrels_jg``, the
subtopic in the qrels' ``iteration`` column, as ir_measures' pyndeval provider takes it (``"0"``
where the qrels have none: a dict of dicts); the others as plain qrels, ``iteration`` ignored.
Measures of both kinds asked in one call are scored against both views of the same qrels.

Differences from ir_measures' own providers, each deliberate:

- scores are 64-bit floats; pytrec_eval 0.5.11 keeps them as 32-bit floats, so two scores equal in
  float32 (1.0 and 1.0 + 1e-9) are a tie there, ordered by document id, and not here;
- ``IPrec@r`` is trec_eval 10's interpolated precision (c = r * num_rel rounded half up);
  pytrec_eval has trec_eval 9's (which adds 0.9) and reads r to two decimals;
- ``Judged@k`` and ``RR@k`` order equal scores as trec_eval does; ir_measures' ``judged`` and
  ``msmarco`` providers order them by ascending document id;
- ``nDCG(dcg='exp-log2')@k`` and ``ERR@k`` are unrounded; gdeval prints 5 decimals (and reads only
  numeric query ids and labels up to 4). A query gdeval skips (no label above 0) is 0 in ``ERR@k``
  (``err(skip=false)@k``), as ir_measures fills it;
- the diversity measures order equal scores by descending document id (ndeval's ``-traditional``
  order); ir_measures' pyndeval provider orders them ascending. Their ``judged_only=True`` is
  computed (that provider fails on it). Beside them, the other measures read the subtopic qrels
  as plain qrels, where a document judged in several subtopics is repeated (``duplicates``);
- ``NumRel(rel=r)`` for any r (pytrec_eval's provider only takes rel=1);
- each measure is computed as asked: ir_measures 0.4.3's pytrec_eval provider computes NumRet, NumQ
  and nDCG in whichever invocation it built first (its measures come as a set), so beside a
  ``judged_only=True`` measure NumRet may count only judged documents, and nDCG beside
  ``nDCG(gains=...)`` the two are reported with each other's values;
- a document judged or retrieved twice in a query is an error (``duplicates="raise"``), where
  ir_measures keeps the last; ``RetrievalEvalProvider(duplicates="last")`` keeps the last too;
- a query whose labels are all negative is scored (pytrec_eval 0.5.11 crashes or loops on one);
- ``Accuracy`` gives no value for a query whose top k is all relevant (its provider divides by zero);
- ``Compat`` orders equal scores of integer document ids by their decimal text (ir_measures by number);
- the means of :meth:`RetrievalEvalEvaluator.calc_aggregate` are exactly rounded (``math.fsum``);
  ir_measures adds the values in its order, which may differ in the last bits.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import Metric
from ir_measures import measures as ir_measures_measures
from ir_measures.measures.base import MeanAgg, Measure, SumAgg
from ir_measures.providers.base import Any as AnyValue

from ..constraints import check_choice
from ..errors import ConfigError
from ..metrics.evaluator import Evaluator, NoSharedQueriesWarning
from ..metrics.names import Metric as RegistryMetric
from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY
from ..metrics.spellings.ir_measures import MEASURES, measure_entry
from ..metrics.spellings.ir_measures import parse as parse_measure
from ..policies import DUPLICATE_POLICIES

NAME = "retrieval_eval"



def _declared(name: str) -> Measure:
    """ir_measures' measure ``name`` with every parameter it takes declared as any value."""
    measure = ir_measures_measures.registry[name]
    return type(measure)(**{param: AnyValue() for param in measure.SUPPORTED_PARAMS})


#: The measures this provider computes, as ir_measures declares a provider's measures: every measure of the
#: name table of :mod:`~retrieval_eval.metrics.spellings.ir_measures` (and NumQ), with any parameters. The
#: table decides: :meth:`RetrievalEvalProvider.supports` asks it for a registry metric of the very
#: measure, so one whose parameters no registry metric reproduces (``nDCG(gains=...)@10``) is left
#: to the next provider. A measure added to the table (a family of issue 28) is computed here with
#: no code of its own; one whose provider reports no value where the registry metric is NaN says so
#: in the table (``omits_undefined``).
SUPPORTED_MEASURES = [_declared(name) for name in sorted({*MEASURES, "NumQ"}) if name in ir_measures_measures.registry]

# The columns of ir_measures' qrels and runs, as its converters give them; a qrels_jg view reads iteration as the group.
_QRELS_COLUMNS = {"query_id": "query_id", "doc_id": "doc_id", "relevance": "relevance"}
_LAYOUT_COLUMNS = {"qrels": _QRELS_COLUMNS, "qrels_jg": {**_QRELS_COLUMNS, "group": "iteration"}}
_RUN_COLUMNS = {"query_id": "query_id", "doc_id": "doc_id", "score": "score"}
#: ir_measures' iteration where its qrels give none (its Qrel's default, the subtopic pyndeval's provider then reads).
_NO_ITERATION = "0"


class RetrievalEvalProvider(ir_measures.providers.Provider):
    """ir_measures' measures computed by retrieval_eval (see the module docstring).

    ``duplicates``: a document judged twice in a query, or retrieved twice, ``"raise"`` (an error
    naming the row, the default), or ``"last"``, ``"first"``, ``"max"`` (that one counts;
    ir_measures keeps the last).
    """

    NAME = NAME
    SUPPORTED_MEASURES = SUPPORTED_MEASURES

    def __init__(self, duplicates: str = "raise") -> None:
        super().__init__()
        check_choice("duplicates", duplicates, DUPLICATE_POLICIES, bracketed=True)
        self.duplicates = duplicates

    def supports(self, measure: Measure) -> bool:
        """ir_measures' test of the declared parameters, and a registry metric for this very measure."""
        if not super().supports(measure):
            return False
        if measure.NAME == "NumQ":
            return True
        try:
            _registry_metric(measure)
        except ConfigError:
            return False
        return True

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> "RetrievalEvalEvaluator":
        # Equal measures (NumRelRet and NumRet(rel=1)) are one: ir_measures compares them by name.
        measures = list(dict.fromkeys(measures))
        frame = _frame(ir_measures.util.QrelsConverter(qrels), "qrels", "relevance", iteration=True)
        return RetrievalEvalEvaluator(measures, frame, self.duplicates)


#: An evaluation's key: the qrels' layout its metrics read, and its ``judged_only``.
_Key = tuple[str, bool]


class RetrievalEvalEvaluator(ir_measures.providers.Evaluator):
    """Scores runs against one set of qrels, indexed once: one retrieval_eval Evaluator per (qrels layout,
    ``judged_only``), each layout's view of the qrels built once."""

    def __init__(self, measures: list[Measure], qrels: pd.DataFrame, duplicates: str) -> None:
        from ..data import Qrels

        groups: dict[_Key, list[tuple[Measure, RegistryMetric]]] = {}
        self._num_q = [measure for measure in measures if measure.NAME == "NumQ"]
        for measure in measures:
            if measure.NAME != "NumQ":
                metric, judged_only = _registry_metric(measure)
                groups.setdefault((_layout(metric), judged_only), []).append((measure, metric))
        if self._num_q:
            # NumQ counts the queries scored, which any evaluation finds (num_ret when it has no metric of its own).
            groups.setdefault(("qrels", False), [])
        self._groups = groups
        self._evaluators: dict[_Key, Evaluator] = {}
        query_ids: set = set()
        if len(qrels):
            views = {
                layout: Qrels.read(qrels, columns=_LAYOUT_COLUMNS[layout], duplicates=duplicates, judgments=layout)
                for layout in dict.fromkeys(layout for layout, _ in groups)
            }
            # Every view has the qrels' queries.
            query_ids = set(next(iter(views.values())).query_ids.to_pylist()) if views else set()
            for (layout, judged_only), pairs in groups.items():
                options = EvaluationOptions(
                    query_set="both", judged_only=judged_only, run_duplicates=duplicates,
                    qrels_duplicates=duplicates, judgments=layout,
                )
                metrics = [metric for _, metric in pairs] or ["num_ret"]
                self._evaluators[layout, judged_only] = Evaluator(views[layout], metrics, options=options)
        super().__init__(measures, query_ids)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Each measure's value per query; ir_measures' defaults for the judged queries the run lacks, but for
        the measures whose provider omits them (Accuracy: only the queries it reports)."""
        omitted = {measure for measure in self.measures if _omits_undefined(measure)}
        expected = {(m, q) for m in self.measures if m not in omitted for q in self.qrel_qids}
        for metric in self._iter_calc(run):
            expected.discard((metric.measure, metric.query_id))
            yield metric
        for measure, query_id in sorted(expected, key=lambda pair: (str(pair[0]), pair[1])):
            yield Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        for measure, query_ids, values in self._columns(run):
            omit = _omits_undefined(measure)
            for query_id, value in zip(query_ids, values.tolist()):
                if not (omit and math.isnan(value)):
                    yield Metric(query_id=query_id, measure=measure, value=value)

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        """Each measure's aggregate over the queries of the qrels (those the run lacks at the measure's default).

        Computed from the value arrays, without a ``Metric`` per query: a mean is exactly rounded,
        a sum (NumQ, NumRel, NumRet) exact.
        """
        columns = {measure: values for measure, _, values in self._columns(run)}
        n_queries = len(self.qrel_qids)
        aggregated = {}
        for measure in self.measures:
            scored = columns.get(measure, np.empty(0))
            if _omits_undefined(measure):
                reported = scored[~np.isnan(scored)]
                aggregated[measure] = math.fsum(reported.tolist()) / len(reported) if len(reported) else math.nan
                continue
            values = itertools.chain(scored.tolist(), itertools.repeat(measure.DEFAULT, n_queries - len(scored)))
            aggregator = measure.aggregator()
            if isinstance(aggregator, SumAgg):
                aggregated[measure] = math.fsum(values)
            elif isinstance(aggregator, MeanAgg):
                aggregated[measure] = math.fsum(values) / n_queries if n_queries else aggregator.default
            else:
                for value in values:
                    aggregator.add(value)
                aggregated[measure] = aggregator.result()
        return aggregated

    def _columns(self, run: Any) -> Iterator[tuple[Measure, list, np.ndarray]]:
        """(measure, query ids, values) for every measure, over the queries both the qrels and ``run`` have."""
        from ..data import Run

        frame = _frame(ir_measures.util.RunConverter(run), "run", "score")
        if not len(frame) or not self._evaluators:
            return
        scored = Run.read(frame, columns=_RUN_COLUMNS)
        for key, pairs in self._groups.items():
            with warnings.catch_warnings():
                # ir_measures scores a run that shares no query with the qrels as all defaults, silently.
                warnings.simplefilter("ignore", NoSharedQueriesWarning)
                result = self._evaluators[key].evaluate(scored)
            query_ids = result.query_ids.to_pylist()
            for measure, metric in pairs:
                yield measure, query_ids, result.values(metric)
            if key == ("qrels", False):
                for measure in self._num_q:
                    yield measure, query_ids, np.ones(len(query_ids))


def _omits_undefined(measure: Measure) -> bool:
    entry = measure_entry(measure.NAME)
    return entry is not None and entry.omits_undefined


def _registry_metric(measure: Measure) -> tuple[RegistryMetric, bool]:
    """The registry metric of an ir_measures measure, and its judged_only; ConfigError when none reproduces it."""
    parsed = parse_measure(str(measure))
    if parsed is None:
        raise ConfigError(f"{measure} is not a measure retrieval_eval knows")
    return parsed.metric, parsed.judged_only


def _layout(metric: RegistryMetric) -> str:
    """The qrels layout ``metric``'s family reads: plain qrels where it can, else its own (the diversity family's qrels_jg)."""
    layouts = REGISTRY.family(metric).judgments
    return "qrels" if "qrels" in layouts else layouts[0]


def _frame(converter: Any, what: str, value: str, *, iteration: bool = False) -> pd.DataFrame:
    """ir_measures' qrels or run (a DataFrame, a dict of dicts, namedtuples) as a DataFrame: query_id, doc_id, ``value``,
    and with ``iteration`` (qrels) the ``iteration`` column (:data:`_NO_ITERATION` where they have none).

    A DataFrame is used as it is (only its columns are read); the others are read as ir_measures
    reads them (its converters), then laid out in columns.
    """
    kind, error = converter.predict_type()
    columns = ["query_id", "doc_id", value, *(["iteration"] if iteration else [])]
    if kind == "pd_dataframe":
        frame = getattr(converter, what)
        return frame.assign(iteration=_NO_ITERATION) if iteration and "iteration" not in frame.columns else frame
    if kind == "dict_of_dict":
        nested = getattr(converter, what)
        rows = [(query_id, doc_id, value, _NO_ITERATION)[:len(columns)]
                for query_id, docs in nested.items() for doc_id, value in docs.items()]
    elif kind == "namedtuple_iter":
        rows = [(item.query_id, item.doc_id, getattr(item, value), getattr(item, "iteration", _NO_ITERATION))[:len(columns)]
                for item in converter.as_namedtuple_iter()]
    else:
        raise ValueError(f"unknown {what} format: {error}")
    return pd.DataFrame(rows, columns=columns)


provider = RetrievalEvalProvider()
"""The provider, ready to use: ``provider.calc_aggregate(measures, qrels, run)``."""


def register(default: bool = True) -> RetrievalEvalProvider:
    """Register :data:`provider` in ir_measures' registry of providers (``ir_measures.providers.registry``).

    With ``default=True`` it also goes first in ``ir_measures.DefaultPipeline``, the pipeline of
    ``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and of pyterrier's
    ``pt.Experiment``, which calls them): the measures it supports are then computed by
    retrieval_eval, the others by ir_measures' providers as before. Registering twice changes
    nothing. :func:`unregister` undoes it.
    """
    ir_measures.providers.register(provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if default and provider not in pipeline:
        pipeline.insert(0, provider)
    return provider


def unregister() -> None:
    """Take :data:`provider` out of ir_measures' default pipeline and registry (as before :func:`register`)."""
    pipeline = ir_measures.DefaultPipeline.providers
    while provider in pipeline:
        pipeline.remove(provider)
    if ir_measures.providers.registry.get(NAME) is provider:
        del ir_measures.providers.registry[NAME]
