"""Generate golden vectors from ragas 0.4.3's non-LLM context precision and recall and its average precision.

Run once with ragas installed; CI does not need ragas (about 55 packages), it only reads the committed output::

    python3 -m venv .venv-ragas && .venv-ragas/bin/pip install -e '.[ragas-oracle]'
    RAGAS_DO_NOT_TRACK=true .venv-ragas/bin/python tests/golden/make_ragas_vectors.py   # from the repository root

The cases come from a fixed seed, so re-running reproduces ``tests/data/ragas_golden.jsonl`` byte for
byte. They are drawn as tests/ragas_dropins/test_ragas_vs_ragas.py's strategies draw them (which
compare with ragas live, where it is installed): id lists of small integers, their text and a few
other strings, mixed; short texts over a small alphabet (edits, transpositions and common prefixes are
frequent) under every distance measure and the thresholds 0.3, 0.5 and 0.75; verdict lists of up to
40. Each value is ragas' own, through ``single_turn_ascore(SingleTurnSample(...))`` (and
``_calculate_average_precision`` for the verdicts); where ragas raises, the exception's class name.

Output format: one JSON object per line: ``case_id``, ``kind`` (``ids``, ``strings``, ``verdicts``),
``ragas_version``, the inputs (``samples``, with ``distance`` and ``threshold`` for ``strings``;
``verdicts``) and ``expected``: per sample ``{metric: value}``, a value being ``float.hex()`` of ragas'
float (so every bit, NaN included, survives JSON) or ``{"raises": "ValueError"}``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import random
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # ragas reports each evaluation over the network otherwise

from ragas.dataset_schema import SingleTurnSample  # noqa: E402

# The modules (ragas.metrics also holds instances under these names).
cp = importlib.import_module("ragas.metrics._context_precision")
cr = importlib.import_module("ragas.metrics._context_recall")
rs = importlib.import_module("ragas.metrics._string")

OUTPUT = Path(__file__).resolve().parents[1] / "data" / "ragas_golden.jsonl"
SEED = 20_261_207
RAGAS_VERSION = version("ragas")
ID_POOL = [*range(-3, 13), *map(str, range(-3, 13)), "a", "b", "07"]
ALPHABET = "abcé "
THRESHOLDS = (0.5, 0.3, 0.75)
MEASURES = [measure.value for measure in rs.DistanceMeasure]


def _value(compute) -> Any:
    """ragas' float as ``float.hex()``, or the class name of what it raised."""
    try:
        return float(compute()).hex()
    except Exception as error:  # noqa: BLE001 - what ragas raises is the record
        return {"raises": type(error).__name__}


def _ragas(metric: Any, sample: dict) -> Any:
    return _value(lambda: asyncio.run(metric.single_turn_ascore(SingleTurnSample(**sample))))


def _ids(rng: random.Random) -> list:
    return [rng.choice(ID_POOL) for _ in range(rng.randint(0, 8))]


def _texts(rng: random.Random, least: int) -> list[str]:
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 7))) for _ in range(rng.randint(least, 4))]


def id_cases(rng: random.Random, count: int) -> list[dict]:
    """Tables of 1-6 samples of id lists (mixed integers and text), each sample with ragas' precision and recall."""
    cases = []
    for _ in range(count):
        samples = [{"retrieved_context_ids": _ids(rng), "reference_context_ids": _ids(rng)} for _ in range(rng.randint(1, 6))]
        expected = [{"id_based_context_precision": _ragas(cp.IDBasedContextPrecision(), sample),
                     "id_based_context_recall": _ragas(cr.IDBasedContextRecall(), sample)} for sample in samples]  # fmt: skip
        cases.append({"kind": "ids", "samples": samples, "expected": expected})
    return cases


def string_cases(rng: random.Random, count: int) -> list[dict]:
    """Tables of 1-5 samples of texts, under one distance measure and threshold, with ragas' precision and recall."""
    cases = []
    for index in range(count):
        measure, threshold = MEASURES[index % len(MEASURES)], rng.choice(THRESHOLDS)
        samples = [{"retrieved_contexts": _texts(rng, 1), "reference_contexts": _texts(rng, 1)} for _ in range(rng.randint(1, 5))]
        cases.append({"kind": "strings", "distance": measure, "threshold": threshold, "samples": samples,
                      "expected": _string_values(samples, measure, threshold)})  # fmt: skip
    # Where the thresholds' comparisons differ ("ab" against "ac": Levenshtein similarity exactly 0.5) and where
    # a side is empty (ragas raises max() of an empty sequence for some).
    edges = [{"retrieved_contexts": ["ab"], "reference_contexts": ["ac"]},
             {"retrieved_contexts": ["a", "b"], "reference_contexts": []},
             {"retrieved_contexts": [], "reference_contexts": ["a"]},
             {"retrieved_contexts": [], "reference_contexts": []}]  # fmt: skip
    for sample in edges:
        cases.append({"kind": "strings", "distance": "levenshtein", "threshold": 0.5, "samples": [sample],
                      "expected": _string_values([sample], "levenshtein", 0.5)})  # fmt: skip
    return cases


def _string_values(samples: list[dict], measure: str, threshold: float) -> list[dict]:
    theirs = rs.DistanceMeasure(measure)
    precision = cp.NonLLMContextPrecisionWithReference(
        distance_measure=rs.NonLLMStringSimilarity(distance_measure=theirs), threshold=threshold)  # fmt: skip
    recall = cr.NonLLMContextRecall(threshold=threshold)
    recall.distance_measure = theirs
    return [{"non_llm_context_precision_with_reference": _ragas(precision, sample),
             "non_llm_context_recall": _ragas(recall, sample)} for sample in samples]  # fmt: skip


def verdict_cases(rng: random.Random, count: int) -> list[dict]:
    """Lists of 1-8 verdict lists (0/1, up to 40 each), with the average precision of both ragas classes."""
    cases = []
    llm, non_llm = cp.LLMContextPrecisionWithReference(), cp.NonLLMContextPrecisionWithReference()
    for _ in range(count):
        lists = [[rng.randint(0, 1) for _ in range(rng.randint(0, 40))] for _ in range(rng.randint(1, 8))]
        expected = [{"non_llm": _value(lambda: non_llm._calculate_average_precision(verdicts)),
                     "llm": _value(lambda: llm._calculate_average_precision(
                         [cp.Verification(reason="", verdict=v) for v in verdicts]))} for verdicts in lists]  # fmt: skip
        cases.append({"kind": "verdicts", "verdicts": lists, "expected": expected})
    return cases


def main() -> None:
    rng = random.Random(SEED)
    cases = id_cases(rng, 300) + string_cases(rng, 300) + verdict_cases(rng, 200)
    with OUTPUT.open("w", encoding="utf-8") as out:
        for number, case in enumerate(cases):
            record = {"case_id": f"ragas-{number:04d}", "ragas_version": RAGAS_VERSION, **case}
            out.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
    print(f"{len(cases)} cases -> {OUTPUT}")


if __name__ == "__main__":
    main()
