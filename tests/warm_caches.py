"""Fill numba's caches before the workers start: the library's kernel builds and ranx's compiled functions.

Run by ``conftest.py`` when the suite runs on two or more workers: each worker is its own process,
and on a cold cache each would compile the same numba functions the other compiles (ranx's
metrics and Run/Qrels conversions, our kernels), minutes of CPU twice over. Compiled once here,
before the workers start, the workers load them. ``python tests/warm_caches.py ranx`` warms ranx's.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Every ranx metric the tests compare with, each compiled once for its argument types (k is a value, not a type).
RANX_METRICS = ["hits", "hit_rate", "precision", "recall", "f1", "r-precision", "bpref", "rbp.8", "mrr", "map", "dcg",
                "dcg_burges", "ndcg", "ndcg_burges", "hits@5", "hit_rate@5", "precision@5", "recall@5", "f1@5", "mrr@5",
                "map@5", "dcg@5", "dcg_burges@5", "ndcg@5", "ndcg_burges@5"]  # fmt: skip


def warm_ranx() -> None:
    """Compile ranx's metrics, its Qrels and Run builders and its sorting on a tiny collection."""
    import ranx

    qrels = ranx.Qrels.from_dict({"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}})
    run = ranx.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.7, "d9": 0.1}, "q2": {"d3": 0.2, "d4": 0.9}})
    ranx.evaluate(qrels, run, RANX_METRICS, make_comparable=True)


def warm_all(workers: int) -> float:
    """Compile our kernel builds (in ``workers`` processes) and ranx's functions (in one more) at once; the seconds it took."""
    start = time.perf_counter()
    processes = [
        subprocess.Popen([sys.executable, "-m", "retrieval_eval.cli", "compile", "--quiet", "--jobs", str(workers)],
                         cwd=ROOT, stdout=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "ranx"], cwd=ROOT),
    ]  # fmt: skip
    failed = [process.args for process in processes if process.wait() != 0]
    if failed:
        raise RuntimeError(f"warming numba's caches failed: {failed}")
    return time.perf_counter() - start


if __name__ == "__main__" and sys.argv[1:] == ["ranx"]:
    warm_ranx()
