"""The flags of the evaluation options that ``evaluate`` and ``sweep`` share, defined once.

Each flag's destination is the name of the :class:`~retrieval_eval.metrics.options.EvaluationOptions`
field it sets, so that :func:`shared_options` reads them back by name; a flag means the same in
both commands because it is the same definition.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..metrics.options import EvaluationOptions
from ..policies import DUPLICATE_POLICIES, QUERY_SETS

#: The options the flags of :func:`add_shared_option_flags` set (destinations and field names).
SHARED_OPTIONS = ("label_min", "label_max", "rel_level", "max_docs", "query_set", "run_duplicates")


def option_default(option: str) -> Any:
    """The default of an option of EvaluationOptions, as a flag's default."""
    return EvaluationOptions.default(option)


def add_shared_option_flags(parser: argparse.ArgumentParser) -> None:
    """``--label-min``, ``--label-max``, ``-l/--rel-level``, ``-M/--max-docs``, ``--query-set`` or ``-c``
    (one or the other) and ``--run-duplicates``, as trec_eval and azure-ai-evaluation mean them."""
    parser.add_argument("--label-min", type=int, default=option_default("label_min"),
                        help="lowest label, the irrelevant grade (default %(default)s)")
    parser.add_argument("--label-max", type=int, default=option_default("label_max"), help="highest label (default %(default)s)")
    parser.add_argument("-l", "--rel-level", type=int, default=option_default("rel_level"),
                        help="TREC measures: a label >= this is relevant (trec_eval -l; default %(default)s)")
    parser.add_argument("-M", "--max-docs", type=int,
                        help="TREC measures: evaluate only the top N documents of each query (trec_eval -M)")
    queries = parser.add_mutually_exclusive_group()
    queries.add_argument("--query-set", choices=QUERY_SETS,
                         help="queries evaluated: the judged ones, those in both, or all (default: both with a "
                         "TREC measure, as trec_eval; qrels otherwise, as Azure)")
    queries.add_argument("-c", dest="query_set", action="store_const", const="qrels",
                         help="score judged queries missing from the run as 0 (trec_eval -c; --query-set qrels)")
    parser.add_argument("--run-duplicates", choices=DUPLICATE_POLICIES,
                        help="score kept for a document retrieved twice (default: raise with a TREC measure, "
                        "as trec_eval; last otherwise, as Azure)")


def shared_options(args: argparse.Namespace) -> dict[str, Any]:
    """The values of the shared flags, by option name (the keyword arguments of EvaluationOptions)."""
    return {name: getattr(args, name) for name in SHARED_OPTIONS}
