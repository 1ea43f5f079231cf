"""Drop-in for azure-ai-evaluation's ``DocumentRetrievalEvaluator``, on the columnar core.

``DocumentRetrievalEvaluator`` takes the same keyword arguments with the same defaults, is called
the same way (``retrieval_ground_truth=``, ``retrieved_documents=``) and returns the same output
dict: keys, key order and value types, for one query. :meth:`DocumentRetrievalEvaluator.evaluate_rows`
and :meth:`DocumentRetrievalEvaluator.evaluate_table` score a whole file of such rows in one pass.

Where the SDK (1.18.10) misbehaves, this does the right thing instead; see the README:
fidelity weights follow numeric label order; bool labels are the integers 0/1; NaN scores,
non-list containers and non-dict rows are errors; a None threshold means the default, one that is
not a finite number (NaN, infinity, a bool, a string) is an error at construction; large
label ranges do not overflow; an ideal DCG of 0 gives NaN instead of ZeroDivisionError; numpy
integer labels and numpy float scores are accepted; the 10,000-row cap is not applied.

Negative labels keep the SDK's negative gains, so ndcg@3 is the SDK's number even where it leaves
[0, 1]; a call where it does gives one :class:`NdcgOutsideUnitIntervalWarning` (``evaluate``'s
``ndcg_exp`` gives a label below 0 the gain 0 instead, and lies in [0, 1]).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from ..data import Qrels, Run, load_azure_rows
from ..data.ids import QueryGroups
from ..data.join import QueryAlignment, align_to
from ..kernels.core import docret
from ..metrics.definition import MetricDefinition
from ..metrics.evaluator import EvaluationPlan
from ..metrics.families.document_retrieval import DEFINITIONS, DOCUMENT_RETRIEVAL, FAMILY, DocumentRetrievalPass, passes
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions
from .exceptions import EvaluationException
from .output import PASS_FAIL, evaluator_output, finite_number

K = 3
# Azure's property names, in Azure's order, and the registry metric each one is; its definition
# holds Azure's default thresholds, directions and value kinds.
_PROPERTIES = {
    "ndcg@3": Metric("ndcg_exp", K),
    "xdcg@3": Metric("xdcg", K),
    "fidelity": Metric("fidelity"),
    "top1_relevance": Metric("top1_relevance"),
    "top3_max_relevance": Metric("max_relevance", K),
    "holes": Metric("holes"),
    "holes_ratio": Metric("holes_ratio"),
    "total_retrieved_documents": Metric("total_retrieved_documents"),
    "total_ground_truth_documents": Metric("total_ground_truth_documents"),
}
# Azure's branch flag, 1 when some ranked document has a nonzero label: the SDK's value types
# follow it (:func:`_property_values`). It is no metric, so no registered family has it.
_BRANCH = Metric("relevant_retrieved", K)


def _branch_flag(output: DocumentRetrievalPass, metric: Metric) -> np.ndarray:
    return output.column(docret.RELEVANT_RETRIEVED, metric.k)


#: The SDK's variant of the document-retrieval family, a value kept out of the registry (so out of
#: every listing): ndcg_exp with the SDK's gains (negative for a negative label), the branch flag
#: as one more definition, and every definition taking float labels, as the batch path always has
#: (a call's labels are integers).
_SDK_FAMILY = dataclasses.replace(
    DOCUMENT_RETRIEVAL,
    definitions=(
        *(dataclasses.replace(definition, float_labels=True) for definition in DEFINITIONS),
        MetricDefinition(
            _BRANCH.name, FAMILY, "1 when some ranked document has a nonzero label, else 0.",
            higher_is_better=True, cutoff=True, extract=_branch_flag, float_labels=True,
        ),
    ),
    passes=passes(azure_gains=True),
)


@functools.lru_cache(maxsize=64)
def _sdk_plan(label_min: int, label_max: int) -> EvaluationPlan:
    """The drop-in's evaluation plan for a label range: the nine properties at k = 3, then the branch flag.

    Kept out of the evaluator's attributes so that an evaluator still pickles (a family's
    extractions are closures, which do not).
    """
    options = EvaluationOptions(label_min=label_min, label_max=label_max)
    return EvaluationPlan.of_family(_SDK_FAMILY, [*_PROPERTIES.values(), _BRANCH], options)


# The columns of :meth:`DocumentRetrievalEvaluator._scores`: the properties in order, then Azure's branch flag.
_COLUMN = {name: column for column, name in enumerate(_PROPERTIES)}
_RELEVANT_RETRIEVED = len(_PROPERTIES)
_DEFINITION = {name: _SDK_FAMILY.definition(metric) for name, metric in _PROPERTIES.items()}
# Azure fixes the holes thresholds; the other seven are constructor arguments.
_FIXED_THRESHOLDS = ("holes", "holes_ratio")
_MISSING_INPUTS = "DocumentRetrievalEvaluator: Either 'conversation' or individual inputs must be provided."
_EMPTY_GROUND_TRUTH = (
    "'retrieval_ground_truth' parameter must contain at least one item. "
    "Check your data input to be sure that each input record has ground truth defined."
)
_BAD_GROUND_TRUTH_ROW = (
    "Invalid input data was found in the retrieval ground truth. Ensure that all items in the "
    "'retrieval_ground_truth' array contain 'document_id' and 'query_relevance_label' properties."
)
_BAD_RETRIEVED_ROW = (
    "Invalid input data was found in the retrieved documents. Ensure that all items in the "
    "'retrieved_documents' array contain 'document_id' and 'relevance_score' properties."
)
_LABEL_OUT_OF_RANGE = (
    "A query relevance label {side} than the configured {bound} value was detected in the evaluation input data. "
    "Check the range of ground truth label values in the input data and set the value of ground_truth_label_{short} to "
    "the appropriate value for your data."
)


class DocumentRetrievalEvaluator:
    """NDCG@3 (exponential gain), XDCG@3, fidelity, top-1 and top-3 max relevance, holes, for one query per call.

    Same constructor as azure-ai-evaluation's evaluator; all arguments keyword-only.
    """

    id = "azureai://built-in/evaluators/document_retrieval"

    def __init__(
        self,
        *,
        ground_truth_label_min: int = 0,
        ground_truth_label_max: int = 4,
        ndcg_threshold: float | None = 0.5,
        xdcg_threshold: float | None = 50.0,
        fidelity_threshold: float | None = 0.5,
        top1_relevance_threshold: float | None = 50.0,
        top3_max_relevance_threshold: float | None = 50.0,
        total_retrieved_documents_threshold: int | None = 50,
        total_ground_truth_documents_threshold: int | None = 50,
    ) -> None:
        if not isinstance(ground_truth_label_min, int):
            raise EvaluationException("The ground truth label minimum must be an integer value.")
        if not isinstance(ground_truth_label_max, int):
            raise EvaluationException("The ground truth label maximum must be an integer value.")
        if ground_truth_label_min >= ground_truth_label_max:
            raise EvaluationException(
                "The ground truth label maximum must be strictly greater than the ground truth label minimum."
            )
        self.k = K
        self.ground_truth_label_min = int(ground_truth_label_min)
        self.ground_truth_label_max = int(ground_truth_label_max)
        _sdk_plan(self.ground_truth_label_min, self.ground_truth_label_max)  # checks the range as evaluate() does
        given = {
            "ndcg@3": ndcg_threshold,
            "xdcg@3": xdcg_threshold,
            "fidelity": fidelity_threshold,
            "top1_relevance": top1_relevance_threshold,
            "top3_max_relevance": top3_max_relevance_threshold,
            "total_retrieved_documents": total_retrieved_documents_threshold,
            "total_ground_truth_documents": total_ground_truth_documents_threshold,
        }
        self._thresholds: dict[str, Any] = {}
        for name, value in given.items():
            # F1ScoreEvaluator's rule (a finite real number, not a bool), None meaning the default: a NaN
            # threshold would fail every query silently, an infinite one pass or fail them all.
            if value is not None and not finite_number(value):
                raise EvaluationException(f"The threshold for {name} must be a finite number or None, got {value!r}.")
            self._thresholds[name] = _DEFINITION[name].azure_threshold if value is None else value
        self._thresholds.update({name: _DEFINITION[name].azure_threshold for name in _FIXED_THRESHOLDS})
        self._threshold = self._thresholds["ndcg@3"]

    def __call__(self, *, retrieval_ground_truth: Any = None, retrieved_documents: Any = None, **_: Any) -> dict[str, Any]:
        """Score one query; the output dict has the SDK's keys, order and value types."""
        if retrieval_ground_truth is None or retrieved_documents is None:
            raise EvaluationException(_MISSING_INPUTS)
        qrels_table = self._ground_truth_table(retrieval_ground_truth)
        run_table = _retrieved_table(retrieved_documents)
        # One query: its grouping and alignment are known, so skip finding them.
        qrels = Qrels(qrels_table, source="retrieval_ground_truth", queries=QueryGroups.one_query(0, qrels_table.num_rows))
        run = Run(run_table, source="retrieved_documents", queries=QueryGroups.one_query(0, run_table.num_rows))
        alignment = QueryAlignment.one_query(0, retrieved=run_table.num_rows > 0)
        return self._output(self._scores(qrels, run, alignment, stacklevel=4)[0])

    def evaluate_table(self, rows: Any, *, query_id_field: str = "query_id") -> pd.DataFrame:
        """Score a file (JSONL or parquet) or table of Azure rows in one columnar pass.

        Each row holds ``retrieval_ground_truth`` and ``retrieved_documents`` (and optionally a
        query id; else the 1-based row number is used). Returns one row per input row: ``query_id``
        and the nine metrics under the SDK's names (float64; NaN where fidelity is undefined).
        """
        matrix, query_ids = self._score_rows(rows, query_id_field)
        table = pd.DataFrame({"query_id": query_ids.to_pandas()})
        for name, column in _COLUMN.items():
            table[name] = matrix[:, column].astype(np.int64) if _DEFINITION[name].integer else matrix[:, column]
        return table

    def evaluate_rows(self, rows: Any, *, query_id_field: str = "query_id") -> Iterator[dict[str, Any]]:
        """Like calling the evaluator on every row, scored in one columnar pass: one output dict per row."""
        matrix, _ = self._score_rows(rows, query_id_field)
        return (self._output(row) for row in matrix)

    def _score_rows(self, rows: Any, query_id_field: str) -> tuple[np.ndarray, pa.Array]:
        collection = load_azure_rows(rows, query_id_field=query_id_field)
        alignment = align_to(collection.query_ids, collection.qrels, collection.run)
        return self._scores(collection.qrels, collection.run, alignment, stacklevel=5), collection.query_ids

    def _scores(self, qrels: Qrels, run: Run, alignment: QueryAlignment, *, stacklevel: int) -> np.ndarray:
        """The nine properties at k = 3 for the aligned queries, then Azure's branch flag (columns: ``_COLUMN``).

        ``stacklevel``: the warning's, counted from :func:`_warn_outside_unit_interval` to the user's call.
        """
        plan = _sdk_plan(self.ground_truth_label_min, self.ground_truth_label_max)
        values = list(plan.score(qrels, run, alignment).values())
        _warn_outside_unit_interval(values[_COLUMN["ndcg@3"]], stacklevel)
        return np.column_stack(values)

    def _ground_truth_table(self, ground_truth: Any) -> pa.Table:
        rows = _rows_of(ground_truth, "retrieval_ground_truth")
        if not rows:
            raise EvaluationException(_EMPTY_GROUND_TRUTH)
        ids, labels = [], []
        for row in rows:
            document_id, label = _fields(row, "retrieval_ground_truth", "query_relevance_label")
            if document_id is None or label is None:
                raise EvaluationException(_BAD_GROUND_TRUTH_ROW)
            if type(label) is not int and not isinstance(label, numbers.Integral):
                raise EvaluationException("Query relevance labels must be integer values.")
            label = int(label)
            if label < self.ground_truth_label_min:
                raise EvaluationException(_LABEL_OUT_OF_RANGE.format(side="less", bound="minimum", short="min"))
            if label > self.ground_truth_label_max:
                raise EvaluationException(_LABEL_OUT_OF_RANGE.format(side="greater", bound="maximum", short="max"))
            ids.append(_id_key(document_id))
            labels.append(label)
        return _one_query_table(ids, "relevance", pa.array(labels, pa.int64()))

    def _output(self, row: np.ndarray) -> dict[str, Any]:
        properties = _property_values(row)
        for name, value in list(properties.items()):
            threshold = self._thresholds[name]
            higher_is_better = _DEFINITION[name].higher_is_better
            passed = bool(value >= threshold) if higher_is_better else bool(value <= threshold)
            properties[f"{name}_result"] = PASS_FAIL[passed]
            properties[f"{name}_passed"] = passed
            properties[f"{name}_threshold"] = threshold
            properties[f"{name}_higher_is_better"] = higher_is_better
        return evaluator_output("document_retrieval", float(properties["ndcg@3"]), self._threshold, properties)


