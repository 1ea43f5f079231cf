"""Collections as the peers hold them (pytrec_eval's and ir_measures' nested dicts), for the tests that
compare retrieval_eval with ir_measures and ranx on random data."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

DOCS = [f"d{i}" for i in range(10)] + ["a", "ab", "B", "é"]
# Exact in float32 (pytrec_eval's scores), with ties.
GRID = [x / 4 for x in range(-12, 13)]


@st.composite
def collections(
    draw, *, distinct: bool, numeric_ids: bool = False, labels=st.integers(-1, 4), one_sided: bool = True,
    always_judged: bool = False,
):
    """qrels {query: {doc: label}} and run {query: {doc: score}}, queries on one side only among them (``one_sided``).

    Each judged query has a label >= 0 (pytrec_eval 0.5.11 crashes or loops on one whose labels
    are all negative); ``distinct``: no two documents of a query share a score; ``always_judged``:
    at least one query is judged.
    """
    queries = [str(i) if numeric_ids else f"q{i}" for i in range(draw(st.integers(1, 6)))]
    qrels, run = {}, {}
    for query in queries:
        side = draw(st.sampled_from(["both", "both", "both", "qrels", "run"])) if one_sided else "both"
        if side != "run":
            judged = draw(st.dictionaries(st.sampled_from(DOCS), labels, min_size=1, max_size=12))
            if max(judged.values()) < 0:
                judged[next(iter(judged))] = 0
            qrels[query] = judged
        if side != "qrels":
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14, unique=True))
            if distinct:
                scores = draw(st.permutations(GRID))[: len(docs)]
            else:
                scores = draw(st.lists(st.sampled_from(GRID), min_size=len(docs), max_size=len(docs)))
            run[query] = dict(zip(docs, scores))
    if always_judged and not qrels:
        qrels[queries[0]] = {"d0": 1}
    return qrels, run


def frames(qrels: dict, run: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The nested dicts as ir_measures' frames: ``query_id, doc_id, relevance`` and ``query_id, doc_id, score``."""
    qrels_frame = pd.DataFrame(
        [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()], columns=["query_id", "doc_id", "relevance"]
    )
    run_frame = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["query_id", "doc_id", "score"]
    )
    return qrels_frame, run_frame
