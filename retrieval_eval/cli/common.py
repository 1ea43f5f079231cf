"""What every subcommand of the command line shares: exit codes, the rule of flags given once,
the guard of output paths, printing, usage errors and the progress line."""

from __future__ import annotations

import argparse
import glob
import math
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from .. import progress
from ..constraints import MAX_INTEGER, integer_text
from ..errors import ConfigError
from ..metrics.options import EvaluationOptions
from ..views import terminal_text

EXIT_OK, EXIT_THRESHOLD_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_NOTHING_CHECKED = 3  # `check`: no evaluator ran on any item, which a gate must not take for a pass
#: 128 + the signal's number, as a shell reports a command that a signal ended.
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


DEFAULT_K = EvaluationOptions.default("k")


class GivenOnce(argparse.Action):
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


def check_outputs(outputs: dict[str, str | None], inputs: list[str | None]) -> None:
    """Refuse, before any work, an output that is, holds or is inside an input (a glob's files among
    them) or another output (see :mod:`retrieval_eval.io.output_paths`), and standard input named twice."""
    from ..io.output_paths import check_output_paths

    stdin = [item for item in inputs if item in ("-", "/dev/stdin")]
    if len(stdin) > 1:
        # Standard input is read once and kept: a second input would be the same bytes again.
        raise usage(f"standard input can be only one of the inputs, given {len(stdin)} times ({', '.join(stdin)})")
    matched = [match for item in inputs if item is not None and is_glob(item) for match in glob.glob(item, recursive=True)]
    check_output_paths(outputs, [*inputs, *matched])


def is_glob(path: str) -> bool:
    return any(character in path for character in "*?[") and not os.path.exists(path)


def checked_type(parse: Callable[[str], Any], accept: Callable[[Any], bool], what: str) -> Callable[[str], Any]:
    """An argparse type: ``parse(text)``, refused with "expected <what>" unless ``accept`` holds."""

    def convert(text: str) -> Any:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return convert


