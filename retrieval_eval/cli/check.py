"""``retrieval-eval check``: score an evaluation document, or check an execution log."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..policies import PARTIAL_MATCH_MODES
from .common import (
    EXIT_NOTHING_CHECKED,
    EXIT_OK,
    EXIT_THRESHOLD_FAILED,
    GivenOnce,
    add_progress_flags,
    check_outputs,
    emit,
    emit_text,
    usage,
)
from .judge_flags import add_judge_flags, judge_settings, totals_lines

_CHECK_EXAMPLES = """\
examples:
  retrieval-eval check data/eval_document.json -o scored.json
  retrieval-eval check data/eval_document.json --executions data/executions.jsonl
  retrieval-eval check --executions data/executions.jsonl --config data/checks.json -o results.jsonl
  retrieval-eval check document.json --custom-evaluator ToolUsage
  retrieval-eval check document.json --base-url http://localhost:8000/v1 --model judge-model --cache judge_cache/
  retrieval-eval check document.json --azure --model gpt-4o --embedding-model text-embedding-3-small -o scored.json

judged evaluators (with --model): Relevance, Coherence, Groundedness, Similarity (1-5, pass at the
threshold, default 3) and Copilot Studio's GeneralQuality, CompareMeaning, TextSimilarity (needs
--embedding-model) and Custom; a document's requests are sent as one batch. From schemaVersion 1.6.0,
RetrievalResult's expected items are claims judged against the retrieved evidence (entailment);
without a judge they are matched as substrings. Token and cost totals go to stderr.

exit codes:
  0  something was checked and every item passed
  1  an item did not pass: fail, partial (an evaluator errored) or error (the agent gave no response)
  2  bad usage or input, such as an evaluator name close to a built-in one (RetreivalQuery, exactmatch)
  3  nothing was checked: no record, no evaluator, or only evaluators that are skipped (judged ones
     without --model, custom ones) on every item
"""


def add_check_command(commands: Any) -> None:
    """The ``check`` subcommand and its flags."""
    check = commands.add_parser(
        "check",
        help="score an evaluation document, or check an execution log",
        description="Score the deterministic evaluators of an evaluation document (Citations, ExactMatch, "
        "PartialMatch, RetrievalQuery, RetrievalResult, KeywordMatch, ToolUse), or run RetrievalQuery, "
        "RetrievalResult, KeywordMatch and ToolUse over every record of an execution log. Prints pass rates "
        "per evaluator and counts per diagnostic code; exit code 1 when an item fails, 3 when nothing was "
        "checked.",
        epilog=_CHECK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.register("action", None, GivenOnce)
    check.add_argument("document", nargs="?", help="evaluation document (JSON, schemaVersion 1.x)")
    check.add_argument("--executions", metavar="LOG",
                       help="retrieval executions (and 'response', 'invoked_tools'), one record per JSON line (or "
                       "Parquet row, .parquet) with an 'id': matched to the document's items by extensions.id, or "
                       "checked on their own with --config")
    check.add_argument("--config", metavar="CHECKS.json",
                       help="with --executions and no document: the checks to run on every record")
    check.add_argument("-o", "--output", help="output document (.json); with --config: results (.jsonl, .json, .parquet)")
    check.add_argument("--summary-output", help="the summary as JSON")
    check.add_argument("--format", choices=("table", "json"), default="table", help="summary format on stdout")
    check.add_argument("--partial-match-mode", choices=PARTIAL_MATCH_MODES, default=PARTIAL_MATCH_MODES[0],
                       help="PartialMatch's mode where its options name none (default: %(default)s)")
    check.add_argument("--custom-evaluator", action="append", default=[], metavar="NAME", dest="custom_evaluators",
                       help="a custom evaluator of the document whose name is close to a built-in one's (else refused "
                       "as a misspelling), repeatable")
    add_judge_flags(check, required=False)
    add_progress_flags(check)
    check.add_argument("--debug", action="store_true", help="show tracebacks")


def check_command(args: argparse.Namespace) -> int:
    from ..executions import check_document, check_log
    from ..io import write_json

    check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.document, args.executions, args.config])
    judge = judge_settings(args)
    if args.document is not None:
        if args.config is not None:
            raise usage("--config goes with --executions alone; a document names its own evaluators")
        checked = check_document(args.document, executions=args.executions, partial_match_mode=args.partial_match_mode,
                                 custom_evaluators=args.custom_evaluators, judge=judge)
        if judge is not None and checked.outcomes["evaluator"].eq("RetrievalResult").any():
            print(f"RetrievalResult expected items matched by {checked.extract_matcher}", file=sys.stderr)
        if checked.judge_totals is not None:
            print("\n".join(totals_lines(checked.judge_totals)), file=sys.stderr)
    elif args.executions is not None and args.config is not None:
        if args.custom_evaluators:
            raise usage("--custom-evaluator goes with a document; a log is checked by built-in evaluators only")
        if judge is not None:
            raise usage("--model goes with a document; an execution log is checked by deterministic evaluators only")
        checked = check_log(args.executions, args.config)
    else:
        raise usage("give an evaluation document, or --executions LOG with --config CHECKS.json")
    if args.output:
        checked.write(args.output)
    summary = checked.summary
    if args.summary_output:
        write_json(summary.to_dict(), args.summary_output)
    if args.format == "json":
        emit(json.dumps(summary.to_dict(), indent=2))
    else:
        emit_text(summary.to_text())
    return {"pass": EXIT_OK, "fail": EXIT_THRESHOLD_FAILED, "nothing_checked": EXIT_NOTHING_CHECKED}[checked.verdict]
