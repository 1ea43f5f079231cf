"""The context ids of ragas samples as the library's Qrels and Run, so that every measure of the registry scores them.

Each sample is a query (its ``id`` where the samples have one, else its 1-based row number); its
distinct retrieved context ids (``str(id)``, as ragas compares them) are the run, ranked in the order
first retrieved (scores n, n-1, ..., 1); its distinct reference context ids are the qrels, each
with relevance 1. Then ``set_precision`` and ``set_recall`` equal ragas' ID-based precision and
recall on every sample that retrieved something and has references (a sample without references
is no query of the qrels; one that retrieved nothing is left out by the default query set, and
scores 0 under ``query_set="qrels"`` where ragas' precision is NaN), and ``ndcg@k``, ``recall@k``,
``mrr``... rank the retrieved contexts too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..data.qrels import Qrels
from ..data.run import Run
from ..io.arrays import arrow_array
from ..io.context_rows import Lists, read_context_rows
from .samples import REFERENCE_IDS, RETRIEVED_IDS


def samples_as_qrels_run(samples: Any) -> tuple[Qrels, Run]:
    """(Qrels, Run) of the samples' ``reference_context_ids`` and ``retrieved_context_ids`` (see the module docstring)."""
    rows = read_context_rows(samples, {RETRIEVED_IDS: (RETRIEVED_IDS, "ids"), REFERENCE_IDS: (REFERENCE_IDS, "ids")})
    queries = next(iter(rows.ids.values()), None)
    query_ids = queries.combine_chunks() if queries is not None else arrow_array(np.arange(1, rows.num_rows + 1))
    retrieved_query, retrieved_ids, rank = _distinct(rows.lists[RETRIEVED_IDS])
    reference_query, reference_ids, _ = _distinct(rows.lists[REFERENCE_IDS])
    # First retrieved ranks first: within each sample, the score counts down from its number of distinct ids.
    counts = np.bincount(retrieved_query, minlength=rows.num_rows)
    run = pa.table({"query_id": query_ids.take(arrow_array(retrieved_query)), "doc_id": retrieved_ids,
                    "score": arrow_array((counts[retrieved_query] - rank).astype(np.float64))})  # fmt: skip
    qrels = pa.table({"query_id": query_ids.take(arrow_array(reference_query)), "doc_id": reference_ids,
                      "relevance": arrow_array(np.ones(len(reference_query), dtype=np.int64))})  # fmt: skip
    return Qrels(qrels, source=rows.source), Run(run, source=rows.source)


def _distinct(lists: Lists) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """Per sample, its distinct ids in the order first listed: (sample of each, the id as text, rank among them)."""
    texts = lists.values.cast(pa.large_string())
    codes = np.asarray(pc.dictionary_encode(texts).indices, dtype=np.int64)
    width = int(codes.max()) + 1 if codes.size else 1
    sample = np.repeat(np.arange(len(lists)), lists.lengths)
    _, first = np.unique(sample * width + codes, return_index=True)
    first.sort()  # by sample, then by first position within it
    kept = sample[first]
    starts = np.searchsorted(kept, np.arange(len(lists)))
    rank = np.arange(len(first)) - starts[kept]
    return kept, texts.take(arrow_array(first)), rank
