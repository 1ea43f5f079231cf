"""Outputs published together: every output of a command is put in place, or none is.

An output is first written whole to a claimed scratch beside its target (a file by
:func:`~retrieval_eval.io.atomic.atomic_write`, a per-query dataset directory by
:mod:`retrieval_eval.scale.output`); :func:`publish` then puts the scratch in place. Inside
:func:`published_together` (the command line runs every command inside one) a published scratch
waits until the block ends: when it ends normally every waiting scratch is renamed onto its
target, one after the other; when it ends by an exception (a later output that cannot be written,
bad input found afterwards, Ctrl-C) every waiting scratch is removed and no target is touched.

A rename can still fail at the end (a target that became a directory, a file system that refuses
it). Before a target is replaced, what it held is kept under a scratch name of its own (a hard
link to a file, or a copy where there are no hard links, so the target is never missing; a
directory is renamed aside), so that a failure part way puts back every target already replaced and removes every
new one: the error names the output that failed, and no output of the block is changed. Once all
are in place the kept old contents are removed.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from retrieval_eval.errors import OutputError
from retrieval_eval.io.scratch import Scratch, adopt, claim_scratch

_pending: ContextVar[list[tuple[Scratch, Path]] | None] = ContextVar("retrieval_eval_pending_outputs", default=None)


@contextmanager
def published_together() -> Iterator[None]:
    """Within the block, :func:`publish` waits; the block's normal end publishes all, an exception none.

    A block inside another joins it (the outermost block publishes); the block holds the outputs written
    in its own thread (a context variable: a thread started inside publishes at once). Raises :class:`OutputError`
    at the end, naming the output and the reason, when an output cannot be put in place; then no
    target of the block is changed.
    """
    if _pending.get() is not None:
        yield
        return
    waiting: list[tuple[Scratch, Path]] = []
    token = _pending.set(waiting)
    try:
        yield
    except BaseException:  # also KeyboardInterrupt: never leave a scratch behind
        for scratch, _ in waiting:
            scratch.remove()
        raise
    finally:
        _pending.reset(token)
    _put_in_place(waiting)


def publish(scratch: Scratch, target: Path) -> None:
    """Rename the complete ``scratch`` onto ``target`` now, or at the end of the enclosing
    :func:`published_together`; either way the scratch is this function's from now on."""
    waiting = _pending.get()
    if waiting is None:
        _put_in_place([(scratch, target)])
        return
    for index, (earlier, where) in enumerate(waiting):
        if where == target:  # the same output written again: the last one is the output
            earlier.remove()
            del waiting[index]
            break
    waiting.append((scratch, target))


def _put_in_place(waiting: list[tuple[Scratch, Path]]) -> None:
    """Rename each scratch onto its target; on a failure (or an interrupt) put back every target replaced so far."""
    done: list[tuple[Path, Scratch | None]] = []  # each target replaced, with what it held before
    kept: Scratch | None = None
    try:
        for scratch, target in waiting:
            kept = None
            kept = _keep(target, several=len(waiting) > 1)
            os.replace(scratch.path, target)
            scratch.release()
            done.append((target, kept))
    except BaseException as exc:
        scratch, target = waiting[len(done)]
        if not os.path.lexists(scratch.path):  # renamed onto the target just before an interrupt
            done.append((target, kept))
        elif kept is not None:
            if not os.path.lexists(target):  # a directory moved aside: back it goes
                _undo([(target, kept)], [])
            kept.remove()
        _undo(done, waiting[len(done):])
        if isinstance(exc, OSError):
            raise _failed(target, exc, len(waiting)) from exc
        raise
    for _, kept in done:
        if kept is not None:
            kept.remove()
    for directory in {target.parent for _, target in waiting}:
        _fsync_directory(directory)


def _keep(target: Path, several: bool) -> Scratch | None:
    """What ``target`` holds, kept under a claimed scratch name beside it, when it may have to be put back
    (None when it does not exist, or when it is one file, which the rename alone replaces)."""
    if not os.path.lexists(target):
        return None
    if target.is_dir() and not target.is_symlink():
        return adopt(target, target)  # a rename does not replace a directory: it is moved aside first
    if not several:
        return None
    # A second name for the old file (claimed as scratch is), or a copy where there are no hard links:
    # the target itself stays in place until the rename replaces it, so a reader never finds it missing
    # and a rename that fails leaves it as it was.
    second = target.with_name(f".{target.name}.{secrets.token_hex(6)}.new")
    try:
        os.link(target, second, follow_symlinks=False)
    except OSError:
        keeper = claim_scratch(target)
        try:
            shutil.copy2(target, keeper.path)
        except BaseException:
            keeper.remove()
            raise
        return keeper
    try:
        return adopt(second, target)
    except BaseException:
        os.unlink(second)
        raise


def _undo(done: list[tuple[Path, Scratch | None]], left: list[tuple[Scratch, Path]]) -> None:
    """Put back what each replaced target held (remove the new ones), and remove the scratch not yet used."""
    for target, kept in reversed(done):
        try:
            if kept is None or (target.is_dir() and not target.is_symlink()):
                _remove(target)
            if kept is not None:
                os.replace(kept.path, target)
                kept.release()
        except OSError:
            pass  # best effort: the error that stopped the publishing is the one reported
    for scratch, _ in left:
        scratch.remove()


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _failed(target: Path, exc: OSError, outputs: int) -> OutputError:
    none = f"; none of the {outputs} outputs was written" if outputs > 1 else ""
    return OutputError(f"{target}: cannot write: {failure_reason(exc)}{none}")


def failure_reason(exc: BaseException) -> str:
    """Why a write failed, in words: the system's for its error number (``No space left on device``, also
    where pyarrow words it as ``Error writing bytes to file. Detail: [errno 28] ...``), else the error's own."""
    if isinstance(exc, OSError) and isinstance(exc.errno, int) and exc.errno > 0:
        return os.strerror(exc.errno)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _fsync_directory(directory: Path) -> None:
    # Makes the renames themselves durable on POSIX; not possible (nor needed) on Windows.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
