"""The ``retrieval-eval`` command: a thin shell over the Python API.

Exit codes: 0 ran (and every threshold passed), 1 ran and a threshold failed, 2 bad usage or input,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM); interrupted or terminated, a command removes
what it had begun to write (temporary files, buckets, staging) and prints one line. The outputs of a
command are published together (:func:`~retrieval_eval.io.publication.published_together`): all of
them, when the command ends without an error, or none (an output that cannot be written is one line
naming its path and the reason, exit 2, and no other output of the command is written either).
``check`` exits 3 when nothing was checked (no evaluator ran on any item).
Progress lines go to stderr while a command runs (:mod:`retrieval_eval.progress`): by default only when
stderr is a terminal, always with ``--progress``, never with ``--quiet``.
Each command imports what it uses when it runs: ``--help`` and ``metrics`` load neither pandas,
numba nor scipy, and ``evaluate`` loads no scipy, matplotlib or dask.

Each subcommand has a module of its own, with its flags and what it runs: :mod:`.evaluate`,
:mod:`.check`, :mod:`.sweeps` (``sweep`` and ``fuse``), :mod:`.answers` (``f1``), :mod:`.ragas` (``ragas``),
:mod:`.gdeval` (``gdeval``), :mod:`.cwl` (``cwl``), :mod:`.ndeval` (``ndeval``), :mod:`.catalog` (``metrics``, ``compile``);
:mod:`.common` holds what they share (exit codes, flags given once, output paths, printing).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator, Sequence

from .. import __version__, progress
from ..errors import ConfigError, RetrievalEvalError
from ..views import terminal_text
from .agree import add_agree_command, agree_command
from .answers import add_answers_command, answers_command
from .catalog import add_catalog_commands, compile_command, metrics_listing, trec_eval_listing
from .check import add_check_command, check_command
from .common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, emit, progress_wanted
from .cwl import add_cwl_command, cwl_command
from .evaluate import add_evaluate_command, evaluate_command
from .explain import add_explain_command, explain_command
from .gdeval import add_gdeval_command, gdeval_command
from .judge import add_judge_command, judge_command
from .ndeval import add_ndeval_command, ndeval_command
from .pool import add_pool_commands, pool_command, qrels_command
from .ragas import add_ragas_command, ragas_command
from .sweeps import add_fuse_command, add_sweep_command, fuse_command, sweep_command
from .tasks import add_tasks_command, tasks_command


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="retrieval-eval", description="Fast, exact retrieval evaluation.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    add_evaluate_command(commands)
    add_check_command(commands)
    add_sweep_command(commands)
    add_fuse_command(commands)
    add_catalog_commands(commands)
    add_explain_command(commands)
    add_pool_commands(commands)
    add_agree_command(commands)
    add_judge_command(commands)
    add_tasks_command(commands)
    add_answers_command(commands)
    add_ragas_command(commands)
    add_gdeval_command(commands)
    add_cwl_command(commands)
    add_ndeval_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "metrics":
        emit(trec_eval_listing(args.format) if args.trec else metrics_listing(args.format))
        return EXIT_OK
    commands = {"check": check_command, "sweep": sweep_command, "fuse": fuse_command, "compile": compile_command}
    commands["explain"] = explain_command
    commands.update(pool=pool_command, qrels=qrels_command)
    commands["agree"] = agree_command
    commands["judge"] = judge_command
    commands["tasks"] = tasks_command
    commands["f1"] = answers_command
    commands["ragas"] = ragas_command
    commands["gdeval"] = gdeval_command
    commands["cwl"] = cwl_command
    commands["ndeval"] = ndeval_command
    command = commands.get(args.command, evaluate_command)
    from ..io.publication import published_together
    from ..kernels import compile_notices

    try:
        with (_signals_raise(), published_together(), progress.shown(progress_wanted(args)),
              compile_notices(getattr(args, "progress_lines", None))):
            _check_numba_environment()
            return command(args)
    except (RetrievalEvalError, OSError) as error:
        if args.debug:
            raise
        if getattr(error, "output", None):
            emit("\n".join(error.output))  # what trec_eval prints before it stops there
        # On one line, escaped: an error may quote an id or a path that holds control characters.
        print(terminal_text(f"retrieval-eval: error: {error}"), file=sys.stderr)
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
    from ..kernels import check_numba_environment

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
