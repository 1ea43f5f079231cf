"""ragas' non-LLM context precision and recall: string similarities of contexts through rapidfuzz, over many samples.

Definitions (ragas 0.4.3, ``NonLLMStringSimilarity``, ``NonLLMContextPrecisionWithReference``,
``NonLLMContextRecall``). The similarity of a retrieved context r and a reference context f is
``1 - d(r, f)`` with d rapidfuzz's normalized distance of the chosen measure (``levenshtein``,
``hamming``, ``jaro``, ``jaro_winkler``; no preprocessing), in [0, 1]. Then, per sample:

- precision: retrieved context i is useful when ``max_f sim(r_i, f) >= threshold`` (0.5), and the
  precision is ragas' average precision of those verdicts (:mod:`.verdict_precision`);
- recall: reference context j is found when ``max_r sim(r, f_j) > threshold`` (0.5: strictly
  greater, as ragas has it), and the recall is the share of reference contexts found (NaN when
  there are none).

Where ragas fails this gives the value its definition implies instead (each tested): a sample
with retrieved contexts but no reference context has precision 0.0 (no context is useful; ragas
raises ``ValueError: max() arg is an empty sequence``), and one with reference contexts but none
retrieved has recall 0.0 (none is found; ragas raises the same).

Every (retrieved, reference) pair of every sample is scored in one call of rapidfuzz's
``process.cpdist`` (element-wise, multi-threaded) over the pairs laid out with numpy: no Python
loop over samples or pairs. (``process.cdist`` scores a whole cross product, every retrieved
context of every sample against every reference of every sample.)
"""

from __future__ import annotations

from enum import Enum

import numpy as np

from ..errors import ConfigError
from ..io.context_rows import Lists
from .verdict_precision import average_precision


class DistanceMeasure(Enum):
    """ragas' string distance measures (its ``DistanceMeasure``), by the same values."""

    LEVENSHTEIN = "levenshtein"
    HAMMING = "hamming"
    JARO = "jaro"
    JARO_WINKLER = "jaro_winkler"


def distance_measure(value: object) -> DistanceMeasure:
    """Ours, ragas' enum member (by its value) or a value's name such as ``"jaro_winkler"``."""
    name = getattr(value, "value", value)
    try:
        return DistanceMeasure(name)
    except ValueError:
        known = ", ".join(member.value for member in DistanceMeasure)
        raise ValueError(f"unknown distance measure {value!r}; expected one of {known}") from None


def _rapidfuzz(module: str):
    """A rapidfuzz module; its absence is one line saying which extra brings it."""
    import importlib

    try:
        return importlib.import_module(f"rapidfuzz.{module}")
    except ModuleNotFoundError:
        raise ConfigError(
            "ragas' non-LLM context precision and recall need rapidfuzz: pip install 'retrieval_eval[ragas]'"
        ) from None


def _scorer(measure: DistanceMeasure):
    distance = _rapidfuzz("distance")

    module = {"levenshtein": distance.Levenshtein, "hamming": distance.Hamming, "jaro": distance.Jaro,
              "jaro_winkler": distance.JaroWinkler}[measure.value]  # fmt: skip
    return module.normalized_distance


class PairSimilarities:
    """The similarity of every (retrieved, reference) pair of every sample, laid out retrieved-major.

    Sample s with R retrieved and F reference contexts holds its R x F pairs at ``starts[s]`` on,
    pair (i, j) at ``starts[s] + i * F + j``.
    """

    def __init__(self, retrieved: Lists, reference: Lists, measure: DistanceMeasure, *, workers: int = -1) -> None:
        process = _rapidfuzz("process")

        if len(reference) != len(retrieved):
            raise ValueError(f"{len(retrieved)} samples of retrieved contexts but {len(reference)} of reference contexts")
        self.retrieved_lengths, self.reference_lengths = retrieved.lengths, reference.lengths
        pairs = self.retrieved_lengths * self.reference_lengths
        self.starts = np.concatenate(([0], np.cumsum(pairs)))
        sample = np.repeat(np.arange(len(pairs)), pairs)
        local = np.arange(self.starts[-1]) - self.starts[sample]
        width = self.reference_lengths[sample]
        left = retrieved.offsets[sample] + local // np.maximum(width, 1)
        right = reference.offsets[sample] + local % np.maximum(width, 1)
        lefts = retrieved.values.to_numpy(zero_copy_only=False)
        rights = reference.values.to_numpy(zero_copy_only=False)
        distances = process.cpdist(lefts[left], rights[right], scorer=_scorer(measure), dtype=np.float64, workers=workers)
        self.similarity = 1 - distances.reshape(-1) if len(left) else np.empty(0)

    def best_per_retrieved(self) -> np.ndarray:
        """Each retrieved context's best similarity to a reference context of its sample (flat, in order;
        -inf without any)."""
        return _segment_max(self.similarity, np.repeat(self.reference_lengths, self.retrieved_lengths))

    def best_per_reference(self) -> np.ndarray:
        """Each reference context's best similarity to a retrieved context of its sample (-inf without any)."""
        # The same pairs reference-major: pair (i, j) of sample s moves to starts[s] + j * R + i.
        sample = np.repeat(np.arange(len(self.starts) - 1), np.diff(self.starts))
        local = np.arange(self.starts[-1]) - self.starts[sample]
        height = np.maximum(self.retrieved_lengths[sample], 1)
        i, j = local % height, local // height
        order = self.starts[sample] + i * self.reference_lengths[sample] + j
        return _segment_max(self.similarity[order], np.repeat(self.retrieved_lengths, self.reference_lengths))


def _segment_max(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The max of each consecutive segment of ``values`` of the given lengths; -inf for an empty one."""
    out = np.full(len(lengths), -np.inf)
    nonempty = lengths > 0
    if nonempty.any():
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
        out[nonempty] = np.maximum.reduceat(values, starts)
    return out


def non_llm_context_precision(
    retrieved: Lists, reference: Lists, *, measure: DistanceMeasure = DistanceMeasure.LEVENSHTEIN,
    threshold: float = 0.5, pairs: PairSimilarities | None = None,
) -> np.ndarray:  # fmt: skip
    """ragas' ``NonLLMContextPrecisionWithReference`` of every sample (float64, one per sample)."""
    pairs = pairs or PairSimilarities(retrieved, reference, measure)
    best = pairs.best_per_retrieved()
    return average_precision((best >= threshold).astype(np.int64), retrieved.offsets)


def non_llm_context_recall(
    retrieved: Lists, reference: Lists, *, measure: DistanceMeasure = DistanceMeasure.LEVENSHTEIN,
    threshold: float = 0.5, pairs: PairSimilarities | None = None,
) -> np.ndarray:  # fmt: skip
    """ragas' ``NonLLMContextRecall`` of every sample (float64, one per sample; NaN without reference contexts)."""
    pairs = pairs or PairSimilarities(retrieved, reference, measure)
    best = pairs.best_per_reference()
    found = np.zeros(len(best) + 1, dtype=np.int64)
    np.cumsum(best > threshold, out=found[1:])
    counts = found[reference.offsets[1:]] - found[reference.offsets[:-1]]
    lengths = reference.lengths
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lengths > 0, counts / lengths, np.nan)
