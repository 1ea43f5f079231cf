"""Write a file atomically: a scratch file in the same directory, fsync, rename.

Readers of the target path see either the old file or the complete new one, never a
half-written file, and a failure (or an interrupt) leaves nothing behind. What a killed
process left beside the target is removed by the next write of it (:mod:`.scratch`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from retrieval_eval.errors import OutputError
from retrieval_eval.io.output_paths import check_output_paths
from retrieval_eval.io.scratch import claim_scratch, clear_stale_scratch


def atomic_write(
    path: str | os.PathLike[str], write: Callable[[str], None], *, inputs: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Call ``write(temp_path)`` and move the result to ``path``.

    The temporary file is in the target's directory, so that :func:`os.replace` is a
    rename within one file system (atomic on POSIX and Windows). ``inputs``: the files
    (and directories) the output was made from, which ``path`` may not be, hold or be
    inside (:func:`~retrieval_eval.io.output_paths.check_output_paths`).

    Raises
    ------
    OutputError
        Naming the path and the reason (missing directory, permission denied, a
        writer error, an input in the way...). The temporary file is removed first.
    """
    check_output_paths({"output": path}, inputs)
    target = Path(os.fspath(path))
    directory = target.parent
    clear_stale_scratch(target)
    try:
        scratch = claim_scratch(target)
    except OSError as exc:
        if not directory.is_dir():
            raise OutputError(
                f"{target}: cannot write: directory {str(directory)!r} does not exist"
            ) from exc
        raise OutputError(f"{target}: cannot write: {_reason(exc)}") from exc
    # The scratch file is created with mode 0666 less the umask, as any new file (not
    # tempfile.mkstemp's 0600, which the rename would hand on to the output). Writers open
    # the path themselves (pyarrow wants a path).
    temp = str(scratch.path)
    try:
        write(temp)
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException as exc:  # also KeyboardInterrupt: never leave the scratch file
        scratch.remove()
        if isinstance(exc, Exception):
            raise OutputError(f"{target}: cannot write: {_reason(exc)}") from exc
        raise
    scratch.release()
    _fsync_directory(directory)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


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
