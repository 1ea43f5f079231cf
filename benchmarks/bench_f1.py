"""Side-by-side benchmark: azure-ai-evaluation's F1ScoreEvaluator (a call per row) against retrieval_eval's.

One fixed-seed workload of (response, ground truth) rows, QA-shaped: a response of 20-80 words
that shares some of a 5-30 word ground truth, with case, punctuation and articles to normalize;
``--unicode`` mixes in accented, Greek, Cyrillic, CJK and emoji words, ``--unread`` also words with
a capital sigma or a capital I with dot (rows the kernel leaves to the definition in Python). The SDK
and the drop-in's per-call loop score a sample (``--sdk-sample`` rows); the columnar path
(``evaluate_table`` of a parquet file, reading included) scores every row. Per-row times are
compared, each round interleaved with the others, medians of ``--rounds``; the SDK's scores and
the drop-in's are checked equal on the sample. A fresh process measures the fixed costs:
importing the drop-in and scoring a 10-row file for the first time (python kernels).

Usage (from the repository root, in an environment with both packages; the SDK needs pandas 2)::

    python benchmarks/bench_f1.py [--rows 1000000] [--sdk-sample 5000] [--rounds 3] [--unicode] [--json OUT]

Without azure-ai-evaluation the SDK rows and the ratios that need them are skipped.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.harness import describe_machine, interleave, machine, print_table, ratios  # noqa: E402
from retrieval_eval.azure import F1ScoreEvaluator  # noqa: E402

WORDS = (
    "the a an of to and in is was for on with as by at from that this it be are or which search engine "
    "index query document retrieval ranking model vector dense sparse hybrid fusion rerank chunk "
    "embedding latency recall precision relevance answer question context passage paris france "
    "capital river city population century war king museum art science data system user"
).split()
UNICODE_WORDS = "café naïve straße éte οδός ζωή Αθήνα 東京 北京 данные поиск 🙂 ﬁnal".split()
UNREAD_WORDS = ["ΟΔΟΣ", "İstanbul"]
PUNCTUATION = ["", "", "", "", ".", ",", "!", "?", ";", ":", "'s", "(", ")", '"']


def make_rows(count: int, *, seed: int, unicode: bool, unread: bool = False) -> tuple[list[str], list[str]]:
    """``count`` (response, ground truth) pairs, QA-shaped (see the module docstring)."""
    rng = random.Random(seed)
    vocabulary = WORDS + (UNICODE_WORDS * 3 if unicode else []) + (UNREAD_WORDS if unread else [])

    def word() -> str:
        text = rng.choice(vocabulary)
        text = text.capitalize() if rng.random() < 0.15 else text
        return text + rng.choice(PUNCTUATION)

    responses, truths = [], []
    for _ in range(count):
        truth = [word() for _ in range(rng.randint(5, 30))]
        response = rng.sample(truth, rng.randint(0, len(truth))) + [word() for _ in range(rng.randint(15, 50))]
        rng.shuffle(response)
        responses.append(" ".join(response))
        truths.append(" ".join(truth))
    return responses, truths


def sdk_evaluator() -> Any:
    """azure-ai-evaluation's evaluator, or None when the SDK is not importable."""
    try:
        from azure.ai.evaluation import F1ScoreEvaluator as SdkEvaluator
    except ImportError:
        return None
    return SdkEvaluator()


def per_call(evaluator: Any, responses: Sequence[str], truths: Sequence[str]) -> tuple[float, list[float]]:
    """Seconds to score every pair with one call each, and the scores."""
    start = time.perf_counter()
    scores = [evaluator(response=r, ground_truth=t)["f1_score"] for r, t in zip(responses, truths)]
    return time.perf_counter() - start, scores


