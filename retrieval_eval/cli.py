"""The ``retrieval-eval`` command: a thin shell over the Python API.

Exit codes: 0 ran (and every threshold passed), 1 ran and a threshold failed, 2 bad usage or input,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM); interrupted or terminated, a command removes
what it had begun to write (temporary files, buckets, staging) and prints one line.
``check`` exits 3 when nothing was checked (no evaluator ran on any item).
Each command imports what it uses when it runs: ``--help`` and ``metrics`` load neither pandas,
numba nor scipy, and ``evaluate`` loads no scipy, matplotlib or dask.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import glob
import json
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import __version__
from .errors import ConfigError, RetrievalEvalError
from .metrics.options import EvaluationOptions
from .metrics.registry import REGISTRY
from .policies import DUPLICATE_POLICIES, JUDGMENT_FORMATS, PARTIAL_MATCH_MODES, QUERY_POLICIES, QUERY_SETS, TIE_ORDERS
from .scale.budget import DEFAULT_BUDGET
from .sweep.settings import STATISTICS

if TYPE_CHECKING:
    from .data import Qrels
    from .metrics import EvaluationResult, EvaluationSummary, Evaluator
    from .sweep import SweepResult

EXIT_OK, EXIT_THRESHOLD_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_NOTHING_CHECKED = 3  # `check`: no evaluator ran on any item, which a gate must not take for a pass
#: 128 + the signal's number, as a shell reports a command that a signal ended.
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM
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

_CHECK_EXAMPLES = """\
examples:
  retrieval-eval check data/eval_document.json -o scored.json
  retrieval-eval check data/eval_document.json --executions data/executions.jsonl
  retrieval-eval check --executions data/executions.jsonl --config data/checks.json -o results.jsonl
  retrieval-eval check document.json --custom-evaluator ToolUsage

exit codes:
  0  something was checked and every item passed
  1  an item did not pass: fail, partial (an evaluator errored) or error (the agent gave no response)
  2  bad usage or input, such as an evaluator name close to a built-in one (RetreivalQuery, exactmatch)
  3  nothing was checked: no record, no evaluator, or only evaluators that are skipped offline
     (LLM-judged, custom) on every item
