"""Plain-Python oracle for ranx 0.3.21's voting fusion methods: BordaFuse, Condorcet (and their weighted forms), RBC.

Written from the definitions (Aslam and Montague, "Models for Metasearch", SIGIR 2001; Montague
and Aslam, "Condorcet fusion for improved retrieval", CIKM 2002; Bailey et al., "Retrieval
Consistency in the Presence of Query Variations", SIGIR 2017) as ranx's code computes them
(ranx/fusion/bordafuse.py, weighted_bordafuse.py, condorcet.py, weighted_condorcet.py, rbc.py),
standard library only and independent of the ``retrieval_eval`` package.

Runs are ``{query: {doc: score}}`` dicts whose inner dicts are in the run's ranked order (as a
``ranx.Run`` holds them): a document's position is its place in its dict. The queries fused are
the union of the runs' (a run lacking one has no document for it). A query's candidates are its
documents in order of first appearance, run after run: the order the library chooses where ranx
iterates a Python ``set``. The result is ``{query: {doc: fused score}}``, each inner dict in the
order ranx inserts the documents into its fused dict (which orders the fused ties).

Condorcet sorts with Python's own ``sorted`` and ranx's comparison: the reference for the
library's transcription of CPython's sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cmp_to_key

Runs = Sequence[dict[str, dict[str, float]]]
#: ranx's position of a candidate a run lacks (``_get_run_indices``).
ABSENT_POSITION = 1_000_000


def queries(runs: Runs) -> list[str]:
    """The union of the runs' queries, in order of first appearance."""
    return list(dict.fromkeys(q for run in runs for q in run))


def first_appearance(runs: Runs, query: str) -> list[str]:
    """A query's documents in order of first appearance, run after run."""
    return list(dict.fromkeys(doc for run in runs for doc in run.get(query, {})))


def bordafuse(
    runs: Runs, weights: Sequence[float] | None = None, candidates: dict[str, list[str]] | None = None
) -> dict[str, dict[str, float]]:
    """Each candidate's Borda points summed over the runs (weighted: ``sum_r w_r * points_r``).

    A run gives its document at 0-based position i ``n - i`` points (n candidates) and each
    candidate it lacks the mean of the points left, ``(n - depth + 1) / 2``. ranx inserts the
    fused documents as run 0's Borda dict lists them: its documents, then the others.
    ``candidates``: each query's candidates in another order (default: first appearance).
    """
    weights = [1.0] * len(runs) if weights is None else list(weights)
    fused = {}
    for query in queries(runs):
        docs = candidates[query] if candidates else first_appearance(runs, query)
        n = len(docs)
        points = []
        for run in runs:
            ranked = list(run.get(query, {}))
            table = {doc: n - i for i, doc in enumerate(ranked)}
            table.update({doc: (n - len(ranked) + 1) / 2 for doc in docs if doc not in table})
            points.append(table)
        fused[query] = {doc: sum(weights[r] * points[r][doc] for r in range(len(runs))) for doc in points[0]}
    return fused


def condorcet(
    runs: Runs, weights: Sequence[float] | None = None, candidates: dict[str, list[str]] | None = None
) -> dict[str, dict[str, float]]:
    """Each candidate's score ``n - i`` at its place i in ``sorted(candidates, key=cmp_to_key(compare))``.

    ``compare(x, y)`` is -1 when the runs placing x ahead of y (a lacking run places a document at
    1,000,000; both lacking counts for y) weigh at least as much as the others, else 1.
    ``candidates``: each query's candidates in another order (default: first appearance).
    """
    weights = [1.0] * len(runs) if weights is None else list(weights)
    fused = {}
    for query in queries(runs):
        docs = candidates[query] if candidates else first_appearance(runs, query)
        positions = []
        for run in runs:
            ranked = list(run.get(query, {}))
            positions.append([ranked.index(doc) if doc in ranked else ABSENT_POSITION for doc in docs])

        def compare(x: int, y: int) -> int:
            for_x = sum(weights[r] for r in range(len(runs)) if positions[r][x] < positions[r][y])
            for_y = sum(weights[r] for r in range(len(runs)) if not positions[r][x] < positions[r][y])
            return -1 if for_x >= for_y else 1

        order = sorted(range(len(docs)), key=cmp_to_key(compare))
        fused[query] = {docs[c]: float(len(docs) - i) for i, c in enumerate(order)}
    return fused


def rbc(runs: Runs, phi: float) -> dict[str, dict[str, float]]:
    """Rank-Biased Centroid: ``sum over the runs having the document of (1 - phi) * phi ** i`` (i its 0-based position)."""
    fused = {}
    for query in queries(runs):
        values = {}
        for run in runs:
            for i, doc in enumerate(run.get(query, {})):
                values[doc] = values.get(doc, 0.0) + (1 - phi) * phi**i
        fused[query] = values
    return fused
