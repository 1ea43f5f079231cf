"""Plain-Python oracle of ``ties="average"``: enumerate every ordering of each query's tied scores.

For each run query, its documents are grouped by score (descending), and every combination of a
permutation of each group (``itertools.permutations``, the product over the groups) becomes one
ordering. Each ordering is scored as the project scores one fixed order, by giving its documents
distinct scores; the oracle's value of a measure is the plain mean over the orderings (and it
gives their minimum and maximum). Every ordering is a query of one evaluation, so a query with
many orderings costs one evaluation, not many.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd

from retrieval_eval import evaluate


def orderings(docs: list[tuple[str, float]]) -> list[list[str]]:
    """Every ranking of ``(doc, score)`` pairs that puts higher scores first, ties in any order."""
    ranked = sorted(docs, key=lambda pair: -pair[1])
    groups = [[doc for doc, _ in group] for _, group in itertools.groupby(ranked, key=lambda pair: pair[1])]
    return [list(itertools.chain.from_iterable(choice)) for choice in itertools.product(*map(itertools.permutations, groups))]


def tie_averaged(qrels: pd.DataFrame, run: pd.DataFrame, metrics: list[str], **options) -> dict[str, dict[str, tuple[float, float, float]]]:
    """``{query: {metric: (mean, min, max)}}`` over the orderings of each run query's tied scores.

    ``options`` go to :func:`retrieval_eval.evaluate` (query_set, rel_level, ...); queries the run
    lacks are scored once, against nothing.
    """
    rows, judged, origin = [], [], {}
    for query, docs in run.groupby("query_id", sort=False):
        for i, order in enumerate(orderings(list(zip(docs["doc_id"], docs["score"])))):
            copy = f"{query}#{i}"
            origin[copy] = query
            rows += [(copy, doc, float(len(order) - rank)) for rank, doc in enumerate(order)]
    for query, labels in qrels.groupby("query_id", sort=False):
        copies = [copy for copy, of in origin.items() if of == query] or [f"{query}#0"]
        for copy in copies:
            origin[copy] = query
            judged += [(copy, doc, label) for doc, label in zip(labels["doc_id"], labels["relevance"])]
    result = evaluate(
        pd.DataFrame(judged, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]),
        metrics=metrics, ties="docid", **options,
    )
    table = result.per_query
    out: dict[str, dict[str, list[float]]] = {}
    for _, row in table.iterrows():
        values = out.setdefault(origin[row["query_id"]], {})
        for metric in metrics:
            values.setdefault(metric, []).append(float(row[metric]))
    return {
        query: {metric: (math.fsum(v) / len(v), min(v), max(v)) for metric, v in values.items()}
        for query, values in out.items()
    }
