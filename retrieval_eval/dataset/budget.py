"""The memory budget of a streamed evaluation, and how many run rows fit in it at once."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import ConfigError

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1 << 20,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1 << 30,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1 << 40,
}
_SIZE = re.compile(r"^\s*(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]*)\s*$", re.IGNORECASE)

#: The budget when none is given.
DEFAULT_BUDGET = "1GiB"
#: The smallest budget accepted: below it the fixed costs (one batch, the output buffers) dominate.
MIN_BUDGET = 64 << 20

#: Working memory of scoring one run row beyond its Arrow bytes, measured on runs with string
#: ids (benchmarks/bench_scale.py): id hashes and int64 offsets, the grouping order, scores,
#: the ranked labels, and the transient copies the join makes. Bytes per row.
SCORING_OVERHEAD_PER_ROW = 160
#: The Arrow bytes of a chunk exist twice while it is scored (its batches, then the combined table).
ARROW_COPIES = 2


def parse_memory_budget(budget: int | str) -> int:
    """A budget in bytes from an int or a size such as ``"1GiB"``, ``"512MB"``, ``"2g"``.

    Units: B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB (powers of 1024); K/M/G/T alone
    mean the decimal units.
    """
    if isinstance(budget, bool):
        raise ConfigError(f"memory budget must be a size such as '1GiB', got {budget!r}")
    if isinstance(budget, int):
        size = budget
    else:
        match = _SIZE.match(str(budget))
        unit = match["unit"].lower() if match else None
        if match is None or unit not in _UNITS:
            raise ConfigError(f"memory budget must be a size such as '1GiB' or '512MB', got {budget!r}")
        size = int(float(match["number"]) * _UNITS[unit])
    if size < MIN_BUDGET:
        raise ConfigError(f"memory budget must be at least {MIN_BUDGET >> 20} MiB, got {size} bytes")
    return size


@dataclass(frozen=True)
class ChunkSizing:
    """How many run rows are read per batch and scored per chunk within a budget (bytes).

    ``bucket_batch_rows``: rows per batch while partitioning into buckets, where batches are
    larger (each is split into one row group per bucket, and small row groups are slow to write).
    """

    chunk_rows: int
    batch_rows: int
    bucket_batch_rows: int

    @classmethod
    def within(cls, budget: int, reserved: int, arrow_bytes_per_row: float) -> "ChunkSizing":
        """Rows that fit in ``budget - reserved`` bytes, at ``arrow_bytes_per_row`` bytes per row as read.

        Raises
        ------
        ConfigError
            ``reserved`` (the qrels) leaves less than half the budget for the run.
        """
        available = budget - reserved
        if available < budget // 2:
            raise ConfigError(
                f"the qrels take {reserved / 2**20:.0f} MiB of the {budget / 2**20:.0f} MiB memory budget, "
                "leaving too little for the run; raise the memory budget"
            )
        per_row = ARROW_COPIES * arrow_bytes_per_row + SCORING_OVERHEAD_PER_ROW
        chunk_rows = max(1, math.floor(available / per_row))
        return cls(
            chunk_rows=chunk_rows,
            batch_rows=max(1, min(chunk_rows // 4, 1 << 18)),
            bucket_batch_rows=max(1, min(chunk_rows // 4, 1 << 21)),
        )
