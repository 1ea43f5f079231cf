"""Column helpers of the batch checks: index expansion, parent offsets, lists from (owner, value) pairs.

Every function works on whole columns (numpy arrays and Arrow arrays); none loops in Python over
rows. Integer arrays handed to kernels are int64 and read-only, so that each kernel compiles once.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...data.ids import read_only
from ...errors import InputError
from ...kernels.text.contains import contains_pairs
from .casefold import casefold, string_buffers


class Folded:
    """A string column's casefolded buffers (offsets, bytes), as the kernels take them."""

    def __init__(self, buffers: tuple[np.ndarray, np.ndarray]) -> None:
        self.buffers = buffers

    @classmethod
    def of(cls, values: pa.Array | pa.ChunkedArray) -> Folded:
        """The casefolded buffers of ``values`` (see :mod:`.casefold`)."""
        return cls(string_buffers(casefold(values)))

    @classmethod
    def empty(cls) -> Folded:
        """No strings."""
        return cls(string_buffers(pa.array([], pa.large_string())))


class TermLists:
    """A ``list<string>`` column of the plan: each row's terms are ``values[starts[r]:starts[r] + lengths[r]]``."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        array = column.combine_chunks()
        self.values = array.values
        self.starts = array.offsets.to_numpy()[:-1].astype(np.int64)
        self.lengths = integers(pc.list_value_length(array))
        self._folded: Folded | None = None

    def all_of(self, rows: np.ndarray) -> tuple[np.ndarray, pa.Array]:
        """The terms of ``rows`` in order, with the row of each."""
        owner, term = expand(self.starts[rows], self.lengths[rows])
        return rows[owner], self.values.take(term)

    def pairs(
        self, row: np.ndarray, queries: Folded, query: np.ndarray, *, contained: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """The (matched query, term) pairs where the term is ``contained`` in the query or not.

        Matched query ``k`` is ``query[k]``, of check ``row[k]``; the pairs come as the indices
        ``k`` and the terms' indices into ``values``, in ``k`` then term order.
        """
        owner, term = expand(self.starts[row], self.lengths[row])
        if self._folded is None:
            self._folded = Folded.of(self.values)
        inside = contains_pairs(*queries.buffers, read_only(query[owner]), *self._folded.buffers, read_only(term))
        keep = inside if contained else ~inside
        return owner[keep], term[keep]


def sorted_unique(owner: np.ndarray, values: pa.Array, rows: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Of the (owner, value) pairs of the ``rows`` owners: each owner's distinct values in code point order.

    Arrow sorts strings by their UTF-8 bytes, which is code point order, as Python's ``sorted``.
    """
    keep = rows[owner]
    table = pa.table({"owner": owner[keep], "value": values.filter(keep)})
    table = table.take(pc.sort_indices(table, sort_keys=[("owner", "ascending"), ("value", "ascending")]))
    owner, values = table.column("owner").to_numpy(), table.column("value").combine_chunks()
    first = np.ones(len(owner), dtype=bool)
    if len(owner) > 1:
        same = booleans(pc.equal(values.slice(1), values.slice(0, len(owner) - 1)))
        first[1:] = (owner[1:] != owner[:-1]) | ~same
    return owner[first], values.filter(first)


def first_per_row(row: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Of ``positions`` (ascending, into ``row``, which is ascending), the first of each row."""
    owners = row[positions]
    first = np.ones(len(positions), dtype=bool)
    first[1:] = owners[1:] != owners[:-1]
    return positions[first]


def lists(
    n: int, owner: np.ndarray, values: pa.Array | pa.ChunkedArray, rows: np.ndarray, kind: pa.DataType
) -> pa.Array:
    """``n`` lists: list ``i`` holds the values whose owner is ``i``, in their order; null where ``rows`` is False."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if np.any(owner[1:] < owner[:-1]):
        values = values.take(pa.array(np.argsort(owner, kind="stable")))
    offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n))]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), values.cast(kind.value_type), type=kind, mask=pa.array(~rows))


def take(values: pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """``values[indices]`` as one array, taken chunk by chunk (Arrow's own take joins all the chunks first)."""
    bounds = np.cumsum([0] + [len(chunk) for chunk in values.chunks])
    chunk = np.searchsorted(bounds, indices, side="right") - 1
    order = np.argsort(chunk, kind="stable")
    parts = [
        values.chunk(k).take(pa.array(indices[order][chunk[order] == k] - bounds[k]))
        for k in np.unique(chunk)
    ]
    grouped = pa.concat_arrays(parts) if parts else pa.array([], values.type)
    return grouped.take(pa.array(np.argsort(order)))


def expand(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs ``(i, starts[i] + k)`` with ``0 <= k < counts[i]``, in ``i`` then ``k`` order, as two arrays."""
    owners = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    shift = np.repeat(np.cumsum(counts) - counts - starts, counts)
    return owners, np.arange(len(owners), dtype=np.int64) - shift


def parent_offsets(parents: pa.ChunkedArray, n_parents: int, field: str) -> np.ndarray:
    """Where each parent's rows are, ``offsets[p]:offsets[p + 1]``, from the parent index of each row.

    Raises InputError (naming ``field``) unless the indices are in range and in parent order.
    """
    parent = integers(parents)
    if parent.size and (parent.min() < 0 or parent.max() >= n_parents or np.any(parent[1:] < parent[:-1])):
        raise InputError(f"parent indices must be in 0..{n_parents - 1} and in parent order", field=field)
    return read_only(np.concatenate([[0], np.cumsum(np.bincount(parent, minlength=n_parents))]).astype(np.int64))


def codes(values: pa.ChunkedArray, vocabulary: pa.Array) -> np.ndarray:
    """Each value's position in ``vocabulary`` (-1: absent)."""
    return integers(pc.fill_null(pc.index_in(values, value_set=vocabulary), -1))


def integers(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An integer column as int64, read-only (as every array the kernels take); a null reads as 0."""
    return read_only(np.array(pc.fill_null(values, 0).to_numpy(), dtype=np.int64))


def booleans(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean column as numpy; a null reads as False."""
    filled = pc.fill_null(values, False)
    if isinstance(filled, pa.ChunkedArray):
        filled = filled.combine_chunks()
    return filled.to_numpy(zero_copy_only=False)
