"""Write a file atomically: a scratch file in the same directory, fsync, rename.

Readers of the target path see either the old file or the complete new one, never a
half-written file, and a failure (or an interrupt) leaves nothing behind. What a killed
process left beside the target is removed by the next write of it (:mod:`.scratch`). Inside
:func:`~retrieval_eval.io.publication.published_together` the rename waits for the other
outputs of the block: all are renamed, or none (:mod:`.publication`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from retrieval_eval.errors import OutputError
from retrieval_eval.io.output_paths import check_output_paths
from retrieval_eval.io.publication import failure_reason, publish
from retrieval_eval.io.scratch import claim_scratch, clear_stale_scratch


def atomic_write(
    path: str | os.PathLike[str], write: Callable[[str], None], *, inputs: Iterable[str | os.PathLike[str]] = ()
) -> None:
    """Call ``write(temp_path)`` and move the result to ``path`` (at the end of the enclosing
    :func:`~retrieval_eval.io.publication.published_together`, if any).

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
    if target.is_dir() and not target.is_symlink():
        # Found now, before anything is written, rather than by the rename at the end.
        raise OutputError(f"{target}: cannot write: it is a directory")
    clear_stale_scratch(target)
    try:
        scratch = claim_scratch(target)
    except OSError as exc:
        check_directory(target)
        raise OutputError(f"{target}: cannot write: {failure_reason(exc)}") from exc
    # The scratch file is created with mode 0666 less the umask, as any new file (not
    # tempfile.mkstemp's 0600, which the rename would hand on to the output). Writers open
    # the path themselves (pyarrow wants a path).
    temp = str(scratch.path)
    try:
        write(temp)
        with open(temp, "rb+") as handle:
            os.fsync(handle.fileno())
    except BaseException as exc:  # also KeyboardInterrupt: never leave the scratch file
        scratch.remove()
        if isinstance(exc, Exception):
            raise OutputError(f"{target}: cannot write: {failure_reason(exc)}") from exc
        raise
    publish(scratch, target)


def check_directory(target: Path) -> None:
    """Raise :class:`OutputError` when the directory ``target`` goes in does not exist or is not a directory."""
    directory = target.parent
    if not directory.is_dir():
        missing = "is not a directory" if os.path.lexists(directory) else "does not exist"
        raise OutputError(f"{target}: cannot write: directory {str(directory)!r} {missing}")
