"""The preference kernels: the byte-order sort they rank by, and their builds (one specialization each, threads
changing nothing). Their values are checked against the oracle in tests/metrics/test_prefs*.py."""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import InputError, evaluate
from retrieval_eval.data.ids import id_column
from retrieval_eval.kernels import _config
from retrieval_eval.kernels.trec import prefs, prefs_index, prefs_ranks
from tests.metrics.test_prefs import NAMES, collections, prefs_qrels, run_table

needs_jit = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="one Python build without the JIT")
KERNELS = (prefs_index.index_preference_judgments, prefs_ranks.rank_preference_documents, prefs.preference_measures)


@given(st.lists(st.text(alphabet="aAb0é\x01 ", max_size=4), max_size=80))
def test_order_by_id_is_strcmp_order_and_stable(ids):
    column = id_column(pa.array(ids, pa.string()), field="doc_id", source="<test>")
    rows = np.arange(len(ids), dtype=np.int64)
    order = prefs_index.order_by_id(rows, column.keys, column.offsets, column.data, True)
    expected = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))  # Python's sort is stable
    assert list(order) == expected


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=60))
def test_order_by_id_orders_integers_as_their_decimal_text(ids):
    column = id_column(pa.array(ids, pa.int64()), field="doc_id", source="<test>")
    rows = np.arange(len(ids), dtype=np.int64)
    order = prefs_index.order_by_id(rows, column.keys, column.offsets, column.data, False)
    assert list(order) == sorted(range(len(ids)), key=lambda i: str(ids[i]).encode())


def score(data) -> np.ndarray:
    judgments, run = data
    result = evaluate(prefs_qrels(judgments), run_table(run), list(NAMES.values()), query_set="qrels")
    return result.per_query[list(NAMES.values())].to_numpy()


@needs_jit
@pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")
@given(collections())
def test_the_parallel_builds_give_the_serial_builds_bits(data):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(_config.MODE_VARIABLE, "compiled")
        try:
            serial = score(data)
        except InputError:  # an inconsistent group: the error, not the values, is the output
            return
        patch.setattr(_config, "SERIAL_BELOW", 0)
        parallel = score(data)
    np.testing.assert_array_equal(parallel, serial)


@needs_jit
def test_the_library_passes_the_kernels_their_examples_types(monkeypatch):
    """Each kernel compiles once, for the types compile_all compiles it for."""
    monkeypatch.setenv(_config.MODE_VARIABLE, "compiled")
    for kernel in KERNELS:
        kernel.serial(*kernel.example())
    ahead = {kernel.name: set(kernel.signatures) for kernel in KERNELS}
    judgments = {"q": [("g", "s", "a", 1.0), ("g", "t", "b", 0.0), ("h", "s", "a", 2.0), ("h", "s", "c", 1.0)]}
    for ties in ("docid", "input"):
        evaluate(prefs_qrels(judgments), run_table({"q": [("a", 1.0), ("c", 1.0)]}), ["prefs_pair"], ties=ties)
    for kernel in KERNELS:
        assert set(kernel.signatures) == ahead[kernel.name], kernel.name
