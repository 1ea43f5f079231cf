"""``retrieval-eval judge``: a model labels the unjudged documents in the top K of the runs (judge-filled holes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..policies import DUPLICATE_POLICIES, POOL_TIES
from ..views import count_text, counted, terminal_text
from .common import (
    EXIT_OK,
    EXIT_THRESHOLD_FAILED,
    GivenOnce,
    add_column_flags,
    add_progress_flags,
    check_outputs,
    column_pairs,
    emit,
    integer_from,
    run_input,
    usage,
)
from .judge_flags import add_judge_flags, judge_settings, totals_lines

_SHOWN_ERRORS = 5

_EXAMPLES = """\
examples:
  export OPENAI_API_KEY=...            # or AZURE_OPENAI_API_KEY with --azure
  retrieval-eval judge qrels.trec bm25.trec dense.trec --depth 10 --topics topics.tsv --docs docs.jsonl \\
      --model gpt-4o-mini --cache judge_cache/ -o qrels_judged.trec
  retrieval-eval judge qrels.trec run.trec --depth 20 --topics topics.tsv --docs docs.parquet \\
      --base-url http://localhost:8000/v1 --model Qwen/Qwen2.5-7B-Instruct -o judged.parquet --dry-run
  retrieval-eval judge qrels.trec --rejudge --sample 200 --topics topics.tsv --docs docs.jsonl \
      --model gpt-4o-mini --cache judge_cache/ -o judge_labels.tsv && retrieval-eval agree qrels.trec judge_labels.tsv

