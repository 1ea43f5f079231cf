"""How deep JSON text nests, read off its bytes before any parser sees it.

Parsers recurse once per level of nesting: Python's json module raises ``RecursionError`` near
a thousand levels and Arrow's JSON reader overflows its stack (the process dies) near twenty
thousand. :func:`json_nesting` finds, in one pass over the bytes, where text first nests deeper
than a limit, so that a reader can refuse it with its line before parsing it.

The scan follows the bytes as a JSON lexer does, on any text, valid or not:

- a quote (``"``) delimits a string unless an odd number of backslashes precede it (a run of
  backslashes is a run of escapes); delimiters alternately open and close strings;
- outside strings, ``{`` and ``[`` open a level and ``}`` and ``]`` close one (the level may go
  below 0: that is a syntax error, which the parser meets first);
- with ``lines`` (JSON Lines), a newline ends any string and brings the level back to 0: each line
  is parsed on its own. Where a line is seen not to hold one value is reported too: a newline met
  at a level above 0 (the line leaves a value open) or a bracket that opens at level 0 after
  another bracket of the line (a second value). Such a line is no JSON Lines line, and Arrow's
  reader, which goes on parsing an open value on the next lines (deeper and deeper, whatever each
  line holds) and reads two objects on one line as two records, must not be given the text.
  Without ``lines`` the text is one document, in which a newline inside a string is a syntax error.

On text that is valid JSON up to some point, the level at each byte of that part is the
parser's recursion depth there; past the first syntax error the parser stops. So a parser
never recurses deeper than the scan found. The depth of ``{"a": [1]}`` is 2.

The compiled build reads 64 bytes at a time as eight 64-bit words, each turned into bit masks of
its quotes, backslashes, newlines and brackets without a branch per byte; then only the brackets
and newlines are visited one by one. A block that holds a backslash is read byte by byte. JSON
Lines are read in parts that start after a newline, on several threads for large inputs.
"""

from __future__ import annotations

import numpy as np

from .._config import jit, parallel_jit, prange, read_only

_QUOTE, _BACKSLASH, _NEWLINE = 0x22, 0x5C, 0x0A
# ``{`` is 0x7B and ``[`` 0x5B, ``}`` is 0x7D and ``]`` 0x5D: with bit 0x20 set, one compare finds both.
_CASE_BIT, _OPEN, _CLOSE = 0x20, 0x7B, 0x7D
_BLOCK = 64
_PARTS = 16  # parts of JSON Lines, shared among the threads of the parallel build
_ONES = np.uint64(0x0101010101010101)
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_GATHER = np.uint64(0x0102040810204080)  # the multiplier that moves bit 8k of a word to bit 56 + k
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
# The index of a word's only set bit, by the top 6 bits of its product with de Bruijn's sequence.
_LOWEST_BIT = np.zeros(64, dtype=np.int64)
_LOWEST_BIT[[(((1 << bit) * 0x03F79D71B4CB0A89) % 2**64) >> 58 for bit in range(64)]] = np.arange(64)
_LOWEST_BIT.setflags(write=False)


def _json_nesting_numpy(data: np.ndarray, limit: int, lines: bool) -> tuple[int, int, bool]:
    """The python build: the same scan over the positions of quotes, backslashes, brackets and newlines only."""
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
    newlines = np.flatnonzero(data == _NEWLINE) if lines else np.zeros(0, dtype=np.int64)
    line = np.searchsorted(newlines, brackets)  # the newlines before each bracket
    line_start = np.concatenate([[0], newlines + 1])[line]
    # A bracket is inside a string when an odd number of delimiters precede it on its line.
    outside = (np.searchsorted(quotes, brackets) - np.searchsorted(quotes, line_start)) % 2 == 0
    brackets, line = brackets[outside], line[outside]
    step = np.where(folded[brackets] == _OPEN, 1, -1)
    level = np.cumsum(step)
    first_of_line = np.searchsorted(line, line)
    level -= level[first_of_line] - step[first_of_line]
    deep = np.flatnonzero(level > limit)
    too_deep = int(brackets[deep[0]]) if deep.size else -1
    # As the compiled build, which stops at the first bracket too deep, not knowing the bytes after it.
    non_ascii = too_deep >= 0 or bool((data >= 0x80).any())
    if not lines:
        return too_deep, -1, non_ascii
    # The level at each line's end is the level after its last bracket; the last line has no newline.
    last_of_line = np.flatnonzero(np.append(line[1:] != line[:-1], True)) if line.size else line
    open_ends = last_of_line[(level[last_of_line] > 0) & (line[last_of_line] < newlines.size)]
    second = (step == 1) & (level == 1) & (np.arange(line.size) != first_of_line)
    candidates = np.concatenate([newlines[line[open_ends]], brackets[second]])
    not_one = int(candidates.min()) if candidates.size else -1
    if too_deep >= 0 and not_one > too_deep:
        not_one = -1  # the scan stops at the first bracket too deep
    return too_deep, not_one, non_ascii


