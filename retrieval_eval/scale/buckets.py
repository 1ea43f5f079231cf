"""Hash-partition a run by query into parquet buckets on disk, so that each bucket holds whole queries.

Rows keep their input order within a bucket (batches are appended in reading order), so the
order of a query's rows, which decides ties and repeated documents under some conventions,
is the input's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..data.ids import id_column
from ..errors import OutputError
from ..io.publication import failure_reason
from ..kernels.core.grouping import counting_sort
from ..kernels.core.partitioning import bucket_of_keys


@dataclass(frozen=True)
class Bucket:
    path: str
    rows: int


def write_buckets(
    tables: Iterable[pa.Table], n_buckets: int, directory: str | os.PathLike[str], salt: int, buffer_rows: int
) -> list[Bucket]:
    """Append the rows of each canonical run table to bucket ``bucket_of_keys(query key) mod n_buckets``.

    ``salt`` chooses the hash (a bucket split again uses another). Rows are held until
    ``buffer_rows`` of them wait, then every bucket gets its share as one row group: a row group
    per bucket and batch would be small and slow to write and to read. Returns the non-empty
    buckets. Files are closed whatever happens; removing them is the caller's (it owns
    ``directory``). A bucket that cannot be written (a full disk) is an :class:`OutputError` naming
    the temporary directory ``directory`` is in.
    """
    writers: dict[int, pq.ParquetWriter] = {}
    waiting: list[list[pa.Table]] = [[] for _ in range(n_buckets)]
    rows = [0] * n_buckets
    paths = [str(Path(directory) / f"bucket-{salt}-{index:05d}.parquet") for index in range(n_buckets)]

    def flush() -> None:
        try:
            for index, pieces in enumerate(waiting):
                if not pieces:
                    continue
                if index not in writers:
                    # Written once and read once: dictionary encoding would cost more than it saves.
                    writers[index] = pq.ParquetWriter(paths[index], pieces[0].schema, compression="lz4", use_dictionary=False)
                writers[index].write_table(pa.concat_tables(pieces), row_group_size=sum(len(t) for t in pieces))
                pieces.clear()
        except OSError as exc:
            raise OutputError(f"{Path(directory).parent}: cannot write the run's buckets there (temporary files; "
                              f"temp_dir= or --temp-dir chooses the directory): {failure_reason(exc)}") from exc

    try:
        held = 0
        for table in tables:
            query_ids = id_column(table["query_id"], field="query_id", source="<bucket>")
            order, offsets = counting_sort(bucket_of_keys(query_ids.keys, n_buckets, salt), n_buckets)
            grouped = table.take(pa.array(order))
            for index in range(n_buckets):
                start, stop = int(offsets[index]), int(offsets[index + 1])
                if stop > start:
                    waiting[index].append(grouped.slice(start, stop - start))
                    rows[index] += stop - start
            held += table.num_rows
            if held >= buffer_rows:
                flush()
                held = 0
        flush()
    finally:
        for writer in writers.values():
            writer.close()
    return [Bucket(paths[index], rows[index]) for index in sorted(writers)]
