"""How deep JSON text nests, read off its bytes before any parser sees it.

Parsers recurse once per level of nesting: Python's json module raises ``RecursionError`` near
a thousand levels and Arrow's JSON reader overflows its stack (the process dies) near twenty
thousand. :func:`first_too_deep` finds, in one pass over the bytes, where text first nests
deeper than a limit, so that a reader can refuse it with its line before parsing it.

The scan follows the bytes as a JSON lexer does, on any text, valid or not:

- a quote (``"``) delimits a string unless an odd number of backslashes precede it (a run of
  backslashes is a run of escapes); delimiters alternately open and close strings;
- outside strings, ``{`` and ``[`` open a level and ``}`` and ``]`` close one, never below 0 (a
  close at level 0 is a syntax error, which the parser meets first);
- with ``lines`` (JSON Lines), a newline ends any string, as a parser of lines (or Arrow's reader,
  which assumes no newline in a value) starts each line outside strings. The level does not go back
  to 0 at a newline: Arrow's reader parses a value across lines, so a level left open by one line
  counts on the next (for valid JSON Lines every line ends at level 0 anyway). Without ``lines``
  the text is one document, in which a newline inside a string is a syntax error.

On text that is valid JSON up to some point, the level at each byte of that part is the
parser's recursion depth there; past the first syntax error the parser stops. So a parser
never recurses deeper than the scan found. The depth of ``{"a": [1]}`` is 2.
"""

from __future__ import annotations

import numpy as np

from ._config import jit, read_only

_QUOTE, _BACKSLASH, _NEWLINE = 0x22, 0x5C, 0x0A
# ``{`` is 0x7B and ``[`` 0x5B, ``}`` is 0x7D and ``]`` 0x5D: with bit 0x20 set, one compare finds both.
_CASE_BIT, _OPEN, _CLOSE = 0x20, 0x7B, 0x7D


def _first_too_deep_numpy(data: np.ndarray, limit: int, lines: bool) -> int:
    """The python build: the same scan over the positions of quotes, backslashes and brackets only."""
    quotes = np.flatnonzero(data == _QUOTE)
    slashes = np.flatnonzero(data == _BACKSLASH)
    if quotes.size and slashes.size:
        # The run of backslashes that ends just before each quote: its length is the distance from
        # the run's first backslash.
        starts_run = np.ones(slashes.size, dtype=np.bool_)
        starts_run[1:] = np.diff(slashes) != 1
        run_first = np.maximum.accumulate(np.where(starts_run, np.arange(slashes.size), 0))
        last = np.searchsorted(slashes, quotes) - 1
        adjacent = (last >= 0) & (slashes[np.maximum(last, 0)] == quotes - 1)
        run = np.where(adjacent, last - run_first[np.maximum(last, 0)] + 1, 0)
        quotes = quotes[run % 2 == 0]
    folded = data | _CASE_BIT
    brackets = np.flatnonzero((folded == _OPEN) | (folded == _CLOSE))
    if brackets.size == 0:
        return -1
    if lines:
        newlines = np.flatnonzero(data == _NEWLINE)
        line = np.searchsorted(newlines, brackets)  # newlines before each bracket
        line_start = np.concatenate([[0], newlines + 1])[line]
    else:
        line_start = np.zeros(brackets.size, dtype=np.int64)
    # A bracket is inside a string when an odd number of delimiters precede it on its line.
    inside = (np.searchsorted(quotes, brackets) - np.searchsorted(quotes, line_start)) % 2 == 1
    step = np.where(folded[brackets] == _OPEN, 1, -1)
    step[inside] = 0
    # The level that never goes below 0 is the running sum less its lowest point so far (0 before any bracket).
    total = np.cumsum(step)
    level = total - np.minimum(np.minimum.accumulate(total), 0)
    deep = np.flatnonzero(level > limit)
    return int(brackets[deep[0]]) if deep.size else -1


@jit(
    example=lambda: (read_only(list(b'{"a": [1]}'), np.uint8), 64, True),
    python=_first_too_deep_numpy,
    # About one JSON Lines record per 64 bytes: the rows of work ``auto`` mode weighs.
    work=lambda data, limit, lines: data.shape[0] // 64,
)
def first_too_deep(data: np.ndarray, limit: int, lines: bool) -> int:
    """The position of the first ``{`` or ``[`` of ``data`` (UTF-8 bytes) that opens level ``limit + 1``; -1 if none.

    Levels are counted as the module docstring says; ``lines``: JSON Lines.
    """
    level = 0
    in_string = False
    backslashes = 0
    for i in range(data.shape[0]):
        byte = data[i]
        if byte == _BACKSLASH:
            backslashes += 1
            continue
        if byte == _QUOTE:
            if backslashes % 2 == 0:
                in_string = not in_string
        elif lines and byte == _NEWLINE:
            in_string = False
        elif not in_string:
            folded = byte | _CASE_BIT
            if folded == _OPEN:
                level += 1
                if level > limit:
                    return i
            elif folded == _CLOSE and level > 0:
                level -= 1
        backslashes = 0
    return -1