class NdcgOutsideUnitIntervalWarning(UserWarning):
    """ndcg@3 of some query lies outside [0, 1]: negative labels have negative gains in the SDK, whose value is kept."""


_OUTSIDE_UNIT_INTERVAL = (
    "ndcg@3 is outside [0, 1] for {count}: azure-ai-evaluation gives negative labels negative gains (2^label - 1) "
    "and this drop-in keeps its values; retrieval_eval.evaluate's ndcg_exp gives a label below 0 the gain 0"
)


def _warn_outside_unit_interval(ndcg: np.ndarray, stacklevel: int) -> None:
    """One warning for a whole call, however many of its queries have an ndcg@3 outside [0, 1]."""
    outside = int(np.count_nonzero((ndcg < 0.0) | (ndcg > 1.0)))
    if outside:
        shown = "1 query" if outside == 1 else f"{outside} queries"
        warnings.warn(_OUTSIDE_UNIT_INTERVAL.format(count=shown), NdcgOutsideUnitIntervalWarning, stacklevel=stacklevel)


def _property_values(row: np.ndarray) -> dict[str, Any]:
    """The nine metrics with the SDK's value types for the branch the query falls in."""
    totals = {name: int(row[_COLUMN[name]]) for name in ("total_retrieved_documents", "total_ground_truth_documents")}
    quality = ("ndcg@3", "xdcg@3", "fidelity", "top1_relevance", "top3_max_relevance")
    if totals["total_retrieved_documents"] == 0:
        return {**{name: 0.0 for name in quality}, "holes": 0, "holes_ratio": 0, **totals}
    holes = {"holes": int(row[_COLUMN["holes"]]), "holes_ratio": float(row[_COLUMN["holes_ratio"]])}
    if not row[_RELEVANT_RETRIEVED]:
        return {**{name: 0 for name in quality}, **holes, **totals}
    values = {name: (int if _DEFINITION[name].integer else float)(row[_COLUMN[name]]) for name in quality}
    return {**values, **holes, **totals}


