"""Dask's worker log, quiet about the errors the client reports itself.

A task of a job that raises one of the library's errors (a bad file named with its row and field)
fails the job on the client, which prints that error as one line; the worker also logs it, as
``distributed.worker - ERROR - Compute Failed`` and eight lines of key, task and traceback, before
the client's line. While a job runs, each worker drops those records of the library's errors (a
:class:`logging.Filter` on ``distributed.worker``, put on every worker of the client and taken off
when the job ends, however it ends); every other record of the worker, and every other error, is
logged as before.

A local cluster that a command started and is stopping logs nothing more (:func:`quiet_shutdown`):
a worker whose heartbeat meets the scheduler already closed logs an error and a traceback of 30
lines, about the cluster's own teardown, not about the user's job.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import RetrievalEvalError

_WORKER_LOGGER = "distributed.worker"


class _ReportedByTheClient(logging.Filter):
    """Drops the "Compute Failed" records of tasks that raised a library error; ``token`` names the job."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not (isinstance(record.msg, str) and record.msg.startswith("Compute Failed")):
            return True
        # The record's arguments: key, state, task, the exception's repr, its traceback (distributed 2025.1 to
        # 2026.8); a record laid out otherwise is kept (logged, as before).
        shown = record.args[3] if isinstance(record.args, tuple) and len(record.args) > 3 else ""
        return not (isinstance(shown, str) and shown.startswith(_library_error_names()))


def _library_error_names() -> tuple[str, ...]:
    """``"InputError("``, ``"ConfigError("``, ...: how the repr of each of the library's errors begins."""
    found, stack = [], [RetrievalEvalError]
    while stack:
        kind = stack.pop()
        found.append(f"{kind.__name__}(")
        stack.extend(kind.__subclasses__())
    return tuple(found)


def _quiet(token: str) -> None:
    logging.getLogger(_WORKER_LOGGER).addFilter(_ReportedByTheClient(token))


def _loud(token: str) -> None:
    logger = logging.getLogger(_WORKER_LOGGER)
    for kept in [f for f in logger.filters if isinstance(f, _ReportedByTheClient) and f.token == token]:
        logger.removeFilter(kept)


@contextmanager
def quiet_reported_errors(client: Any, token: str) -> Iterator[None]:
    """Within: the workers of ``client`` do not log the library's errors that the job's client raises."""
    client.run(_quiet, token)
    try:
        yield
    finally:
        try:
            client.run(_loud, token)
        except Exception:  # workers gone with the failure: nothing left to put back, and that failure is the error
            pass


def _silence() -> None:
    logging.getLogger("distributed").setLevel(logging.CRITICAL + 1)


def quiet_shutdown(client: Any) -> None:
    """Silence the ``distributed`` loggers of ``client``'s workers and nannies, for a cluster about to be stopped."""
    for nanny in (False, True):
        try:
            client.run(_silence, nanny=nanny)
        except Exception:  # a worker already gone has nothing left to log
            pass
