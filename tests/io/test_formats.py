"""The table of file formats: extension -> format, a compression suffix after it, any case."""

import pytest

from retrieval_eval.io.formats import TABLE_EXTENSIONS, TABLE_FORMATS, compressed_format, table_format


@pytest.mark.parametrize(("path", "expected"), [
    ("a.parquet", "parquet"), ("A.PQ", "parquet"), ("b.ndjson", "jsonl"), ("c.json", "json"), ("d.tsv", "tsv"),
    ("run.bm25.k1.0.9", None), ("qrels", None), ("a.jsonl.gz", None),
])  # fmt: skip
def test_a_table_format_is_its_last_extension(path, expected):
    assert table_format(path) == expected


@pytest.mark.parametrize(("path", "expected"), [
    ("a.jsonl.gz", ("jsonl", "gzip")), ("qrels.GZ", (None, "gzip")), ("a.csv", ("csv", None)), ("run.2024", (None, None)),
])  # fmt: skip
def test_a_compression_suffix_follows_the_format(path, expected):
    assert compressed_format(path) == expected


def test_every_extension_maps_to_its_format():
    assert all(TABLE_EXTENSIONS[extension] == name for name, extensions in TABLE_FORMATS.items() for extension in extensions)
