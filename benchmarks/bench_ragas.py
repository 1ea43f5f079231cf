"""Side-by-side benchmark: ragas 0.4.3's deterministic retrieval metrics (an awaited call per sample) against retrieval_eval's.

One fixed-seed workload of RAG samples: 10 retrieved context ids (from 30, repeats possible) and
3 reference ids per sample; 5 retrieved contexts of 40-80 characters and 2 reference contexts,
a reference being a retrieved context with a few characters edited half of the time. ragas
scores a sample of ``--ragas-sample`` samples (``await metric.single_turn_ascore(sample)``, one
metric at a time, as a user loops); retrieval_eval scores every sample column-wise
(:func:`retrieval_eval.ragas.evaluate_samples` of an Arrow table). Per-sample times are compared
(medians of ``--rounds``, interleaved); the values are checked equal on ragas' sample.

Usage (from the repository root, with ragas installed)::

    RAGAS_DO_NOT_TRACK=true python benchmarks/bench_ragas.py [--samples 100000] [--ragas-sample 2000] [--rounds 3]

Recorded (2 CPUs shared with other jobs; Python 3.11.7, ragas 0.4.3, rapidfuzz 3.14.6): 77x at load
average 3, 33x at load average 11 (ragas on all 100,000 samples); see benchmarks/README.md, bench_ragas.py.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import string
import sys
from pathlib import Path

import pyarrow as pa

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")  # ragas reports every evaluation over the network otherwise
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.harness import describe_machine, interleave, machine, print_table, timed  # noqa: E402
from retrieval_eval.ragas import evaluate_samples  # noqa: E402

METRICS = ("id_based_context_precision", "id_based_context_recall", "non_llm_context_precision_with_reference",
           "non_llm_context_recall")  # fmt: skip


def make_samples(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    letters = string.ascii_lowercase + "     "

    def text() -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(40, 80)))

    def edited(value: str) -> str:
        chars = list(value)
        for _ in range(rng.randint(1, 6)):
            chars[rng.randrange(len(chars))] = rng.choice(letters)
        return "".join(chars)

    samples = []
    for _ in range(count):
        retrieved = [text() for _ in range(5)]
        reference = [edited(rng.choice(retrieved)) if rng.random() < 0.5 else text() for _ in range(2)]
        samples.append({
            "retrieved_context_ids": [f"d{rng.randrange(30)}" for _ in range(10)],
            "reference_context_ids": [f"d{rng.randrange(30)}" for _ in range(3)],
            "retrieved_contexts": retrieved,
            "reference_contexts": reference,
        })  # fmt: skip
    return samples


def ragas_scores(samples: list[dict]) -> dict[str, list[float]]:
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics._context_precision import IDBasedContextPrecision, NonLLMContextPrecisionWithReference
    from ragas.metrics._context_recall import IDBasedContextRecall, NonLLMContextRecall

    metrics = [IDBasedContextPrecision(), IDBasedContextRecall(), NonLLMContextPrecisionWithReference(), NonLLMContextRecall()]

    async def run() -> dict[str, list[float]]:
        return {metric.name: [await metric.single_turn_ascore(SingleTurnSample(**sample)) for sample in samples]
                for metric in metrics}  # fmt: skip

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--ragas-sample", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    samples = make_samples(args.samples, seed=28)
    table = pa.Table.from_pylist(samples)
    small = samples[: args.ragas_sample]

    theirs = ragas_scores(small)
    ours = evaluate_samples(small, list(METRICS))
    for name in METRICS:
        for a, b in zip(ours[name], theirs[name]):
            assert a == b or (math.isnan(a) and math.isnan(b)), name
    times = interleave({"ragas": timed(lambda: ragas_scores(small)),
                        "retrieval_eval": timed(lambda: evaluate_samples(table, list(METRICS)))}, args.rounds)  # fmt: skip
    ragas_per = statistics.median(times["ragas"]) / len(small)
    ours_per = statistics.median(times["retrieval_eval"]) / len(samples)
    print(describe_machine(machine("ragas", "rapidfuzz")))
    print_table([
        ("contender", "samples", "seconds (median)", "us per sample", "ratio"),
        ("ragas (4 metrics, a call per sample)", f"{len(small):,}", f"{statistics.median(times['ragas']):.2f}",
         f"{ragas_per * 1e6:.1f}", "1"),
        ("retrieval_eval (4 metrics, column-wise)", f"{len(samples):,}", f"{statistics.median(times['retrieval_eval']):.2f}",
         f"{ours_per * 1e6:.2f}", f"{ragas_per / ours_per:.0f}x faster"),
    ], title="ragas' deterministic retrieval metrics, per sample")  # fmt: skip
    print(f"\nvalues equal to ragas' on {len(small):,} samples x {len(METRICS)} metrics")


if __name__ == "__main__":
    main()