def integer_from(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``minimum`` to 2^63 - 1, the most the kernels index with (a count
    of documents or queries); anything else is a usage error naming the option."""

    def integer(text: str) -> int:
        digits = text.strip()
        value = integer_text(digits) if digits.isascii() else None  # the flags take ASCII digits only
        if value is None:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
        if not minimum <= value <= MAX_INTEGER:
            shown = digits if len(digits) <= 40 else f"a number of {len(digits)} digits"
            raise argparse.ArgumentTypeError(f"expected an integer from {minimum} to 2^63 - 1, got {shown}")
        return value

    return integer


def add_column_flags(parser: argparse.ArgumentParser, *, qrels: bool = True, runs: bool = True) -> None:
    """``--qrels-column`` and ``--run-column``, the same in every subcommand that reads qrels or runs:
    which column of a table is which canonical one, where the default names do not find it."""
    if qrels:
        parser.add_argument("--qrels-column", action="append", default=[], metavar="CANONICAL=NAME",
                            help="which column of the qrels tables is query_id, doc_id or relevance, repeatable "
                            "(when the default names do not find it)")
    if runs:
        parser.add_argument("--run-column", action="append", default=[], metavar="CANONICAL=NAME",
                            help="which column of the run tables is query_id, doc_id or score, repeatable")


def column_pairs(items: list[str], option: str) -> dict[str, str] | None:
    """The ``CANONICAL=NAME`` pairs of ``option`` (``--qrels-column``...), or None when none is given."""
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise usage(f"{option} takes CANONICAL=NAME (e.g. query_id=topic), got {item!r}")
        if key.strip() in pairs:
            raise usage(f"{option} names {key.strip()} twice ({key.strip()}={pairs[key.strip()]}, {item.strip()}): give it once")
        pairs[key.strip()] = value.strip()
    return pairs or None


def qrels_input(args: argparse.Namespace, path: str | None) -> Any:
    """The qrels at ``path`` read with ``--qrels-column`` when it is given (judgment layout and duplicate
    policy left to the reader's caller), else the path itself for the library to read."""
    columns = column_pairs(args.qrels_column, "--qrels-column")
    if columns is None or path is None:
        return path
    from ..data.qrels import Qrels

    return Qrels.read(path, columns=columns)


def run_input(args: argparse.Namespace, path: str) -> Any:
    """The run at ``path`` read with ``--run-column`` when it is given (named by its path, as the
    library names a run it reads), else the path itself."""
    columns = column_pairs(args.run_column, "--run-column")
    if columns is None:
        return path
    from ..data.run import Run

    return Run.read(path, columns=columns)


def usage(message: str) -> ConfigError:
    return ConfigError(message)


def metric_values(items: list[str], flag: str, *, names: tuple[str, ...] | None = None) -> list[tuple[str, float]]:
    """``(metric, number)`` pairs of ``METRIC=NUMBER`` arguments in the order given (``--threshold``, ``--min``).

    The number must be finite; ``names``, when given, are the only metrics allowed. A repeated
    metric is the caller's to refuse (the threshold resolver names both spellings).
    """
    allowed = f" with METRIC one of {', '.join(names)}" if names else ""
    pairs: list[tuple[str, float]] = []
    for item in items:
        name, sep, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not name.strip() or (names and name.strip() not in names) or not math.isfinite(number):
            raise usage(f"{flag} takes METRIC=NUMBER{allowed}, got {item!r}")
        pairs.append((name.strip(), number))
    return pairs


def emit(text: str) -> None:
    """Print to stdout; a reader that stops early (``| head``) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # Python would report the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def add_progress_flags(parser: argparse.ArgumentParser) -> None:
    """``--progress`` and ``--quiet``: whether the phases of long work print lines on stderr (:mod:`retrieval_eval.progress`)."""
    lines = parser.add_mutually_exclusive_group()
    lines.add_argument("--progress", dest="progress_lines", action="store_const", const=True,
                       help="print progress lines on stderr even when it is not a terminal (default: only on a terminal)")
    lines.add_argument("--quiet", dest="progress_lines", action="store_const", const=False,
                       help="print no progress lines (errors and warnings still go to stderr)")


def add_risk_flags(parser: argparse.ArgumentParser) -> None:
    """``-baseline`` and ``-riskAlpha``, spelled as gdeval.pl and ndeval spell them: URisk against a baseline run,
    v - b, or (1 + alpha)(v - b) where v < b."""
    parser.add_argument("-baseline", metavar="BASELINE", help="a baseline run: print URisk against it")
    parser.add_argument("-riskAlpha", dest="risk_alpha", default="0", metavar="A", help="URisk's alpha (default 0)")


def emit_text(text: str) -> None:
    """Print text for people (never a machine format) with every line escaped (:func:`~retrieval_eval.views.terminal_text`):
    for a writer whose cells pandas' ``to_string`` lays out, which prints an id's control characters raw."""
    emit("\n".join(map(terminal_text, text.split("\n"))))


def progress_wanted(args: argparse.Namespace) -> bool:
    """``--progress`` or ``--quiet`` if given, else whether stderr is a terminal (as a command without the flags)."""
    chosen = getattr(args, "progress_lines", None)
    return progress.stderr_is_terminal() if chosen is None else chosen


def progress_bar(unit: str, what: str = "scoring") -> Callable[..., None] | None:
    """A ``progress(done, total, name, phase=...)`` callback that shows each phase as a counter line on stderr
    (:class:`PhaseLines`), or None when progress lines are off (:func:`retrieval_eval.progress.shown`)."""
    return PhaseLines(unit, what) if progress.enabled() else None


class PhaseLines:
    """The calls of a ``progress(done, total, name, phase=...)`` callback as phases of :mod:`retrieval_eval.progress`.

    The first phase (a sweep's ``"runs"``, or a callback without phases) counts ``unit`` under
    ``what`` (``scoring: 12/40 configurations``); each other phase of a sweep
    (:mod:`retrieval_eval.sweep.progress`) is named by what it computes, with its sizes. A phase
    starts when the call before it came, and prints only past the progress module's delay.
    """

    def __init__(self, unit: str, what: str) -> None:
        self.unit, self.what = unit, what
        self._key: tuple | None = None
        self._phase: progress.Phase | None = None
        self._since = time.monotonic()

    def __call__(self, done: int, total: int, name: str, phase: str = "runs") -> None:
        key = (phase, total) if phase == "runs" else (phase, total, name)
        if key != self._key:
            self._end()
            first = phase == "runs"
            self._key = key
            self._phase = progress.phase(self.what if first else name, total=total, unit=self.unit if first else "",
                                         started=self._since, done=done)  # fmt: skip
        self._phase.step(done)
        self._since = time.monotonic()
        if done == total:
            self._end()

    def _end(self) -> None:
        if self._phase is not None:
            self._phase.close()
        self._key = self._phase = None
