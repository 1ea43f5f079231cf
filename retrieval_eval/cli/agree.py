"""``retrieval-eval agree``: how far a judge's labels agree with people's, and what they do to the ranking of runs."""

from __future__ import annotations

import argparse
from typing import Any

from ..sweep.settings import ALPHA
from .common import DEFAULT_K, EXIT_OK, GivenOnce, add_column_flags, add_progress_flags, check_outputs, emit, qrels_input, run_input, usage

_AGREE_EXAMPLES = """\
examples:
  retrieval-eval agree qrels.trec judge.trec
  retrieval-eval agree qrels.trec judge.trec bm25.trec dense.trec hybrid.trec -m ndcg@10 --alpha 0.05
  retrieval-eval agree qrels.trec judge.trec runs/*.trec --format json -o agreement.json

Labels are compared on the (query, document) pairs both files judge (pairs of one file only are counted):
the confusion matrix, observed agreement, Cohen's kappa (unweighted, linear, quadratic), Krippendorff's alpha
(nominal, ordinal, interval) and the binary kappa at --relevance-level. With runs, each run is scored under
both qrels on the queries both judge: the two rankings, Kendall's tau-b, tau_AP, RBO, the pairs of runs that
swap, and the pairs whose paired t-test verdict (Holm-adjusted over all pairs) changes.
"""


def add_agree_command(commands: Any) -> None:
    """The ``agree`` subcommand and its flags."""
    agreeing = commands.add_parser(
        "agree",
        help="agreement of a judge's labels with human qrels, and of the run rankings they give",
        description="Check an LLM judge (or any second assessor) against people: label agreement on the pairs both "
        "judged and, given runs, how the judge changes the system ranking and its significant differences.",
        epilog=_AGREE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    agreeing.register("action", None, GivenOnce)
    agreeing.add_argument("human", metavar="HUMAN_QRELS", help="the human qrels (TREC, parquet, CSV/TSV, JSONL)")
    agreeing.add_argument("judge", metavar="JUDGE_QRELS", help="the judge's labels, in any of the same formats")
    agreeing.add_argument("runs", nargs="*", metavar="RUN", help="runs to rank under both (two or more; named by their path)")
    agreeing.add_argument("-m", "--metric", default="ndcg@10", help="the metric that ranks the runs (default ndcg@10)")
    agreeing.add_argument("-k", type=int, default=DEFAULT_K, help=f"cutoff for a metric named without @k (default {DEFAULT_K})")
    agreeing.add_argument("--alpha", type=ALPHA.from_text, default=ALPHA.default, metavar="A",
                          help=f"significance level of the paired t-tests, Holm-adjusted: {ALPHA.allowed} (default {ALPHA.default})")
    agreeing.add_argument("--relevance-level", type=int, default=1, metavar="L",
                          help="binary agreement: a label >= L is relevant (default 1)")
    agreeing.add_argument("--format", choices=("table", "json"), default="table", help="what to print on stdout")
    agreeing.add_argument("-o", "--output", metavar="OUT.json", help="also write everything as one JSON object")
    add_progress_flags(agreeing)
    add_column_flags(agreeing)
    agreeing.add_argument("--debug", action="store_true", help="show tracebacks")


def agree_command(args: argparse.Namespace) -> int:
    import json

    from ..judging.agreement import label_agreement
    from ..metrics.options import EvaluationOptions

    if args.output is not None and not args.output.lower().endswith(".json"):
        raise usage(f"-o writes JSON: give a .json path, got {args.output!r}")
    if len(args.runs) == 1:
        raise usage("a ranking agreement compares two or more runs, got 1: give none (labels only) or several")
    alpha = ALPHA.check(args.alpha)  # before any work, as the other settings
    check_outputs({"-o": args.output}, [args.human, args.judge, *args.runs])
    human, judge = qrels_input(args, args.human), qrels_input(args, args.judge)
    labels = label_agreement(human, judge, relevance_level=args.relevance_level)
    document: dict[str, Any] = {"labels": labels.to_dict()}
    texts = [str(labels)]
    if args.runs:
        from ..judging.ranking_agreement import ranking_agreement

        runs = [run_input(args, path) for path in args.runs]
        ranking = ranking_agreement(human, judge, runs, args.metric, alpha=alpha,
                                    options=EvaluationOptions(k=args.k))  # fmt: skip
        document["ranking"] = ranking.to_dict()
        texts.append(str(ranking))
    if args.output is not None:
        from ..io import write_json

        write_json(document, args.output, inputs=[args.human, args.judge, *args.runs])
    emit(json.dumps(document, indent=2) if args.format == "json" else "\n\n".join(texts))
    return EXIT_OK
