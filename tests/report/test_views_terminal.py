"""The terminal's primitives of views.py: the width, the escaping, tables fitted to the width, wrapped paragraphs, counts."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.views import (
    CELL_AT_LEAST,
    NARROWEST,
    PIPE_WIDTH,
    Column,
    aligned,
    count_text,
    counted,
    fit_columns,
    terminal_text,
    terminal_width,
    wrap,
)

# What a terminal acts on or reorders: C0 (with ESC, CR, BEL), DEL, C1, the bidirectional embeddings,
# overrides (U+202A-U+202E) and isolates (U+2066-U+2069).
_ACTING = {*map(chr, range(0x20)), "\x7f", *map(chr, range(0x80, 0xA0)), *map(chr, range(0x202A, 0x202F)),
           *map(chr, range(0x2066, 0x206A))}  # fmt: skip


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character of the categories a terminal could act on (Cc, Cf, Zl, Zp, Cs, Co, Cn)."""
    return any(unicodedata.category(character) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn") for character in text)


def test_every_character_a_terminal_acts_on_is_shown_as_its_escape():
    assert all(unicodedata.category(character) in ("Cc", "Cf") for character in _ACTING)
    for character in _ACTING:
        shown = terminal_text(f"q{character}1")
        assert not has_control(shown) and shown.startswith("q\\") and shown.endswith("1")
    assert terminal_text("\x1b]0;pwned\x07q1\rq2\u202etxt.exe") == "\\x1b]0;pwned\\x07q1\\rq2\\u202etxt.exe"
    assert terminal_text("C:\\runs\\bm25 «é» 東京 😀") == "C:\\runs\\bm25 «é» 東京 😀"  # printable text as it is


@given(st.text())
def test_no_escaped_text_holds_a_control_character(text):
    shown = terminal_text(text)
    assert not has_control(shown) and "\n" not in shown
    assert shown == text or not text.isprintable()


def test_the_width_is_columns_else_a_pipes(monkeypatch):
    monkeypatch.setenv("COLUMNS", "72")
    assert terminal_width() == 72
    monkeypatch.setenv("COLUMNS", "12")
    assert terminal_width() == NARROWEST
    monkeypatch.delenv("COLUMNS")
    # Under pytest's capture standard output is not a terminal.
    assert terminal_width() == PIPE_WIDTH


_cells = st.text(min_size=0, max_size=30)


@st.composite
def tables(draw):
    count = draw(st.integers(1, 8))
    rows = draw(st.integers(0, 5))
    return [Column(draw(_cells), draw(st.lists(_cells, min_size=rows, max_size=rows)), draw(st.booleans()), f"c{index}")
            for index in range(count)]  # fmt: skip


@given(tables(), st.integers(NARROWEST, 120))
def test_a_fitted_table_fits_and_keeps_its_first_column(columns, width):
    fitted, dropped = fit_columns(columns, width)
    lines = aligned(fitted)
    assert len(lines) == 1 + len(columns[0].cells)
    numbers_fit = columns[0].right is False or columns[0].width <= width
    if numbers_fit:
        assert max(map(len, lines)) <= width
    assert all(not has_control(line) for line in lines)
    assert len(fitted) + len(dropped) == len(columns)
    # The first column is kept (its cells whole or elided with "…"); the kept ones in their order; numbers never cut.
    first = columns[0]
    assert all(shown == cell or "…" in shown or shown == "" for shown, cell in zip(fitted[0].cells, first.cells))
    kept = [column for column in columns if column.name not in dropped]
    assert [f.name for f in fitted] == [c.name for c in kept] and kept[0] is first
    assert all(f.right == c.right for f, c in zip(fitted, kept))
    assert all(f.cells == c.cells for f, c in zip(fitted, kept) if c.right and f is not fitted[0])


def test_the_first_column_stays_whole_while_others_are_elided_then_dropped_in_the_order_given():
    ids = Column("doc_id", ["d" * 30, "e" * 30])
    title = Column("title", ["t" * 40, "u" * 40])
    score = Column("score", ["1.5", "0.25"], right=True)
    fitted, dropped = fit_columns([ids, title, score], 49)
    assert dropped == [] and [column.width for column in fitted] == [30, CELL_AT_LEAST, 5]
    assert fitted[1].cells[0] == "t" * 5 + "…" + "t" * 4 and fitted[2].cells == ["1.5", "0.25"]
    # The title at 10 characters does not fit 44: the last column goes, then the title takes the room.
    fitted, dropped = fit_columns([ids, title, score], 44)
    assert dropped == ["score"] and [column.width for column in fitted] == [30, 12]
    fitted, dropped = fit_columns([ids, title, score], 44, drop=[1])
    assert dropped == ["title"] and [column.header for column in fitted] == ["doc_id", "score"]
    # Nothing left to drop: the first column alone is elided, to what the numbers leave.
    fitted, dropped = fit_columns([ids, title, score], 28, drop=[1])
    assert dropped == ["title"] and [column.width for column in fitted] == [21, 5]
    assert fitted[0].cells[0] == "d" * 10 + "…" + "d" * 10


def test_a_paragraph_is_wrapped_at_words_and_escaped():
    lines = wrap("measures: trec_eval 10 (relevant: label >= 1; ties: descending doc id); queries: q\x1b1", 30)
    assert max(map(len, lines)) <= 30 and lines[0] == "measures: trec_eval 10" and lines[1].startswith("  (relevant:")
    assert lines[-1].endswith("q\\x1b1")
    assert max(map(len, wrap("x" * 100, 30))) <= 30  # a word longer than a line is cut across lines


@pytest.mark.parametrize(("count", "text"), [(0, "0"), (999, "999"), (1000, "1,000"), (1234567, "1,234,567")])
def test_counts_for_people_have_thousands_separators(count, text):
    assert count_text(count) == text
    assert counted(count, "query", "queries") == f"{text} queries"
