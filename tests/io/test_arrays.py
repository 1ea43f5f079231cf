"""numpy <-> Arrow through the buffers, checked against pyarrow's own conversions."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.io.arrays import arrow_array, numpy_view

NUMERIC = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


@pytest.mark.parametrize("dtype", NUMERIC)
def test_numbers_are_viewed_as_pyarrow_converts_them(dtype):
    array = pa.array(np.arange(20).astype(dtype))
    for piece in (array, array.slice(3), array.slice(5, 7), array.slice(20)):
        view = numpy_view(piece)
        expected = piece.to_numpy()
        assert view.dtype == expected.dtype
        np.testing.assert_array_equal(view, expected)
        assert not view.flags.writeable  # a view of Arrow memory must not be written through


@given(
    st.lists(st.booleans(), max_size=70),
    st.integers(min_value=0, max_value=70),
    st.integers(min_value=0, max_value=70),
)
def test_booleans_at_any_bit_offset(values, start, length):
    # Arrow packs booleans into bits: a slice may start in the middle of a byte.
    piece = pa.array(values, pa.bool_()).slice(start, length)
    view = numpy_view(piece)
    assert view.dtype == np.bool_
    assert view.tolist() == piece.to_pylist()


def test_chunked_columns_are_concatenated():
    column = pa.chunked_array([pa.array([1, 2]), pa.array([], pa.int64()), pa.array([3])])
    assert numpy_view(column).tolist() == [1, 2, 3]
    assert numpy_view(pa.chunked_array([], pa.float64())).dtype == np.float64
    assert numpy_view(pa.chunked_array([pa.array([4.5])])).tolist() == [4.5]


def test_nulls_are_an_error_unless_filled():
    array = pa.array([7, None, 9, None], pa.int32())
    with pytest.raises(ValueError, match="2 null"):
        numpy_view(array)
    assert numpy_view(array, fill=-1).tolist() == [7, -1, 9, -1]
    assert numpy_view(array.slice(1), fill=-1).tolist() == [-1, 9, -1]
    # pc.index_in gives a null for each needle that is absent.
    found = pc.index_in(pa.array(["b", "x", "a"]), value_set=pa.array(["a", "b"]))
    assert numpy_view(found, fill=-1).tolist() == [1, -1, 0]


def test_columns_without_a_numpy_view_are_refused():
    with pytest.raises(TypeError, match="string"):
        numpy_view(pa.array(["a"]))
    with pytest.raises(TypeError, match="timestamp"):
        numpy_view(pa.array([1], pa.timestamp("s")))


@pytest.mark.parametrize("dtype", [*NUMERIC, "bool"])
def test_arrow_array_matches_pa_array(dtype):
    values = (np.arange(11) % 3).astype(dtype)
    for piece in (values, values[::2], values[4:], values[:0]):
        array = arrow_array(piece)
        assert array.equals(pa.array(piece))
        assert array.null_count == 0


def test_arrow_array_refuses_what_arrow_would_not_share():
    with pytest.raises(TypeError):
        arrow_array(np.array(["a"]))
    with pytest.raises(TypeError):
        arrow_array(np.zeros((2, 2)))
    with pytest.raises(TypeError):
        arrow_array(np.arange(3, dtype=">i8" if np.little_endian else "<i8"))
