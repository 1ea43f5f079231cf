"""Text files built from whole columns: the rows of several string columns joined, and their bytes.

No Python object per row: Arrow joins the columns element-wise and the file's bytes are the joined
array's data buffer.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from .arrays import string_buffers, text_array


def join_text(pieces: list[pa.Array | pa.ChunkedArray | str], separator: str) -> pa.Array | pa.ChunkedArray:
    """Row i: the pieces' row i (a ``str`` piece: the same text on every row) joined by ``separator``.

    Every piece is taken as ``large_string`` first: Arrow's join has no kernel for a mix of
    ``string`` and ``large_string`` (what pandas and pandas-written parquet give), and the
    joined rows may pass the 2 GiB that ``string`` offsets address.
    """
    text = pa.large_string()
    arguments = [text_scalar(piece) if isinstance(piece, str) else piece.cast(text) for piece in pieces]
    return pc.binary_join_element_wise(*arguments, text_scalar(separator))


def text_scalar(value: str) -> pa.Scalar:
    """``value`` as a ``large_string`` scalar; ``pa.scalar`` (and compute functions given a Python value) would
    import pandas, to check for pandas objects: a one-row array's value does not."""
    return text_array([value]).cast(pa.large_string())[0]


def text_bytes(lines: pa.Array) -> bytes:
    """The characters of a string array one after the other, as UTF-8 bytes (its data buffer, no Python object per row)."""
    if len(lines) == 0:
        return b""
    offsets, data = string_buffers(lines)
    return data[offsets[0] : offsets[-1]].tobytes()
