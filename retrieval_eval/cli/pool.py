"""``retrieval-eval pool`` (the unjudged documents in the top of several runs) and ``retrieval-eval qrels merge``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..policies import DUPLICATE_POLICIES, MERGE_POLICIES, POOL_TIES
from ..views import count_text, counted, terminal_text
from .common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    GivenOnce,
    add_column_flags,
    add_progress_flags,
    check_outputs,
    column_pairs,
    emit,
    integer_from,
    qrels_input,
    run_input,
)

_SHOWN_CONFLICTS = 5

_POOL_EXAMPLES = """\
examples:
  retrieval-eval pool bm25.trec dense.trec hybrid.trec --depth 20 -o pool.tsv
  retrieval-eval pool bm25.trec dense.trec --depth 100 --qrels qrels.trec -o pool.parquet

The pool: every document in the top K of any run (each run ranked as trec_eval ranks it: score descending,
ties by doc id descending), minus the documents the qrels already judge (any label, 0 too); one row per
query and document: query_id, doc_id, runs (the runs that put it in their top K, in the order given; comma-
joined in .tsv/.csv), best_rank, n_runs. Rows by query id, then doc id, as strings. Output by extension:
.tsv, .csv, .jsonl, .json, .parquet; written whole or not at all. In .tsv and .csv, made to be opened in a
spreadsheet, a cell starting with =, +, -, @, a tab or a carriage return (which a spreadsheet would run as a
formula) is written with a leading ' (shown as text, the quote hidden); --no-formula-guard writes it as it is.
"""

_MERGE_EXAMPLES = """\
examples:
  retrieval-eval qrels merge qrels.trec judged_pool.tsv -o qrels_v2.trec
  retrieval-eval qrels merge qrels.trec rejudged.trec -o qrels_v2.trec --duplicates new --conflicts conflicts.tsv

