"""The per-query dataset: parquet parts written as pieces are scored, published whole or not at all.

Parts go to a staging directory beside the target (``.<name>.<token>.tmp``, a claimed scratch
directory of :mod:`retrieval_eval.io.scratch`); only when every piece is scored is it renamed
to the target (:func:`~retrieval_eval.io.publication.publish`: with the other outputs of the
command, or none of them), so a failed run never leaves a partial dataset where a complete one is
expected. Without a target the parts still go to disk (the summary is read back from them one
column at a time), to a scratch directory in the temporary directory, removed at the end.
Staging that a killed run left behind (its lock is gone with its process) is removed by the
next run that writes the same target, or the next run without a target in the same temporary
directory.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pa_ds
import pyarrow.parquet as pq

from ..errors import OutputError
from ..io.atomic import check_directory
from ..io.publication import failure_reason, publish
from ..io.scratch import Scratch, claim_scratch, clear_stale_scratch

_PART = re.compile(r"^part-[\w.-]+\.parquet$")


def write_part(directory: str | os.PathLike[str], name: str, per_query: pd.DataFrame, output: str) -> None:
    """Write one piece's per-query table as ``part-<name>.parquet`` (nothing for an empty table).

    The part is written under a dotted name and renamed, so a reader of the directory never
    sees half a part. ``output``: the dataset as the user knows it (:attr:`PerQueryDataset.output`),
    which an error names (a full disk: ``per_query: cannot write: No space left on device``).
    """
    if per_query.empty:
        return
    table = pa.Table.from_pandas(per_query, preserve_index=False)
    if pa.types.is_string(table.schema.field("query_id").type):
        # One string type in every part, whichever pandas chose for this one.
        table = table.set_column(0, "query_id", table["query_id"].cast(pa.large_string()))
    final = Path(directory) / f"part-{name}.parquet"
    temp = final.with_name(f".{final.name}.tmp")
    try:
        pq.write_table(table, temp)
        os.replace(temp, final)
    except OSError as exc:
        raise OutputError(f"{output}: cannot write: {failure_reason(exc)}") from exc


class PerQueryDataset:
    """A per-query dataset being written (see the module docstring); use as a context manager.

    Leaving the ``with`` block by an exception removes the staging directory; :meth:`publish`
    moves it to the target (replacing a dataset written before), or hands it to the enclosing
    :func:`~retrieval_eval.io.publication.published_together`.
    """

    def __init__(self, output: str | os.PathLike[str] | None, temp_dir: str | os.PathLike[str] | None = None) -> None:
        self.target = Path(os.fspath(output)) if output is not None else None
        if self.target is not None:
            _check_target(self.target)
            self._scratch = _claim(self.target)
        else:
            self._scratch = scratch_directory(temp_dir, PER_QUERY_SCRATCH)
        self.staging = self._scratch.path
        #: The output as errors name it: the target, or the temporary directory the parts go to without one.
        self.output = str(self.target) if self.target is not None else f"the temporary directory {self.staging.parent}"
        self._parts = 0
        self._published = False

    def __enter__(self) -> "PerQueryDataset":
        return self

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if not self._published:  # published, the staging is the publication's to rename or remove
            self._scratch.remove()

    def add(self, per_query: pd.DataFrame, name: str | None = None) -> None:
        """Write the next numbered part, or the part ``name`` (a name Dask's numbered parts cannot take)."""
        if name is None:
            name = f"{self._parts:05d}"
            self._parts += 1
        write_part(self.staging, name, per_query, self.output)

    def clear(self) -> None:
        """Remove every part written so far (to start over)."""
        for part in self._part_files():
            part.unlink()

    def _part_files(self) -> list[Path]:
        return sorted(p for p in self.staging.iterdir() if _PART.match(p.name))

    def column(self, name: str) -> np.ndarray:
        """One column over all parts, as numpy (in part order)."""
        table = self._dataset().to_table(columns=[name]) if self._part_files() else None
        if table is None or table.num_rows == 0:
            return np.empty(0, dtype=np.float64)
        return table[name].to_numpy()

    def n_rows(self) -> int:
        return self._dataset().count_rows() if self._part_files() else 0

    def _dataset(self) -> pa_ds.Dataset:
        return pa_ds.dataset([str(p) for p in self._part_files()], format="parquet")

    def publish(self) -> str | None:
        """Move the parts to the target; returns its path (None without a target)."""
        if self.target is None:
            return None
        self._published = True
        publish(self._scratch, self.target)
        return str(self.target)


#: The scratch directories a run makes in the temporary directory: parts without a target, buckets.
PER_QUERY_SCRATCH, BUCKET_SCRATCH = "retrieval-eval-per-query", "retrieval-eval-buckets"


def scratch_directory(temp_dir: str | os.PathLike[str] | None, name: str) -> Scratch:
    """A claimed scratch directory ``.<name>.<token>.tmp`` in ``temp_dir`` (default: the system's)."""
    place = _temp_place(temp_dir)
    try:
        return claim_scratch(place / name, directory=True)
    except OSError as exc:
        raise OutputError(f"{place}: cannot create a temporary directory there: {exc.strerror or exc}") from exc


def clear_stale_temp(temp_dir: str | os.PathLike[str] | None) -> None:
    """Remove the scratch directories that killed runs left in ``temp_dir`` (whatever this run will need)."""
    for name in (PER_QUERY_SCRATCH, BUCKET_SCRATCH):
        clear_stale_scratch(_temp_place(temp_dir) / name)


def _temp_place(temp_dir: str | os.PathLike[str] | None) -> Path:
    return Path(os.fspath(temp_dir) if temp_dir is not None else tempfile.gettempdir())


def _claim(target: Path) -> Scratch:
    clear_stale_scratch(target)
    try:
        return claim_scratch(target, directory=True)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from exc


def _check_target(target: Path) -> None:
    """The target may be new, or a per-query dataset this module wrote (only ``part-*.parquet`` files)."""
    check_directory(target)
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputError(f"{target}: the per-query output is a directory of parquet parts, and a file has this name")
    others = [p.name for p in target.iterdir() if not _PART.match(p.name)]
    if others:
        raise OutputError(
            f"{target}: not replaced: it holds files that are not parts of a per-query dataset "
            f"({', '.join(sorted(others)[:3])}); choose a new directory"
        )
