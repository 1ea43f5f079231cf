"""Ctrl-C and SIGTERM in the command: one line, exit 130 or 143, and Python's handlers as they were.

What the command had begun to write is removed as it unwinds: tests/scale/test_signals.py sends
the signals to a streamed run in a child process.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from retrieval_eval import cli

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX signals")


def _stopped_by(number: int):
    def command(args):
        os.kill(os.getpid(), number)
        time.sleep(30)  # the handler raises here
        raise AssertionError("the signal did not stop the command")

    return command


@pytest.mark.parametrize(("number", "code", "line"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("debug", [False, True])
def test_a_signal_gives_one_line_and_its_exit_code(capsys, monkeypatch, number, code, line, debug):
    monkeypatch.setattr(cli, "evaluate_command", _stopped_by(number))
    handlers = {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)}
    assert cli.main(["evaluate", "q", "r", *(["--debug"] if debug else [])]) == code
    out, err = capsys.readouterr()
    assert out == "" and err.endswith(f"retrieval-eval: {line}\n")
    assert (err.count("\n") > 1 and "Traceback" in err) if debug else err == f"retrieval-eval: {line}\n"
    assert {n: signal.getsignal(n) for n in handlers} == handlers


def test_a_second_signal_does_not_cut_the_cleanup_short(capsys, monkeypatch):
    cleaned = []

    def command(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        finally:
            os.kill(os.getpid(), signal.SIGINT)  # ignored: the cleanup below goes on
            time.sleep(0.01)
            cleaned.append(True)

    monkeypatch.setattr(cli, "evaluate_command", command)
    assert cli.main(["evaluate", "q", "r"]) == 143
    assert cleaned == [True] and capsys.readouterr().err == "retrieval-eval: terminated\n"
