"""What every benchmark shares: the machine's description, interleaved repeats and their spread,
tables with targets.

Only the standard library: benchmarks import this in child processes whose import time and
memory they measure.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.provenance import commit, version

BASE_DISTRIBUTIONS = ("numpy", "numba", "pandas", "pyarrow")


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                platform.processor())


def load_average() -> float:
    """The 1-minute load average: how busy the shared machine was."""
    return os.getloadavg()[0]


def machine(*distributions: str) -> dict[str, Any]:
    """CPUs, Python, the versions of numpy, numba, pandas, pyarrow and ``distributions`` (None when
    not installed), the checkout's commit and the load average."""
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "versions": {name: version(name) for name in (*BASE_DISTRIBUTIONS, *distributions)},
        "commit": commit(),
        "load_average": load_average(),
    }


def describe_machine(host: Mapping[str, Any]) -> str:
    """One line for a report's header."""
    versions = ", ".join(f"{name} {found or 'not installed'}" for name, found in host["versions"].items())
    return (f"{host['cpus']} CPUs ({host['cpu_model']}); Python {host['python']}, {versions}; "
            f"commit {host['commit']}; load average {host['load_average']:.2f}")


@dataclass(frozen=True)
class Spread:
    """Repeated measurements of one quantity (seconds or a ratio): the median and the extremes."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def max(self) -> float:
        return max(self.values)

    def to_dict(self) -> dict[str, Any]:
        return {"median": self.median, "min": self.min, "max": self.max, "values": list(self.values)}


def timed(call: Callable[[], object]) -> Callable[[], float]:
    """A contender for :func:`interleave`: runs ``call`` and returns the wall seconds it took."""

    def run() -> float:
        start = time.perf_counter()
        call()
        return time.perf_counter() - start

    return run


def interleave(contenders: Mapping[str, Callable[[], float]], rounds: int,
               on_round: Callable[[int], None] | None = None) -> dict[str, list[float]]:
    """Run each contender once per round, ``rounds`` times; each call returns the seconds it measured.

    The order within a round rotates, so no contender always runs first (after a pause) or right
    after a particular other one: on a shared machine, a burst of load then spreads over all of
    them, and the per-round ratios of two contenders compare runs made seconds apart.
    """
    names = list(contenders)
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        shift = index % len(names) if names else 0
        for name in names[shift:] + names[:shift]:
            times[name].append(contenders[name]())
        if on_round is not None:
            on_round(index)
    return times


def ratios(numerator: Sequence[float], denominator: Sequence[float]) -> Spread:
    """Round-by-round ratios of two interleaved series."""
    return Spread(tuple(a / b for a, b in zip(numerator, denominator)))


def verdict(met: bool | None) -> str:
    return "n/a" if met is None else ("MET" if met else "MISSED")


def print_table(rows: Sequence[Sequence[str]], *, title: str | None = None) -> None:
    """A markdown table, aligned for the terminal: the first column left, the others right."""
    if title:
        print(f"\n{title}\n")
    print(markdown_table(rows))


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(cells: Sequence[str]) -> str:
        padded = (cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths)))
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|"
    return "\n".join([line(rows[0]), rule, *(line(row) for row in rows[1:])])