def _retrieved_table(retrieved: Any) -> pa.Table:
    ids, scores = [], []
    for row in _rows_of(retrieved, "retrieved_documents"):
        document_id, score = _fields(row, "retrieved_documents", "relevance_score")
        if document_id is None or score is None:
            raise EvaluationException(_BAD_RETRIEVED_ROW)
        if type(score) is not float and type(score) is not int and not isinstance(score, numbers.Real):
            raise EvaluationException("Retrieved document relevance score must be a numerical value.")
        if math.isnan(score):
            raise EvaluationException(f"Retrieved document {document_id!r} has a NaN relevance score; NaN cannot be ranked.")
        if type(score) is not float and isinstance(score, numbers.Integral) and float(score) != score:
            raise EvaluationException(
                f"Retrieved document {document_id!r} has the score {score}, which float64 cannot hold exactly; "
                "scores are compared as float64."
            )
        ids.append(_id_key(document_id))
        scores.append(float(score))
    return _one_query_table(ids, "score", pa.array(scores, pa.float64()))


def _one_query_table(ids: list[str], value_column: str, values: pa.Array) -> pa.Table:
    query_ids = pa.array(np.zeros(len(ids), dtype=np.int64))
    return pa.table({"query_id": query_ids, "doc_id": pa.array(ids, pa.large_string()), value_column: values})


def _rows_of(value: Any, name: str) -> Sequence[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (Sequence, np.ndarray)):
        raise EvaluationException(f"'{name}' must be a list of dicts, got {type(value).__name__}.")
    return value


def _fields(row: Any, name: str, value_field: str) -> tuple[Any, Any]:
    # Exact-type checks come before the ABC checks in this module: an ABC isinstance costs about
    # a microsecond, and these run once per row of every call.
    if type(row) is not dict and not isinstance(row, Mapping):
        raise EvaluationException(f"Every item of '{name}' must be a dict, got {type(row).__name__}.")
    return row.get("document_id"), row.get(value_field)


def _id_key(document_id: Any) -> str:
    """A string that is equal for two ids exactly when Python dict keys would be (1 == 1.0 == True, 1 != "1")."""
    if type(document_id) is str or isinstance(document_id, str):
        return "s" + document_id
    if isinstance(document_id, numbers.Integral) or (isinstance(document_id, float) and document_id.is_integer()):
        return "i" + str(int(document_id))
    if isinstance(document_id, float):
        return "f" + repr(document_id)
    hash(document_id)  # an unhashable id raises TypeError, as in the SDK
    return "o" + repr(document_id)
