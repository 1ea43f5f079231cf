"""``JoinSource``: what the Evaluator scores, a run that supplies the relevance joins its families read.

A family names the one join its kernels read (a join kind, :class:`~retrieval_eval.metrics.joins.JoinKind`);
the Evaluator asks the run it scores for that join, and never looks at what the run is. A
:class:`~retrieval_eval.Run` computes each join from its rows; a fusion sweep's configuration
gathers the kinds it can from rows looked up once, and computes the others from its fused run
(:class:`~retrieval_eval.sweep.fused.FusedConfiguration`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from .qrels import Qrels
    from .run import Run

    #: A join kind as the data layer sees it: ``kind(qrels, run, duplicates, ties)`` computes ``run``'s join
    #: against ``qrels`` under the run-duplicate policy ``duplicates`` and the tie order ``ties``.
    JoinBuilder = Callable[[Qrels, Run, str, str], Any]


class JoinSource(ABC):
    """A run as the Evaluator scores it: ``name``, ``source`` and ``query_ids`` (its queries, in its order), and
    :meth:`join`."""

    name: str
    source: str
    query_ids: pa.Array

    @abstractmethod
    def join(self, kind: JoinBuilder, qrels: Qrels, duplicates: str, ties: str) -> Any:
        """The join ``kind`` of this run against ``qrels``: to the bit what ``kind(qrels, run, duplicates, ties)``
        gives for the run this stands for."""
