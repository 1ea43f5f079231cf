"""The join of the preference family: the judged documents of each query indexed in docno order, and where the run ranks them.

trec_eval's preference measures rank a query's documents by score descending and equal scores by
ascending docno (form_prefs_counts.c), so this family's ``"docid"`` tie order is ascending; ``"input"``
keeps input order among equal scores; ``"ranx"`` is refused (ranx has no preference measures). The
index and the ranks are described in :mod:`retrieval_eval.kernels.trec.prefs_index` and
:mod:`retrieval_eval.kernels.trec.prefs_ranks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ConfigError, InputError
from ..io.arrays import read_only
from ..kernels.core.bundles import PreferenceLookup
from ..kernels.core.tiebreak import TIES_INPUT_ORDER
from ..kernels.trec.prefs_index import index_preference_judgments
from ..kernels.trec.prefs_ranks import TIES_DOCID_ASCENDING, rank_preference_documents
from . import describe_row, duplicate_policy_code
from .join import check_tie_order

if TYPE_CHECKING:
    from . import Qrels, Run

#: The kernel code of each tie order of :data:`~retrieval_eval.policies.TIE_ORDERS` for this family.
TIE_CODES = {"docid": TIES_DOCID_ASCENDING, "input": TIES_INPUT_ORDER}


@dataclass(frozen=True, eq=False)
class PreferenceJudgments:
    """A query's judgments as the preference kernels read them (padded CSR over ``entry_offsets``).

    Per judgment: ``group`` and ``subgroup`` codes, ``level``, ``doc`` (its document among the
    query's, which are in docno order) and ``row`` (in the qrels table); per query ``n_docs`` and,
    for the run's lookups, the documents sorted by id key (``lookup_rows``, ``lookup_keys``,
    ``lookup_doc``).
    """

    entry_offsets: np.ndarray
    group: np.ndarray
    subgroup: np.ndarray
    level: np.ndarray
    doc: np.ndarray
    row: np.ndarray
    n_docs: np.ndarray
    doc_rows: np.ndarray
    lookup_rows: np.ndarray
    lookup_keys: np.ndarray
    lookup_doc: np.ndarray

    @classmethod
    def of(cls, qrels: Qrels) -> "PreferenceJudgments":
        """Index ``qrels`` read in a preference layout (``judgments="prefs"`` or ``"qrels_prefs"``)."""
        segments = qrels.segments
        if segments is None or qrels.subgroups is None:
            raise ConfigError(
                f"the qrels ({qrels.source}) hold no preferences: read them with judgments='prefs' or 'qrels_prefs'"
            )
        ids = qrels.doc_ids
        arrays = index_preference_judgments(
            segments.query_segments,
            segments.group,
            segments.subgroup,
            read_only(segments.offsets[:-1]),
            segments.n_judged,
            segments.judged_rows,
            segments.judged_labels,
            ids.keys,
            ids.offsets,
            ids.data,
            ids.is_string,
        )
        return cls(*map(read_only, arrays))


@dataclass(frozen=True, eq=False)
class PreferenceRanks:
    """A run joined with preference judgments: ``doc_rank`` (padded like ``judgments.doc_rows``), each
    judged document's 0-based rank in the run, -1 when not retrieved (before any ``max_docs`` cut)."""

    judgments: PreferenceJudgments
    doc_rank: np.ndarray


def rank_preferences(qrels: Qrels, run: Run, duplicates: str, ties: str) -> PreferenceRanks:
    """Where ``run`` ranks each document judged in ``qrels`` (see the module docstring).

    ``duplicates``: the score of a document the run repeats (``"raise"``: an error naming its row).
    """
    check_tie_order(ties, family_ranx_lacks="preference")
    policy = duplicate_policy_code(duplicates, what="run duplicates")
    if qrels.doc_ids.is_string != run.doc_ids.is_string:
        raise InputError(
            f"doc_ids are {qrels.doc_ids.kind}s in the qrels ({qrels.source}) but {run.doc_ids.kind}s in the run "
            f"({run.source}); convert one side so that both are strings or both integers",
            field="doc_id",
        )
    judgments = PreferenceJudgments.of(qrels)
    groups = run.queries
    qrels_of_run = qrels.query_lookup.positions(groups.query_ids)
    lookup = PreferenceLookup(
        judgments.entry_offsets, judgments.n_docs, judgments.lookup_rows, judgments.lookup_keys, judgments.lookup_doc,
        qrels.doc_ids.offsets, qrels.doc_ids.data,
    )
    doc_rank, duplicate_rows = rank_preference_documents(
        run.arrays, policy, TIE_CODES[ties], qrels_of_run, lookup, run.doc_ids.is_string
    )
    repeated = duplicate_rows[duplicate_rows >= 0]
    if len(repeated):
        row = int(repeated.min())
        raise InputError(
            f"{describe_row(run.table, row)} is retrieved more than once (run_duplicates='raise'; 'last', 'first' or "
            "'max' keeps one score)",
            source=run.source,
            row=row + 1,
        )
    return PreferenceRanks(judgments, read_only(doc_rank))
