"""Plain-Python fusion from ranx 0.3.21's definitions (not from our kernels): runs as nested dicts in, a fused run out.

A run is ``{query_id: {doc_id: score}}`` (a dict per query: each document once, in order of
first occurrence, as ranx reads it). The oracle follows ranx's steps: each run's query sorted by
ranx's argsort of ``-score``; normalized (a dict per query, in the order ranx's normalized run
keeps); each method's formula with sums in run order; the fused documents in insertion order,
sorted by ranx's argsort of ``-score``. Where ranx iterates a Python set (``borda``'s
candidates) the oracle takes the documented rule: run 0's documents in its order, then those
only run 1 has, and so on.
"""

from __future__ import annotations

import functools
import math

import numba
import numpy as np

MISSING_FOR_MAX = -1e9
MISSING_FOR_MIN = 1e9
FLOOR = 1e-9


@functools.cache
def _quicksort():
    from numba.misc.quicksort import make_py_quicksort
    from numba.np.numpy_support import lt_floats

    return make_py_quicksort(lt=lt_floats, is_argsort=True, is_np_array=True).run_quicksort


def ranx_argsort(values: list[float]) -> list[int]:
    """The positions sorting ``values`` ascending as ranx's ``np.argsort``: numba's quicksort, numpy's without the JIT."""
    array = np.array(values, dtype=np.float64)
    order = np.argsort(array) if numba.config.DISABLE_JIT else _quicksort()(array)
    return [int(i) for i in order]


def ranked(results: dict) -> list[tuple]:
    """A query's (doc, score) pairs in ranx's order of a Run: argsort of -score over the dict's order."""
    items = list(results.items())
    return [items[i] for i in ranx_argsort([-s for _, s in items])]


def normalize_query(items: list[tuple], norm: str | None) -> list[tuple]:
    """One run's ranked (doc, score) pairs of one query, normalized, in the normalized dict's order (not ``borda``)."""
    if norm is None or not items:
        return list(items)
    scores = [s for _, s in items]
    n = len(scores)
    low, high = min(scores), max(scores)
    if norm in ("min-max", "min-max-inverted"):
        denominator = max(high - low, FLOOR)
        if norm == "min-max":
            return [(d, (s - low) / denominator) for d, s in items]
        inverted = [(d, (high - s) / denominator) for d, s in items]
        return [inverted[i] for i in ranx_argsort([-v for _, v in inverted])]
    if norm == "max":
        return [(d, s / max(high, FLOOR)) for d, s in items]
    if norm == "sum":
        total = 0.0
        for s in scores:
            total += s
        denominator = max(total - low * n, FLOOR)
        return [(d, (s - low) / denominator) for d, s in items]
    if norm == "zmuv":
        mean = sum(scores) / n
        squares = 0.0
        for s in scores:
            squares += (s - mean) * (s - mean)
        deviation = max(math.sqrt(squares / n), FLOOR)
        return [(d, (s - mean) / deviation) for d, s in items]
    if norm == "rank":
        return [(d, 1 - i / n) for i, (d, _) in enumerate(items)]
    raise ValueError(norm)


def borda_query(per_run: list[list[tuple]]) -> list[list[tuple]]:
    """``borda`` across the runs of one query: every run lists every candidate, in the candidates' order."""
    candidates = []
    for items in per_run:
        for d, _ in items:
            if d not in candidates:
                candidates.append(d)
    c = len(candidates)
    normalized = []
    for items in per_run:
        position = {d: i for i, (d, _) in enumerate(items)}
        missing = 0.5 - (len(items) - 1) / (2 * c)
        normalized.append([(d, 1 - position[d] / c if d in position else missing) for d in candidates])
    return normalized


def fuse_documents(per_run: list[list[tuple]], method: str, params: dict) -> dict:
    """The fused dict of one query (documents in ranx's insertion order) from the normalized runs."""
    maps = [dict(items) for items in per_run]
    positions = [{d: i for i, (d, _) in enumerate(items)} for items in per_run]
    weights = params.get("weights")
    fused = {}
    for items in per_run:
        for doc, _ in items:
            if doc in fused:
                continue
            present = [r for r, m in enumerate(maps) if doc in m]
            values = [maps[r][doc] for r in present]
            count = len(present)
            if method == "sum":
                score = sum(m.get(doc, 0.0) for m in maps)
            elif method == "mnz":
                score = sum(values) * count
            elif method == "max":
                score = max(m.get(doc, MISSING_FOR_MAX) for m in maps)
            elif method == "min":
                score = min(m.get(doc, MISSING_FOR_MIN) for m in maps)
            elif method == "med":
                ordered = sorted(values)
                half = count // 2
                score = ordered[half] if count % 2 else (ordered[half - 1] + ordered[half]) / 2
            elif method == "anz":
                score = sum(values) / count
            elif method == "gmnz":
                score = sum(values) * count ** params["gamma"]
            elif method == "wsum":
                score = sum(weights[r] * m.get(doc, 0.0) for r, m in enumerate(maps))
            elif method == "wmnz":
                score = sum(values) * sum(weights[r] for r in present)
            elif method == "mixed":
                score = sum(maps[r][doc] * weights[r] for r in present) * math.sqrt(count)
            elif method == "rrf":
                score = sum(1 / (params.get("k", 60) + positions[r][doc] + 1) for r in present)
            else:
                isr = sum(1 / (positions[r][doc] + 1) ** 2 for r in present)
                factor = {"isr": count, "log_isr": math.log(count), "logn_isr": math.log(count + params.get("sigma", 0.01))}
                score = isr * factor[method]
            fused[doc] = score
    return fused


def normalized(runs: list[dict], norm: str | None, top_k_in: int | None = None) -> dict:
    """``{query_id: per_run}``: each run's normalized (doc, score) pairs of the query, over the union of the runs' queries.

    A query no run has a document for is left out (ranx keeps it, empty).
    """
    queries = []
    for run in runs:
        for q, results in run.items():
            if results and q not in queries:
                queries.append(q)
    out = {}
    for q in queries:
        per_run = [ranked(run.get(q, {}))[:top_k_in] for run in runs]
        out[q] = borda_query(per_run) if norm == "borda" else [normalize_query(items, norm) for items in per_run]
    return out


def fused(per_run: list[list[tuple]], method: str, params: dict, top_k_out: int | None = None) -> list[tuple]:
    """One query's fused (doc, score) pairs in ranx's order of the fused run."""
    documents = list(fuse_documents(per_run, method, params).items())
    order = ranx_argsort([-s for _, s in documents])
    return [documents[i] for i in order][:top_k_out]


def fuse(
    runs: list[dict], method: str, norm: str | None, params: dict | None = None,
    top_k_in: int | None = None, top_k_out: int | None = None,
) -> dict:
    """``{query_id: [(doc_id, score), ...]}`` in ranx's fused order, over the union of the runs' queries."""
    return {q: fused(per_run, method, params or {}, top_k_out) for q, per_run in normalized(runs, norm, top_k_in).items()}
