"""Progress lines on stderr (retrieval_eval.progress): printed only when turned on, only past the delay,
by a timer while the phase runs; counters rewritten in place on a terminal, rate-limited in a log."""

from __future__ import annotations

import io
import re
import threading
import time

import pytest

from retrieval_eval import progress
from retrieval_eval.progress import phase, shown


@pytest.fixture
def no_delay(monkeypatch):
    """Every phase prints at once (in the thread that starts it), so that tiny inputs show their lines."""
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)


# The module.


def test_a_phase_prints_nothing_unless_the_lines_are_on(no_delay, capsys):
    threads = threading.active_count()
    with phase("reading run.trec"):
        assert threading.active_count() == threads  # not even a timer
    with phase("scoring", total=3, unit="files") as files:
        files.step(2)
    assert capsys.readouterr().err == ""


def test_a_phase_past_the_delay_prints_while_it_runs_then_its_time(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.05)
    stream = io.StringIO()
    with shown(stream=stream, terminal=False):
        with phase("reading run.trec"):
            deadline = time.monotonic() + 5
            while not stream.getvalue() and time.monotonic() < deadline:
                time.sleep(0.01)
            # Printed by the timer while the phase still runs, not after the fact.
            assert stream.getvalue() == "retrieval-eval: reading run.trec ...\n"
    first, last = stream.getvalue().splitlines()
    assert re.fullmatch(r"retrieval-eval: reading run\.trec: \d+\.\d s", last)


def test_a_phase_shorter_than_the_delay_prints_nothing(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 30.0)
    stream = io.StringIO()
    with shown(stream=stream, terminal=True):
        with phase("reading run.trec"):
            pass
        with phase("scoring", total=2, unit="files") as files:
            files.step(1)
            files.step(2)
    assert stream.getvalue() == ""


def test_a_counter_is_rewritten_in_place_on_a_terminal(no_delay, monkeypatch):
    monkeypatch.setattr(progress, "TERMINAL_EVERY_SECONDS", 0.0)
    stream = io.StringIO()
    with shown(stream=stream, terminal=True):
        with phase("scoring", total=1200, unit="rows") as rows:
            rows.step(600)
            rows.step(1200)
    text = stream.getvalue()
    assert text.startswith("retrieval-eval: scoring: 0/1,200 rows\rretrieval-eval: scoring: 600/1,200 rows")
    assert text.endswith("\n") and text.count("\n") == 1
    assert re.fullmatch(r"retrieval-eval: scoring: 1,200/1,200 rows, \d+\.\d s *", text.split("\r")[-1].strip("\n"))


def test_a_counter_not_on_a_terminal_prints_lines_at_most_every_log_interval(no_delay, monkeypatch):
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 3600.0)
    stream = io.StringIO()
    with shown(stream=stream, terminal=False):
        with phase("scoring", total=40, unit="configurations") as configurations:
            for done in range(1, 41):
                configurations.step(done)
    assert "\r" not in stream.getvalue()
    shown_lines = stream.getvalue().splitlines()
    assert shown_lines[0] == "retrieval-eval: scoring: 0/40 configurations" and len(shown_lines) == 2
    assert re.fullmatch(r"retrieval-eval: scoring: 40/40 configurations, \d+\.\d s", shown_lines[1])


def test_a_phase_inside_a_counter_is_silent_and_a_line_after_an_open_counter_starts_a_new_line(no_delay):
    stream = io.StringIO()
    with shown(stream=stream, terminal=True):
        with phase("scoring", total=2, unit="files"):
            with phase("reading part-1.parquet"):
                pass
        with phase("starting"):
            pass
    assert "reading" not in stream.getvalue()
    assert stream.getvalue().splitlines()[-2:] == ["retrieval-eval: starting ...", stream.getvalue().splitlines()[-1]]
    assert not progress.enabled()


def test_a_phase_cut_short_by_an_error_prints_no_time(no_delay):
    stream = io.StringIO()
    with shown(stream=stream, terminal=True), pytest.raises(KeyboardInterrupt):
        with phase("reading run.trec"):
            raise KeyboardInterrupt
    with shown(stream=stream, terminal=True), pytest.raises(ValueError):
        with phase("streaming run.parquet", total=10, unit="rows"):
            raise ValueError
    # The counter's open line is ended, so that the error's line starts on a line of its own.
    assert stream.getvalue() == "retrieval-eval: reading run.trec ...\nretrieval-eval: streaming run.parquet: 0/10 rows\n"


def test_a_name_with_control_characters_is_printed_escaped(no_delay):
    stream = io.StringIO()
    with shown(stream=stream, terminal=False):
        with phase("reading run\x1b]0;owned\x07\r\u202e.trec"):
            pass
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    assert "reading run\\x1b]0;owned\\x07\\r\\u202e.trec ..." in stream.getvalue()
