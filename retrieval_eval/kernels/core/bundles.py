"""The kernels' bundled arguments: named tuples of read-only arrays, built once per run, qrels or join.

numba takes a named tuple as one argument (its type is the tuple of its fields' types, so a
kernel compiles once per combination of dtypes and writability, as with loose arrays), and the
numpy builds unpack the same tuples. A query's slice of a padded CSR bundle is
``offsets[q] : offsets[q] + n[q]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class RunArrays(NamedTuple):
    """A run grouped by query: query q's rows are ``order[group_offsets[q] : group_offsets[q + 1]]`` (input order).

    ``keys`` (uint64) are the rows' document id keys; ``offsets``/``data`` their id bytes (string
    ids; unused for integer ids); ``scores`` (float64) their scores.
    """

    group_offsets: np.ndarray
    order: np.ndarray
    keys: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
    scores: np.ndarray


class JudgmentArrays(NamedTuple):
    """The judgment index of :func:`retrieval_eval.kernels.core.judgments.index_judgments` and the qrels' id bytes.

    Group g's distinct judged documents, sorted by key, are the slots
    ``group_offsets[g] : group_offsets[g] + n_judged[g]`` of ``rows`` (the row of first
    occurrence), ``keys`` and ``labels``.
    """

    group_offsets: np.ndarray
    rows: np.ndarray
    keys: np.ndarray
    labels: np.ndarray
    n_judged: np.ndarray
    offsets: np.ndarray
    data: np.ndarray


class JoinRule(NamedTuple):
    """How a join ranks: which repeated row wins (duplicate policy code), the tie order code and its keys.

    ``tie_keys`` (int64 per run row) are read only under ``TIES_ASCENDING_KEY``; ``is_string``:
    the ids are strings, so equal keys are confirmed on the bytes.
    """

    duplicate_policy: int
    tie_order: int
    tie_keys: np.ndarray
    is_string: bool


class QueryPairs(NamedTuple):
    """The evaluated queries: evaluated query i is run query ``run_query[i]`` and qrels query ``qrels_query[i]`` (-1: absent)."""

    run_query: np.ndarray
    qrels_query: np.ndarray


class FoundArrays(NamedTuple):
    """Where each run query's judged documents rank (:class:`retrieval_eval.data.join.JudgedRanks`).

    Run query q's retrieved judged documents are at the 0-based ``ranks`` (ascending) with
    ``labels``, slots ``offsets[q] : offsets[q] + n_found[q]``; it ranked ``n_ranked[q]`` distinct documents.
    """

    offsets: np.ndarray
    n_found: np.ndarray
    ranks: np.ndarray
    labels: np.ndarray
    n_ranked: np.ndarray


class IdealArrays(NamedTuple):
    """Each qrels query's judged labels, best first: slots ``offsets[g] : offsets[g] + n_judged[g]`` of ``labels``."""

    offsets: np.ndarray
    n_judged: np.ndarray
    labels: np.ndarray


class RankedArrays(NamedTuple):
    """Each run query's distinct documents in rank order (:class:`retrieval_eval.data.join.RankedRun`).

    Run query q's ranks ``0..n_ranked[q]-1`` are the slots ``offsets[q] + rank`` of ``labels``
    (0 when unjudged) and ``judged`` (bool); ``retrieved_rows[q]`` counts its rows, repeated
    documents included.
    """

    offsets: np.ndarray
    n_ranked: np.ndarray
    labels: np.ndarray
    judged: np.ndarray
    retrieved_rows: np.ndarray


class PreferenceLookup(NamedTuple):
    """A preference judgment index's documents sorted by id key, for the run's lookups (padded CSR over ``entry_offsets``).

    Query c's judged documents are the slots ``entry_offsets[c] : entry_offsets[c] + n_docs[c]``:
    ``rows`` (in the qrels table) and ``keys`` sorted by key, ``doc`` the document each is in
    the index's own (docno) order; ``offsets``/``data`` the qrels' id bytes.
    """

    entry_offsets: np.ndarray
    n_docs: np.ndarray
    rows: np.ndarray
    keys: np.ndarray
    doc: np.ndarray
    offsets: np.ndarray
    data: np.ndarray