@jit
def _byte_bits(x: np.uint64) -> np.uint64:
    """The 8-bit mask of the zero bytes of the word ``x`` (bit k: byte k)."""
    zero = ~(((x & _LOW7) + _LOW7) | x | _LOW7)  # the high bit of each byte that is 0, exactly
    return ((zero >> np.uint64(7)) * _GATHER) >> np.uint64(56)


@jit
def _block_bits(words: np.ndarray, first: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """For the 8 words from ``first``: 64-bit masks (bit i: byte i) of the quotes, newlines, opening and
    closing brackets; a word nonzero where there is a backslash; and the words or-ed together."""
    slashes = quotes = newlines = opens = closes = high = np.uint64(0)
    case = np.uint64(_CASE_BIT) * _ONES
    for k in range(8):
        word = words[first + k]
        folded = word | case
        shift = np.uint64(8 * k)
        slash = word ^ (np.uint64(_BACKSLASH) * _ONES)
        slashes |= (slash - _ONES) & ~slash & ~_LOW7  # nonzero if some byte is 0 (which, is not needed)
        quotes |= _byte_bits(word ^ (np.uint64(_QUOTE) * _ONES)) << shift
        newlines |= _byte_bits(word ^ (np.uint64(_NEWLINE) * _ONES)) << shift
        opens |= _byte_bits(folded ^ (np.uint64(_OPEN) * _ONES)) << shift
        closes |= _byte_bits(folded ^ (np.uint64(_CLOSE) * _ONES)) << shift
        high |= word
    return slashes, quotes, newlines, opens, closes, high


@jit
def _prefix_parity(mask: np.uint64) -> np.uint64:
    """Bit i: the parity of the set bits of ``mask`` at 0..i."""
    for shift in (1, 2, 4, 8, 16, 32):
        mask ^= mask << np.uint64(shift)
    return mask


@parallel_jit(
    example=lambda: (read_only(list(b'{"a": [1]}'), np.uint8), 64, True),
    python=_json_nesting_numpy,
    # A unit of work per 8-byte word read: the parallel build from 16 MB, where its threads pay (a 60 MB run
    # file: 25 ms serial, 13 ms parallel on 2 cores); the python build below about 800 kB.
    work=lambda data, limit, lines: data.shape[0] // 8,
)
def json_nesting(data: np.ndarray, limit: int, lines: bool) -> tuple[int, int, bool]:
    """Where ``data`` (UTF-8 bytes) first nests too deep and, for JSON Lines, where a line first holds not one value.

    Returns the position of the first ``{`` or ``[`` that opens level ``limit + 1`` (-1 if none);
    with ``lines``, the first position before it where a line is seen not to hold one value (-1 if
    none; always -1 without ``lines``), as the module docstring says; and whether ``data`` may hold
    a byte above 0x7F (true when the scan stopped at a bracket too deep): if not, it is ASCII, so
    valid UTF-8 without another look.
    """
    n = data.shape[0]
    # JSON Lines are scanned in parts that start after a newline, each on its own (lines are independent).
    parts = _PARTS if lines else 1
    bounds = np.empty(parts + 1, dtype=np.int64)
    bounds[0], bounds[parts] = 0, n
    for part in range(1, parts):
        at = min(max(bounds[part - 1], n * part // parts), n)
        while 0 < at < n and data[at - 1] != _NEWLINE:
            at += 1
        bounds[part] = at
    found = np.empty((parts, 3), dtype=np.int64)
    for part in prange(parts):
        deep, not_one, non_ascii = _scan(data[bounds[part] : bounds[part + 1]], limit, lines)
        shift = bounds[part]
        found[part, 0] = deep + shift if deep >= 0 else -1
        found[part, 1] = not_one + shift if not_one >= 0 else -1
        found[part, 2] = non_ascii
    deep, not_one, non_ascii = -1, -1, False
    for part in range(parts):
        if not_one < 0:
            not_one = found[part, 1]
        non_ascii = non_ascii or found[part, 2] == 1
        if found[part, 0] >= 0:
            return found[part, 0], not_one, True
    return deep, not_one, non_ascii


@jit
def _scan(data: np.ndarray, limit: int, lines: bool) -> tuple[int, int, bool]:
    """:func:`json_nesting` of ``data`` in one part, read 64 bytes at a time (see the module docstring)."""
    n = data.shape[0]
    whole = n - n % _BLOCK
    words = data[:whole].view(np.uint64)
    level = 0
    in_string = False
    backslashes = 0
    not_one = -1
    bracketed = False  # a bracket met on the line
    high = np.uint64(0)  # the bytes read, or-ed together
    start = 0
    while start < n:
        if start < whole:
            slashes, quotes, newlines, opens, closes, block_high = _block_bits(words, start // 8)
            high |= block_high
        if start < whole and slashes == 0:
            # No backslash in the block: a quote is escaped only as its first byte, after the last block's run.
            if backslashes % 2 == 1:
                quotes &= ~np.uint64(1)
            backslashes = 0
            if not lines:
                newlines = np.uint64(0)
            # Bit i of inside: byte i is within a string (a quote counts with what follows it).
            inside = _prefix_parity(quotes)
            if in_string:
                inside = ~inside
            events = newlines | ((opens | closes) & ~inside)
            while events != 0:
                low = events & (~events + np.uint64(1))
                bit = _LOWEST_BIT[(low * _DE_BRUIJN) >> np.uint64(58)]
                events ^= low
                if newlines & low:
                    if level > 0 and not_one < 0:
                        not_one = start + bit
                    level = 0
                    bracketed = False
                    # The string state restarts after the newline: flip the parity above it if it is inside.
                    if inside & low:
                        inside ^= ~np.uint64(0) << np.uint64(bit)
                        events = (events & newlines) | ((opens | closes) & ~inside & ~((low << np.uint64(1)) - np.uint64(1)))
                elif opens & low:
                    if lines and level == 0 and bracketed and not_one < 0:
                        not_one = start + bit
                    level += 1
                    bracketed = True
                    if level > limit:
                        return start + bit, not_one, True
                else:
                    level -= 1
                    bracketed = True
            in_string = (inside >> np.uint64(63)) & np.uint64(1) == 1
            start += _BLOCK
            continue
        stop = min(start + _BLOCK, n)
        for i in range(start, stop):
            byte = data[i]
            high |= np.uint64(byte)
            if byte == _BACKSLASH:
                backslashes += 1
                continue
            if byte == _QUOTE:
                if backslashes % 2 == 0:
                    in_string = not in_string
            elif lines and byte == _NEWLINE:
                if level > 0 and not_one < 0:
                    not_one = i
                in_string = False
                level = 0
                bracketed = False
            elif not in_string:
                folded = byte | _CASE_BIT
                if folded == _OPEN:
                    if lines and level == 0 and bracketed and not_one < 0:
                        not_one = i
                    level += 1
                    bracketed = True
                    if level > limit:
                        return i, not_one, True
                elif folded == _CLOSE:
                    level -= 1
                    bracketed = True
            backslashes = 0
        start = stop
    return -1, not_one, (high & (np.uint64(0x80) * _ONES)) != 0
