"""Write a file atomically: a temporary file in the same directory, fsync, rename.

Readers of the target path see either the old file or the complete new one, never a
half-written file, and a failure leaves nothing behind.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

from retrieval_eval.errors import OutputError


def atomic_write(path: str | os.PathLike[str], write: Callable[[str], None]) -> None:
    """Call ``write(temp_path)`` and move the result to ``path``.

    The temporary file is in the target's directory, so that :func:`os.replace` is a
    rename within one file system (atomic on POSIX and Windows).

    Raises
    ------
    OutputError
        Naming the path and the reason (missing directory, permission denied, a
        writer error...). The temporary file is removed first.
    """
    target = Path(os.fspath(path))
    directory = target.parent
    try:
        temp = _create_temp(target)
    except OSError as exc:
        if not directory.is_dir():
            raise OutputError(
                f"{target}: cannot write: directory {str(directory)!r} does not exist"
            ) from exc
        raise OutputError(f"{target}: cannot write: {_reason(exc)}") from exc
    try:
        write(temp)
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException as exc:  # also KeyboardInterrupt: never leave the temp file
        _remove(temp)
        if isinstance(exc, Exception):
            raise OutputError(f"{target}: cannot write: {_reason(exc)}") from exc
        raise
    _fsync_directory(directory)


def _create_temp(target: Path) -> str:
    """Create an empty, uniquely named file beside ``target``.

    Not :func:`tempfile.mkstemp`: it creates files with mode 0600, which the rename
    would hand on to the output; ``os.open(..., 0o666)`` lets the umask decide, as for
    any new file.
    """
    for _ in range(100):
        temp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
        except FileExistsError:
            continue
        os.close(fd)  # writers open the path themselves (pyarrow wants a path)
        return str(temp)
    raise FileExistsError(f"no free temporary name beside {target}")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _remove(temp: str) -> None:
    try:
        os.unlink(temp)
    except FileNotFoundError:
        pass


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable on POSIX; not possible (nor needed) on Windows.
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
