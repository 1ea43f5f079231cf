"""Equality of string ids never rests on the hash: with every id hashed to the same key,
grouping, duplicate resolution and the join still give the oracle's numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import evaluate
from retrieval_eval.data import ids
from tests.reference.azure_docret import reference_docret
from tests.strategies import collection, label_scale, tables

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")


def constant_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    return np.full(len(offsets) - 1, 12345, dtype=np.uint64)


@given(data=st.data(), scale=label_scale(), k=st.integers(1, 6), shuffle_seed=st.one_of(st.none(), st.integers(0, 99)))
def test_all_ids_colliding_changes_nothing(data, scale, k, shuffle_seed):
    queries = data.draw(collection(*scale, int_ids=False))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ids, "fnv1a_hashes", constant_hashes)
        qrels, run = tables(queries, shuffle_seed)
        assert (qrels.doc_ids.keys == 12345).all()
        table = evaluate(qrels, run, [f"ndcg_exp@{k}", "fidelity", "holes", f"holes@{k}", "total_retrieved_documents"],
                         label_min=scale[0], label_max=scale[1]).per_query.set_index("query_id")
    for query, (gt, ret) in queries.items():
        expected = reference_docret(gt, ret, k=k, label_min=scale[0], label_max=scale[1], azure_gains=False)
        for name in table.columns:
            got, want = float(table.loc[query, name]), expected[name]
            assert got == want or (math.isnan(got) and math.isnan(want)), (query, name, got, want)
