"""The join kinds: the relevance joins the families' kernels read, each named once.

A family names the one kind its kernels read (:attr:`~.family.Family.join`); the families that
read the same kind share one join of a run under a tie order. The Evaluator asks the run it scores
for each (:meth:`~retrieval_eval.data.JoinSource.join`): a :class:`~retrieval_eval.Run` computes
it, a fusion sweep's configuration gathers :data:`RANKED_RUN` and :data:`JUDGED_RANKS` from rows
looked up once. The data layer (pyarrow) loads when a join is built, not when a family is defined
(``--help``, the listings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..data import JudgedRanks, Qrels, RankedRun, Run
    from ..data.join import TiedRun


@dataclass(frozen=True, eq=False)
class JoinKind:
    """One relevance join: ``name`` says what it holds, ``build(qrels, run, duplicates, ties)`` computes a run's.

    Calling the kind builds it (the data layer's :data:`~retrieval_eval.data.join_source.JoinBuilder`).
    """

    name: str
    build: Callable[[Qrels, Run, str, str], Any]

    def __call__(self, qrels: Qrels, run: Run, duplicates: str, ties: str) -> Any:
        return self.build(qrels, run, duplicates, ties)

    def __repr__(self) -> str:
        return f"JoinKind({self.name!r})"


def _ranked_run(qrels: Qrels, run: Run, duplicates: str, ties: str) -> RankedRun:
    from ..data import rank_run

    return rank_run(qrels, run, duplicates=duplicates, ties=ties)


def _judged_ranks(qrels: Qrels, run: Run, duplicates: str, ties: str) -> JudgedRanks:
    from ..data import rank_judged

    return rank_judged(qrels, run, duplicates=duplicates, ties=ties)


def _tied_run(qrels: Qrels, run: Run, duplicates: str, ties: str) -> TiedRun:
    from ..data.join import rank_tied

    return rank_tied(qrels, run, duplicates=duplicates)


#: Every distinct document of each query ranked and labelled (:class:`~retrieval_eval.data.RankedRun`).
RANKED_RUN = JoinKind("ranked run", _ranked_run)
#: Where each query's judged documents rank (:class:`~retrieval_eval.data.JudgedRanks`): trec_eval's measures.
JUDGED_RANKS = JoinKind("judged ranks", _judged_ranks)
#: The ranked run with its groups of tied scores (:class:`~retrieval_eval.data.join.TiedRun`), whatever ``ties``
#: says: what every family reads under ``ties="average"``.
TIED_RUN = JoinKind("tied run", _tied_run)
