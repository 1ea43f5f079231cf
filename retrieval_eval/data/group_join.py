"""The join of a run with judgment groups: the run's arrays and policies as the group kernels read them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..kernels.core.bundles import RunArrays
from ._table import duplicate_policy_code, raise_on_duplicates
from .join import _REPEATED, TIE_CODES, _check_same_kind, check_tie_order
from .qrels import Qrels
from .run import Run


@dataclass(frozen=True, eq=False)
class GroupedRun:
    """A run ready to be scored against judgment groups: its arrays as the group kernels read them, and its policies.

    ``arrays``: the run's :class:`~retrieval_eval.kernels.core.bundles.RunArrays`; ``judgments``: the qrels' segments as ``(query_segments, offsets, judged_rows,
    judged_keys, judged_labels, n_judged, doc_offsets, doc_data)``
    (see :func:`retrieval_eval.kernels.trec.judgment_groups.judgment_group_measures`).
    """

    qrels: Qrels
    run: Run
    arrays: RunArrays
    is_string: bool
    duplicate_policy: int
    tie_order: int

    @property
    def judgments(self) -> tuple:
        """The segments' arrays (the family checks the layout first, naming the measure)."""
        seg = self.qrels.segments
        if seg is None:
            raise ConfigError(f"the qrels ({self.qrels.source}) have no judgment groups: read them with judgments='qrels_jg'")
        return (seg.query_segments, seg.offsets, seg.judged_rows, seg.judged_keys, seg.judged_labels, seg.n_judged,
                self.qrels.doc_ids.offsets, self.qrels.doc_ids.data)

    def raise_on_duplicates(self, duplicate_rows: np.ndarray) -> None:
        """Raise naming the first repeated run row, given each evaluated query's (-1 for none)."""
        raise_on_duplicates(duplicate_rows, self.run.table, self.run.source, _REPEATED)


def group_run(qrels: Qrels, run: Run, duplicates: str, ties: str) -> GroupedRun:
    """``run`` against the judgment groups of ``qrels``, after checking the policies and the id kinds."""
    check_tie_order(ties, family_ranx_lacks="judgment-group")
    _check_same_kind(qrels.doc_ids, run.doc_ids, "doc_id", qrels, run)
    return GroupedRun(
        qrels,
        run,
        run.arrays,
        run.doc_ids.is_string,
        duplicate_policy_code(duplicates, what="run duplicates"),
        TIE_CODES[ties],
    )