def fixed_costs(directory: Path) -> dict[str, float]:
    """In a fresh process: seconds to import the drop-in, and to score a 10-row JSONL file the first time."""
    path = directory / "ten.jsonl"
    responses, truths = make_rows(10, seed=1, unicode=False)
    path.write_text("".join(json.dumps({"response": r, "ground_truth": t}) + "\n" for r, t in zip(responses, truths)))
    script = (
        "import time, json; t0 = time.perf_counter()\n"
        "from retrieval_eval.azure import F1ScoreEvaluator\n"
        "t1 = time.perf_counter(); F1ScoreEvaluator().evaluate_table(%r); t2 = time.perf_counter()\n"
        "print(json.dumps({'import_s': t1 - t0, 'first_file_s': t2 - t1}))\n" % str(path)
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows the columnar path scores (default 1,000,000)")
    parser.add_argument("--sdk-sample", type=int, default=5000, help="rows scored one call at a time (default 5000)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unicode", action="store_true", help="mix non-ASCII words into the texts")
    parser.add_argument("--unread", action="store_true", help="also words with a capital sigma or capital I with dot")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    host = machine("azure-ai-evaluation")
    sdk = sdk_evaluator()
    drop_in = F1ScoreEvaluator()
    responses, truths = make_rows(args.rows, seed=args.seed, unicode=args.unicode, unread=args.unread)
    sample = min(args.sdk_sample, args.rows)
    with tempfile.TemporaryDirectory() as temp:
        directory = Path(temp)
        path = directory / "answers.parquet"
        pq.write_table(pa.table({"response": responses, "ground_truth": truths}), path)
        drop_in.evaluate_table(path)  # compile or load the kernels outside the timings

        def columnar() -> float:
            start = time.perf_counter()
            drop_in.evaluate_table(path)
            return (time.perf_counter() - start) / args.rows

        contenders = {
            "retrieval_eval evaluate_table (parquet)": columnar,
            "retrieval_eval per call": lambda: per_call(drop_in, responses[:sample], truths[:sample])[0] / sample,
        }
        if sdk is not None:
            contenders["azure-ai-evaluation per call"] = lambda: per_call(sdk, responses[:sample], truths[:sample])[0] / sample
        times = interleave(contenders, args.rounds)
        costs = fixed_costs(directory)
    agree = None
    if sdk is not None:
        theirs = per_call(sdk, responses[:sample], truths[:sample])[1]
        ours = drop_in.evaluate_table(pa.table({"response": responses[:sample], "ground_truth": truths[:sample]}))
        agree = theirs == ours["f1_score"].tolist()

    words = "capital sigma / dotted I" if args.unread else ("non-ASCII" if args.unicode else "ASCII")
    print(f"F1: {args.rows:,} rows ({words} words), sample {sample:,}; "
          f"{describe_machine(host)}")
    rows = [["contender", "us per row (median)", "min", "max"]]
    for name, values in times.items():
        spread = ratios(values, [1e-6] * len(values))
        rows.append([name, f"{spread.median:.3f}", f"{spread.min:.3f}", f"{spread.max:.3f}"])
    print_table(rows, title="Per-row time")
    figures: dict[str, Any] = {"machine": host, "args": {k: str(v) for k, v in vars(args).items()},
                               "seconds_per_row": times, "fixed_costs": costs, "sdk_agrees": agree}
    if sdk is not None:
        sdk_times = times["azure-ai-evaluation per call"]
        batch = ratios(sdk_times, times["retrieval_eval evaluate_table (parquet)"])
        call = ratios(sdk_times, times["retrieval_eval per call"])
        print_table(
            [["ratio (SDK time / ours)", "median", "min", "max"],
             ["columnar path", f"{batch.median:.0f}x", f"{batch.min:.0f}x", f"{batch.max:.0f}x"],
             ["per call", f"{call.median:.1f}x", f"{call.min:.1f}x", f"{call.max:.1f}x"]],
            title="Ratios, round by round",
        )
        print(f"\nSDK and drop-in scores on the {sample:,}-row sample identical: {agree}")
        figures["ratios"] = {"columnar": batch.to_dict(), "per_call": call.to_dict()}
    print(f"Fresh process: import {costs['import_s']:.3f} s, first 10-row file {costs['first_file_s']:.3f} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
