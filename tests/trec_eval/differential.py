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
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.cli import main

#: trec_eval 10 exits with this status when a judged query has no results and ``-c`` is not given
#: ("result qid '...' not found in qrels", trec_eval.c), after printing the ``-q`` lines of the
#: queries before it.
TREC_EVAL_MISSING_QUERY = 4

#: What ``--trec`` does there (the lead's decision): "reproduce" (trec_eval's status and the same
#: partial output), "refuse" (MISSING_QUERY_STATUS, nothing on stdout) or "leave_out" (exit 0 and
#: what trec_eval prints for the qrels without the queries that have no results, as trec_eval 9
#: and pytrec_eval do).
MISSING_QUERIES = "reproduce"
MISSING_QUERY_STATUS = 4

#: trec_eval 10 exits with this status at a document twice in one query it evaluates ("duplicate
#: docs", form_res_rels.c), after the ``-q`` lines of the queries before it, and under ``-M N``
#: looks for the repeat only in the top N. ``--trec`` refuses a repeat anywhere in a judged query,
#: its results or its judgments, before printing anything (docs/trec-eval.md says so): DUPLICATE_OUTCOME.
TREC_EVAL_DUPLICATE = 4
DUPLICATE_OUTCOME = (4, b"")


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
    """trec_eval's outcome, and what ``--trec`` must give for it: the same, but for the rules below.

    - A document twice in one judged query: DUPLICATE_OUTCOME.
    - A judged query without results (no ``-c``): MISSING_QUERIES.
    - rbp: trec_eval's value is undefined beside other measures (m_rbp.c compares the gains with
      ``min`` and ``max`` before setting them; a measure computed before it leaves its last double
      there). Its defined value is what trec_eval prints for rbp alone, where they hold stale tiny
      positive bits (Helper A's evidence: tests/metrics/test_trec_measures_binary.py).
    """
    theirs = run_trec_eval(binary, options, qrels, run)
    if repeats_a_document(qrels, run):
        return theirs, Outcome(*DUPLICATE_OUTCOME)
    if not missing_query(theirs) or MISSING_QUERIES == "reproduce":
        return theirs, _rbp_alone(binary, options, qrels, run, theirs)
    if MISSING_QUERIES == "refuse":
        return theirs, Outcome(MISSING_QUERY_STATUS, b"")
    retrieved = {line.split()[0] for line in run.read_text(encoding="utf-8").splitlines() if line.strip()}
    kept = qrels.with_name(qrels.name + ".retrieved")
    kept.write_text("".join(line for line in qrels.read_text(encoding="utf-8").splitlines(keepends=True)
                            if line.split() and line.split()[0] in retrieved), encoding="utf-8")
    return theirs, _rbp_alone(binary, options, kept, run, run_trec_eval(binary, options, kept, run))


def repeats_a_document(qrels: Path, run: Path) -> bool:
    """A judged query holds a document twice, among its judgments or its results (the query and
    document ids are the first and third fields of both files' lines)."""
    judged = {fields[0] for fields in _fields(qrels)}
    seen: set[tuple[str, str, str]] = set()
    for kind, path in (("qrels", qrels), ("run", run)):
        for fields in _fields(path):
            key = (kind, fields[0], fields[2])
            if fields[0] in judged and key in seen:
                return True
            seen.add(key)
    return False


def _fields(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _rbp_alone(binary: Path, options: Sequence[str], qrels: Path, run: Path, outcome: Outcome) -> Outcome:
    """``outcome`` with its rbp lines (not rbp_resid's) as trec_eval prints them with rbp the only measure."""
    measures = [options[i + 1] for i, option in enumerate(options[:-1]) if option == "-m"]
    explicit = [measure for measure in measures if measure.split(".", 1)[0] == "rbp"]
    # all_trec's rbp takes the parameters of an explicit rbp.PARAMS (trec_eval takes the first given).
    rbp = explicit + (["rbp"] if "all_trec" in measures else [])
    if not outcome.stdout or not rbp or measures == explicit:
        return outcome
    others = [option for i, option in enumerate(options) if option != "-m" and (i == 0 or options[i - 1] != "-m")]
    alone = run_trec_eval(binary, [*others, *(arg for measure in rbp for arg in ("-m", measure))], qrels, run)
    lines = {tuple(line.split(b"\t")[:2]): line for line in alone.stdout.splitlines(keepends=True)}

    def defined(line: bytes) -> bytes:
        name = line.split(b"\t", 1)[0].strip()
        is_rbp = name == b"rbp" or (name.startswith(b"rbp_") and not name.startswith(b"rbp_resid"))
        return lines.get(tuple(line.split(b"\t")[:2]), line) if is_rbp else line

    return Outcome(outcome.status, b"".join(defined(line) for line in outcome.stdout.splitlines(keepends=True)))


def run_trec_eval(binary: Path, options: Sequence[str], qrels: Path, run: Path) -> Outcome:
    done = subprocess.run([str(binary), *options, str(qrels), str(run)], capture_output=True, timeout=120, check=False)
    return Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace"))


def on_standard_input(binary: Path, options: Sequence[str], qrels: Path, run: Path) -> tuple[Outcome, Outcome]:
    """trec_eval's and our outcome with ``-`` for the results file and ``run`` on standard input (ours in a process of its own)."""
    ours_argv = [sys.executable, "-c", "import sys; from retrieval_eval.cli import main; sys.exit(main())",
                 "evaluate", str(qrels), "-", "--trec", *options]
    outcomes = []
    for argv in ([str(binary), *options, str(qrels), "-"], ours_argv):
        with run.open("rb") as stdin:
            done = subprocess.run(argv, stdin=stdin, capture_output=True, timeout=120, check=False)
        outcomes.append(Outcome(done.returncode, done.stdout, done.stderr.decode("utf-8", "replace")))
    return outcomes[0], outcomes[1]


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
