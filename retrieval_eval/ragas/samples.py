"""Score a whole file (or table) of ragas samples with the deterministic retrieval metrics, column-wise.

The samples carry ragas' field names: ``retrieved_context_ids`` and ``reference_context_ids``
(lists of integer or string ids), ``retrieved_contexts`` and ``reference_contexts`` (lists of
texts), and, for ``context_precision``, a list of 0/1 verdicts per sample, one per retrieved
context in rank order (a judge's, or the user's). Each metric is scored where the sample has its
fields; a metric asked for whose field the source lacks is an error naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError, InputError
from ..io.context_rows import ContextRows, read_context_rows
from .id_based import id_based_context_precision_recall
from .string_based import DistanceMeasure, PairSimilarities, distance_measure, non_llm_context_precision, non_llm_context_recall
from .verdict_precision import average_precision

if TYPE_CHECKING:
    import pandas as pd

RETRIEVED_IDS, REFERENCE_IDS = "retrieved_context_ids", "reference_context_ids"
RETRIEVED, REFERENCE, VERDICTS = "retrieved_contexts", "reference_contexts", "verdicts"

#: Each metric (ragas' name) and the fields it reads.
METRIC_FIELDS = {
    "id_based_context_precision": (RETRIEVED_IDS, REFERENCE_IDS),
    "id_based_context_recall": (RETRIEVED_IDS, REFERENCE_IDS),
    "non_llm_context_precision_with_reference": (RETRIEVED, REFERENCE),
    "non_llm_context_recall": (RETRIEVED, REFERENCE),
    "context_precision": (VERDICTS,),
}
_KINDS = {RETRIEVED_IDS: "ids", REFERENCE_IDS: "ids", RETRIEVED: "texts", REFERENCE: "texts", VERDICTS: "verdicts"}


def evaluate_samples(
    samples: Any,
    metrics: Sequence[str] | None = None,
    *,
    distance: DistanceMeasure | str = DistanceMeasure.LEVENSHTEIN,
    precision_threshold: float = 0.5,
    recall_threshold: float = 0.5,
    verdicts_field: str = VERDICTS,
) -> pd.DataFrame:
    """One row per sample, in input order: its id columns where it has them (``id``, ``query_id``...), then one
    float64 column per metric (ragas' names, :data:`METRIC_FIELDS`), NaN where ragas gives NaN.

    ``samples``: a JSONL/JSON/parquet file, a DataFrame, a Table or a list of dicts. ``metrics``: the
    metrics to score (default: every one whose fields the samples have). ``distance``: the string
    measure of the non-LLM metrics; ``precision_threshold`` (useful when similarity >= it) and
    ``recall_threshold`` (found when similarity > it) are ragas' thresholds.
    """
    import pandas as pd

    measure = distance_measure(distance)
    unknown = [name for name in metrics or () if name not in METRIC_FIELDS]
    if unknown:
        raise ConfigError(f"unknown ragas metric {unknown[0]!r}; expected one of {', '.join(METRIC_FIELDS)}")
    columns = {name: (verdicts_field if name == VERDICTS else name, kind) for name, kind in _KINDS.items()}
    rows = read_context_rows(samples, columns)
    chosen = list(metrics) if metrics else [m for m, needs in METRIC_FIELDS.items() if all(f in rows.lists for f in needs)]
    if not chosen:
        raise InputError(f"the samples have none of the fields {', '.join(f for f in columns if f != VERDICTS)}"
                         f" nor {verdicts_field!r}", source=rows.source)  # fmt: skip
    for name in chosen:
        missing = [columns[field][0] for field in METRIC_FIELDS[name] if field not in rows.lists]
        if missing:
            raise InputError(f"{name} needs the field {missing[0]!r}, which the samples lack", source=rows.source)
    scores = _scores(rows, chosen, measure, precision_threshold, recall_threshold)
    return pd.DataFrame({**{name: values.to_pandas() for name, values in rows.ids.items()}, **scores})


def _scores(rows: ContextRows, chosen: list[str], measure: DistanceMeasure, precision_threshold: float,
            recall_threshold: float) -> dict[str, np.ndarray]:  # fmt: skip
    lists, out = rows.lists, {}
    if {"id_based_context_precision", "id_based_context_recall"} & set(chosen):
        precision, recall = id_based_context_precision_recall(lists[RETRIEVED_IDS], lists[REFERENCE_IDS])
        out.update(id_based_context_precision=precision, id_based_context_recall=recall)
    if {"non_llm_context_precision_with_reference", "non_llm_context_recall"} & set(chosen):
        retrieved, reference = lists[RETRIEVED], lists[REFERENCE]
        pairs = PairSimilarities(retrieved, reference, measure)  # scored once for both metrics
        out["non_llm_context_precision_with_reference"] = non_llm_context_precision(
            retrieved, reference, threshold=precision_threshold, pairs=pairs)  # fmt: skip
        out["non_llm_context_recall"] = non_llm_context_recall(retrieved, reference, threshold=recall_threshold, pairs=pairs)
    if "context_precision" in chosen:
        verdicts = lists[VERDICTS]
        out["context_precision"] = average_precision(verdicts.values.to_numpy(), verdicts.offsets)
    return {name: out[name] for name in chosen}
