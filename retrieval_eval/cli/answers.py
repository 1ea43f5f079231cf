"""``retrieval-eval f1``: azure-ai-evaluation's answer F1 (``F1ScoreEvaluator``) over a file of answers, column-wise."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .common import EXIT_OK, EXIT_THRESHOLD_FAILED, GivenOnce, add_progress_flags, check_outputs, checked_type, emit

_finite = checked_type(float, math.isfinite, "a finite number")
_share = checked_type(float, lambda value: 0 <= value <= 1, "a share from 0 to 1")

_F1_EXAMPLES = """\
examples:
  retrieval-eval f1 answers.jsonl
  retrieval-eval f1 answers.parquet --threshold 0.6 -o f1.parquet --min-pass-rate 0.8
  retrieval-eval f1 qa.csv --response-field answer --ground-truth-field truth --format json

Each row's F1 is the SDK's token overlap of its response with its ground truth (lower case, punctuation
and the articles a, an, the removed, split at whitespace): F1 = 2PR/(P+R) over the shared tokens, 0 when
none are shared; the row passes when F1 >= --threshold. -o writes one row per answer (its id columns,
f1_score, f1_score_passed, f1_score_result); --min-pass-rate makes the exit code 1 when fewer pass.
"""


def add_answers_command(commands: Any) -> None:
    """The ``f1`` subcommand and its flags."""
    scoring = commands.add_parser(
        "f1",
        help="answer F1 of azure-ai-evaluation (F1ScoreEvaluator) over a file of answers",
        description="Score every row of a file of answers (JSONL, JSON, parquet, CSV/TSV) with azure-ai-evaluation's "
        "F1ScoreEvaluator, column-wise: a summary on stdout, optionally the per-row table.",
        epilog=_F1_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    scoring.register("action", None, GivenOnce)
    scoring.add_argument("answers", metavar="ANSWERS", help="the answers: a response and a ground truth per row")
    scoring.add_argument("--threshold", type=_finite, default=0.5, metavar="T",
                         help="a row passes when its F1 is at least T (the SDK's threshold; default %(default)s)")
    scoring.add_argument("--response-field", default="response", metavar="NAME", help="the column of responses (default %(default)s)")
    scoring.add_argument("--ground-truth-field", default="ground_truth", metavar="NAME",
                         help="the column of ground truths (default %(default)s)")
    scoring.add_argument("--min-pass-rate", type=_share, metavar="R",
                         help="exit code 1 when the share of rows that pass is below R (0 to 1)")
    scoring.add_argument("-o", "--output", help="per-row table (.parquet, .csv, .tsv, .json, .jsonl)")
    scoring.add_argument("--format", choices=("table", "json"), default="table", help="what stdout shows (default %(default)s)")
    add_progress_flags(scoring)
    scoring.add_argument("--debug", action="store_true", help="show tracebacks")


def answers_command(args: argparse.Namespace) -> int:
    from ..azure.f1_score import F1ScoreEvaluator
    from ..io.writers import write_table

    check_outputs({"-o": args.output}, [args.answers])
    scores = F1ScoreEvaluator(threshold=args.threshold).evaluate_table(
        args.answers, response_field=args.response_field, ground_truth_field=args.ground_truth_field
    )
    rows = len(scores)
    passed = int(scores["f1_score_passed"].sum())
    summary = {
        "rows": rows,
        "mean_f1": float(scores["f1_score"].mean()) if rows else None,
        "threshold": args.threshold,
        "passed": passed,
        "pass_rate": passed / rows if rows else None,
    }
    if args.output:
        write_table(scores, args.output, inputs=[args.answers])
    emit(json.dumps(summary) if args.format == "json" else _summary_text(summary, args.answers))
    gated = args.min_pass_rate is not None and (summary["pass_rate"] is None or summary["pass_rate"] < args.min_pass_rate)
    return EXIT_THRESHOLD_FAILED if gated else EXIT_OK


def _summary_text(summary: dict[str, Any], source: str) -> str:
    from ..views import cell_text, counted, terminal_width, wrap

    rows = summary["rows"]
    lines = wrap(f"answer F1 (azure-ai-evaluation's F1ScoreEvaluator) of {counted(rows, 'row')} of {source}", terminal_width())
    if rows:
        lines += [f"mean F1    {cell_text(summary['mean_f1'])}",
                  f"passed     {counted(summary['passed'], 'row')} of {rows:,} ({summary['pass_rate']:.2%}) at F1 >= "
                  f"{cell_text(summary['threshold'])}"]  # fmt: skip
    return "\n".join(lines)

