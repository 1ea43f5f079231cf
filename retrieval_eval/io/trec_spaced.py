"""The fast path of TREC text: a file whose fields are separated by single spaces, read by Arrow's CSV reader.

Almost every qrels and run file is written so (``write_trec``, trec_eval's own test files,
every track's submissions). Arrow's CSV reader splits such a file into columns with several
threads, in about half the time that splitting lines at runs of whitespace takes. The fast path
is taken only when it cannot read a file differently from the general reader in
:mod:`retrieval_eval.io.trec`:

- no tab, vertical tab or form feed (other whitespace that separates fields), and no ``#``
  (which may start a comment);
- every line has exactly the layout's number of fields, and no field is empty (two spaces in a
  row, or a space at either end of a line), so one space is exactly a run of whitespace;
- the kept fields parse (labels, scores) and there is at least one line;
- the file is large enough for the reader's threads to pay (:data:`SMALLEST`): below that the
  general reader's one numpy split of the lines is faster than starting them.

Anything else, including every malformed file, goes to the general reader, which reports the
error on its line; blank lines, which both skip, are the only lines the CSV reader drops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from retrieval_eval.errors import InputError
from retrieval_eval.io.lines import source_size
from retrieval_eval.io.sources import Source, read_all

if TYPE_CHECKING:
    from retrieval_eval.io.trec_layout import TrecLayout

_OTHER_SEPARATORS_OR_COMMENTS = (b"\t", b"\x0b", b"\x0c", b"#")
#: Bytes (as stored) below which a file goes to the general reader: the README's sample scored 0.03 s
#: slower through Arrow's CSV reader than through the general one.
SMALLEST = 1 << 20


def read_single_spaced(src: Source, layout: TrecLayout) -> pa.Table | None:
    """The layout's kept fields (a table, as :func:`retrieval_eval.io.trec.read_trec` returns it), or None.

    None when the file is not single-spaced as the module docstring says: the caller reads it
    with the general reader then.
    """
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv  # here, not at import: only TREC text needs it

    if not src.gzip and source_size(src) < SMALLEST:
        return None
    data = read_all(src)
    raw = data.to_pybytes()
    if any(raw.find(byte) >= 0 for byte in _OTHER_SEPARATORS_OR_COMMENTS):
        return None
    names = [f"field{i}" for i in range(layout.fields)]
    read = pa_csv.ReadOptions(column_names=names, block_size=4 << 20)
    parse = pa_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False)
    convert = pa_csv.ConvertOptions(column_types={name: pa.string() for name in names}, strings_can_be_null=False)
    try:
        table = pa_csv.read_csv(pa.BufferReader(raw), read, parse, convert)
    except pa.ArrowInvalid:  # a line of another field count, or text that is not UTF-8
        return None
    if table.num_rows == 0 or any(pc.min(pc.binary_length(table.column(i))).as_py() == 0 for i in range(layout.fields)):
        return None
    columns = []
    for position, name, _, parse_text in layout.keep:
        field = table.column(position)
        try:
            columns.append(field if parse_text is None else parse_text(field, source=src.label, field=name))
        except InputError:
            return None
    return pa.Table.from_arrays(columns, names=[name for _, name, _, _ in layout.keep])
