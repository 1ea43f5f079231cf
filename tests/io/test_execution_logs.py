"""The raw reading of execution logs: which Arrow types are read as they are."""

import pyarrow as pa
import pytest

from retrieval_eval.io import execution_logs as raw

_EXTRACTS = pa.list_(raw._EXTRACT)


@pytest.mark.parametrize(
    ("actual", "expected", "fits"),
    [
        (pa.large_string(), raw._TEXT, True), (pa.null(), raw._TEXT, True), (pa.binary(), raw._TEXT, False),
        (pa.int32(), raw._INTEGER, True), (pa.uint32(), raw._INTEGER, True), (pa.uint64(), raw._INTEGER, False),
        (pa.float64(), raw._INTEGER, False), (pa.int8(), raw._NUMBER, True), (pa.float32(), raw._NUMBER, True),
        (pa.float16(), raw._NUMBER, False), (pa.bool_(), raw._NUMBER, False), (pa.decimal128(5, 2), raw._NUMBER, False),
        (pa.string(), raw._NUMBER, False), (pa.null(), _EXTRACTS, False), (pa.list_(pa.string()), _EXTRACTS, False),
        (pa.large_list(pa.struct([("text", pa.string()), ("other", pa.binary())])), _EXTRACTS, True),
        (pa.list_(pa.struct([("text", pa.int64())])), _EXTRACTS, False),
        (pa.struct([("x", pa.int8())]), pa.struct([]), True),
    ],
)  # fmt: skip
def test_which_types_arrow_reads(actual, expected, fits):
    """Arrow reads a column only where the models would take each of its values as they are."""
    assert raw._fits(actual, expected) is fits
