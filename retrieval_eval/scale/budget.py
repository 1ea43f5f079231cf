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
#: The smallest budget accepted: below it the fixed costs below leave next to nothing for the run.
MIN_BUDGET = 128 << 20

# What the budget covers beyond the interpreter and the imported libraries, measured with
# benchmarks/bench_scale.py on 5M- and 50M-row runs with string ids (RSS read around each step):
#: The compiled kernels, loaded on first use (serial and parallel builds): 81 MiB measured.
KERNEL_CODE = 80 << 20
#: The qrels in memory, as a multiple of ``Qrels.nbytes``: reading and indexing them leaves the
#: allocator holding more than the arrays' bytes (1.43x measured on 2M judgments).
QRELS_FOOTPRINT = 1.5
#: Working memory of scoring one run row beyond its Arrow bytes: id hashes and int64 offsets,
#: the grouping order, scores, the ranked labels, the transient copies of the join (126 B/row
#: measured between the 1 GiB and 2 GiB budgets on 50M rows). Bytes per row.
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
    def within(cls, budget: int, qrels_bytes: int, arrow_bytes_per_row: float) -> "ChunkSizing":
        """Rows that fit in the budget (bytes) beside the kernels and qrels of ``qrels_bytes``
        (``Qrels.nbytes``), at ``arrow_bytes_per_row`` bytes per run row as read.

        Raises
        ------
        ConfigError
            The kernels and the qrels leave less than an eighth of the budget for the run.
        """
        fixed = KERNEL_CODE + math.ceil(QRELS_FOOTPRINT * qrels_bytes)
        available = budget - fixed
        if available < budget // 8:
            raise ConfigError(
                f"the qrels ({QRELS_FOOTPRINT * qrels_bytes / 2**20:.0f} MiB in memory) and the compiled kernels "
                f"({KERNEL_CODE >> 20} MiB) take {fixed / 2**20:.0f} MiB of the {budget / 2**20:.0f} MiB memory "
                "budget, leaving too little for the run; raise the memory budget"
            )
        per_row = ARROW_COPIES * arrow_bytes_per_row + SCORING_OVERHEAD_PER_ROW
        chunk_rows = max(1, math.floor(available / per_row))
        return cls(
            chunk_rows=chunk_rows,
            batch_rows=max(1, min(chunk_rows // 4, 1 << 18)),
            bucket_batch_rows=max(1, min(chunk_rows // 4, 1 << 21)),
        )
