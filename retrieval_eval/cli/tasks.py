"""``retrieval-eval tasks``: score the agent's responses to a Foundry agent optimizer task dataset, criterion by criterion."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .common import EXIT_NOTHING_CHECKED, EXIT_OK, EXIT_THRESHOLD_FAILED, GivenOnce, add_progress_flags, check_outputs, emit, emit_text
from .judge_flags import add_judge_flags, judge_settings, totals_lines

_EXAMPLES = """\
examples:
  retrieval-eval tasks tasks.jsonl --base-url http://localhost:8000/v1 --model judge-model
  retrieval-eval tasks tasks.jsonl --responses responses.jsonl --azure --model gpt-4o -o tasks.csv \\
      --criteria-output criteria.parquet --summary-output summary.json --min-score 0.8

The dataset: one task a line, {"name", "query", "criteria": [{"name", "instruction"}, ...], "ground_truth"?,
"response"?}; the agent's responses are the tasks' "response" fields, or a --responses file of {"name",
"response"} lines. Each criterion is judged 0 or 1 (all in one batch); a task's score is the mean of its criteria,
the overall score the mean over the scored tasks. A criterion whose judgment failed leaves its task unscored
(listed; never counted as 0).

exit codes:
  0  every task was scored (and the overall score is at least --min-score)
  1  a task is unscored, or the overall score is below --min-score
  2  bad usage or input (one line naming the file, line and field)
  3  no task could be scored
"""


def add_tasks_command(commands: Any) -> None:
    """The ``tasks`` subcommand."""
    parser = commands.add_parser(
        "tasks", help="judge an agent's responses to an optimizer task dataset, criterion by criterion",
        description="Score a Foundry agent optimizer task dataset: every criterion of every task judged 0 or 1.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.register("action", None, GivenOnce)
    parser.add_argument("dataset", metavar="TASKS.jsonl", help="the tasks, one JSON object a line")
    parser.add_argument("--responses", metavar="R.jsonl", help="the agent's responses, {name, response} a line")
    parser.add_argument("-o", "--output", help="the per-task table (.csv, .tsv, .jsonl, .json, .parquet)")
    parser.add_argument("--criteria-output", metavar="FILE", help="the per-criterion table (same formats)")
    parser.add_argument("--summary-output", metavar="FILE", help="the summary as JSON")
    parser.add_argument("--format", choices=("table", "json"), default="table", help="what stdout shows")
    parser.add_argument("--min-score", type=float, metavar="X", help="exit 1 when the overall score is below X")
    add_judge_flags(parser, required=True)
    add_progress_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def tasks_command(args: argparse.Namespace) -> int:
    from ..executions.tasks import score_tasks
    from ..io import write_json, write_table

    inputs = [args.dataset, args.responses]
    check_outputs({"-o": args.output, "--criteria-output": args.criteria_output,
                   "--summary-output": args.summary_output}, inputs)
    results = score_tasks(args.dataset, judge_settings(args), responses=args.responses)
    written = [path for path in inputs if path is not None]
    if args.output:
        write_table(results.tasks, args.output, inputs=written)
    if args.criteria_output:
        write_table(results.criteria, args.criteria_output, inputs=written)
    summary = results.summary
    if args.summary_output:
        write_json({**summary, "judge": results.totals.to_dict()}, args.summary_output, inputs=written)
    if args.format == "json":
        emit(json.dumps(summary, indent=2))
    else:
        emit_text(results.to_text())
    print("\n".join(totals_lines(results.totals)), file=sys.stderr)
    if not summary["scored"]:
        return EXIT_NOTHING_CHECKED
    below = args.min_score is not None and summary["overall"] < args.min_score
    return EXIT_THRESHOLD_FAILED if summary["unscored"] or below else EXIT_OK