"""

_SWEEP_EXAMPLES = """\
examples:
  retrieval-eval sweep qrels.trec runs/*.trec -m ndcg@10 -m recall@100 --param-pattern 'k(?P<top_k>\\d+)'
  retrieval-eval sweep qrels.trec runs/*.trec --objective ndcg@10 --cost latency_ms -o leaderboard.parquet
  retrieval-eval sweep qrels.trec runs/*.trec --all-pairs --wide     # every pair compared, every column printed
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="retrieval-eval", description="Fast, exact retrieval evaluation.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser(
        "evaluate",
        help="score a run against qrels",
        description="Score a run against qrels: a summary on stdout, optionally a per-query table.",
        epilog=_EVALUATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.register("action", None, _GivenOnce)  # every flag that sets one value, as a metric's threshold
    run.add_argument("qrels", help="qrels file (TREC, parquet, CSV/TSV, JSONL; .gz ok), or Azure rows with --azure")
    run.add_argument("run", nargs="*", metavar="RUN",
                     help="run file (TREC, parquet, CSV/TSV, JSONL; .gz ok), read whole; or parquet files, a "
                     "directory or a quoted glob of them, streamed within --memory-budget (a directory, several "
                     "files or a glob are always streamed)")
    run.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                     help="metric, repeatable: " + ", ".join(d.display_name for d in REGISTRY)
                     + " (definitions: `retrieval-eval metrics`); default: the document-retrieval set at k, "
                     "or with --trec trec_eval's official measures")
    run.add_argument("-k", type=int, default=_DEFAULT_K, help=f"cutoff for metrics named without @k (default {_DEFAULT_K})")
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
    run.add_argument("--label-min", type=int, default=_default("label_min"), help="lowest label, the irrelevant grade (default %(default)s)")
    run.add_argument("--label-max", type=int, default=_default("label_max"), help="highest label (default %(default)s)")
    run.add_argument("-l", "--rel-level", type=int, default=_default("rel_level"),
                     help="TREC measures: a label >= this is relevant (trec_eval -l; default %(default)s)")
    run.add_argument("-M", "--max-docs", type=int,
                     help="TREC measures: evaluate only the top N documents of each query (trec_eval -M)")
    run.add_argument("-J", "--judged-only", action="store_true",
                     help="TREC measures: drop retrieved documents the qrels do not judge before ranking (trec_eval -J)")
    run.add_argument("-N", "--collection-size", type=int,
                     help="TREC measures: documents in the collection (trec_eval -N)")
    run.add_argument("-R", "--judgments", choices=JUDGMENT_FORMATS, default=_default("judgments"),
                     help="how QRELS is laid out (trec_eval -R): qrels, qrels_jg (judgment groups), "
                     "qrels_prefs or prefs (preferences); default %(default)s")
    queries = run.add_mutually_exclusive_group()
    queries.add_argument("--query-set", choices=QUERY_SETS,
                         help="queries evaluated: the judged ones, those in both, or all (default: both with a "
                         "TREC measure, as trec_eval; qrels otherwise, as Azure)")
    queries.add_argument("-c", dest="query_set", action="store_const", const="qrels",
                         help="score judged queries missing from the run as 0 (trec_eval -c; --query-set qrels)")
    run.add_argument("--ties", choices=TIE_ORDERS,
                     help="order of equal scores for every metric: descending doc id (trec_eval), input order "
                     "(Azure) or as ranx sorts a Run (ranx); default: each metric's reference")
    run.add_argument("--run-duplicates", choices=DUPLICATE_POLICIES,
                     help="score kept for a document retrieved twice (default: raise with a TREC measure, "
                     "as trec_eval; last otherwise, as Azure)")
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
    run.add_argument("--qrels-column", action="append", default=[], metavar="CANONICAL=NAME",
                     help="which qrels column is query_id, doc_id or relevance (when the defaults do not find it)")
    run.add_argument("--run-column", action="append", default=[], metavar="CANONICAL=NAME",
                     help="which run column is query_id, doc_id or score")
    run.add_argument("--memory-budget", metavar="SIZE",
                     help=f"stream the parquet run in chunks within SIZE (e.g. 1GiB, 512MB; default {DEFAULT_BUDGET} "
                     "for a streamed run); unsorted runs are first partitioned by query into temporary files")
    run.add_argument("--dask", metavar="ADDRESS",
                     help="score the parquet run on Dask: a scheduler address (tcp://host:8786) or local:N for a "
                     "local cluster of N worker processes (needs the 'dask' extra)")
    run.add_argument("--temp-dir", help="where a streamed run's temporary partitions go (default: the system's)")
    run.add_argument("--debug", action="store_true", help="show tracebacks")

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
    check.register("action", None, _GivenOnce)
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
    check.add_argument("--debug", action="store_true", help="show tracebacks")

    ranking = commands.add_parser(
        "sweep",
        help="rank configurations: many runs of the same queries against one qrels",
        description="Rank configurations by a metric's mean, with bootstrap confidence intervals and paired "
        "tests against the best (t-test and randomization test, Holm-adjusted), the marginal effect of each "
        "parameter, and the Pareto front against cost columns.",
        epilog=_SWEEP_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ranking.register("action", None, _GivenOnce)
    ranking.add_argument("qrels", help="qrels file (TREC, parquet, CSV/TSV, JSONL)")
    ranking.add_argument("runs", nargs="+", metavar="RUN",
                         help="run files, one per configuration (named by file name); with --fuse or --fusion-grid, the runs to fuse")
    ranking.add_argument("--param-pattern", metavar="REGEX",
                         help="named groups over the file name give the parameters, e.g. 'k(?P<top_k>\\d+)'; "
                         "a sidecar RUN.json may give more (and cost columns)")
    ranking.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                         help="metric to report, repeatable (default: ndcg@10)")
    ranking.add_argument("--objective", metavar="METRIC", help="metric that ranks and is tested (default: the first)")
    ranking.add_argument("--cost", action="append", default=[], metavar="COLUMN",
                         help="cost column of the sidecars for the Pareto front (lower is better), repeatable")
    ranking.add_argument("-k", type=int, default=_DEFAULT_K, help=f"cutoff for metrics named without @k (default {_DEFAULT_K})")
    ranking.add_argument("--query-policy", choices=QUERY_POLICIES, default=QUERY_POLICIES[0],
                         help="queries compared: those every run has, or all with 0 where a run has none")
    for setting in STATISTICS:
        # The text goes to the API's own check, so that a bad value reads as it would from Python.
        ranking.add_argument(f"--{setting.name}", type=setting.from_text, metavar=setting.name.upper(),
                             help=f"{setting.help}: {setting.allowed} (default {setting.default})")
    ranking.add_argument("-o", "--output", help="the leaderboard table (.parquet, .csv, .tsv, .json, .jsonl)")
    ranking.add_argument("--report", metavar="REPORT.html",
                         help="a self-contained HTML report (plots need the 'plots' extra: matplotlib)")
    ranking.add_argument("--format", choices=("table", "json"), default="table",
                         help="what to print on stdout: the leaderboard in 100 columns with the best against the "
                         "runner-up, or all of it as one JSON object")
    ranking.add_argument("--wide", action="store_true", help="with --format table: every column of the leaderboard")
    ranking.add_argument("--all-pairs", action="store_true",
                         help="also compare every pair of configurations (Holm-adjusted over all the pairs)")
    ranking.add_argument("--debug", action="store_true", help="show tracebacks")
    _add_fusion_grid_flags(ranking)
    _add_fuse_command(commands)

    listing = commands.add_parser("metrics", help="list the metrics", description="List every metric in the registry.")
    listing.add_argument("--format", choices=("table", "json"), default="table")
    listing.add_argument("--trec", action="store_true",
                         help="trec_eval's measures instead: its names in its order, default parameters, the nicknames "
                         "that hold each, and the metric behind each value")

    compiling = commands.add_parser(
        "compile",
        help="compile every numba kernel now (for a Docker image or a CI cache)",
        description="Compile every numba kernel into numba's cache now, so that no later command waits for "
        "compilation. Run it once after installing (e.g. in a Dockerfile: RUN retrieval-eval compile); the "
        "cache lives beside the installed package, or in NUMBA_CACHE_DIR when that is set.",
    )
    compiling.add_argument("--debug", action="store_true", help="show tracebacks")
    return parser


_DEFAULT_K = EvaluationOptions.default("k")


class _GivenOnce(argparse.Action):
    """Store a flag's value; the same flag given again is a usage error naming both, not the last one winning.

    The rule of the library for an option that sets one value (a threshold, a parameter of a metric name).
    """

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault("_given_once", {})
        if option_string is not None and self.dest in given:
            parser.error(f"{given[self.dest]} and {option_string} {values}: the option is given twice, give it once")
        if option_string is not None:
            given[self.dest] = f"{option_string} {values}"
        setattr(namespace, self.dest, values)


def _default(option: str) -> Any:
    return EvaluationOptions.default(option)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "metrics":
        print(_trec_eval_listing(args.format) if args.trec else _metrics_listing(args.format))
        return EXIT_OK
    command = {"check": _check, "sweep": _sweep, "fuse": _fuse, "compile": _compile}.get(args.command, _evaluate_and_print)
    try:
        with _signals_raise():
            _check_numba_environment()
            return command(args)
    except (RetrievalEvalError, OSError) as error:
        if args.debug:
            raise
        if getattr(error, "output", None):
            _emit("\n".join(error.output))  # what trec_eval prints before it stops there
        print(f"retrieval-eval: error: {error}", file=sys.stderr)
        return getattr(error, "exit_status", EXIT_BAD_INPUT)
    except (KeyboardInterrupt, _Terminated) as stop:
        # What was being written is removed already, by the with blocks and handlers it unwound.
        if args.debug:
            import traceback

            traceback.print_exc()  # and still the exit code of the signal
        interrupted = isinstance(stop, KeyboardInterrupt)
        print(f"retrieval-eval: {'interrupted' if interrupted else 'terminated'}", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else EXIT_TERMINATED


def _check_numba_environment() -> None:
    """numba's thread variables, checked before any kernel runs: one line naming the variable, not numba's traceback."""
    from .kernels import check_numba_environment

    try:
        check_numba_environment()
    except ValueError as error:
        raise ConfigError(str(error)) from None


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread as Ctrl-C raises KeyboardInterrupt (not an Exception: nothing catches it)."""


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Within: SIGINT raises KeyboardInterrupt and SIGTERM :class:`_Terminated`, so that a command unwinds
    (and cleans up) on either; once one came, both are ignored, so that a second one cannot cut the cleanup
    short. Python's default for SIGTERM is to die on the spot, leaving temporary files behind."""
    if threading.current_thread() is not threading.main_thread():  # signals go to the main thread only
        yield
        return

    def stop(number: int, frame: object) -> None:
        for other in (signal.SIGINT, signal.SIGTERM):
            signal.signal(other, signal.SIG_IGN)
        raise KeyboardInterrupt if number == signal.SIGINT else _Terminated

    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            # None: a handler not installed from Python, which cannot be put back; the default is.
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)


def _check_outputs(outputs: dict[str, str | None], inputs: list[str | None]) -> None:
    """Refuse, before any work, an output that is, holds or is inside an input (a glob's files among
    them) or another output (see :mod:`retrieval_eval.io.output_paths`), and standard input named twice."""
    from .io.output_paths import check_output_paths

    stdin = [item for item in inputs if item in ("-", "/dev/stdin")]
    if len(stdin) > 1:
        # Standard input is read once and kept: a second input would be the same bytes again.
        raise _usage(f"standard input can be only one of the inputs, given {len(stdin)} times ({', '.join(stdin)})")
    matched = [match for item in inputs if item is not None and _is_glob(item) for match in glob.glob(item, recursive=True)]
    check_output_paths(outputs, [*inputs, *matched])


def _evaluate_and_print(args: argparse.Namespace) -> int:
    if args.trec:
        return _trec_eval(args)
    for flag, given in (("-n", args.no_summary), ("-Z", args.zscores), ("-T", args.results_format),
                        ("-D", args.debug_level is not None)):
        if given:
            raise _usage(f"{flag} goes with --trec (trec_eval's output)")
    result, evaluator = _evaluate(args)
    _emit(_summary_text(result, args.format, _conventions(evaluator)))
    return EXIT_THRESHOLD_FAILED if result.passed is False else EXIT_OK


def _trec_eval(args: argparse.Namespace) -> int:
    """``--trec``: what trec_eval prints for the same command line (retrieval_eval.metrics.trec_eval_run)."""
    import warnings

    from .metrics.evaluator import NoSharedQueriesWarning
    from .metrics.trec_eval_run import trec_eval

    if args.azure or _streamed(args) or len(args.run) != 1:
        raise _usage("--trec scores one qrels file against one run file read whole, as trec_eval does")
    if args.threshold:
        raise _usage("--threshold does not go with --trec, whose exit status is trec_eval's")
    _check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.qrels, *args.run, args.zscores])
    from .io import trec_run_tag

    zscores = None
    if args.zscores:
        from .io.zscores import read_zscores

        zscores = read_zscores(args.zscores)
    options = _evaluation_options(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NoSharedQueriesWarning)
        output = trec_eval(
            args.qrels, args.run[0], args.metrics, options=options, per_query=args.per_query,
            summary=not args.no_summary, run_id=trec_run_tag(args.run[0]), zscores=zscores,
            qrels_columns=_parse_pairs(args.qrels_column, "--qrels-column"),
            run_columns=_parse_pairs(args.run_column, "--run-column"),
        )
    for warning in caught:
        print(f"retrieval-eval: warning: {warning.message}", file=sys.stderr)
    if args.output:
        output.result.write(args.output)
    if args.summary_output:
        output.result.write_summary(args.summary_output)
    if output.lines:
        _emit("\n".join(output.lines))
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from .executions import check_document, check_log
    from .io import write_json

    _check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.document, args.executions, args.config])
    if args.document is not None:
        if args.config is not None:
            raise _usage("--config goes with --executions alone; a document names its own evaluators")
        checked = check_document(args.document, executions=args.executions, partial_match_mode=args.partial_match_mode,
                                 custom_evaluators=args.custom_evaluators)
    elif args.executions is not None and args.config is not None:
        if args.custom_evaluators:
            raise _usage("--custom-evaluator goes with a document; a log is checked by built-in evaluators only")
        checked = check_log(args.executions, args.config)
    else:
        raise _usage("give an evaluation document, or --executions LOG with --config CHECKS.json")
    if args.output:
        checked.write(args.output)
    summary = checked.summary
    if args.summary_output:
        write_json(summary.to_dict(), args.summary_output)
    _emit(json.dumps(summary.to_dict(), indent=2) if args.format == "json" else summary.to_text())
    return {"pass": EXIT_OK, "fail": EXIT_THRESHOLD_FAILED, "nothing_checked": EXIT_NOTHING_CHECKED}[checked.verdict]


def _sweep(args: argparse.Namespace) -> int:
    from .report import write_report

    if args.wide and args.format != "table":
        raise _usage("--wide goes with --format table (the JSON holds every column)")
    result = _fusion_sweep(args) if args.fuse or args.fusion_grid else _files_sweep(args)
    if args.output:
        result.write(args.output)
    if args.report:
        write_report(result, args.report)
    from .sweep.terminal import sweep_json, sweep_text

    _emit(sweep_json(result) if args.format == "json" else sweep_text(result, wide=args.wide))
    return EXIT_OK


def _files_sweep(args: argparse.Namespace) -> SweepResult:
    """The sweep of run files, one configuration each, with the parameters of their names and sidecars."""
    from .sweep import runs_from_files, sweep
    from .sweep.configurations import sidecar_candidates

    if args.top_k_in is not None or args.top_k_out is not None:
        raise _usage("--top-k-in and --top-k-out cut the runs of a fusion sweep (--fuse or --fusion-grid)")
    sidecars = [str(path) for run in args.runs for path in sidecar_candidates(run)]  # read by runs_from_files: inputs too
    _check_outputs({"-o": args.output, "--report": args.report}, [args.qrels, *args.runs, *sidecars])
    runs, parameters = runs_from_files(args.runs, param_pattern=args.param_pattern, costs=args.cost)
    return sweep(args.qrels, runs, args.metrics or ["ndcg@10"], parameters=parameters, costs=args.cost, **_sweep_settings(args))


def _sweep_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The leaderboard's settings from the flags, the same for a sweep of run files and a fusion sweep."""
    statistics = {setting.name: getattr(args, setting.name) for setting in STATISTICS if getattr(args, setting.name) is not None}
    return dict(
        objective=args.objective,
        options=EvaluationOptions(k=args.k, ties=args.ties),
        query_policy=args.query_policy,
        **statistics,
        all_pairs=args.all_pairs,
        progress=_progress_bar() if sys.stderr.isatty() else None,
    )


_FUSION_SWEEP_HELP = """With --fuse or --fusion-grid, the RUN files are the runs to fuse (named by file name, without
its extension) and each configuration of the grid is fused from them and ranked. --fuse takes
METHOD[:KEY=VALUES]..., values separated by commas, and is repeatable:
  norm=min-max,max,sum  normalizations (none for none; default min-max, as ranx.fuse)
  step=0.1              ranx's weight grid (optimize_fusion's): the weight vectors at that step
  w=0.3/0.7,0.5/0.5     explicit weight vectors, one weight per run joined by '/'
  k=10,20,60,100        a parameter of the method (k for rrf, gamma for gmnz, sigma for logn_isr, ...)
GRID.json holds a list of entries: [{"method": "rrf", "k": [10, 60]},
{"method": "wsum", "norm": ["min-max", "max"], "weights": {"step": 0.1}}].
  retrieval-eval sweep qrels.trec bm25.trec dense.trec --fuse 'rrf:k=10,20,60,100' \\
      --fuse 'wsum:norm=min-max,max,sum:step=0.1' -m ndcg@10 --ties ranx --report fusion.html
  retrieval-eval sweep qrels.trec bm25.trec dense.trec --fusion-grid grid.json --top-k-out 100"""


def _add_fusion_grid_flags(ranking: argparse.ArgumentParser) -> None:
    group = ranking.add_argument_group("fusion sweep", description=_FUSION_SWEEP_HELP)
    group.add_argument("--fuse", action="append", default=[], metavar="METHOD:KEY=VALUES",
                       help="a fusion grid entry, repeatable (see above)")
    group.add_argument("--fusion-grid", metavar="GRID.json", help="a JSON file of fusion grid entries (see above)")
    group.add_argument("--top-k-in", type=int, metavar="N", help="fuse each run's first N documents per query")
    group.add_argument("--top-k-out", type=int, metavar="N", help="score each fused run's first N documents per query")
    ranking.add_argument("--ties", choices=TIE_ORDERS,
                         help="order of equal scores for every metric: descending doc id (trec_eval), input order "
                         "(Azure) or as ranx sorts a Run (ranx: a fusion sweep then scores as ranx.optimize_fusion); "
                         "default: each metric's reference")


def _fusion_sweep(args: argparse.Namespace) -> SweepResult:
    """The sweep of the fused runs of the grid of --fuse and --fusion-grid."""
    from .sweep.fusion_grid import fusion_grid, read_fusion_grid
    from .sweep.fusion_spec import parse_fusion_spec
    from .sweep.fusion_sweep import fusion_sweep

    if args.param_pattern is not None or args.cost:
        raise _usage("--param-pattern and --cost read the parameters of run files; a fusion sweep's come from its grid")
    _check_outputs({"-o": args.output, "--report": args.report}, [args.qrels, *args.runs, args.fusion_grid])
    entries = [parse_fusion_spec(text) for text in args.fuse]
    labels = [f"--fuse {text!r}" for text in args.fuse]
    if args.fusion_grid is not None:
        from_file = read_fusion_grid(args.fusion_grid)
        entries += from_file
        labels += [f"{args.fusion_grid}: entry {number}" for number in range(1, len(from_file) + 1)]
    names = _fused_run_names(args.runs)
    grid = fusion_grid(entries, names, labels=labels)  # every entry checked before any run is read
    return fusion_sweep(
        args.qrels, dict(zip(names, args.runs)), grid, args.metrics or ["ndcg@10"],
        top_k_in=args.top_k_in, top_k_out=args.top_k_out, **_sweep_settings(args),
    )  # fmt: skip


def _fused_run_names(paths: list[str]) -> list[str]:
    """The runs' names: file names without their extension (and .gz), or whole file names where those would repeat."""
    from pathlib import Path

    stems = [Path(path.removesuffix(".gz")).stem for path in paths]
    return stems if len(set(stems)) == len(stems) else [Path(path).name for path in paths]


_FUSE_EXAMPLES = """examples:
  retrieval-eval fuse data/run.trec data/run_dense.trec --method rrf -o fused.trec
  retrieval-eval fuse bm25.trec dense.trec --method rrf --param k=20 --top-k-in 100 --top-k-out 10 -o fused.trec
  retrieval-eval fuse bm25.trec dense.trec --method wsum --norm min-max --weights 0.3,0.7 -o fused.parquet
  retrieval-eval fuse a.trec b.trec c.trec --method mnz --norm zmuv -o fused.trec

methods: ranx's names (rrf, wsum, sum, mnz, max, min, med, anz, gmnz, wmnz, mixed, isr, log_isr, logn_isr, ...)
or an alias (CombMNZ); an unknown name lists them all. The fused run is ranx.fuse's: the same documents,
scores and order (ties included), written with ranks 1, 2, ... in that order.
"""


def _add_fuse_command(commands: Any) -> None:
    fusing = commands.add_parser(
        "fuse",
        help="fuse two or more runs into one (RRF, weighted sum, CombMNZ, ...), as ranx.fuse",
        description="Fuse two or more runs into one run file, as ranx 0.3.21's fuse(runs, norm, method, params) "
        "does. The union of the runs' queries is fused; a run without a query adds nothing to it.",
        epilog=_FUSE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fusing.register("action", None, _GivenOnce)
    fusing.add_argument("runs", nargs="+", metavar="RUN", help="run files (TREC, parquet, CSV/TSV, JSONL; .gz ok), two or more")
    fusing.add_argument("--method", required=True, help="the fusion method (see below)")
    fusing.add_argument("--norm", default="min-max",
                        help="normalization of each run's scores per query before fusing: min-max (default, as ranx), "
                        "max, sum, zmuv, rank, borda, min-max-inverted, or none")
    fusing.add_argument("--weights", metavar="W1,W2,...", help="one weight per run, in run order (wsum, wmnz, mixed, ...)")
    fusing.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of the method, repeatable: k=60 (rrf), gamma=0.5 (gmnz), sigma=0.01 (logn_isr)")
    fusing.add_argument("--top-k-in", type=int, metavar="N", help="fuse each run's first N documents per query")
    fusing.add_argument("--top-k-out", type=int, metavar="N", help="keep the fused run's first N documents per query")
    fusing.add_argument("--qrels", help="judgments the trained methods (probfuse, segfuse, ...) estimate from")
    fusing.add_argument("--duplicates", choices=DUPLICATE_POLICIES, default="last",
                        help="a document repeated in a query of one run: its last score (default, as ranx reads a run), "
                        "its first, its highest, or an error")
    fusing.add_argument("--tag", help="the run tag of a TREC output (its sixth field; default: the method)")
    fusing.add_argument("-o", "--output", required=True,
                        help="the fused run: .trec, .run or .txt as TREC text, or .parquet, .csv, .tsv, .json, .jsonl")
    fusing.add_argument("--debug", action="store_true", help="show tracebacks")


def _fuse(args: argparse.Namespace) -> int:
    from .fusion import fuse
    from .io.run_files import write_run
    from .sweep.fusion_spec import parameter_value

    inputs = [*args.runs, args.qrels]
    _check_outputs({"-o": args.output}, inputs)
    params: dict[str, Any] = {}
    for item in args.param:
        name, equals, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name or not value:
            raise _usage(f"--param takes NAME=VALUE (e.g. k=60), got {item!r}")
        if name in params or (name == "weights" and args.weights is not None):
            raise _usage(f"--param {item}: the parameter {name} is given twice" + (" (and --weights)" if name == "weights" else ""))
        params[name] = parameter_value(value)
    if args.weights is not None:
        weights = [parameter_value(weight.strip()) for weight in args.weights.split(",")]
        if not all(isinstance(weight, (int, float)) for weight in weights):
            raise _usage(f"--weights takes one number per run, separated by commas (e.g. 0.3,0.7), got {args.weights!r}")
        params["weights"] = weights
    run = fuse(args.runs, args.method, norm=args.norm, params=params, top_k_in=args.top_k_in, top_k_out=args.top_k_out,
               qrels=args.qrels, duplicates=args.duplicates)  # fmt: skip
    write_run(run.table, args.output, tag=args.tag if args.tag is not None else run.name, inputs=inputs)
    _emit(f"fused {len(args.runs)} runs with {run.name}: {run.n_queries} queries, {len(run)} documents -> {args.output}")
    return EXIT_OK


def _progress_bar() -> Callable[..., None]:
    """A one-line progress display on stderr (only used when stderr is a terminal): ``[done/total] name``.

    It takes a sweep's ``phase`` too (:mod:`retrieval_eval.sweep.progress`), so that a sweep shows
    each phase of its statistics on a line of its own, the name saying what is computed.
    """

    def show(done: int, total: int, name: str, phase: str = "runs") -> None:
        print(f"\r[{done}/{total}] {name[:60]:<60}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def _emit(text: str) -> None:
    """Print to stdout; a reader that stops early (``| head``) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # Python would report the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _evaluate(args: argparse.Namespace) -> tuple[EvaluationSummary, list]:
    import warnings

    from .metrics import Evaluator
    from .metrics.evaluator import NoSharedQueriesWarning
    if args.per_query and not args.trec:
        raise _usage("-q goes with --trec (per-query lines); use -o FILE for a per-query table")
    _check_outputs({"-o": args.output, "--summary-output": args.summary_output}, [args.qrels, *args.run])
    if args.dask is not None:
        from .scale.cluster import dask_target

        dask_target(args.dask)  # a bad address fails at once, before any file is read
    options = _evaluation_options(args)
    thresholds = _parse_thresholds(args.threshold)
    asked = args.metrics or _default_measures(args)
    if args.azure:
        if args.run:
            raise _usage("with --azure give one file of Azure rows, not a qrels and a run")
        if _streamed(args):
            raise _usage("--memory-budget and --dask stream a parquet run; --azure reads one file of Azure rows whole")
        from .data import load_azure_rows

        collection = load_azure_rows(args.qrels)
        evaluator = Evaluator(collection.qrels, asked, thresholds=thresholds, options=options)
        run: Any = collection.run
    elif not args.run:
        raise _usage("give a qrels file and a run file (or --azure with one file of Azure rows)")
    else:
        qrels_columns = _parse_pairs(args.qrels_column, "--qrels-column")
        run_columns = _parse_pairs(args.run_column, "--run-column")
        evaluator = Evaluator(args.qrels, asked, thresholds=thresholds, options=options, qrels_columns=qrels_columns)
        if _streamed(args):
            streamed = _evaluate_streamed(args, evaluator, run_columns)
            # Its per-query dataset is written by then: the stream knows the shared queries only at its end.
            _refuse_nothing_shared(streamed, args)
            return streamed, evaluator
        from .data import Run

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
    from .errors import InputError
    from .metrics.evaluator import no_shared_queries

    if result.query_counts["both"] == 0:
        raise InputError(no_shared_queries(", ".join(args.run) or args.qrels, args.qrels))


def _streamed(args: argparse.Namespace) -> bool:
    """A run is streamed when asked to (a budget, Dask), or when it is a directory, several files or a glob."""
    run = args.run or []
    return bool(args.memory_budget or args.dask or len(run) > 1 or any(_is_glob(r) or os.path.isdir(r) for r in run))


def _is_glob(path: str) -> bool:
    return any(character in path for character in "*?[") and not os.path.exists(path)


def _evaluate_streamed(args: argparse.Namespace, evaluator: Evaluator, run_columns: dict[str, str] | None) -> EvaluationSummary:
    from .scale import evaluate_dataset

    if args.trec or args.format in _PER_QUERY_FORMATS:
        what = "--trec" if args.trec else f"--format {args.format}"
        raise _usage(f"{what} prints from a per-query table in memory; a streamed run gives --format table, json or csv "
                     "(and -o DIRECTORY for its per-query values)")
    if args.output and args.output.lower().endswith(_TABLE_FILE_SUFFIXES):
        raise _usage(f"a streamed run writes its per-query table as a parquet dataset: -o takes a directory, got {args.output!r}")
    result = evaluate_dataset(
        evaluator,
        args.run if len(args.run) > 1 else args.run[0],
        output=args.output,
        memory_budget=args.memory_budget or DEFAULT_BUDGET,
        dask=args.dask,
        temp_dir=args.temp_dir,
        run_columns=run_columns,
        progress=_progress_bar() if sys.stderr.isatty() else None,
    )
    if args.summary_output:
        result.write_summary(args.summary_output)
    return result


def _compile(args: argparse.Namespace) -> int:
    from .kernels import compile_all

    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        raise _usage("NUMBA_DISABLE_JIT is set: there is nothing to compile")
    timings = compile_all(progress=_progress_bar() if sys.stderr.isatty() else None)
    _emit(f"compiled {len(timings)} kernel builds in {sum(timings.values()):.1f} s (loaded from numba's cache where found)")
    return EXIT_OK


def _parse_thresholds(items: list[str]) -> list[tuple[str, float]]:
    """``(metric, value)`` pairs in the order given: a repeated metric is the resolver's error, not a lost value."""
    thresholds: list[tuple[str, float]] = []
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not name.strip() or not math.isfinite(number):
            raise _usage(f"--threshold takes METRIC=NUMBER, got {item!r}")
        thresholds.append((name.strip(), number))
    return thresholds


def _parse_pairs(items: list[str], option: str) -> dict[str, str] | None:
    pairs = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise _usage(f"{option} takes CANONICAL=NAME (e.g. query_id=topic), got {item!r}")
        if key.strip() in pairs:
            raise _usage(f"{option} names {key.strip()} twice ({key.strip()}={pairs[key.strip()]}, {item.strip()}): give it once")
        pairs[key.strip()] = value.strip()
    return pairs or None


def _usage(message: str) -> ConfigError:
    return ConfigError(message)


def _evaluation_options(args: argparse.Namespace) -> EvaluationOptions:
    # Every option of EvaluationOptions is a flag of `evaluate` whose destination has the option's name.
    return EvaluationOptions(**{field.name: getattr(args, field.name) for field in dataclasses.fields(EvaluationOptions)})


def _default_measures(args: argparse.Namespace) -> list[str] | None:
    """Without -m: trec_eval's official measures for TREC files, Azure's document-retrieval set (None) otherwise."""
    from pathlib import Path

    from .io.sources import format_from_name

    if args.azure or format_from_name(Path(args.qrels))[0] != "trec":
        return None
    return ["official"]


#: How the summary's conventions line names each tie order of TIE_ORDERS.
_TIES_SHOWN = {"docid": "descending doc id", "input": "input order", "ranx": "as ranx sorts a Run"}


def _conventions(evaluator: Evaluator) -> str:
    """The reference of the measures and the rules the evaluation followed, in one line."""
    options = evaluator.options
    families = {REGISTRY.family(metric).name for metric in evaluator.metrics}
    queries = {"qrels": "every judged query (one without results scores 0)", "both": "judged queries with results",
               "union": "judged and retrieved queries"}[options.query_set]
    described = []
    if "trec" in families:
        ties = _TIES_SHOWN[options.ties or "docid"]
        described.append(f"trec_eval 10 (relevant: label >= {options.rel_level}; ties: {ties})")
    if "document_retrieval" in families:
        ties = _TIES_SHOWN[options.ties or "input"]
        described.append(f"azure-ai-evaluation document retrieval (labels {options.label_min}..{options.label_max}; ties: {ties})")
    others = sorted(families - {"trec", "document_retrieval"})
    return "measures: " + "; ".join([*described, *others]) + f"; queries: {queries}"


#: The --format choices that print per-query values rather than the summary.
_PER_QUERY_FORMATS = ("pytrec", "long")


def _per_query_text(result: EvaluationResult, style: str) -> str:
    """The per-query values: pytrec_eval's nested dict as JSON (NaN as null), or the long table as CSV."""
    if style == "pytrec":
        from .io.writers import json_ready

        return json.dumps(json_ready(result.to_dict()), indent=2, ensure_ascii=False, allow_nan=False)
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    table = result.long_arrow()
    # Unquoted, as the summary's CSV is, unless an id holds a comma, a quote or a line break.
    for quoting in ("none", "needed"):
        sink = pa.BufferOutputStream()
        try:
            pa_csv.write_csv(table, sink, pa_csv.WriteOptions(include_header=False, quoting_style=quoting))
        except pa.ArrowInvalid:
            continue
        break
    return ",".join(table.column_names) + "\n" + sink.getvalue().to_pybytes().decode().rstrip("\n")


def _summary_text(result: EvaluationSummary, style: str, conventions: str) -> str:
    if style in _PER_QUERY_FORMATS:
        return _per_query_text(result, style)
    if style == "json":
        return json.dumps(result.summary_dict(), indent=2)
    records = result.summary_records()
    if style == "csv":
        header = ",".join(records[0]) if records else "metric,mean,undefined"
        return "\n".join([header, *(",".join(_csv_cell(value) for value in record.values()) for record in records)])
    counts = result.query_counts
    lines = [
        f"run: {result.run}",
        conventions,
        f"queries: {counts['evaluated']} evaluated ({counts['both']} judged and retrieved, "
        f"{counts['judged_only']} judged only, {counts['retrieved_only']} retrieved only)",
        *_aligned_table(records),
    ]
    if result.passed is not None:
        lines.append(f"verdict: {'PASS' if result.passed else 'FAIL'}")
    return "\n".join(lines)


def _aligned_table(records: list[dict[str, Any]]) -> list[str]:
    """The summary laid out as pandas prints it (``to_string``, floats to 4 places), without loading pandas.

    The index column (metric) is left-aligned under a line of its own; every other column is
    right-aligned to its widest cell, two spaces apart (one after the index).
    """
    if not records:
        return []
    columns = [column for column in records[0] if column != "metric"]
    cells = [[_text_cell(record[column]) for column in columns] for record in records]
    names = [record["metric"] for record in records]
    index_width = max(len("metric"), *map(len, names))
    widths = [max(len(column), *(len(row[j]) for row in cells)) for j, column in enumerate(columns)]
    def line(first: str, row: list[str]) -> str:
        return first.ljust(index_width) + " " + "  ".join(f"{cell:>{width}}" for cell, width in zip(row, widths))

    header = line("", columns)
    return [header, "metric".ljust(len(header)), *(line(name, row) for name, row in zip(names, cells))]


def _text_cell(value: Any) -> str:
    if value is None:
        return "<NA>"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def _csv_cell(value: Any) -> str:
    """As pandas writes a CSV cell: floats by repr, missing values empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def _metrics_listing(style: str) -> str:
    rows = [
        {
            "metric": d.display_name,
            "family": d.family,
            "higher_is_better": d.higher_is_better,
            "aliases": list(d.aliases),
            "definition": d.definition,
        }
        for d in REGISTRY
    ]
    if style == "json":
        return json.dumps(rows, indent=2)
    width = max(len(r["metric"]) for r in rows)
    return "\n".join(
        f"{r['metric']:<{width}}  {'higher' if r['higher_is_better'] else 'lower '} is better  {r['definition']}"
        + (f" Also written {', '.join(r['aliases'])}." if r["aliases"] else "")
        for r in rows
    )


def _trec_eval_listing(style: str) -> str:
    from .metrics.trec_eval_measures import listing

    rows = listing()
    if style == "json":
        return json.dumps(rows, indent=2)
    width = max(len(row["measure"]) for row in rows)

    def metrics(names: list[str]) -> str:
        return "-" if not names else names[0] + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")

    return "\n".join(
        f"{row['measure']:<{width}}  {('.' + ','.join(row['defaults'])) if row['defaults'] else '':<44}  "
        f"{metrics(row['metrics']):<40}  {' '.join(row['nicknames'])}".rstrip()
        for row in rows
    )


if __name__ == "__main__":
    sys.exit(main())
