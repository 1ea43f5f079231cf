"""Parallel builds launched from several Python threads: serialized under numba's workqueue layer, never an abort."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

ROOT = Path(__file__).resolve().parents[2]

# Four threads score the same run at once with every parallel_jit kernel on its parallel build
# (SERIAL_BELOW lowered to 1); each result must equal the one scored alone.
FOUR_THREADS = """
    import threading

    import numpy as np
    import pandas as pd

    import retrieval_eval as rev
    from retrieval_eval.kernels import _config

    _config.SERIAL_BELOW = 1
    queries, depth = 300, 20
    rng = np.random.default_rng(7)
    query = np.repeat(np.arange(queries).astype(str), depth)
    doc = np.tile(np.arange(depth).astype(str), queries)
    run = rev.Run.read(pd.DataFrame({"query_id": query, "doc_id": doc, "score": rng.random(queries * depth)}))
    qrels = rev.Qrels.read(pd.DataFrame({"query_id": query[::3], "doc_id": doc[::3],
                                         "relevance": rng.integers(0, 3, queries * depth // 3 + 1)[: len(query[::3])]}))
    evaluator = rev.Evaluator(qrels, ["ndcg@10", "map"])
    alone = evaluator.evaluate(run).per_query
    results = []
    threads = [threading.Thread(target=lambda: results.extend(evaluator.evaluate(run).per_query for _ in range(3))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 12 and all(result.equals(alone) for result in results)
    import numba
    print(numba.threading_layer())
"""


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no parallel builds without the JIT")
def test_four_threads_under_the_workqueue_layer_get_the_same_results_instead_of_an_abort():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env.update(NUMBA_THREADING_LAYER="workqueue", RETRIEVAL_EVAL_KERNELS="compiled")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(FOUR_THREADS)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert (done.returncode, done.stdout) == (0, "workqueue\n"), done.stderr[-2000:]
