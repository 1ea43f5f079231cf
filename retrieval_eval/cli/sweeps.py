"""``retrieval-eval sweep`` (rank configurations, or the fused runs of a fusion grid) and ``retrieval-eval fuse``."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..metrics.options import EvaluationOptions
from ..policies import DUPLICATE_POLICIES, QUERY_POLICIES, TIE_ORDERS
from ..sweep.settings import CORRECTION_METHODS, CORRECTIONS, PERMUTATIONS, POWER, SPLITS, STATISTICS, TEST_METHODS, TESTS
from ..views import counted, terminal_text, terminal_width
from .common import (
    DEFAULT_K,
    EXIT_OK,
    GivenOnce,
    add_column_flags,
    add_progress_flags,
    check_outputs,
    emit,
    integer_from,
    progress_bar,
    qrels_input,
    run_input,
    usage,
)
from .option_flags import add_shared_option_flags, shared_options

if TYPE_CHECKING:
    from ..judging.ranking_agreement import RankingAgreement
    from ..sweep import SweepResult

_SWEEP_EXAMPLES = """\
examples:
  retrieval-eval sweep qrels.trec runs/*.trec -m ndcg@10 -m recall@100 --param-pattern 'k(?P<top_k>\\d+)'
  retrieval-eval sweep qrels.trec runs/*.trec --objective ndcg@10 --cost latency_ms -o leaderboard.parquet
  retrieval-eval sweep qrels.trec runs/*.trec --all-pairs --wide     # every pair compared, every column printed
"""


def add_sweep_command(commands: Any) -> None:
    """The ``sweep`` subcommand and its flags (those of a fusion grid included)."""
    ranking = commands.add_parser(
        "sweep",
        help="rank configurations: many runs of the same queries against one qrels",
        description="Rank configurations by a metric's mean, with bootstrap confidence intervals and paired "
        "tests against the best (t-test and randomization test, Holm-adjusted; --test and --correction choose "
        "others), the marginal effect of each "
        "parameter, and the Pareto front against cost columns.",
        epilog=_SWEEP_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ranking.register("action", None, GivenOnce)
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
    ranking.add_argument("-k", type=int, default=DEFAULT_K, help=f"cutoff for metrics named without @k (default {DEFAULT_K})")
    add_shared_option_flags(ranking)  # --label-min, --label-max, -l, -M, --query-set/-c, --run-duplicates, as evaluate's
    ranking.add_argument("--query-policy", choices=QUERY_POLICIES, default=QUERY_POLICIES[0],
                         help="queries compared: those every run has, or all with 0 where a run has none")
    for setting in STATISTICS:
        # The text goes to the API's own check, so that a bad value reads as it would from Python.
        ranking.add_argument(f"--{setting.name}", type=setting.from_text, metavar=setting.name.upper(),
                             help=setting.flag_help)
    # Names, not argparse choices: the API's check gives the one-line message (with a close match) Python gives.
    ranking.add_argument("--test", metavar="{" + ",".join(TESTS) + "}",
                         help=f"the paired test that decides tied_with_best and the pairs' significant, its p-values beside "
                         f"the t-test's (default {TESTS[0]}): " + "; ".join(f"{name}: {method.caveat}"
                                                                             for name, method in TEST_METHODS.items()))
    ranking.add_argument("--correction", metavar="{" + ",".join(CORRECTIONS) + "}",
                         help=f"the correction of the p-values for the many comparisons (default {CORRECTIONS[0]}): "
                         + "; ".join(f"{name}: {method.caveat}" for name, method in CORRECTION_METHODS.items()))
    ranking.add_argument("-o", "--output", help="the leaderboard table (.parquet, .csv, .tsv, .json, .jsonl)")
    ranking.add_argument("--report", metavar="REPORT.html",
                         help="a self-contained HTML report (plots need the 'plots' extra: matplotlib)")
    ranking.add_argument("--agreement-qrels", metavar="JUDGE_QRELS",
                         help="with --report: rank the runs under these labels too (a judge's) and add the agreement of "
                         "the two rankings (tau, tau_AP, RBO, swapped pairs, flipped significant differences)")
    ranking.add_argument("--format", choices=("table", "json"), default="table",
                         help="what to print on stdout: the leaderboard fitted to the terminal ($COLUMNS) with the "
                         "best against the runner-up, or all of it as one JSON object")
    ranking.add_argument("--wide", action="store_true", help="with --format table: every column of the leaderboard")
    ranking.add_argument("--all-pairs", action="store_true",
                         help="also compare every pair of configurations (corrected over all the pairs)")
    _add_significance_flags(ranking)
    add_progress_flags(ranking)
    add_column_flags(ranking)
    ranking.add_argument("--debug", action="store_true", help="show tracebacks")
    _add_fusion_grid_flags(ranking)


def sweep_command(args: argparse.Namespace) -> int:
    from ..report import write_report

    if args.wide and args.format != "table":
        raise usage("--wide goes with --format table (the JSON holds every column)")
    if args.agreement_qrels is not None and not args.report:
        raise usage("--agreement-qrels adds a section to the report: give --report REPORT.html too")
    if args.agreement_qrels is not None and (args.fuse or args.fusion_grid):
        raise usage("--agreement-qrels ranks run files; a fusion sweep's runs are made from its grid")
    compare_style = _compare_style(args.compare)
    if compare_style is not None or args.min_difference or any(
        getattr(args, name) is not None for name in ("permutations", "power", "splits", "topic_set_variance")
    ):
        args.significance = True
    if args.significance:
        from ..sweep.significance import check_settings

        settings = _significance_settings(args)
        check_settings({name: value for name, value in settings.items() if name != "progress"})
    result, runs = (_fusion_sweep(args), {}) if args.fuse or args.fusion_grid else _files_sweep(args)
    if args.significance:
        result = result.with_significance(**settings)
    if args.output:
        result.write(args.output)
    if args.report:
        write_report(result, args.report, agreement=_agreement(args, result, runs))
    if compare_style is not None:
        from ..io.atomic import atomic_write
        from ..report.compare_table import compare_table

        text = compare_table(result.significance, compare_style, width=10**6) + "\n"
        atomic_write(args.compare, lambda temp: Path(temp).write_text(text, encoding="utf-8"), inputs=result.sources)
    from ..report.sweep_text import sweep_json, sweep_text

    if args.format == "json":
        emit(sweep_json(result))
    else:
        text = sweep_text(result, wide=args.wide)
        if result.significance is not None:
            from ..report.significance import significance_text

            text = "\n".join([text, *significance_text(result.significance, terminal_width())])
        emit(text)
    return EXIT_OK


_COMPARE_STYLES = {".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".html": "html", ".htm": "html", ".txt": "text"}


def _compare_style(path: str | None) -> str | None:
    """The format of the --compare file from its extension (None without one)."""
    if path is None:
        return None
    style = _COMPARE_STYLES.get(os.path.splitext(path)[1].lower())
    if style is None:
        raise usage(f"--compare {path}: the table is written as .md, .tex, .html or .txt (from the extension)")
    return style


def _significance_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of the statistics for many configurations from the flags (the sweep's seed and resamples too)."""
    given = {name: getattr(args, name) for name in ("permutations", "power", "splits", "seed", "resamples", "topic_set_variance")
             if getattr(args, name) is not None}  # fmt: skip
    if args.min_difference:
        given["min_differences"] = args.min_difference
    return dict(given, progress=progress_bar("configurations"))


def _add_significance_flags(ranking: argparse.ArgumentParser) -> None:
    group = ranking.add_argument_group(
        "which differences are real",
        description="The statistics the IR literature recommends for many configurations: randomised Tukey HSD over "
        "every pair on every metric (the family-wise error over all pairs controlled), the two-way ANOVA with Sakai's "
        "effect size and the Tukey margin of error, t and bootstrap intervals on every pair's difference, power and "
        "topic-set sizes, and the metric that separates the configurations best; in the terminal, --format json and "
        "the --report page.",
    )
    group.add_argument("--significance", action="store_true", help="compute them (any flag of this group implies it)")
    group.add_argument("--permutations", type=PERMUTATIONS.from_text, metavar="N",
                       help=PERMUTATIONS.flag_help)
    group.add_argument("--power", type=POWER.from_text, metavar="P",
                       help=POWER.flag_help)
    group.add_argument("--min-difference", action="append", type=float, metavar="D",
                       help="a difference of the objective the topic-set sizes are given for, repeatable "
                       "(default 0.01, 0.02, 0.05, 0.1, and the best's lead over the runner-up)")
    group.add_argument("--topic-set-variance", metavar="ESTIMATE",
                       help="the variance the topic-set sizes are designed with: residual (V_E of the two-way ANOVA, the "
                       "paired comparisons' noise; default) or within-system (Sakai's, IRJ 2016: larger sizes)")
    group.add_argument("--splits", type=SPLITS.from_text, metavar="N",
                       help=SPLITS.flag_help)
    group.add_argument("--compare", metavar="FILE",
                       help="write the comparison table (each configuration's mean of every metric and the keys of "
                       "those it beats significantly) as .md, .tex, .html or .txt")


def _agreement(args: argparse.Namespace, result: SweepResult, runs: dict[str, Any]) -> RankingAgreement | None:
    """The swept runs ranked under --agreement-qrels too (the sweep's qrels as the human ones), by its objective."""
    if args.agreement_qrels is None:
        return None
    from ..judging.ranking_agreement import ranking_agreement

    board = result.leaderboard
    return ranking_agreement(qrels_input(args, args.qrels), qrels_input(args, args.agreement_qrels), runs, board.objective,
                             alpha=board.alpha, options=_options(args))  # fmt: skip


def _files_sweep(args: argparse.Namespace) -> tuple[SweepResult, dict[str, Any]]:
    """The sweep of run files, one configuration each, with the parameters of their names and sidecars,
    and the run files (read, with --run-column) by configuration name."""
    from ..sweep import runs_from_files, sweep
    from ..sweep.configurations import sidecar_candidates

    if args.top_k_in is not None or args.top_k_out is not None:
        raise usage("--top-k-in and --top-k-out cut the runs of a fusion sweep (--fuse or --fusion-grid)")
    sidecars = [str(path) for run in args.runs for path in sidecar_candidates(run)]  # read by runs_from_files: inputs too
    check_outputs({"-o": args.output, "--report": args.report, "--compare": args.compare},
                  [args.qrels, args.agreement_qrels, *args.runs, *sidecars])  # fmt: skip
    files, parameters = runs_from_files(args.runs, param_pattern=args.param_pattern, costs=args.cost)
    runs = {name: run_input(args, path) for name, path in files.items()}
    result = sweep(qrels_input(args, args.qrels), runs, args.metrics or ["ndcg@10"], parameters=parameters, costs=args.cost,
                   **_sweep_settings(args))
    return result, runs


def _sweep_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The leaderboard's settings from the flags, the same for a sweep of run files and a fusion sweep."""
    named = [setting.name for setting in STATISTICS] + ["test", "correction"]
    statistics = {name: getattr(args, name) for name in named if getattr(args, name) is not None}
    return dict(
        objective=args.objective,
        options=_options(args),
        query_policy=args.query_policy,
        **statistics,
        all_pairs=args.all_pairs,
        progress=progress_bar("configurations"),
    )


def _options(args: argparse.Namespace) -> EvaluationOptions:
    """Every run's evaluation options: -k, --ties and the flags shared with ``evaluate``."""
    return EvaluationOptions(k=args.k, ties=args.ties, **shared_options(args))


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
    group.add_argument("--top-k-in", type=integer_from(1), metavar="N", help="fuse each run's first N documents per query")
    group.add_argument("--top-k-out", type=integer_from(1), metavar="N", help="score each fused run's first N documents per query")
    ranking.add_argument("--ties", choices=TIE_ORDERS,
                         help="order of equal scores for every metric: descending doc id (trec_eval), input order "
                         "(Azure) or as ranx sorts a Run (ranx: a fusion sweep then scores as ranx.optimize_fusion); "
                         "default: each metric's reference")


def _fusion_sweep(args: argparse.Namespace) -> SweepResult:
    """The sweep of the fused runs of the grid of --fuse and --fusion-grid."""
    from ..sweep.fused import fusion_sweep
    from ..sweep.fusion_spec import parse_fusion_spec
    from ..sweep.grids import fusion_grid, read_fusion_grid

    if args.param_pattern is not None or args.cost:
        raise usage("--param-pattern and --cost read the parameters of run files; a fusion sweep's come from its grid")
    check_outputs({"-o": args.output, "--report": args.report, "--compare": args.compare},
                  [args.qrels, *args.runs, args.fusion_grid])  # fmt: skip
    entries = [parse_fusion_spec(text) for text in args.fuse]
    labels = [f"--fuse {text!r}" for text in args.fuse]
    if args.fusion_grid is not None:
        from_file = read_fusion_grid(args.fusion_grid)
        entries += from_file
        labels += [f"{args.fusion_grid}: entry {number}" for number in range(1, len(from_file) + 1)]
    names = _fused_run_names(args.runs)
    grid = fusion_grid(entries, names, labels=labels)  # every entry checked before any run is read
    runs = {name: run_input(args, path) for name, path in zip(names, args.runs)}
    return fusion_sweep(
        qrels_input(args, args.qrels), runs, grid, args.metrics or ["ndcg@10"],
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


# A number as a user types it (-1, -.5, -2e-3), and a comma list of them: argparse takes a word that
# starts with "-" for an option unless it matches its parser's (private) negative-number pattern,
# which knows "-1" and "-0.5" but not "-1,1" or "-1e-3"; this parser has no option that looks so.
_NUMBER = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NEGATIVE_NUMBERS = re.compile(rf"^-{_NUMBER}(?:,\s*[-+]?{_NUMBER})*$")


def add_fuse_command(commands: Any) -> None:
    fusing = commands.add_parser(
        "fuse",
        help="fuse two or more runs into one (RRF, weighted sum, CombMNZ, ...), as ranx.fuse",
        description="Fuse two or more runs into one run file, as ranx 0.3.21's fuse(runs, norm, method, params) "
        "does. The union of the runs' queries is fused; a run without a query adds nothing to it.",
        epilog=_FUSE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fusing.register("action", None, GivenOnce)
    fusing._negative_number_matcher = _NEGATIVE_NUMBERS  # --weights -1,1 is a value (comment above)
    fusing.add_argument("runs", nargs="+", metavar="RUN", help="run files (TREC, parquet, CSV/TSV, JSONL; .gz ok), two or more")
    fusing.add_argument("--method", required=True, help="the fusion method (see below)")
    fusing.add_argument("--norm", default="min-max",
                        help="normalization of each run's scores per query before fusing: min-max (default, as ranx), "
                        "max, sum, zmuv, rank, borda, min-max-inverted, or none")
    fusing.add_argument("--weights", metavar="W1,W2,...", help="one weight per run, in run order (wsum, wmnz, mixed, ...)")
    fusing.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter of the method, repeatable: k=60 (rrf), gamma=0.5 (gmnz), sigma=0.01 (logn_isr)")
    fusing.add_argument("--top-k-in", type=integer_from(1), metavar="N", help="fuse each run's first N documents per query")
    fusing.add_argument("--top-k-out", type=integer_from(1), metavar="N", help="keep the fused run's first N documents per query")
    fusing.add_argument("--qrels", help="judgments the trained methods (probfuse, segfuse, ...) estimate from")
    fusing.add_argument("--duplicates", choices=DUPLICATE_POLICIES, default="last",
                        help="a document repeated in a query of one run: its last score (default, as ranx reads a run), "
                        "its first, its highest, or an error")
    add_column_flags(fusing)
    fusing.add_argument("--tag", help="the run tag of a TREC output (its sixth field; default: the method)")
    fusing.add_argument("-o", "--output", required=True,
                        help="the fused run: .trec, .run or .txt as TREC text, or .parquet, .csv, .tsv, .json, .jsonl")
    add_progress_flags(fusing)
    fusing.add_argument("--debug", action="store_true", help="show tracebacks")


def fuse_command(args: argparse.Namespace) -> int:
    from ..fusion import fuse
    from ..io.run_files import write_run
    from ..sweep.fusion_spec import parameter_value

    inputs = [*args.runs, args.qrels]
    check_outputs({"-o": args.output}, inputs)
    params: dict[str, Any] = {}
    for item in args.param:
        name, equals, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name or not value:
            raise usage(f"--param takes NAME=VALUE (e.g. k=60), got {item!r}")
        if name in params or (name == "weights" and args.weights is not None):
            raise usage(f"--param {item}: the parameter {name} is given twice" + (" (and --weights)" if name == "weights" else ""))
        params[name] = parameter_value(value)
    if args.weights is not None:
        weights = [parameter_value(weight.strip()) for weight in args.weights.split(",")]
        if not all(isinstance(weight, (int, float)) for weight in weights):
            raise usage(f"--weights takes one number per run, separated by commas (e.g. 0.3,0.7), got {args.weights!r}")
        params["weights"] = weights
    runs = [run_input(args, path) for path in args.runs]
    run = fuse(runs, args.method, norm=args.norm, params=params, top_k_in=args.top_k_in, top_k_out=args.top_k_out,
               qrels=qrels_input(args, args.qrels), duplicates=args.duplicates)  # fmt: skip
    write_run(run.table, args.output, tag=args.tag if args.tag is not None else run.name, inputs=inputs)
    emit(terminal_text(f"fused {counted(len(args.runs), 'run')} with {run.name}: {counted(run.n_queries, 'query', 'queries')}, "
                       f"{counted(len(run), 'document')} -> {args.output}"))
    return EXIT_OK