Judged: exactly the documents in the top K of any run (ranked as trec_eval ranks them) that the qrels do not
judge, one request per (query, document) with the query's text and the document's text, labelled 0-3 by the
built-in relevance prompt (a JSON reply {"label": n}). OUT holds the human labels unchanged plus the judge's;
every label says where it came from: a 'source' column in a table (.tsv, .csv, .jsonl, .json, .parquet), or
OUT.sources.tsv beside TREC qrels text; OUT.judge.json describes the judge and the run's totals. An item that
could not be judged (no reply after the retries, a reply that does not parse, the budget) gets no label: it is
listed (all of them with --errors FILE) and the exit status is 1. --dry-run prints the pool, the requests the
cache does not answer and their cost's upper bound, and sends nothing.
"""


def add_judge_command(commands: Any) -> None:
    """The ``judge`` subcommand."""
    parser = commands.add_parser(
        "judge", help="label the unjudged documents in the top K of runs with a model (judge-filled holes)",
        description="Fill the holes of qrels: a model judges the unjudged documents in the top --depth of the runs.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.register("action", None, GivenOnce)
    parser.add_argument("qrels", metavar="QRELS", help="the human judgments (TREC qrels or a table)")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="runs (TREC, .tsv, .jsonl, .parquet...)")
    parser.add_argument("--depth", "-k", type=integer_from(1), help="judge the unjudged documents at ranks 1..K of the runs")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge the pairs people judged instead (no runs), to check the judge against them "
                             "(retrieval-eval agree QRELS OUT)")
    parser.add_argument("--sample", type=integer_from(1), metavar="N", help="with --rejudge: N of the judged pairs, drawn at random")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    parser.add_argument("--topics", required=True, help="query texts: TREC topics, JSONL (query_id, text) or TSV")
    parser.add_argument("--docs", required=True, help="document texts: JSONL, parquet or TSV with doc_id and text")
    parser.add_argument("-o", "--output", required=True, help="the merged labels: TREC qrels text, or a table by extension")
    parser.add_argument("--errors", metavar="FILE", help="write every item left unjudged (query_id, doc_id, error)")
    parser.add_argument("--scale", default="0-3", metavar="LOW-HIGH", help="the labels the judge may give (default 0-3)")
    parser.add_argument("--dry-run", action="store_true", help="print what would be sent and its cost; send nothing")
    parser.add_argument("--ties", choices=POOL_TIES, default="docid", help="order of equal scores in the runs")
    parser.add_argument("--run-duplicates", choices=DUPLICATE_POLICIES, default="raise",
                        help="a document repeated in a run's query: raise (default) or which score ranks it")
    add_judge_flags(parser, required=True)
    add_progress_flags(parser)
    add_column_flags(parser)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def judge_command(args: argparse.Namespace) -> int:
    from ..judging.holes import judge_holes, judge_judged, relevance_judge
    from ..judging.provenance import write_labels
    from ..metrics.options import EvaluationOptions

    inputs = [args.qrels, *args.runs, args.topics, args.docs]
    _check_mode(args)
    check_outputs({"-o": args.output, "--errors": args.errors}, inputs)
    settings = judge_settings(args)
    scale = _scale(args.scale)
    judge = relevance_judge(settings, scale)
    options = EvaluationOptions(ties=args.ties, run_duplicates=args.run_duplicates)
    # The human qrels are read by path, not as Qrels: their source column and sidecar say who labelled them.
    qrels_columns = column_pairs(args.qrels_column, "--qrels-column")
    if args.dry_run:
        return _dry_run(args, settings, judge, options, qrels_columns)
    if args.rejudge:
        filled = judge_judged(args.qrels, topics=args.topics, docs=args.docs, settings=settings, judge=judge,
                              sample=args.sample, seed=args.seed, qrels_columns=qrels_columns)
    else:
        runs = [run_input(args, path) for path in args.runs]
        filled = judge_holes(args.qrels, runs, args.depth, topics=args.topics, docs=args.docs,
                             settings=settings, judge=judge, options=options, qrels_columns=qrels_columns)
    write_labels(filled.labels, args.output, judge=filled.summary(), inputs=inputs)
    if args.errors:
        from ..io import write_table

        write_table(filled.errors, args.errors, inputs=inputs)
    totals = filled.totals
    what = "judged pairs" if args.rejudge else f"pooled documents at depth {args.depth}"
    emit(terminal_text(f"judged {count_text(filled.judged.num_rows)} of {count_text(totals.items)} {what} "
                       f"({count_text(totals.cache_hits)} from the cache, {counted(totals.requests, 'request')}, "
                       f"{counted(totals.errors, 'error')}) with judge {filled.fingerprint}: {args.output}"))
    print("\n".join(totals_lines(totals)), file=sys.stderr)
    if filled.errors.num_rows:
        _report_errors(filled.errors, args.errors)
        return EXIT_THRESHOLD_FAILED
    return EXIT_OK


def _check_mode(args: argparse.Namespace) -> None:
    """Runs and --depth to fill holes; neither with --rejudge; --sample only with --rejudge."""
    if args.rejudge:
        if args.runs or args.depth is not None:
            raise usage("--rejudge judges the pairs of QRELS: give no runs and no --depth")
        if args.dry_run:
            raise usage("--dry-run estimates the judging of holes; with --rejudge every judged pair is one request")
    else:
        if not args.runs or args.depth is None:
            raise usage("give the runs and --depth K (the holes in their top K are judged), or --rejudge")
        if args.sample is not None:
            raise usage("--sample draws from the judged pairs: it goes with --rejudge")


def _dry_run(args: argparse.Namespace, settings: Any, judge: Any, options: Any, qrels_columns: dict[str, str] | None) -> int:
    """The pool, the requests the cache does not answer, and the upper bound of their cost; nothing is sent."""
    from ..judging.holes import pool_requests

    runs = [run_input(args, path) for path in args.runs]
    bodies, _ = pool_requests(args.qrels, runs, args.depth, topics=args.topics, docs=args.docs, judge=judge,
                              options=options, qrels_columns=qrels_columns)
    cache = judge.open_cache(settings.cache, "read-write") if settings.cache else None
    try:
        from ..judging.cache import request_key

        missing = [body for body in bodies if cache is None or cache.get(request_key(judge.fingerprint, body)) is None]
    finally:
        if cache is not None:
            cache.close()
    cost = judge.estimate(missing, settings.prices)
    emit(f"{counted(len(bodies), 'pooled document')} to judge at depth {args.depth}; {count_text(len(bodies) - len(missing))} "
         f"answered by the cache, {counted(len(missing), 'request')} to send"
         + (f", cost at most {cost:.4f}" if settings.prices else " (no --prices: no cost estimate)"))
    return EXIT_OK


def _scale(text: str) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in text.split("-", 1))
    except ValueError:
        raise usage(f"--scale takes LOW-HIGH, two integers such as 0-3, got {text!r}") from None
    if low >= high or low < 0:
        raise usage(f"--scale LOW-HIGH needs 0 <= LOW < HIGH, got {text!r}")
    return low, high


def _report_errors(errors: Any, path: str | None) -> None:
    lines = [f"retrieval-eval: {counted(errors.num_rows, 'item')} not judged" + (f"; all of them in {path}" if path else "")]
    for query, doc, error in list(zip(*(errors[name].to_pylist() for name in ("query_id", "doc_id", "error"))))[:_SHOWN_ERRORS]:
        lines.append(f"  query {query} doc {doc}: {error.split(': ', 1)[-1] if error.startswith('item ') else error}")
    if errors.num_rows > _SHOWN_ERRORS:
        lines.append(f"  ... and {count_text(errors.num_rows - _SHOWN_ERRORS)} more")
    print("\n".join(map(terminal_text, lines)), file=sys.stderr)  # ids and model errors quoted: no control character goes out raw
