"""How the measure kernels' tests lay out evaluated queries: each side (run, qrels) in an order of its own."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def laid_out(draw: st.DrawFn, queries: list[dict]) -> tuple[list[dict], list[dict], list[int], list[int], list[int]]:
    """``queries`` (dicts with a ``kind``: "both", "run only" or "qrels only") as the run and the qrels lay them out.

    Returns ``(by_run, by_qrels, run_query, qrels_query, gaps)``: the queries each side has, in an
    order of its own; each evaluated query's index on each side (-1: absent); and, per run query,
    how many unused slots follow it (the run's arrays have gaps between queries).
    """
    run = [i for i, q in enumerate(queries) if q["kind"] != "qrels only"]
    judged = [i for i, q in enumerate(queries) if q["kind"] != "run only"]
    by_run = [queries[i] for i in draw(st.permutations(run))]
    by_qrels = [queries[i] for i in draw(st.permutations(judged))]
    run_query = [next((r for r, q in enumerate(by_run) if q is query), -1) for query in queries]
    qrels_query = [next((g for g, q in enumerate(by_qrels) if q is query), -1) for query in queries]
    gaps = draw(st.lists(st.integers(0, 2), min_size=len(by_run), max_size=len(by_run)))
    return by_run, by_qrels, run_query, qrels_query, gaps