A query and document judged in both files with different labels is a conflict. --duplicates raise (the
default) writes no output: it prints the number of conflicts and the first few (and writes them all with
--conflicts) and exits 2. new: the new label wins; old: the old label stays; max: the higher label.
The same label in both is no conflict. Output: a table by extension (.tsv, .csv, .jsonl, .json, .parquet:
query_id, doc_id, relevance), TREC qrels text ("query_id 0 doc_id relevance") under any other name.
"""


def add_pool_commands(commands: Any) -> None:
    """The ``pool`` subcommand and ``qrels merge``."""
    pooling = commands.add_parser(
        "pool", help="the unjudged documents in the top K of several runs, to be judged",
        description="Pool runs for judging: the documents in the top --depth of any run, minus those already judged.",
        epilog=_POOL_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pooling.register("action", None, GivenOnce)
    pooling.add_argument("runs", nargs="+", metavar="RUN", help="runs (TREC, .tsv, .jsonl, .parquet...); named by their path")
    pooling.add_argument("--depth", "-k", type=integer_from(1), required=True, help="pool the ranks 1..K of each run")
    pooling.add_argument("--qrels", help="judgments already made: their documents are left out")
    pooling.add_argument("-o", "--output", required=True, help="the pool (.tsv, .csv, .jsonl, .json, .parquet)")
    pooling.add_argument("--ties", choices=POOL_TIES, default="docid",
                         help="order of equal scores: docid (trec_eval's, default) or input (the run's order)")
    pooling.add_argument("--run-duplicates", choices=DUPLICATE_POLICIES, default="raise",
                         help="a document repeated in a run's query: raise (default, as trec_eval) or which score ranks it")
    pooling.add_argument("--formula-guard", action=argparse.BooleanOptionalAction, default=True,
                         help="in .tsv/.csv, a leading ' before a cell a spreadsheet would run as a formula (default: on)")
    add_progress_flags(pooling)
    add_column_flags(pooling)
    pooling.add_argument("--debug", action="store_true", help="show tracebacks")

    qrels = commands.add_parser("qrels", help="work on judgment files (merge)",
                                description="Work on judgment files.")
    actions = qrels.add_subparsers(dest="qrels_command", required=True)
    merge = actions.add_parser(
        "merge", help="merge new judgments into a qrels file", description="Merge the judgments of NEW into OLD.",
        epilog=_MERGE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    merge.register("action", None, GivenOnce)
    merge.add_argument("old", metavar="OLD", help="the qrels so far")
    merge.add_argument("new", metavar="NEW", help="the new judgments (TREC qrels or a table with query_id, doc_id, relevance)")
    merge.add_argument("-o", "--output", required=True, help="the merged qrels")
    merge.add_argument("--duplicates", choices=MERGE_POLICIES, default="raise",
                       help="a pair judged differently in both: raise (default: no output, exit 2), new, old or max")
    merge.add_argument("--conflicts", metavar="FILE", help="write every conflict (query_id, doc_id, old_label, new_label) "
                       "to FILE (.tsv, .csv, .jsonl, .json, .parquet)")
    add_progress_flags(merge)
    add_column_flags(merge, runs=False)
    merge.add_argument("--debug", action="store_true", help="show tracebacks")


def pool_command(args: argparse.Namespace) -> int:
    from ..metrics.options import EvaluationOptions
    from ..pooling import pool_table, write_pool

    check_outputs({"-o": args.output}, [*args.runs, args.qrels])
    options = EvaluationOptions(ties=args.ties, run_duplicates=args.run_duplicates)
    runs = [run_input(args, path) for path in args.runs]
    pooled = pool_table(runs, args.depth, qrels=qrels_input(args, args.qrels), options=options)
    guarded = write_pool(pooled, args.output, inputs=[path for path in [*args.runs, args.qrels] if path],
                         for_spreadsheets=args.formula_guard)
    if guarded:
        print(f"retrieval-eval: {guarded} cell(s) of {args.output} start with =, +, -, @, a tab or a carriage return: "
              "written with a leading ' so that a spreadsheet shows them as text (--no-formula-guard: as they are)",
              file=sys.stderr)
    import pyarrow.compute as pc

    queries = pc.count_distinct(pooled["query_id"]).as_py()
    emit(terminal_text(f"pooled {counted(pooled.num_rows, 'document')} of {counted(queries, 'query', 'queries')} from "
                       f"{counted(len(args.runs), 'run')} at depth {count_text(args.depth)}: {args.output}"))
    return EXIT_OK


def qrels_command(args: argparse.Namespace) -> int:
    from ..io import write_table
    from ..pooling import MergeConflicts, merge_qrels, write_qrels

    inputs = [args.old, args.new]
    check_outputs({"-o": args.output, "--conflicts": args.conflicts}, inputs)
    try:
        merged, conflicts = merge_qrels(args.old, args.new, duplicates=args.duplicates,
                                        columns=column_pairs(args.qrels_column, "--qrels-column"))
    except MergeConflicts as raised:
        conflicts = raised.conflicts
        if args.conflicts:
            write_table(conflicts, args.conflicts, inputs=inputs, for_spreadsheets=True)
        _report(conflicts, "not merged (--duplicates raise); choose --duplicates new, old or max", args.conflicts)
        return EXIT_BAD_INPUT
    write_qrels(merged, args.output, inputs=inputs)
    if args.conflicts:
        write_table(conflicts, args.conflicts, inputs=inputs, for_spreadsheets=True)
    if len(conflicts):
        _report(conflicts, f"settled by --duplicates {args.duplicates}", args.conflicts)
    emit(terminal_text(f"merged {counted(len(merged), 'judgment')}: {args.output}"))
    return EXIT_OK


def _report(conflicts: Any, outcome: str, path: str | None) -> None:
    """The number of conflicts and the first few, on stderr, every id escaped (a terminal acts on none of them)."""
    lines = [f"retrieval-eval: {counted(len(conflicts), 'conflicting judgment')}, {outcome}"
             + (f"; all of them in {path}" if path else "")]
    for row in conflicts.head(_SHOWN_CONFLICTS).itertuples(index=False):
        lines.append(f"  query {row.query_id} doc {row.doc_id}: old {row.old_label}, new {row.new_label}")
    if len(conflicts) > _SHOWN_CONFLICTS:
        lines.append(f"  ... and {count_text(len(conflicts) - _SHOWN_CONFLICTS)} more")
    print("\n".join(map(terminal_text, lines)), file=sys.stderr)
