"""``sweep --format json`` carries every double exactly (as the parquet and CSV outputs do), NaN as null."""

from __future__ import annotations

import json
import math

import pandas as pd

from retrieval_eval.report.sweep_text import sweep_json
from retrieval_eval.sweep import sweep
from tests.sweep.test_leaderboard import FAST, qrels, run


def _same(document: list[dict], frame: pd.DataFrame) -> None:
    assert len(document) == len(frame)
    for record, (_, row) in zip(document, frame.iterrows()):
        for column, value in row.items():
            if isinstance(value, float) and math.isnan(value):
                assert record[column] is None
            elif isinstance(value, float):
                assert type(record[column]) is float and record[column] == value, column  # to the bit: repr is exact
            else:
                assert record[column] == value


def test_every_float_of_the_json_is_the_result_s_to_the_bit():
    runs = {f"k{index}": run(good=0.25 + 0.1 * index, seed=index) for index in range(4)}
    parameters = pd.DataFrame({"k": [1, 2, 3, 4], "latency_ms": [10.1, 20.7, 33.3, 47.9]},
                              index=pd.Index(list(runs), name="configuration"))  # fmt: skip
    result = sweep(qrels(), runs, ["ndcg@5", "map"], parameters=parameters, costs=["latency_ms"], all_pairs=True, **FAST)
    document = json.loads(sweep_json(result))
    # Means over 30 queries have more than 10 significant digits: rounded, they would differ.
    assert any(len(repr(value)) > 12 for value in result.table["map"])
    _same(document["table"], result.table.reset_index())
    _same(document["head_to_head"], result.leaderboard.head_to_head)
    _same(document["pairwise"], result.leaderboard.pairwise)
    _same(document["effects"], result.effects)
