"""``retrieval-eval gdeval``: the TREC Web track's gdeval.pl 1.3, its command line and its output bytes."""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, add_progress_flags, add_risk_flags, emit

_EXAMPLES = """\
examples:
  retrieval-eval gdeval qrels.txt run.txt
  retrieval-eval gdeval -k 10 qrels.txt run.txt
  retrieval-eval gdeval -baseline base.txt -riskAlpha 1 qrels.txt run.txt

Prints what gdeval.pl prints: runid,topic,ndcg@K,err@K, one line per topic with a judgment above 0,
then the amean line. With -baseline each value is URisk against the baseline's: v - b, or
(1 + alpha)(v - b) where v < b.
"""


def add_gdeval_command(commands: Any) -> None:
    """The ``gdeval`` subcommand, with gdeval.pl's own flags."""
    parser = commands.add_parser(
        "gdeval", help="nDCG@k and ERR@k as the TREC Web track's gdeval.pl prints them (and its URisk)",
        description="Score a run as gdeval.pl 1.3 does and print its lines, byte for byte.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("qrels", metavar="QRELS")
    parser.add_argument("run", metavar="RUN")
    parser.add_argument("-k", type=int, default=None, metavar="K", help="depth of the ranking evaluated (default 20)")
    parser.add_argument("-c", action="store_true", help="average over every topic with a judgment above 0")
    add_risk_flags(parser)
    add_progress_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def gdeval_command(args: argparse.Namespace) -> int:
    from ..frontends.gdeval import gdeval
    from ..metrics.families.gdeval import DEFAULT_K

    k = DEFAULT_K if args.k is None else args.k
    emit("\n".join(gdeval(args.qrels, args.run, k=k, baseline=args.baseline, risk_alpha=args.risk_alpha, all_topics=args.c)))
    return EXIT_OK
