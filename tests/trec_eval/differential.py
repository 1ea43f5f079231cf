"""One command line through trec_eval 10 and through ``retrieval-eval evaluate --trec``, and what the
second must give for what the first gave.

trec_eval's options go to both unchanged: ``trec_eval OPTIONS QRELS RUN`` against
``retrieval-eval evaluate QRELS RUN --trec OPTIONS``. What is compared is the whole stdout, byte for
byte, and the exit status. :func:`expected` is the one place where our command may answer
differently from trec_eval on purpose.
"""

from __future__ import annotations

import difflib
import io
import subprocess
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.cli import main

#: trec_eval 10 exits with this status when a judged query has no results and ``-c`` is not given
#: ("result qid '...' not found in qrels", trec_eval.c), after printing the ``-q`` lines of the
#: queries before it.
TREC_EVAL_MISSING_QUERY = 4

#: What ``--trec`` does there (the lead's decision): "refuse" (exit with MISSING_QUERY_STATUS,
#: nothing on stdout) or "leave_out" (exit 0 and print what trec_eval prints for the qrels without
#: the queries that have no results, as trec_eval 9 and pytrec_eval do).
MISSING_QUERIES = "refuse"
MISSING_QUERY_STATUS = 4


@dataclass(frozen=True)
class Outcome:
    """A command's exit status and stdout (stderr only to explain a failure, never compared)."""

    status: int
    stdout: bytes
    stderr: str = field(default="", compare=False)


def missing_query(outcome: Outcome) -> bool:
    """trec_eval stopped at a judged query without results."""
    return outcome.status == TREC_EVAL_MISSING_QUERY and "not found in qrels" in outcome.stderr


def expected(binary: Path, options: Sequence[str], qrels: Path, run: Path) -> tuple[Outcome, Outcome]:
    """trec_eval's outcome, and what ``--trec`` must give for it: the same, but for a judged query without results."""
    theirs = run_trec_eval(binary, options, qrels, run)
    if not missing_query(theirs):
        return theirs, theirs
    if MISSING_QUERIES == "refuse":
        return theirs, Outcome(MISSING_QUERY_STATUS, b"")
    retrieved = {line.split()[0] for line in run.read_text(encoding="utf-8").splitlines() if line.strip()}
    kept = qrels.with_name(qrels.name + ".retrieved")
    kept.write_text("".join(line for line in qrels.read_text(encoding="utf-8").splitlines(keepends=True)
                            if line.split() and line.split()[0] in retrieved), encoding="utf-8")
    return theirs, run_trec_eval(binary, options, kept, run)


def run_trec_eval(binary: Path, options: Sequence[str], qrels: Path, run: Path) -> Outcome:
    done = subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True, timeout=120, check=False)
    return Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def run_ours(options: Sequence[str], qrels: Path, run: Path) -> Outcome:
    """``retrieval-eval evaluate QRELS RUN --trec OPTIONS`` in this process (argparse's exit is a status too)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(["evaluate", str(qrels), str(run), "--trec", *options])
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 2
    return Outcome(status, out.getvalue().encode("utf-8"), err.getvalue())


def assert_same(binary: Path, options: Sequence[str], qrels: Path, run: Path) -> None:
    """Our outcome is :func:`expected` of trec_eval's; else a message with both commands' outputs and a diff."""
    theirs, want = expected(binary, options, qrels, run)
    ours = run_ours(options, qrels, run)
    if ours == want:
        return
    diff = "\n".join(difflib.unified_diff(want.stdout.decode("utf-8", "replace").splitlines(),
                                          ours.stdout.decode("utf-8", "replace").splitlines(),
                                          "expected (trec_eval)", "retrieval-eval --trec", lineterm="", n=1))
    raise AssertionError(
        f"options {' '.join(options) or '(none)'}: status expected {want.status}, ours {ours.status}\n"
        f"trec_eval stderr: {theirs.stderr.strip()[:500]}\nour stderr: {ours.stderr.strip()[:500]}\n"
        f"qrels:\n{_head(qrels)}\nrun:\n{_head(run)}\n{diff[:4000]}"
    )


def _head(path: Path, lines: int = 40) -> str:
    text = path.read_text(encoding="utf-8").splitlines()
    more = f"\n... ({len(text) - lines} more lines)" if len(text) > lines else ""
    return "\n".join(text[:lines]) + more
