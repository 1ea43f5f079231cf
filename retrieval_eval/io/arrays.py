"""numpy <-> Arrow for fixed-width columns, through the buffers.

pyarrow's own conversions (``Array.to_numpy``, ``pa.array(ndarray)``, a Python number as a
compute argument) import pandas the first time one runs, when pandas is installed: 0.3 s,
more than reading and scoring a small file. Reading and wrapping the buffers directly
imports nothing and copies nothing (except booleans, which Arrow packs into bits), so the
paths every evaluation takes (reading TREC text, indexing the qrels, the join) convert
with these functions.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_DTYPES = {
    pa.int8(): np.dtype(np.int8),
    pa.int16(): np.dtype(np.int16),
    pa.int32(): np.dtype(np.int32),
    pa.int64(): np.dtype(np.int64),
    pa.uint8(): np.dtype(np.uint8),
    pa.uint16(): np.dtype(np.uint16),
    pa.uint32(): np.dtype(np.uint32),
    pa.uint64(): np.dtype(np.uint64),
    pa.float32(): np.dtype(np.float32),
    pa.float64(): np.dtype(np.float64),
}
_ARROW_TYPES = {dtype: kind for kind, dtype in _DTYPES.items()}


def numpy_view(values: pa.Array | pa.ChunkedArray, *, fill: int | float | None = None) -> np.ndarray:
    """The values of an integer, floating-point or boolean Arrow column as a numpy array.

    Numbers come back read-only, without a copy when the column has one chunk; booleans are
    unpacked from their bits into a new array. A null is an error unless ``fill`` is given:
    then nulls become ``fill`` (in a new array).

    Raises
    ------
    TypeError
        The column is not of one of those types.
    ValueError
        The column has nulls and no ``fill`` was given.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if values.null_count and fill is None:
        raise ValueError(f"{values.null_count} null(s) in a column converted to numpy")
    out = _data(values)
    if values.null_count:
        out = np.where(_bits(values.buffers()[0], values.offset, len(values)), out, fill)
    return out


def arrow_array(values: np.ndarray) -> pa.Array:
    """A 1-d numpy array of integers, floats or booleans as an Arrow array without nulls.

    Numbers share the array's memory (a non-contiguous array is copied first).

    Raises
    ------
    TypeError
        The array's dtype has no Arrow counterpart here (strings, objects, non-native byte order).
    """
    kind = pa.bool_() if values.dtype == np.bool_ else _ARROW_TYPES.get(values.dtype)
    if kind is None or values.ndim != 1:
        raise TypeError(f"no Arrow array for a {values.ndim}-d numpy array of {values.dtype}")
    if kind == pa.bool_():
        data = np.packbits(values, bitorder="little")
    else:
        data = np.ascontiguousarray(values)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(data)])


def _data(values: pa.Array) -> np.ndarray:
    kind, start, count = values.type, values.offset, len(values)
    buffer = values.buffers()[1]
    if pa.types.is_boolean(kind):
        return _bits(buffer, start, count)
    dtype = _DTYPES.get(kind)
    if dtype is None:
        raise TypeError(f"no numpy view of an Arrow {kind} column")
    if buffer is None or count == 0:
        view = np.empty(0, dtype=dtype)
    else:
        # count= reads only the elements (the buffer may be longer than they are, or padded).
        view = np.frombuffer(buffer, dtype=dtype, count=start + count)[start:]
    # Arrow's memory is immutable, even where its buffer says otherwise; and numba compiles one
    # specialization per writability, so every view is read-only, empty or not.
    view.setflags(write=False)
    return view


def _bits(buffer: pa.Buffer | None, start: int, count: int) -> np.ndarray:
    """``count`` bits of an Arrow bitmap from bit ``start``, as booleans."""
    if count == 0:
        return np.zeros(0, dtype=np.bool_)
    packed = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(packed, count=start + count, bitorder="little")[start:].view(np.bool_)


def string_buffers(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """The int64 offsets (length n + 1) and UTF-8 bytes of a string column, read-only; a null reads as "".

    Row ``i`` is ``data[offsets[i]:offsets[i + 1]]``, the layout the string kernels take. One
    array's bytes are not copied; the chunks of a chunked array are joined into one buffer.
    """
    if isinstance(values, pa.ChunkedArray):
        # large_string first: joined chunks may pass the 2 GiB that int32 offsets can address.
        values = values.cast(pa.large_string()).combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if len(values) == 0:
        return read_only(np.zeros(1, dtype=np.int64)), read_only(np.empty(0, dtype=np.uint8))
    if values.null_count:
        values = values.fill_null("")
    _, offsets_buffer, data_buffer = values.buffers()
    width = np.int64 if pa.types.is_large_string(values.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=width)[values.offset : values.offset + len(values) + 1]
    if data_buffer is None:
        data = np.empty(0, dtype=np.uint8)
    else:
        data = np.frombuffer(data_buffer, dtype=np.uint8)
    return read_only(offsets.astype(np.int64, copy=width is not np.int64)), read_only(data)


def text_array(texts: list[str]) -> pa.Array:
    """Python strings as an Arrow string array (``large_string`` past 2 GiB of text), from their UTF-8 bytes.

    ``pa.array`` on a list imports pandas (to check for a Series) and costs as much as this.

    Raises
    ------
    TypeError
        An item is not a str.
    UnicodeEncodeError
        An item holds text UTF-8 cannot write (a lone surrogate).
    """
    text = "".join(texts)
    data = text.encode("utf-8")
    # In ASCII a character is a byte: only other text needs each string's bytes counted.
    sizes = map(len, texts) if len(data) == len(text) else (len(item.encode("utf-8")) for item in texts)
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(sizes, dtype=np.int64, count=len(texts)), out=offsets[1:])
    if offsets[-1] <= np.iinfo(np.int32).max:
        return pa.Array.from_buffers(pa.string(), len(texts), [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)])
    return pa.Array.from_buffers(pa.large_string(), len(texts), [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def read_only(array: np.ndarray) -> np.ndarray:
    """Mark an array read-only.

    Every array a Qrels or Run holds is read-only: nothing may change it, and numba compiles one
    specialization per writability, so mixing writable and read-only inputs would compile twice.
    """
    array.setflags(write=False)
    return array
