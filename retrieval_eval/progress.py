"""Progress lines on stderr for the phases of long work: silent unless a caller turns them on.

The library marks its long phases (reading a large input, aligning runs, partitioning into
buckets, starting a Dask cluster, building a page) with :func:`phase`, and its loops over
files, row groups, buckets or partitions with a phase that counts (``total=``). Nothing is
printed unless the lines are turned on with :func:`shown`, as the command line does when
stderr is a terminal (``--progress`` forces them, ``--quiet`` silences them); a Python caller
that wants them turns them on the same way.

When on, a phase that is still running after :data:`DELAY_SECONDS` prints one line
(``retrieval-eval: reading run.trec ...``), from a timer started when the phase begins, so
that a phase that hangs is seen while it hangs; a phase that ends sooner prints nothing. A
phase that printed its start prints its end with the seconds it took
(``retrieval-eval: reading run.trec: 12.3 s``). A counting phase shows ``done/total unit``:
rewritten in place on a terminal (at most every :data:`TERMINAL_EVERY_SECONDS`), on a line
of its own at most every :data:`LOG_EVERY_SECONDS` otherwise (a log file). A phase begun while
a counter runs prints nothing: the counter shows that work (each configuration of a sweep
read and scored, each chunk of a stream). Lines are written whole, under one lock, so that
the timer thread and the caller do not interleave.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

#: Seconds a phase runs before its line is printed: shorter phases print nothing.
DELAY_SECONDS = 1.0
#: Seconds between two rewrites of a counter on a terminal.
TERMINAL_EVERY_SECONDS = 0.2
#: Seconds between two counter lines when stderr is not a terminal (``--progress`` into a log).
LOG_EVERY_SECONDS = 10.0
PREFIX = "retrieval-eval: "


@dataclass
class _Output:
    stream: TextIO | None  # None: sys.stderr at the time of writing (pytest swaps it)
    terminal: bool
    open_line: int = 0  # on a terminal: the length of a counter line left without its newline
    owner: object = None  # the phase whose counter that line is

    @property
    def target(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stderr


_LOCK = threading.Lock()
_output: _Output | None = None
#: Counting phases open now: a phase begun inside one prints nothing (the counter shows the progress).
_counting = 0


def enabled() -> bool:
    """Whether progress lines are on (within :func:`shown`)."""
    return _output is not None


def stderr_is_terminal() -> bool:
    """stderr is a terminal (False when it was replaced by an object without ``isatty``, or closed)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def shown(on: bool = True, stream: TextIO | None = None, *, terminal: bool | None = None) -> Iterator[None]:
    """Within the block, phases print their lines to ``stream`` (default: stderr); ``on=False`` keeps them off.

    ``terminal``: whether counters are rewritten in place (default: whether stderr is a terminal).
    """
    global _output, _counting
    previous, counting = _output, _counting
    if on:
        _output = _Output(stream, stderr_is_terminal() if terminal is None else terminal)
    else:
        _output = None
    try:
        yield
    finally:
        _end_open_line()
        _output, _counting = previous, counting  # a counter an error left open silences nothing after


class Phase:
    """One phase of work; :func:`phase` makes it. ``step(done)`` records how many units of a counting phase are done."""

    def __init__(
        self, what: str, total: int | None, unit: str, output: _Output | None, started: float | None = None, done: int = 0
    ) -> None:
        global _counting
        with _LOCK:
            if _counting:
                output = None
            elif output is not None and total is not None:
                _counting += 1
        self.what, self.total, self.unit, self._output = what, total, unit, output
        self.done = done
        self.started = time.monotonic() if started is None else started
        self._printed = self._closed = False
        self._last = 0.0
        self._timer: threading.Timer | None = None
        if output is None:
            return
        wait = DELAY_SECONDS - (time.monotonic() - self.started)
        if wait <= 0:
            self._show()
        else:
            self._timer = threading.Timer(wait, self._show)
            self._timer.daemon = True  # never keeps the process alive
            self._timer.start()

    def step(self, done: int) -> None:
        """``done`` units of ``total`` are done; shown as often as :data:`TERMINAL_EVERY_SECONDS` or :data:`LOG_EVERY_SECONDS` allow."""
        self.done = done
        if not self._printed or self._output is None:
            return
        every = TERMINAL_EVERY_SECONDS if self._output.terminal else LOG_EVERY_SECONDS
        if time.monotonic() - self._last >= every:
            with _LOCK:
                self._write_count()

    def close(self, *, finished: bool = True) -> None:
        """End the phase: its last line, with the seconds it took, if it printed its first and ``finished``
        (not cut short by an error, which says what happened itself)."""
        global _counting
        if self._timer is not None:
            self._timer.cancel()
        with _LOCK:
            if self._closed:
                return
            self._closed = True
            if self._output is not None and self.total is not None:
                _counting = max(0, _counting - 1)  # 0 when a shown() block ended first
            if self._printed and self._output is not None and finished:
                seconds = time.monotonic() - self.started
                count = f"{self.done:,}/{self.total:,}{self._unit}, " if self.total is not None else ""
                self._line(f"{self.what}: {count}{seconds:.1f} s", keep_open=False)

    def __enter__(self) -> "Phase":
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        self.close(finished=kind is None)

    @property
    def _unit(self) -> str:
        return f" {self.unit}" if self.unit else ""

    def _show(self) -> None:
        with _LOCK:
            if self._closed or self._output is None or self._output is not _output:
                return  # ended, off, or its shown() block is over (a phase an error left open)
            self._printed = True
            if self.total is None:
                self._line(f"{self.what} ...", keep_open=False)
            else:
                self._write_count()

    def _write_count(self) -> None:
        if self.done == self.total:
            return  # all done: the closing line says so, with the seconds
        self._last = time.monotonic()
        self._line(f"{self.what}: {self.done:,}/{self.total:,}{self._unit}", keep_open=True)

    def _line(self, text: str, *, keep_open: bool) -> None:
        """Write ``text`` as a line; on a terminal a counter's line stays open, to be rewritten."""
        output = self._output
        if output is None:
            return
        from .views import terminal_text  # here, not at the top: importing this module stays numpy-free

        line = PREFIX + terminal_text(text)  # a file or run name with ESC or CR would move the line
        try:
            if output.open_line and output.owner is self:
                # Rewrite this phase's counter line, blanking what a longer one left.
                line = "\r" + line.ljust(output.open_line)
            elif output.open_line:
                line = "\n" + line  # another phase's counter keeps its line
            output.target.write(line)
            if output.terminal and keep_open:
                output.open_line, output.owner = len(line.lstrip("\r\n")), self
            else:
                output.target.write("\n")
                output.open_line, output.owner = 0, None
            output.target.flush()
        except (OSError, ValueError):  # stderr closed or gone: progress is never worth an error
            pass


def phase(what: str, *, total: int | None = None, unit: str = "", started: float | None = None, done: int = 0) -> Phase:
    """A phase of long work, used as ``with phase("reading run.trec"):`` (see the module docstring).

    ``total`` and ``unit`` make it a counter (``with phase("scoring", total=40, unit="files") as
    progress: ... progress.step(12)``), ``done`` of them done already. ``started``: when it began
    (``time.monotonic()``), if before now. Prints nothing unless the lines are on (:func:`shown`).
    """
    return Phase(what, total, unit, _output, started, done)


def _end_open_line() -> None:
    with _LOCK:
        if _output is not None and _output.open_line:
            try:
                _output.target.write("\n")
                _output.target.flush()
            except (OSError, ValueError):
                pass
            _output.open_line, _output.owner = 0, None
