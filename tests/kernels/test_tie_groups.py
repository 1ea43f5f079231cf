"""The join with tie groups: rank_run's ranking and labels under input order, and each document's group of equal scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import Qrels, Run
from retrieval_eval.data.join import rank_run, rank_tied


@settings(max_examples=30)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([f"d{i}" for i in range(6)]), st.sampled_from([0.0, -0.0, 1.0, 2.5])),
                min_size=1, max_size=30))
def test_the_tie_groups_are_the_runs_of_equal_scores(rows: list[tuple[str, str, float]]) -> None:
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    qrels = Qrels.read(pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["d1", "d2"], "relevance": [1, 2]}))
    run = Run.read(frame)
    tied, ranked = rank_tied(qrels, run, duplicates="last"), rank_run(qrels, run, duplicates="last", ties="input")
    np.testing.assert_array_equal(tied.ranked.labels, ranked.labels)
    np.testing.assert_array_equal(tied.ranked.judged, ranked.judged)
    np.testing.assert_array_equal(tied.ranked.n_ranked, ranked.n_ranked)
    kept = frame.drop_duplicates(["query_id", "doc_id"], keep="last")
    for q, query in enumerate(run.query_ids.to_pylist()):
        scores = sorted(kept.loc[kept["query_id"] == query, "score"], reverse=True)
        at = run.queries.offsets[q] + np.arange(len(scores))
        expected_size = [scores.count(s) for s in scores]
        expected_start = [scores.index(s) for s in scores]
        assert tied.group_size[at].tolist() == expected_size
        assert tied.group_start[at].tolist() == expected_start
