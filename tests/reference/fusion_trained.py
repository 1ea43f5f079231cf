"""Plain-Python oracle for ranx 0.3.21's trained fusion methods and their training.

Written from the definitions (ProbFuse: Lillis et al., SIGIR 2006; SegFuse: Shokouhi, ECIR
2007; SlideFuse: Lillis et al., ECIR 2008; PosFuse; MAPFuse: Lillis et al., 2010; BayesFuse:
Aslam and Montague, SIGIR 2001) as ranx's code computes them (ranx/fusion/probfuse.py,
segfuse.py, slidefuse.py, posfuse.py, mapfuse.py, bayesfuse.py, common.py, and
ranx/metrics/get_hit_lists.py, average_precision.py), standard library only and independent of
the ``retrieval_eval`` package.

Runs are ``{query: {doc: score}}`` dicts in each run's ranked order (as for
:mod:`tests.reference.fusion_voting`); qrels are ``{query: {doc: label}}``. Training reads
one *hit list* per judged query, in sorted query order (ranx's): 1 where the run's document at
that position is judged 1 or more, as long as the run's list for the query (empty when the run
lacks it). Fusing gives ``{query: {doc: score}}`` over the union of the runs' queries, each inner
dict in ranx's order of insertion (run 0's documents, then those only run 1 has, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .fusion_voting import queries

Runs = Sequence[dict[str, dict[str, float]]]
Qrels = dict[str, dict[str, int]]
#: SegFuse's fixed segments: [0, 5), [5, 15), [15, 35), ..., up to 5115.
SEGMENT_BOUNDS = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
#: BayesFuse's cut-offs.
CUTOFFS = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]


def hit_lists(qrels: Qrels, run: dict[str, dict[str, float]]) -> list[list[float]]:
    """One hit list per judged query, queries sorted by id."""
    lists = []
    for query in sorted(qrels):
        relevant = {doc for doc, label in qrels[query].items() if label >= 1}
        lists.append([1.0 if doc in relevant else 0.0 for doc in run.get(query, {})])
    return lists


def probfuse_train(qrels: Qrels, runs: Runs, n_segments: int) -> list[list[float]]:
    """Per run, per segment k: the mean over judged queries of the share of relevant documents in segment k
    (``ceil(depth / n_segments)`` positions; an empty segment adds nothing to the sum)."""
    trained = []
    for run in runs:
        lists = hit_lists(qrels, run)
        sums = [0.0] * n_segments
        for hits in lists:
            size = math.ceil(len(hits) / n_segments)
            for k in range(n_segments):
                segment = hits[k * size : (k + 1) * size]
                if segment:
                    sums[k] += sum(segment) / len(segment)
        trained.append([s / len(lists) for s in sums])
    return trained


def segfuse_train(qrels: Qrels, runs: Runs) -> list[list[float]]:
    """Per run, per fixed segment: the mean over judged queries of its relevant documents over its full size."""
    trained = []
    for run in runs:
        lists = hit_lists(qrels, run)
        sums = [0.0] * (len(SEGMENT_BOUNDS) - 1)
        for hits in lists:
            for k in range(len(sums)):
                start, end = SEGMENT_BOUNDS[k], SEGMENT_BOUNDS[k + 1]
                sums[k] += sum(hits[start:end]) / (end - start)
        trained.append([s / len(lists) for s in sums])
    return trained


def position_train(qrels: Qrels, runs: Runs) -> list[list[float]]:
    """SlideFuse's and PosFuse's training: per run and position, the share of judged queries reaching it that
    have a relevant document there (as far as the longest hit list)."""
    trained = []
    for run in runs:
        lists = hit_lists(qrels, run)
        longest = max(len(hits) for hits in lists)
        trained.append(
            [sum(hits[i] for hits in lists if len(hits) > i) / sum(1 for hits in lists if len(hits) > i) for i in range(longest)]
        )
    return trained


def mapfuse_train(qrels: Qrels, runs: Runs) -> list[float]:
    """Per run, its mean average precision over the judged queries (a query without relevant documents scores 0)."""
    trained = []
    for run in runs:
        values = []
        for query, hits in zip(sorted(qrels), hit_lists(qrels, run)):
            n_relevant = sum(1 for label in qrels[query].values() if label >= 1)
            precisions = [sum(hits[: i + 1]) / (i + 1) for i in range(len(hits)) if hits[i]]
            values.append(sum(precisions) / n_relevant if n_relevant else 0.0)
        trained.append(sum(values) / len(values))
    return trained


def bayesfuse_train(qrels: Qrels, runs: Runs) -> list[list[float]]:
    """Per run, 1000 log odds: for each segment between cut-offs, ``log(p / (1 - p))`` of its mean precision p
    over the judged queries (p and 1 - p raised to 0.001 where they are 0)."""
    trained = []
    for run in runs:
        lists = hit_lists(qrels, run)
        odds = []
        for start, end in zip(CUTOFFS, CUTOFFS[1:]):
            p = 0.0
            for hits in lists:
                p += (sum(hits[start:end]) / (end - start)) / len(lists)
            p = p if p != 0 else 0.001
            rest = 1 - p if 1 - p != 0 else 0.001
            odds += [math.log(p / rest)] * (end - start)
        trained.append(odds)
    return trained


def _fused(runs: Runs, value, missing: float = 0.0) -> dict[str, dict[str, float]]:
    """``sum over runs of value(r, run's docs, position)`` per document, ``missing`` for a run lacking it."""
    fused = {}
    for query in queries(runs):
        docs = list(dict.fromkeys(doc for run in runs for doc in run.get(query, {})))
        scores = {}
        for doc in docs:
            total = 0.0
            for r, run in enumerate(runs):
                ranked = list(run.get(query, {}))
                total += value(r, run[query], ranked.index(doc)) if doc in ranked else missing
            scores[doc] = total
        fused[query] = scores
    return fused


def probfuse(runs: Runs, probs: Sequence[Sequence[float]]) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i ``probs[r][k] / (k + 1)``, k its segment of ``ceil(depth / S)``."""

    def value(r: int, docs: dict[str, float], i: int) -> float:
        k = i // math.ceil(len(docs) / len(probs[r]))
        return probs[r][k] / (k + 1)

    return _fused(runs, value)


def segfuse(runs: Runs, probs: Sequence[Sequence[float]]) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i ``probs[r][k] * (score + 1)``, k its fixed segment (0 past them)."""

    def value(r: int, docs: dict[str, float], i: int) -> float:
        ks = [k for k in range(len(probs[r])) if SEGMENT_BOUNDS[k] <= i < SEGMENT_BOUNDS[k + 1]]
        probability = probs[r][ks[0]] if ks else 0.0
        return probability * (list(docs.values())[i] + 1)

    return _fused(runs, value)


def slidefuse(runs: Runs, probs: Sequence[Sequence[float]], w: int) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i the mean of its probabilities within w positions of i (in the run)."""

    def value(r: int, docs: dict[str, float], i: int) -> float:
        low, high = max(i - w, 0), min(i + w, len(docs) - 1)
        return sum(probs[r][low : high + 1]) / (high - low + 1)

    return _fused(runs, value)


def posfuse(runs: Runs, probs: Sequence[Sequence[float]]) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i its probability there (0 past them)."""
    return _fused(runs, lambda r, docs, i: probs[r][i] if i < len(probs[r]) else 0.0)


def mapfuse(runs: Runs, map_scores: Sequence[float]) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i ``MAP_r / (i + 1)``."""
    return _fused(runs, lambda r, docs, i: map_scores[r] / (i + 1))


def bayesfuse(runs: Runs, log_odds: Sequence[Sequence[float]]) -> dict[str, dict[str, float]]:
    """Run r gives its document at position i its log odds there, ``log(0.001 / 0.999)`` where it lacks it."""
    return _fused(runs, lambda r, docs, i: log_odds[r][i], missing=math.log(0.001 / 0.999))
