"""``retrieval-eval metrics`` (the registry's metrics, or trec_eval's measures) and ``retrieval-eval compile``."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from ..metrics.registry import REGISTRY
from ..views import Column, counted, fitted_table, terminal_width, wrap
from .common import EXIT_OK, add_progress_flags, emit, progress_bar, usage

_NAME_AT_MOST = 24  # a longer metric name puts its definition on the lines below
_DEFINITION_AT_LEAST = 36  # the narrowest column of definitions beside the names


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else all of them)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

def add_catalog_commands(commands: Any) -> None:
    """The ``metrics`` and ``compile`` subcommands."""
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
    compiling.add_argument("-j", "--jobs", type=int, default=available_cores(), metavar="N",
                           help="compile in N processes at once (default: the cores this process may use)")
    add_progress_flags(compiling)
    compiling.add_argument("--debug", action="store_true", help="show tracebacks")


def compile_command(args: argparse.Namespace) -> int:
    from ..kernels import compile_all

    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        raise usage("NUMBA_DISABLE_JIT is set: there is nothing to compile")
    if args.jobs < 1:
        raise usage(f"--jobs must be an integer >= 1, got {args.jobs}")
    start = time.perf_counter()
    timings = compile_all(progress=progress_bar("kernel builds", "compiling"), jobs=args.jobs)
    wall = time.perf_counter() - start
    emit(f"compiled {len(timings)} kernel builds in {wall:.1f} s, {sum(timings.values()):.1f} s of builds in "
         f"{counted(args.jobs, 'process', 'processes')} (loaded from numba's cache where found)")
    return EXIT_OK


def metrics_listing(style: str, width: int | None = None) -> str:
    """Every metric of the registry: as JSON records, or as text under the heading of its family, each
    with its direction and its definition wrapped to ``width`` (default: the terminal's)."""
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
    from ..metrics.families import FAMILIES

    width = terminal_width() if width is None else width
    lines: list[str] = []
    for family in dict.fromkeys(row["family"] for row in rows):  # in the registry's order
        members = [row for row in rows if row["family"] == family]
        heading = f"{family}: {FAMILIES[family].title} ({counted(len(members), 'metric')})"
        lines += ([""] if lines else []) + wrap(heading, width)
        # Beside the names when that leaves the definitions room (they start in one column, after the longest
        # name of at most _NAME_AT_MOST), else below each name.
        name_width = min(_NAME_AT_MOST, max(len(row["metric"]) for row in members))
        beside = 2 + name_width + 2 + len("higher is better") + 2 + _DEFINITION_AT_LEAST <= width
        for row in members:
            direction = "higher is better" if row["higher_is_better"] else "lower is better"
            text = row["definition"] + (f" Also written {', '.join(row['aliases'])}." if row["aliases"] else "")
            if beside and len(row["metric"]) <= name_width:
                lead = f"  {row['metric']:<{name_width}}  {direction:<16}  "
            else:
                lines += wrap(f"  {row['metric']}  {direction}", width, indent="    ")
                lead = " " * (2 + name_width + 2 + 16 + 2) if beside else "      "
            lines += wrap(lead + text, width, indent=" " * len(lead))
    return "\n".join(lines)


def trec_eval_listing(style: str, width: int | None = None) -> str:
    """trec_eval's measures: as JSON records, or as a table fitted to ``width`` (default: the terminal's)."""
    from ..metrics.spellings.trec_eval import listing

    rows = listing()
    if style == "json":
        return json.dumps(rows, indent=2)

    def metrics(names: list[str]) -> str:
        return "-" if not names else names[0] + (f" (+{len(names) - 1} more)" if len(names) > 1 else "")

    columns = [
        Column("measure", [row["measure"] for row in rows]),
        Column("defaults", [("." + ",".join(row["defaults"])) if row["defaults"] else "" for row in rows]),
        Column("metric", [metrics(row["metrics"]) for row in rows]),
        Column("nicknames", [" ".join(row["nicknames"]) for row in rows]),
    ]
    width = terminal_width() if width is None else width
    return "\n".join(fitted_table(columns, width, where="--format json has them"))
