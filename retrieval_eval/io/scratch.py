"""Scratch files and directories beside a target: claimed while in use, cleared when left behind.

No output is built in place: a file is written to a scratch file beside it
(:func:`~retrieval_eval.io.atomic.atomic_write`), a per-query dataset to a scratch directory,
and each is renamed to the target at the end. A scratch is named
``.<target name>.<12 hex digits>.tmp`` and its process holds an exclusive ``flock`` on it
while it is in use. The operating system drops that lock when the process ends, however it
ends (killed by SIGKILL, out of memory), so the next writer of the same target removes every
scratch beside it whose lock it can take: what a killed run left, never the scratch of a run
still going. A scratch is created under a ``.new`` name, locked, and only then renamed to its
``.tmp`` name, so that no live scratch is ever unlocked under a name the clearing looks for
(a process killed in the instant between the two leaves a ``.new`` name, which is not cleared).

Where there are no locks (Windows, a file system without ``flock``) scratch is not locked and
nothing is cleared.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

_SUFFIX = ".tmp"
# How often, and how far apart, a scratch directory that a late writer refilled is removed again.
_REMOVE_ATTEMPTS = 50
_REMOVE_PAUSE_SECONDS = 0.02


class Scratch:
    """A claimed scratch path (a file or a directory); :meth:`release` drops the claim.

    The claim follows the path's inode, so it stays with the scratch when it is renamed (to
    the target, at the end).
    """

    def __init__(self, path: Path, lock: int | None) -> None:
        self.path = path
        self._lock = lock

    def release(self) -> None:
        """Drop the lock (the path itself is the caller's to rename or remove); idempotent."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def remove(self) -> None:
        """Remove the scratch (whatever it holds), then drop the lock."""
        # A symlink (a target that was one, adopted): the link goes, not what it points to.
        if self.path.is_dir() and not self.path.is_symlink():
            # A writer still running (a cancelled Dask task finishing its part) can add an entry between
            # rmtree's listing and its rmdir, which then fails: remove again until the directory is gone.
            # Once it is gone, a late write fails, as the directory is not made again.
            for _ in range(_REMOVE_ATTEMPTS):
                shutil.rmtree(self.path, ignore_errors=True)
                if not self.path.exists():
                    break
                time.sleep(_REMOVE_PAUSE_SECONDS)
        else:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
        self.release()


def claim_scratch(target: Path, *, directory: bool = False) -> Scratch:
    """Create and claim a new empty scratch file (or directory) beside ``target``.

    Raises
    ------
    OSError
        The scratch cannot be created (missing directory, permission denied).
    """
    for _ in range(100):
        token = secrets.token_hex(6)
        new = target.with_name(f".{target.name}.{token}.new")
        try:
            if directory:
                new.mkdir()
            else:
                os.close(os.open(new, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:
            continue
        return adopt(new, target, token)
    raise FileExistsError(f"no free scratch name beside {target}")


def adopt(path: Path, target: Path, token: str | None = None) -> Scratch:
    """Claim the existing ``path`` and rename it to a scratch name beside ``target``."""
    lock = _lock(path)
    scratch = target.with_name(f".{target.name}.{token or secrets.token_hex(6)}{_SUFFIX}")
    try:
        os.replace(path, scratch)
    except BaseException:
        if lock is not None:
            os.close(lock)
        raise
    return Scratch(scratch, lock)


def clear_stale_scratch(target: Path) -> list[Path]:
    """Remove the scratch beside ``target`` that no living process claims; returns what was removed.

    Nothing is removed where locks are not available, and errors (a directory that cannot be
    listed, a scratch of another user) leave things as they are: clearing is a courtesy.
    """
    if fcntl is None:
        return []
    pattern = re.compile(rf"^\.{re.escape(target.name)}\.[0-9a-f]{{12}}{re.escape(_SUFFIX)}$")
    try:
        candidates = [p for p in target.parent.iterdir() if pattern.match(p.name)]
    except OSError:
        return []
    removed = []
    for candidate in candidates:
        lock = _lock(candidate)  # held by no living process: stale
        if lock is None:
            continue
        Scratch(candidate, lock).remove()
        removed.append(candidate)
    return removed


def _lock(path: Path) -> int | None:
    """A lock on ``path`` if no open file holds one; None where another does, or where the file
    system has no locks (then nothing is cleared either, so unlocked scratch is never taken for stale)."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)  # fails only under a umask that denies the owner reading
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd

