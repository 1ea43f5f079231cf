"""``retrieval-eval ragas``: ragas' deterministic retrieval metrics over a file of RAG samples, column-wise."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .common import EXIT_OK, EXIT_THRESHOLD_FAILED, GivenOnce, add_progress_flags, check_outputs, checked_type, emit, metric_values, usage

_finite = checked_type(float, math.isfinite, "a finite number")
_METRICS = ("id_based_context_precision", "id_based_context_recall", "non_llm_context_precision_with_reference",
            "non_llm_context_recall", "context_precision")  # fmt: skip
_MEASURES = ("levenshtein", "hamming", "jaro", "jaro_winkler")

_EXAMPLES = """\
examples:
  retrieval-eval ragas samples.jsonl
  retrieval-eval ragas samples.parquet --distance jaro_winkler -o scores.parquet --min id_based_context_recall=0.8
  retrieval-eval ragas judged.jsonl --verdicts-field verdicts -m context_precision --format json

Each sample (a row) has ragas' fields: retrieved_context_ids and reference_context_ids (lists of ids:
id_based_context_precision = |retrieved & reference| / |retrieved|, recall over |reference|, as sets of
str(id)), retrieved_contexts and reference_contexts (lists of texts: a retrieved context is useful when
its best similarity 1 - d (rapidfuzz's normalized distance) to a reference is >= the precision threshold,
and non_llm_context_precision_with_reference is ragas' average precision of those verdicts; a reference
is found when its best similarity is > the recall threshold), and lists of 0/1 verdicts per retrieved
context (context_precision, the same average precision). Without -m, every metric whose fields the
samples have. Means skip NaN (ragas' NaN: no retrieved ids, no reference). --min makes the exit code 1
when a mean is below its value.
"""


def add_ragas_command(commands: Any) -> None:
    """The ``ragas`` subcommand and its flags."""
    parser = commands.add_parser(
        "ragas",
        help="ragas' deterministic retrieval metrics (ID-based, non-LLM, from verdicts) over a file of samples",
        description="Score every sample of a file (JSONL, JSON, parquet) with ragas' IDBasedContextPrecision/Recall, "
        "NonLLMContextPrecisionWithReference, NonLLMContextRecall and context precision from given verdicts, "
        "column-wise: the means on stdout, optionally the per-sample table.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.register("action", None, GivenOnce)
    parser.add_argument("samples", metavar="SAMPLES", help="the samples: lists of context ids, contexts or verdicts per row")
    parser.add_argument("-m", "--metric", action="append", choices=_METRICS, dest="metrics", help="a metric to score, repeatable")
    parser.add_argument("--distance", choices=_MEASURES, default="levenshtein", help="the string measure (default %(default)s)")
    parser.add_argument("--precision-threshold", type=_finite, default=0.5, metavar="T",
                        help="a retrieved context is useful when its best similarity is >= T (default %(default)s)")
    parser.add_argument("--recall-threshold", type=_finite, default=0.5, metavar="T",
                        help="a reference context is found when its best similarity is > T (default %(default)s)")
    parser.add_argument("--verdicts-field", default="verdicts", metavar="NAME",
                        help="the column of 0/1 verdicts per retrieved context (default %(default)s)")
    parser.add_argument("--min", action="append", default=[], metavar="METRIC=VALUE",
                        help="exit code 1 when the metric's mean is below VALUE, repeatable")
    parser.add_argument("-o", "--output", help="per-sample table (.parquet, .csv, .tsv, .json, .jsonl)")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="what stdout shows (default %(default)s)")
    add_progress_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def ragas_command(args: argparse.Namespace) -> int:
    import numpy as np

    from ..io.writers import write_table
    from ..ragas.samples import evaluate_samples

    gates = _gates(args.min)
    check_outputs({"-o": args.output}, [args.samples])
    scores = evaluate_samples(args.samples, args.metrics, distance=args.distance, precision_threshold=args.precision_threshold,
                              recall_threshold=args.recall_threshold, verdicts_field=args.verdicts_field)  # fmt: skip
    metrics = [name for name in _METRICS if name in scores.columns]
    unknown = [name for name in gates if name not in metrics]
    if unknown:
        raise usage(f"--min names {unknown[0]}, which was not scored (scored: {', '.join(metrics)})")
    summary: dict[str, Any] = {"samples": len(scores), "means": {}, "nan_samples": {}}
    for name in metrics:
        values = scores[name].to_numpy()
        scored = ~np.isnan(values)
        summary["means"][name] = float(values[scored].mean()) if scored.any() else None
        summary["nan_samples"][name] = int((~scored).sum())
    failed = [name for name, bound in gates.items() if summary["means"][name] is None or summary["means"][name] < bound]
    summary["failed"] = failed
    if args.output:
        write_table(scores, args.output, inputs=[args.samples])
    emit(json.dumps(summary) if args.format == "json" else _summary_text(summary, args.samples, gates))
    return EXIT_THRESHOLD_FAILED if failed else EXIT_OK


def _gates(items: list[str]) -> dict[str, float]:
    gates: dict[str, float] = {}
    for name, number in metric_values(items, "--min", names=_METRICS):
        if name in gates:
            raise usage(f"--min names {name} twice: give it once")
        gates[name] = number
    return gates


def _summary_text(summary: dict[str, Any], source: str, gates: dict[str, float]) -> str:
    from ..views import cell_text, counted, terminal_width, wrap

    lines = wrap(f"ragas retrieval metrics (ragas 0.4.3's definitions) of {counted(summary['samples'], 'sample')} of {source}",
                 terminal_width())  # fmt: skip
    width = max(len(name) for name in summary["means"])
    for name, mean in summary["means"].items():
        line = f"{name:<{width}}  {cell_text(mean) if mean is not None else 'n/a'}"
        if summary["nan_samples"][name]:
            line += f"  ({counted(summary['nan_samples'][name], 'sample')} NaN, not in the mean)"
        if name in gates:
            line += f"  {'FAIL' if name in summary['failed'] else 'pass'} (min {cell_text(gates[name])})"
        lines.append(line)
    return "\n".join(lines)
