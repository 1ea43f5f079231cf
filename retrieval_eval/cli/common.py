"""What every subcommand of the command line shares: exit codes, the rule of flags given once,
the guard of output paths, printing, usage errors and the progress line."""

from __future__ import annotations

import argparse
import glob
import os
import re
import signal
import sys
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from ..metrics.options import EvaluationOptions

_INT64_MAX = 2**63 - 1
_TOO_LARGE = _INT64_MAX + 1

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


def integer_from(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer from ``minimum`` to 2^63 - 1, the most the kernels index with (a count
    of documents or queries); anything else is a usage error naming the option."""

    def integer(text: str) -> int:
        digits = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", digits):
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
        # Past 19 digits the value is past 2^63 - 1 (and Python refuses to convert 4,300 digits or more).
        value = int(digits) if len(digits.lstrip("+-").lstrip("0")) <= 19 else _TOO_LARGE
        if not minimum <= value <= _INT64_MAX:
            shown = digits if len(digits) <= 40 else f"a number of {len(digits)} digits"
            raise argparse.ArgumentTypeError(f"expected an integer from {minimum} to 2^63 - 1, got {shown}")
        return value

    return integer


def usage(message: str) -> ConfigError:
    return ConfigError(message)


def emit(text: str) -> None:
    """Print to stdout; a reader that stops early (``| head``) is not an error."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # Python would report the broken pipe again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def progress_bar() -> Callable[..., None]:
    """A one-line progress display on stderr (only used when stderr is a terminal): ``[done/total] name``.

    It takes a sweep's ``phase`` too (:mod:`retrieval_eval.sweep.progress`), so that a sweep shows
    each phase of its statistics on a line of its own, the name saying what is computed.
    """

    def show(done: int, total: int, name: str, phase: str = "runs") -> None:
        print(f"\r[{done}/{total}] {name[:60]:<60}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show
