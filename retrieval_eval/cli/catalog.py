"""``retrieval-eval metrics`` (the registry's metrics, or trec_eval's measures) and ``retrieval-eval compile``."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from ..metrics.registry import REGISTRY
from .common import EXIT_OK, add_progress_flags, emit, progress_bar, usage

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
    add_progress_flags(compiling)
    compiling.add_argument("--debug", action="store_true", help="show tracebacks")


def compile_command(args: argparse.Namespace) -> int:
    from ..kernels import compile_all

    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        raise usage("NUMBA_DISABLE_JIT is set: there is nothing to compile")
    timings = compile_all(progress=progress_bar("kernel builds", "compiling"))
    emit(f"compiled {len(timings)} kernel builds in {sum(timings.values()):.1f} s (loaded from numba's cache where found)")
    return EXIT_OK


def metrics_listing(style: str) -> str:
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


def trec_eval_listing(style: str) -> str:
    from ..metrics.trec_eval_measures import listing

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
