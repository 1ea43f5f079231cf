"""``retrieval-eval ndeval``: the TREC Web track's ndeval 4.5 (diversity measures), its command line and its output bytes."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, add_progress_flags, add_risk_flags, emit

_EXAMPLES = """\
examples:
  retrieval-eval ndeval qrels.txt run.txt
  retrieval-eval ndeval -c -M 10 qrels.txt run.txt
  retrieval-eval ndeval -alpha 0.3 -beta 0.9 -traditional qrels.txt run.txt
  retrieval-eval ndeval -baseline base.txt -riskAlpha 1 qrels.txt run.txt

Prints what ndeval prints: runid,topic,ERR-IA@5,...,strec@20, one line per topic of the run,
then the amean line. The qrels are subtopic qrels (topic subtopic docno judgment). The run is
ranked by its rank column, or under -traditional by score, equal scores by descending docno.
With -baseline each value is URisk against the baseline's: v - b, or (1 + alpha)(v - b) where v < b.
"""


def add_ndeval_command(commands: Any) -> None:
    """The ``ndeval`` subcommand, with ndeval's own flags."""
    parser = commands.add_parser(
        "ndeval", help="ndeval's diversity measures (ERR-IA, alpha-nDCG, NRBP, MAP-IA, P-IA, strec) as it prints them",
        description="Score a run against subtopic qrels as ndeval 4.5 does and print its lines, byte for byte.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS")
    parser.add_argument("run", metavar="RUN")
    parser.add_argument("-alpha", default="0.5", metavar="A", help="redundancy intolerance (default 0.5)")
    parser.add_argument("-beta", default="0.5", metavar="B", help="patience, for NRBP (default 0.5)")
    parser.add_argument("-M", dest="depth", type=int, default=0, metavar="N", help="cut the run at depth N")
    parser.add_argument("-c", action="store_true", help="average over every topic of the qrels")
    parser.add_argument("-traditional", action="store_true",
                        help="rank by score, then docno (by default the run is ranked by its rank column)")
    add_risk_flags(parser)
    add_progress_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def ndeval_command(args: argparse.Namespace) -> int:
    from ..frontends.ndeval import ndeval

    emit("\n".join(ndeval(args.qrels, args.run, alpha=args.alpha, beta=args.beta, max_docs=args.depth, all_topics=args.c,
                       traditional=args.traditional, baseline=args.baseline, risk_alpha=args.risk_alpha)))
    return EXIT_OK
