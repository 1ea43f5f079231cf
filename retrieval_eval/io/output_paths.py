"""The output-path guard: no output may destroy an input, or another output of the same command.

An output is refused when it *is* an input, *contains* one (a directory output replaces its
whole tree), or is *inside* an input directory (a run directory is read recursively, so what
is written there is read back as run rows next time), and likewise against each other output.
"The same file" is decided by the file system, not by spelling: two existing paths are the
same when they have the same device and inode after following symlinks, so a hard link, a
symlink, ``./`` or ``..`` spellings, a relative and an absolute path of one file all count.
A path that does not exist yet is compared by its resolved absolute path (symlinks in its
existing part followed). Inputs that do not exist are left to their readers to report.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from retrieval_eval.errors import OutputError

PathLike = str | os.PathLike[str]

#: A path's identity: ``("inode", device, inode)`` when it exists, else ``("path", resolved)``.
_Identity = tuple


def check_output_paths(outputs: Mapping[str, PathLike | None], inputs: Iterable[PathLike | None]) -> None:
    """Refuse any output that is, contains or is inside an input, or another output.

    Parameters
    ----------
    outputs
        Each output by the name the user gave it (``"-o"``, ``"--summary-output"``,
        ``"output"``), to the path; None for an output not asked for.
    inputs
        Every file or directory the command reads (None and missing paths are skipped); a
        directory stands for every file below it too.

    Raises
    ------
    OutputError
        One line naming the output, the input (or other output) and how they overlap, e.g.
        ``-o r.csv: refused: it is the input r.csv; write the output elsewhere``.
    """
    given = [(name, Path(os.fspath(path))) for name, path in outputs.items() if path is not None]
    read = [Path(os.fspath(path)) for path in inputs if path is not None and os.path.lexists(path)]
    directories: dict[Path, list[_Identity]] = {}  # the inputs of one directory share their parents
    lineages = {path: _lineage(path, directories) for path in read}
    # A directory is read whole: a hard link to any file below it is an input too. Those files
    # are inside the directory already, so only their own identity is needed (a stat, no realpath).
    below = {_identity(file, file): file for path in read if path.is_dir() for file in _files_below(path)}
    for name, output in given:
        mine = _lineage(output, directories)
        for path in read:
            _refuse(name, output, _overlap(mine, lineages[path]), "the input", path)
        if mine[0] in below:
            _refuse(name, output, "same", "the input", below[mine[0]])
    for index, (name, output) in enumerate(given):
        for other_name, other in given[:index]:
            _refuse(name, output, _overlap(_lineage(output, directories), _lineage(other, directories)), other_name, other)


def _refuse(name: str, output: Path, overlap: str | None, what: str, other: Path) -> None:
    """Raise the error for an output that overlaps ``other`` (an input, or the output ``what``)."""
    if overlap is None:
        return
    if overlap == "same":
        how = f"it is {what} {other}"
        if os.path.abspath(output) != os.path.abspath(other):
            how = f"it is the same file as {what} {other} (a hard link or a symlink)"
    elif overlap == "contains":
        how = f"{what} {other} is inside it"
    else:
        how = f"it is inside {what} {other}"
    advice = "write the output elsewhere" if what == "the input" else "give each output its own path"
    raise OutputError(f"{name} {output}: refused: {how}; {advice}")


def _files_below(directory: Path) -> list[Path]:
    return [Path(root) / name for root, _, names in os.walk(directory) for name in names]


def _overlap(output: list[_Identity], other: list[_Identity]) -> str | None:
    """How an output (its lineage: itself, then its parents) overlaps another path, or None."""
    if output[0] == other[0]:
        return "same"
    if output[0] in other[1:]:
        return "contains"
    if other[0] in output[1:]:
        return "inside"
    return None


def _lineage(path: Path, directories: dict[Path, list[_Identity]]) -> list[_Identity]:
    """The identities of ``path`` and of each directory above it, nearest first."""
    resolved = Path(os.path.realpath(path))
    return [_identity(path, resolved), *_directory_lineage(resolved.parent, directories)]


def _directory_lineage(directory: Path, known: dict[Path, list[_Identity]]) -> list[_Identity]:
    if directory not in known:
        above = [] if directory.parent == directory else _directory_lineage(directory.parent, known)
        known[directory] = [_identity(directory, directory), *above]
    return known[directory]


def _identity(path: Path, resolved: Path) -> _Identity:
    try:
        status = os.stat(path)
    except OSError:  # not there yet (or a dangling link): its resolved path is all it has
        return ("path", os.path.normcase(str(resolved)))
    return ("inode", status.st_dev, status.st_ino)
