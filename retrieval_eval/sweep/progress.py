"""How a leaderboard reports its progress: each run scored, then each phase of its statistics.

The contract of the ``progress`` argument of :func:`~.ranking.leaderboard` and :func:`~.analysis.sweep`:

- ``progress(done, total, name)`` is called after each run is scored (``name``: its
  configuration). A callback of this shape sees these calls and no others, as it always did.
- A callback that also takes a keyword argument ``phase`` (``def show(done, total, name,
  phase="runs")``, or one with ``**kwargs``) is called through the statistics as well, which take
  far longer than the scoring on large sweeps (minutes at 200k queries). ``phase`` is one of
  :data:`PHASES`; ``name`` says what is being computed, with its sizes
  (``"bootstrap intervals: 10000 resamples x 4 configurations"``); ``done`` counts up to
  ``total`` in the phase's own unit (runs, metrics, resamples, rounds), and each phase ends with a
  call where ``done == total``. Phases come in the order of :data:`PHASES`, those that do not
  apply left out (no tests with one configuration, ``"pairs"`` only when asked for). The statistics
  for many configurations (:mod:`.significance`) report theirs the same way: ``"tukey"`` (the randomised
  Tukey HSD of each metric, a phase each), then ``"differences"`` (the intervals of every pair's difference).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .stats import DrawProgress

#: The phases, in the order they come: the runs scored, the per-query scores aligned across
#: them (metric by metric), the bootstrap intervals, the tests against the best, all pairs.
PHASES = ("runs", "alignment", "bootstrap", "randomization", "pairs")


class Reporter:
    """Sends each step to a ``progress`` callback as the module docstring's contract says (nothing when it is None)."""

    def __init__(self, progress: Callable[..., Any] | None) -> None:
        self._progress = progress
        self._phases = progress is not None and takes_phase(progress)

    def __call__(self, phase: str, done: int, total: int, name: str) -> None:
        if self._progress is None:
            return
        if self._phases:
            self._progress(done, total, name, phase=phase)
        elif phase == "runs":
            self._progress(done, total, name)

    def draws(self, phase: str, name: str, *, offset: int = 0, total: int | None = None) -> DrawProgress | None:
        """A ``progress(done, total)`` for :mod:`.stats` reporting ``phase``, or None when no callback wants it.

        ``offset`` and ``total`` count a phase made of several calls (the chunks of all pairs): the
        draws of the calls before, and of them all.
        """
        if not self._phases:
            return None
        return lambda done, count: self(phase, offset + done, count if total is None else total, name)


def takes_phase(callback: Callable[..., Any]) -> bool:
    """Whether ``callback`` accepts the keyword argument ``phase``; one whose signature cannot be read does not."""
    try:
        parameters = inspect.signature(callback).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        parameter.kind is inspect.Parameter.VAR_KEYWORD
        or (parameter.name == "phase" and parameter.kind is not inspect.Parameter.POSITIONAL_ONLY)
        for parameter in parameters
    )

