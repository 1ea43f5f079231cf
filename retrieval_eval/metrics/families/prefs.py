"""The preference family: trec_eval 10's fourteen preference measures (``-m all_prefs``, ``-R prefs`` / ``qrels_prefs``).

Judgments are preferences: in each judgment group (an assessor, say) and subgroup, a document is
preferred to every document of lower level; a group of several subgroups closes its preferences
transitively. The measures count how many preferences the run's ranking fulfils, over all
preferences (``prefs_simp``), per group (``prefs_avgjg``), per document pair (``prefs_pair``), with
the non-relevant documents cut to as many as the relevant ones (``prefs_avgjg_rnonrel``), and
among retrieved documents only (``_ret``) or ignoring pairs neither of which was retrieved
(``_imp``). Formulas and trec_eval's quirks: :mod:`retrieval_eval.kernels.trec.prefs`.

Conventions are trec_eval's: the run ranked by score descending, equal scores by *ascending*
document id (the reverse of the TREC family's order: trec_eval's preference code sorts so), cut at
``max_docs`` (``-M``); ``judged_only`` (``-J``) and ``rel_level`` (``-l``) change nothing, as
trec_eval reads neither here; a repeated document is an error. The qrels must be read in the
``prefs`` or ``qrels_prefs`` layout. A judged query the run lacks retrieved nothing (trec_eval's
``-c`` gives it a one-document ranking instead, whose docno ``ceci_nest_pas_un_docno`` no judgment
names in practice).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from ...errors import InputError
from ...kernels.trec import prefs as kernel
from ..definition import MetricDefinition, non_negative, unit_interval
from ..family import Family
from ..joins import JoinKind
from ..names import Metric
from ..options import Conventions, EvaluationOptions

if TYPE_CHECKING:
    from ...data import Qrels, Run
    from ...data.join import QueryAlignment
    from ...data.prefs_join import PreferenceRanks

FAMILY = "prefs"
_ALL = ("Implied preferences (one of the two documents retrieved) count, and a preference between two unretrieved documents "
        "counts as failed.")
_RET = "Only preferences between two retrieved documents count."
_IMP = "Implied preferences (one of the two documents retrieved) count; preferences between two unretrieved documents do not."


@dataclass(frozen=True, eq=False)
class PrefsPass:
    """The kernel pass: ``values[e, column]`` for each evaluated query e, columns as :mod:`retrieval_eval.kernels.trec.prefs`."""

    values: np.ndarray


def _column(column: int) -> Callable[[PrefsPass, Metric], np.ndarray]:
    return lambda output, metric: output.values[:, column]


# Preference levels are doubles in trec_eval (get_prefs.c's atof): every measure takes float labels.
def _count(name: str, column: int, definition: str) -> MetricDefinition:
    return MetricDefinition(
        name, FAMILY, definition + " (count; trec_eval's all line sums it).", higher_is_better=True, integer=True,
        bounds=non_negative, trec_name=name, aggregate="sum", extract=_column(column), float_labels=True,
    )


def _ratio(name: str, trec_name: str, column: int, definition: str, *, ranking: bool = True) -> MetricDefinition:
    return MetricDefinition(
        name, FAMILY, definition, higher_is_better=True, bounds=unit_interval, trec_name=trec_name,
        extract=_column(column), ranking=ranking, float_labels=True,
    )


_SIMP = "Preferences fulfilled / preferences possible, every preference of every judgment group counted (trec_eval {})."
_PAIR = (
    "The mean over document pairs with a preference of the share of judgment groups the ranking agrees with "
    "(trec_eval {}); prefs_simp{} when no pair is in two groups."
)
_AVGJG = "Preferences fulfilled / possible within each judgment group, averaged over the groups (trec_eval {})."
_RNONREL = (
    "prefs_avgjg{} with each group's non-relevant documents (level 0) cut or padded to as many as its relevant "
    "ones, as trec_eval computes it, quirks included (trec_eval {}; akin to bpref); NaN where trec_eval reads "
    "memory the query never wrote."
)

DEFINITIONS = (
    _count("prefs_num_prefs_poss", kernel.NUM_PREFS_POSS, "Preferences possible, retrieved or not"),
    _count("prefs_num_prefs_ful", kernel.NUM_PREFS_FUL, "Preferences fulfilled, implied ones included"),
    _count("prefs_num_prefs_ful_ret", kernel.NUM_PREFS_FUL_RET, "Preferences fulfilled between two retrieved documents"),
    _ratio("prefs_simp", "prefs_simp", kernel.SIMP, _SIMP.format("prefs_simp") + " " + _ALL),
    _ratio("prefs_pair", "prefs_pair", kernel.PAIR, _PAIR.format("prefs_pair", "") + " " + _ALL),
    _ratio("prefs_avgjg", "prefs_avgjg", kernel.AVGJG, _AVGJG.format("prefs_avgjg") + " " + _ALL),
    _ratio("prefs_avgjg_rnonrel", "prefs_avgjg_Rnonrel", kernel.AVGJG_RNONREL, _RNONREL.format("", "prefs_avgjg_Rnonrel")),
    _ratio("prefs_simp_ret", "prefs_simp_ret", kernel.SIMP_RET, _SIMP.format("prefs_simp_ret") + " " + _RET),
    _ratio("prefs_pair_ret", "prefs_pair_ret", kernel.PAIR_RET, _PAIR.format("prefs_pair_ret", "_ret") + " " + _RET),
    _ratio("prefs_avgjg_ret", "prefs_avgjg_ret", kernel.AVGJG_RET, _AVGJG.format("prefs_avgjg_ret") + " " + _RET),
    # Retrieving only the relevant documents scores 1; retrieving every judged one, the non-relevant
    # ones too, has the group recounted, below 1 when they outnumber the relevant ones.
    _ratio(
        "prefs_avgjg_rnonrel_ret", "prefs_avgjg_Rnonrel_ret", kernel.AVGJG_RNONREL_RET,
        _RNONREL.format("_ret", "prefs_avgjg_Rnonrel_ret") + " " + _RET, ranking=False,
    ),
    _ratio("prefs_simp_imp", "prefs_simp_imp", kernel.SIMP_IMP, _SIMP.format("prefs_simp_imp") + " " + _IMP),
    _ratio("prefs_pair_imp", "prefs_pair_imp", kernel.PAIR_IMP, _PAIR.format("prefs_pair_imp", "_imp") + " " + _IMP),
    _ratio("prefs_avgjg_imp", "prefs_avgjg_imp", kernel.AVGJG_IMP, _AVGJG.format("prefs_avgjg_imp") + " " + _IMP),
)


def _join(qrels: Qrels, run: Run, duplicates: str, ties: str) -> PreferenceRanks:
    # The data layer loads pyarrow: imported when a run is scored, not when the registry is listed.
    from ...data.prefs_join import rank_preferences

    return rank_preferences(qrels, run, duplicates, ties)


#: Where each query's documents of the preference judgments rank (:class:`~.prefs_join.PreferenceRanks`).
PREFERENCE_RANKS = JoinKind("preference ranks", _join)


def _passes(
    qrels: Qrels, ranks: PreferenceRanks, alignment: QueryAlignment, metrics: Sequence[Metric], options: EvaluationOptions
) -> Iterator[tuple[PrefsPass, Sequence[Metric]]]:
    """One kernel pass computes all fourteen measures."""
    judgments = ranks.judgments
    depth = np.iinfo(np.int64).max if options.max_docs is None else options.max_docs
    values, errors, faults = kernel.preference_measures(
        alignment.qrels_query,
        judgments.entry_offsets,
        judgments.group,
        judgments.subgroup,
        judgments.level,
        judgments.doc,
        judgments.n_docs,
        ranks.doc_rank,
        depth,
    )
    failed = np.flatnonzero(errors)
    if len(failed):
        e = int(failed[0])
        _raise(qrels, int(errors[e]), int(judgments.row[faults[e]]))
    yield PrefsPass(values), metrics


def _raise(qrels: Qrels, error: int, row: int) -> None:
    """The error trec_eval stops (or aborts) on, naming the judgment at fault."""
    table = qrels.table
    query, doc = table["query_id"][row].as_py(), table["doc_id"][row].as_py()
    group = table["group"][row].as_py()
    if error == kernel.ZERO_AND_POSITIVE_LEVEL:
        what = (
            f"document {doc!r} has level 0 in one subgroup of judgment group {group!r} of query {query!r} and a "
            "positive level in another (a group must agree on what is non-relevant; trec_eval refuses it too)"
        )
    else:
        what = (
            f"the subgroups of judgment group {group!r} of query {query!r} contradict each other: document {doc!r} "
            "is preferred to itself through other documents (a group's preferences must be consistent; trec_eval aborts)"
        )
    raise InputError(what, source=qrels.source, row=row + 1, field="relevance")


#: trec_eval's conventions (the queries both judged and retrieved, a repeated document an error) and
#: its preference measures' tie order, ascending document id; the qrels must hold preferences.
PREFS = Family(
    FAMILY, DEFINITIONS, ties="docid", conventions=Conventions(query_set="both", duplicates="raise"),
    join=PREFERENCE_RANKS, passes=_passes, judgments=("prefs", "qrels_prefs"),
    title="trec_eval 10 over preferences (-R prefs, qrels_prefs)",
)
