"""The join of a run with judgment groups: the run's arrays and policies as the group kernels read them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..io.arrays import read_only
from ..kernels.core.bundles import JoinRule, JudgmentArrays, RunArrays
from ._table import duplicate_policy_code, raise_on_duplicates
from .join import _REPEATED, TIE_CODES, _check_same_kind, check_tie_order
from .qrels import Qrels
from .run import Run

# Judgment groups rank by trec_eval's order or the input's, never by tie keys.
_NO_TIE_KEYS = read_only(np.empty(0, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class GroupedRun:
    """A run ready to be scored against judgment groups: its arrays as the group kernels read them, and its policies.

    ``arrays``: the run's :class:`~retrieval_eval.kernels.core.bundles.RunArrays`; ``rule``: its
    policies and id kind; ``judgments``: the qrels' segments
    (see :func:`retrieval_eval.kernels.trec.judgment_groups.judgment_group_measures`).
    """

    qrels: Qrels
    run: Run
    arrays: RunArrays
    rule: JoinRule

    @property
    def judgments(self) -> tuple[np.ndarray, JudgmentArrays]:
        """``(query_segments, groups)``: judged query q's segments and each segment's judgments, one group each.

        The family checks the layout first, naming the measure.
        """
        seg = self.qrels.segments
        if seg is None:
            raise ConfigError(f"the qrels ({self.qrels.source}) have no judgment groups: read them with judgments='qrels_jg'")
        groups = JudgmentArrays(seg.offsets, seg.judged_rows, seg.judged_keys, seg.judged_labels, seg.n_judged,
                                self.qrels.doc_ids.offsets, self.qrels.doc_ids.data)
        return seg.query_segments, groups

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
        JoinRule(duplicate_policy_code(duplicates, what="run duplicates"), TIE_CODES[ties], _NO_TIE_KEYS, run.doc_ids.is_string),
    )
