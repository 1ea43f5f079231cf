"""Azure-style rows (one record per query with nested ground truth and retrieved lists) as Qrels and Run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..io import read_azure_rows, source_label
from ..io.arrays import arrow_array, numpy_view
from .qrels import Qrels
from .run import Run


@dataclass(frozen=True, eq=False)
class AzureCollection:
    """Qrels and run from Azure rows, and every row's query id in row order (one query per row)."""

    qrels: Qrels
    run: Run
    query_ids: pa.Array


def load_azure_rows(source: Any, *, query_id_field: str = "query_id") -> AzureCollection:
    """Read Azure rows (JSONL, JSON, parquet, DataFrame, Table or list of dicts); each row is one query.

    A query id that appears on two rows is an error: their documents would silently merge.
    """
    name = source_label(source)
    rows = read_azure_rows(source, query_id_field=query_id_field)
    counts = pc.value_counts(rows.query_ids)
    repeated = counts.filter(arrow_array(numpy_view(counts.field("counts")) > 1))
    if len(repeated):
        query = repeated[0]["values"].as_py()
        positions = np.flatnonzero(pc.equal(rows.query_ids, repeated[0]["values"]).to_numpy(zero_copy_only=False))
        raise InputError(
            f"query id {query!r} appears on rows {', '.join(str(p + 1) for p in positions[:5])}; "
            "each Azure row must be a distinct query",
            source=name,
            row=int(positions[1]) + 1,
            field=query_id_field,
        )
    return AzureCollection(Qrels(rows.qrels, source=name), Run(rows.run, source=name), rows.query_ids)
