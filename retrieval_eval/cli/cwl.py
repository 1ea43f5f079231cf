"""``retrieval-eval cwl``: cwl_eval 1.0.12's C/W/L measures, its command line and its output bytes."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, add_progress_flags, emit

_EXAMPLES = """\
examples:
  retrieval-eval cwl qrels.txt run.txt
  retrieval-eval cwl -m metrics.txt -c costs.txt -r -n qrels.txt run.txt

Prints what cwl_eval prints: topic, measure, EU, ETU, EC, ETC, ED per topic of the run (in file
order) and measure (the metrics file's, one class a line such as RBPCWLMetric(0.8), or cwl_eval's
16 defaults), then with -r the five residuals. The ranking is the run's line order; the qrels
labels are the gains; the cost file prices the run's second field (element type cost, a line).
"""


def add_cwl_command(commands: Any) -> None:
    """The ``cwl`` subcommand, with cwl_eval's own flags."""
    parser = commands.add_parser(
        "cwl", help="the C/W/L measures as cwl_eval prints them (EU, ETU, EC, ETC, ED, residuals, costs)",
        description="Score a run as cwl_eval 1.0.12 does and print its lines, byte for byte.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels whose labels are the gains")
    parser.add_argument("run", metavar="RUN", help="topic_id element_type doc_id rank score run_id, ranked in file order")
    parser.add_argument("-c", "--cost_file", metavar="COSTS_FILE", help="the cost of each element type: element_type cost")
    parser.add_argument("-m", "--metrics_file", metavar="METRICS_FILE", help="the measures, one a line: Class(params)")
    parser.add_argument("-n", "--colnames", action="store_true", help="print a header line first")
    parser.add_argument("-r", "--residuals", action="store_true", help="print the residuals too")
    parser.add_argument("--max_gain", type=float, default=1.0, help="the gain of an unjudged document in the best case, "
                        "and the highest label allowed (default 1.0)")
    parser.add_argument("--min_gain", type=float, default=0.0, help="the lowest label allowed (default 0.0)")
    parser.add_argument("--max_cost", default="1.0", help="the cost of an unpriced document in the worst case (default 1.0)")
    parser.add_argument("--min_cost", default="1.0", help="the cost of an unpriced document in the best case (default 1.0)")
    parser.add_argument("--max_depth", type=int, default=None, help="the ranks scored per topic (default 1000)")
    add_progress_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def cwl_command(args: argparse.Namespace) -> int:
    from ..frontends.cwl_eval import cwl_eval

    lines = cwl_eval(
        args.qrels, args.run, metrics_file=args.metrics_file, costs_file=args.cost_file, residuals=args.residuals,
        colnames=args.colnames, max_gain=args.max_gain, min_gain=args.min_gain, max_cost=args.max_cost,
        min_cost=args.min_cost, **({} if args.max_depth is None else {"max_depth": args.max_depth}),
    )
    emit("\n".join(lines))
    return EXIT_OK
