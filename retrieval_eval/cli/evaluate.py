"""``retrieval-eval evaluate``: score a run against qrels (a summary, a per-query table, trec_eval's output),
in memory, streamed within a memory budget or on Dask."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Any

from ..metrics.options import EvaluationOptions
from ..metrics.registry import REGISTRY
from ..policies import DUPLICATE_POLICIES, JUDGMENT_FORMATS, TIE_POLICIES
from ..report.evaluation_text import PER_QUERY_FORMATS, conventions_line, summary_text
from ..scale.budget import DEFAULT_BUDGET
from ..views import terminal_text
from .common import (
    DEFAULT_K,
    EXIT_OK,
    EXIT_THRESHOLD_FAILED,
    GivenOnce,
    add_column_flags,
    add_progress_flags,
    check_outputs,
    column_pairs,
    emit,
    is_glob,
    metric_values,
    usage,
)
from .option_flags import add_shared_option_flags, option_default

if TYPE_CHECKING:
    from ..metrics import EvaluationSummary, Evaluator

_TABLE_FILE_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".gz")

_EVALUATE_EXAMPLES = """\
examples:
  retrieval-eval evaluate data/qrels.trec data/run.trec
  retrieval-eval evaluate data/qrels.parquet data/run.parquet -m ndcg_exp@10 -m holes@10 -o per_query.parquet
  retrieval-eval evaluate data/qrels.trec data/run.trec -k 5 --threshold ndcg_exp@5=0.4 --format json
  retrieval-eval evaluate --azure data/azure_rows.jsonl --threshold holes_ratio=0.2
  retrieval-eval evaluate data/qrels.trec data/run.trec -m ndcg_cut.10 -m map -m P.5,10 --trec -q
  retrieval-eval evaluate data/qrels.trec data/run.trec -m "nDCG@10" -m "R@100" -l 2 -c
  retrieval-eval evaluate qrels.parquet 'runs/*.parquet' -m ndcg@10 --memory-budget 2GiB -o per_query/
  retrieval-eval evaluate qrels.parquet runs/ -m ndcg@10 --dask local:4 -o per_query/
  retrieval-eval evaluate qrels.parquet runs/ -m ndcg@10 --dask tcp://scheduler:8786 -o /shared/per_query/
