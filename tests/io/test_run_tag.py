"""A run's tag is the last data line's, as trec_eval prints it for runid (get_trec_results.c keeps
the tag of every line it parses, so the last one wins when the lines disagree)."""

from __future__ import annotations

import gzip

import pytest

from retrieval_eval.io import trec_run_tag


def _oracle(text: str) -> str | None:
    """The definition, line by line from the start: the tag of the last non-blank, non-comment line."""
    tag = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            tag = fields[5] if len(fields) >= 6 else None
    return tag


@pytest.mark.parametrize(
    "text",
    [
        "1 Q0 a 1 2 first\n1 Q0 b 2 1 second\n",
        "1 Q0 a 1 2 first\n1 Q0 b 2 1 second\n# trailing comment\n\n   \n",
        "1 Q0 a 1 2 first\r\n1 Q0 b 2 1 last extra words\r\n",
        "1 Q0 a 1 2 first\r1 Q0 b 2 1 cr\r",
        "# only comments\n",
        "1 Q0 a 1 2 tag\n1 Q0 b\n",
    ],
)
@pytest.mark.parametrize("compressed", [False, True])
def test_the_tag_of_the_last_data_line(tmp_path, text, compressed):
    path = tmp_path / ("run.gz" if compressed else "run")
    path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    assert trec_run_tag(path) == _oracle(text)


@pytest.mark.parametrize("size", [65_536 - 7, 65_536, 65_536 + 5, 200_003])
def test_a_last_line_across_the_blocks_read_from_the_end(tmp_path, size):
    # The file is read backwards 64 KiB at a time: put the last line's start on either side.
    last = "2 Q0 z 9 0.5 the_last_tag\r\n"
    head = "1 Q0 a 1 2 early\n"
    filler = head * ((size - len(last)) // len(head) + 1)
    text = filler[: size - len(last) - 1] + "\n" + last + "\n# c\n"
    path = tmp_path / "run"
    path.write_text(text)
    assert trec_run_tag(path) == _oracle(text) == "the_last_tag"
