"""Drop-ins for ragas' deterministic retrieval metrics (0.4.3): the same names, constructor arguments and calls.

``await metric.single_turn_ascore(sample)`` and ``metric.single_turn_score(sample)`` score one
sample (a ragas ``SingleTurnSample``, or any object or dict with its field names) as ragas does;
``metric.score_samples(samples)`` scores a whole file or table column-wise (one float64 per sample).
Definitions: :mod:`.id_based`, :mod:`.string_based`. A missing field is an InputError naming it
(ragas asserts it is not None).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import InputError
from .string_based import DistanceMeasure, distance_measure


@dataclass
class _Metric:
    name: ClassVar[str]
    _fields: ClassVar[tuple[str, ...]]

    def _options(self) -> dict[str, Any]:
        return {}

    def score_samples(self, samples: Any) -> np.ndarray:
        """This metric of every sample of a JSONL/JSON/parquet file, DataFrame, Table or list of dicts, column-wise."""
        from .samples import evaluate_samples

        return evaluate_samples(samples, [self.name], **self._options())[self.name].to_numpy()

    def single_turn_score(self, sample: Any, callbacks: Any = None) -> float:
        """One sample's score (ragas' value, NaN included)."""
        record = {}
        for name in self._fields:
            value = sample.get(name) if isinstance(sample, Mapping) else getattr(sample, name, None)
            if value is None:
                raise InputError(f"{self.name} needs the sample's {name!r} (a list), got None")
            # ragas compares ids as str(id), so a list may mix the integer 7 and the string "8".
            mixed = name.endswith("_ids")
            record[name] = [str(item) if mixed and isinstance(item, int) and not isinstance(item, bool) else item
                            for item in value]  # fmt: skip
        return float(self.score_samples([record])[0])

    async def single_turn_ascore(self, sample: Any, callbacks: Any = None, timeout: float | None = None) -> float:
        """As :meth:`single_turn_score`, awaitable as ragas' is (``timeout`` as ragas: seconds, or None)."""
        return await asyncio.wait_for(asyncio.to_thread(self.single_turn_score, sample), timeout=timeout)


@dataclass
class IDBasedContextPrecision(_Metric):
    """|retrieved ids ∩ reference ids| / |retrieved ids| over sets of ``str(id)``; NaN without retrieved ids."""

    name: ClassVar[str] = "id_based_context_precision"
    _fields: ClassVar[tuple[str, ...]] = ("retrieved_context_ids", "reference_context_ids")


@dataclass
class IDBasedContextRecall(_Metric):
    """|retrieved ids ∩ reference ids| / |reference ids| over sets of ``str(id)``; NaN without reference ids."""

    name: ClassVar[str] = "id_based_context_recall"
    _fields: ClassVar[tuple[str, ...]] = ("retrieved_context_ids", "reference_context_ids")


@dataclass
class NonLLMStringSimilarity:
    """ragas' ``NonLLMStringSimilarity``: ``1 - normalized_distance(reference, response)`` of rapidfuzz's measure."""

    distance_measure: DistanceMeasure = DistanceMeasure.LEVENSHTEIN

    def __post_init__(self) -> None:
        self.distance_measure = distance_measure(self.distance_measure)


def _measure_of(similarity: Any) -> DistanceMeasure:
    """The measure of ours or of ragas' ``NonLLMStringSimilarity`` (read by its ``distance_measure``)."""
    return distance_measure(getattr(similarity, "distance_measure", similarity))


@dataclass
class NonLLMContextPrecisionWithReference(_Metric):
    """ragas' average precision of the retrieved contexts whose best similarity to a reference is >= ``threshold``."""

    name: ClassVar[str] = "non_llm_context_precision_with_reference"
    _fields: ClassVar[tuple[str, ...]] = ("retrieved_contexts", "reference_contexts")
    distance_measure: Any = field(default_factory=NonLLMStringSimilarity)
    threshold: float = 0.5

    def _options(self) -> dict[str, Any]:
        return {"distance": _measure_of(self.distance_measure), "precision_threshold": self.threshold}


@dataclass
class NonLLMContextRecall(_Metric):
    """ragas' share of reference contexts whose best similarity to a retrieved context is > ``threshold``.

    As in ragas, ``distance_measure`` is set with a :class:`DistanceMeasure` (or its value).
    """

    name: ClassVar[str] = "non_llm_context_recall"
    _fields: ClassVar[tuple[str, ...]] = ("retrieved_contexts", "reference_contexts")
    threshold: float = 0.5
    _distance_measure: Any = field(default_factory=NonLLMStringSimilarity)

    @property
    def distance_measure(self) -> NonLLMStringSimilarity:
        return self._distance_measure

    @distance_measure.setter
    def distance_measure(self, measure: Any) -> None:
        self._distance_measure = NonLLMStringSimilarity(distance_measure=_measure_of(measure))

    def _options(self) -> dict[str, Any]:
        return {"distance": _measure_of(self._distance_measure), "recall_threshold": self.threshold}