"""


def add_evaluate_command(commands: Any) -> None:
    """The ``evaluate`` subcommand and its flags."""
    run = commands.add_parser(
        "evaluate",
        help="score a run against qrels",
        description="Score a run against qrels: a summary on stdout, optionally a per-query table.",
        epilog=_EVALUATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.register("action", None, GivenOnce)  # every flag that sets one value, as a metric's threshold
    run.add_argument("qrels", help="qrels file (TREC, parquet, CSV/TSV, JSONL; .gz ok), or Azure rows with --azure")
    run.add_argument("run", nargs="*", metavar="RUN",
                     help="run file (TREC, parquet, CSV/TSV, JSONL; .gz ok), read whole; or parquet files, a "
                     "directory or a quoted glob of them, streamed within --memory-budget (a directory, several "
                     "files or a glob are always streamed)")
    run.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                     help="metric, repeatable: " + ", ".join(d.display_name for d in REGISTRY)
                     + " (definitions: `retrieval-eval metrics`); default: the document-retrieval set at k, "
                     "or with --trec trec_eval's official measures")
    run.add_argument("-k", type=int, default=DEFAULT_K, help=f"cutoff for metrics named without @k (default {DEFAULT_K})")
    run.add_argument("--threshold", action="append", default=[], metavar="METRIC=VALUE",
                     help="pass/fail threshold on a metric's mean, repeatable; exit code 1 when one fails")
    run.add_argument("-o", "--output", help="per-query table (.parquet, .csv, .tsv, .json, .jsonl); for a streamed "
                     "run, a directory that receives the per-query parquet dataset")
    run.add_argument("--summary-output", help="summary file (.json, or a table format)")
    run.add_argument("--format", choices=("table", "json", "csv", "pytrec", "long"), default="table",
                     help="what stdout shows: the summary as a table, JSON or CSV; or the per-query values as "
                     "pytrec_eval's JSON {query: {metric: value}} (pytrec) or CSV rows query_id,metric,value (long)")
    run.add_argument("--azure", action="store_true",
                     help="QRELS is one file of Azure rows (retrieval_ground_truth + retrieved_documents per query)")
    add_shared_option_flags(run)  # --label-min, --label-max, -l, -M, --query-set/-c, --run-duplicates
    run.add_argument("-J", "--judged-only", action="store_true",
                     help="TREC measures: drop retrieved documents the qrels do not judge before ranking (trec_eval -J)")
    run.add_argument("-N", "--collection-size", type=int,
                     help="TREC measures: documents in the collection (trec_eval -N)")
    run.add_argument("-R", "--judgments", choices=JUDGMENT_FORMATS, default=option_default("judgments"),
                     help="how QRELS is laid out (trec_eval -R): qrels, qrels_jg (judgment groups), "
                     "qrels_prefs or prefs (preferences); default %(default)s")
    run.add_argument("--ties", choices=TIE_POLICIES,
                     help="order of equal scores for every metric: descending doc id (trec_eval), input order "
                     "(Azure) or as ranx sorts a Run (ranx); or average: each metric's mean over every order of "
                     "equal scores (its expected value); default: each metric's reference")
    run.add_argument("--qrels-duplicates", choices=DUPLICATE_POLICIES,
                     help="label kept for a document judged twice (default: raise with a TREC measure, "
                     "as trec_eval; last otherwise, as Azure)")
    run.add_argument("--trec", action="store_true",
                     help="print trec_eval's three-column output (measure, query, value) instead of the summary")
    run.add_argument("-q", dest="per_query", action="store_true",
                     help="with --trec: also the per-query lines (trec_eval -q)")
    run.add_argument("-n", dest="no_summary", action="store_true",
                     help="with --trec: no summary (all) lines (trec_eval -n)")
    run.add_argument("-Z", dest="zscores", metavar="ZSCORES_FILE",
                     help="with --trec: print z-scores against the per-query means and deviations of a file of "
                     "'qid measure mean stddev' lines (trec_eval -Z)")
    run.add_argument("-T", dest="results_format", choices=("trec_results",),
                     help="with --trec: the results format (trec_eval -T; trec_results, the only one it has)")
    run.add_argument("-D", dest="debug_level", type=int, metavar="LEVEL",
                     help="with --trec: accepted as trec_eval -D takes it; no debug output is printed")
    add_column_flags(run)
    run.add_argument("--memory-budget", metavar="SIZE",
                     help=f"stream the parquet run in chunks within SIZE (e.g. 1GiB, 512MB; default {DEFAULT_BUDGET} "
                     "for a streamed run); unsorted runs are first partitioned by query into temporary files")
    run.add_argument("--dask", metavar="ADDRESS",
                     help="score the parquet run on Dask: a scheduler address (tcp://host:8786) or local:N for a "
                     "local cluster of N worker processes (needs the 'dask' extra)")
    run.add_argument("--temp-dir", help="where a streamed run's temporary partitions go (default: the system's)")
    add_progress_flags(run)
    run.add_argument("--debug", action="store_true", help="show tracebacks")


def evaluate_command(args: argparse.Namespace) -> int:
    if args.trec:
        return _trec_eval(args)
    for flag, given in (("-n", args.no_summary), ("-Z", args.zscores), ("-T", args.results_format),
                        ("-D", args.debug_level is not None)):
        if given:
            raise usage(f"{flag} goes with --trec (trec_eval's output)")
    result, evaluator = _evaluate(args)
    emit(summary_text(result, args.format, conventions_line(evaluator)))
    return EXIT_THRESHOLD_FAILED if result.passed is False else EXIT_OK


def _trec_eval(args: argparse.Namespace) -> int:
    """``--trec``: what trec_eval prints for the same command line (retrieval_eval.frontends.trec_eval.run)."""
    import warnings

    from ..frontends.trec_eval.run import trec_eval
    from ..metrics.evaluator import NoSharedQueriesWarning

    if args.azure or _streamed(args) or len(args.run) != 1:
        raise usage("--trec scores one qrels file against one run file read whole, as trec_eval does")
    if args.threshold:
        raise usage("--threshold does not go with --trec, whose exit status is trec_eval's")
    check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.qrels, *args.run, args.zscores])
    from ..io import trec_run_tag

    zscores = None
    if args.zscores:
        from ..io.zscores import read_zscores

        zscores = read_zscores(args.zscores)
    options = _evaluation_options(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NoSharedQueriesWarning)
        output = trec_eval(
            args.qrels, args.run[0], args.metrics, options=options, per_query=args.per_query,
            summary=not args.no_summary, run_id=trec_run_tag(args.run[0]), zscores=zscores,
            qrels_columns=column_pairs(args.qrels_column, "--qrels-column"),
            run_columns=column_pairs(args.run_column, "--run-column"),
        )
    for warning in caught:
        print(terminal_text(f"retrieval-eval: warning: {warning.message}"), file=sys.stderr)
    if args.output:
        output.result.write(args.output)
    if args.summary_output:
        output.result.write_summary(args.summary_output)
    if output.lines:
        emit("\n".join(output.lines))
    return EXIT_OK


def _evaluate(args: argparse.Namespace) -> tuple[EvaluationSummary, list]:
    import warnings

    from ..metrics import Evaluator
    from ..metrics.evaluator import NoSharedQueriesWarning
    if args.per_query and not args.trec:
        raise usage("-q goes with --trec (per-query lines); use -o FILE for a per-query table")
    check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.qrels, *args.run])
    if args.dask is not None:
        from ..scale.cluster import dask_target

        dask_target(args.dask)  # a bad address fails at once, before any file is read
    options = _evaluation_options(args)
    thresholds = metric_values(args.threshold, "--threshold")
    asked = args.metrics or _default_measures(args)
    if args.azure:
        if args.run:
            raise usage("with --azure give one file of Azure rows, not a qrels and a run")
        if _streamed(args):
            raise usage("--memory-budget and --dask stream a parquet run; --azure reads one file of Azure rows whole")
        from ..data import load_azure_rows

        collection = load_azure_rows(args.qrels)
        evaluator = Evaluator(collection.qrels, asked, thresholds=thresholds, options=options)
        run: Any = collection.run
    elif not args.run:
        raise usage("give a qrels file and a run file (or --azure with one file of Azure rows)")
    else:
        qrels_columns = column_pairs(args.qrels_column, "--qrels-column")
        run_columns = column_pairs(args.run_column, "--run-column")
        evaluator = Evaluator(args.qrels, asked, thresholds=thresholds, options=options, qrels_columns=qrels_columns)
        if _streamed(args):
            streamed = _evaluate_streamed(args, evaluator, run_columns)
            # Its per-query dataset is written by then: the stream knows the shared queries only at its end.
            _refuse_nothing_shared(streamed, args)
            return streamed, evaluator
        from ..data import Run

        run = Run.read(args.run[0], columns=run_columns)
    with warnings.catch_warnings():
        # The command refuses what the API only warns of, before writing anything.
        warnings.simplefilter("ignore", NoSharedQueriesWarning)
        result = evaluator.evaluate(run)
    _refuse_nothing_shared(result, args)
    if args.output:
        result.write(args.output)
    if args.summary_output:
        result.write_summary(args.summary_output)
    return result, evaluator


def _refuse_nothing_shared(result: EvaluationSummary, args: argparse.Namespace) -> None:
    """A run that retrieved for no judged query is bad input (exit 2), not a pass on nothing."""
    from ..errors import InputError
    from ..metrics.evaluator import no_shared_queries

    if result.query_counts["both"] == 0:
        raise InputError(no_shared_queries(", ".join(args.run) or args.qrels, args.qrels))


def _streamed(args: argparse.Namespace) -> bool:
    """A run is streamed when asked to (a budget, Dask), or when it is a directory, several files or a glob."""
    run = args.run or []
    return bool(args.memory_budget or args.dask or len(run) > 1 or any(is_glob(r) or os.path.isdir(r) for r in run))


def _evaluate_streamed(args: argparse.Namespace, evaluator: Evaluator, run_columns: dict[str, str] | None) -> EvaluationSummary:
    from ..scale import evaluate_dataset

    if args.trec or args.format in PER_QUERY_FORMATS:
        what = "--trec" if args.trec else f"--format {args.format}"
        raise usage(f"{what} prints from a per-query table in memory; a streamed run gives --format table, json or csv "
                     "(and -o DIRECTORY for its per-query values)")
    if args.output and args.output.lower().endswith(_TABLE_FILE_SUFFIXES):
        raise usage(f"a streamed run writes its per-query table as a parquet dataset: -o takes a directory, got {args.output!r}")
    result = evaluate_dataset(
        evaluator,
        args.run if len(args.run) > 1 else args.run[0],
        output=args.output,
        memory_budget=args.memory_budget or DEFAULT_BUDGET,
        dask=args.dask,
        temp_dir=args.temp_dir,
        run_columns=run_columns,
    )
    if args.summary_output:
        result.write_summary(args.summary_output)
    return result


def _evaluation_options(args: argparse.Namespace) -> EvaluationOptions:
    # Every option of EvaluationOptions is a flag of `evaluate` whose destination has the option's name.
    return EvaluationOptions(**{field.name: getattr(args, field.name) for field in dataclasses.fields(EvaluationOptions)})


def _default_measures(args: argparse.Namespace) -> list[str] | None:
    """Without -m: trec_eval's official measures for TREC files, Azure's document-retrieval set (None) otherwise."""
    from pathlib import Path

    from ..io.sources import format_from_name

    if args.azure or format_from_name(Path(args.qrels))[0] != "trec":
        return None
    return ["official"]
