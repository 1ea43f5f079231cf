"""``retrieval-eval explain``: one run (or two, against each other) query by query: a summary, one
query's lists as a table (``--query``), the per-query table as a file, or the explorer page."""

from __future__ import annotations

import argparse
import importlib.util
import warnings
from typing import Any

from ..metrics.options import EvaluationOptions
from ..policies import TIE_ORDERS
from ..views import counted, terminal_text
from .common import (
    DEFAULT_K,
    EXIT_OK,
    GivenOnce,
    add_column_flags,
    add_progress_flags,
    check_outputs,
    emit,
    integer_from,
    qrels_input,
    run_input,
    usage,
)

_TABLE_SUFFIXES = (".parquet", ".csv", ".jsonl")

_EXPLAIN_EXAMPLES = """\
examples:
  retrieval-eval explain data/qrels.trec data/run.trec data/run_dense.trec -m ndcg@10
  retrieval-eval explain data/qrels.trec data/run.trec data/run_dense.trec -m ndcg@10 --query q1 --top 10
  retrieval-eval explain data/qrels.trec data/run.trec -m ndcg@10 -m holes@10 -o per_query.parquet
  retrieval-eval explain qrels.trec bm25.trec dense.trec -m ndcg@10 --topics topics.txt --docs docs.jsonl -o explain.html
"""


def add_explain_command(commands: Any) -> None:
    """The ``explain`` subcommand and its flags."""
    explaining = commands.add_parser(
        "explain",
        help="explain a run (or two runs against each other) query by query",
        description="Per query: the metric values, each run's top N documents with their labels (unjudged = a hole), "
        "the relevant documents a run did not retrieve, and with a second run the deltas, wins/ties/losses and "
        "the documents that entered, left or moved in the top N.",
        epilog=_EXPLAIN_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    explaining.register("action", None, GivenOnce)
    explaining.add_argument("qrels", help="qrels file (TREC, parquet, CSV/TSV, JSONL; .gz ok)")
    explaining.add_argument("run", metavar="RUN", help="run file, run A")
    explaining.add_argument("run_b", nargs="?", metavar="RUN_B", help="a second run, compared with A (B - A)")
    explaining.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                            help="metric, repeatable (the first decides wins/ties/losses and the order shown); "
                            "default: the document-retrieval set at k (but holes: the column of holes in the top N)")
    explaining.add_argument("-k", type=int, default=DEFAULT_K, help=f"cutoff for metrics named without @k (default {DEFAULT_K})")
    explaining.add_argument("-l", "--rel-level", type=int, default=EvaluationOptions.default("rel_level"),
                            help="a label >= this is relevant: TREC measures and the missed documents (default %(default)s)")
    explaining.add_argument("--ties", choices=TIE_ORDERS, help="order of equal scores (default: each metric's reference)")
    explaining.add_argument("--top", type=integer_from(1), default=20, help="documents shown per query and run (default %(default)s)")
    explaining.add_argument("--topics", help="query texts: TREC topics, TSV query_id<TAB>text, or JSONL query_id,text")
    explaining.add_argument("--docs", help="document titles or texts: JSONL, parquet or TSV with doc_id and title or text")
    explaining.add_argument("--query", metavar="Q", help="print this query's values, ranked lists and missed documents")
    explaining.add_argument("--worst", type=integer_from(0), default=10,
                            help="how many of the worst queries on the first metric the summary lists "
                            "(by the delta with RUN_B, else by value; default %(default)s)")
    add_column_flags(explaining)
    explaining.add_argument("-o", "--output",
                            help="explain.html: the explorer page; .parquet, .csv or .jsonl: the per-query table")
    add_progress_flags(explaining)
    explaining.add_argument("--debug", action="store_true", help="show tracebacks")


def explain_command(args: argparse.Namespace) -> int:
    from ..io.formats import PAGE_EXTENSIONS, extension

    suffix = extension(args.output) if args.output else None
    if suffix is not None and suffix not in (*PAGE_EXTENSIONS, *_TABLE_SUFFIXES):
        raise usage(f"-o {args.output}: expected .html (the page) or {', '.join(_TABLE_SUFFIXES)} (the per-query table)")
    inputs = [args.qrels, args.run, args.run_b, args.topics, args.docs]
    if args.output:
        check_outputs({"-o": args.output}, inputs)
    if suffix in PAGE_EXTENSIONS and _page_writer() is None:
        raise usage("the explorer page is not available in this version: write the per-query table (-o X.parquet) instead")
    from ..errors import InputError
    from ..explain import explain
    from ..metrics.evaluator import NoSharedQueriesWarning
    from ..report.explain_text import query_report, summary_report

    options = EvaluationOptions(k=args.k, rel_level=args.rel_level, ties=args.ties)
    with warnings.catch_warnings():
        # A run that retrieved for no judged query is bad input (exit 2), as for `evaluate`.
        warnings.simplefilter("error", NoSharedQueriesWarning)
        try:
            run_b = None if args.run_b is None else run_input(args, args.run_b)
            explanation = explain(qrels_input(args, args.qrels), run_input(args, args.run), run_b, args.metrics, top=args.top,
                                  options=options, topics=args.topics, docs=args.docs)  # fmt: skip
        except NoSharedQueriesWarning as warning:
            raise InputError(str(warning)) from None
    if args.query is not None:
        emit(query_report(explanation, args.query))
    elif args.output is None:
        emit(summary_report(explanation, worst=args.worst))
    if suffix in PAGE_EXTENSIONS:
        _page_writer()(explanation, args.output, inputs=[item for item in inputs if item is not None])
        emit(terminal_text(f"{counted(len(explanation.queries), 'query', 'queries')} -> {args.output}"))
    elif suffix is not None:
        from ..io.writers import write_table

        write_table(explanation.queries, args.output, inputs=[item for item in inputs if item is not None])
        emit(terminal_text(f"{counted(len(explanation.queries), 'query', 'queries')} -> {args.output}"))
    return EXIT_OK


def _page_writer() -> Any:
    """The page writer of :mod:`retrieval_eval.report.explorer_page`, or None where this version has none."""
    if importlib.util.find_spec("retrieval_eval.report.explorer_page") is None:
        return None
    from ..report import explorer_page as page

    return getattr(page, "write_explorer", None)
