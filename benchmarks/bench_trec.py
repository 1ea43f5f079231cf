"""TREC measures against ranx, pytrec_eval and ir_measures, each in a fresh process.

One fixed-seed workload (by default 100,000 queries x 100 retrieved documents, 5-15 judged
documents per query, labels 0..3, no tied scores, no duplicates) is written once to parquet;
every library then runs in its own subprocess, which reads the parquet files into pandas
DataFrames (not timed, the same for all) and, from those DataFrames, times

- the first call: import of the library + build + compute, in that fresh process;
- ``--repeats`` warm calls in the same process: build (DataFrames -> the library's input
  structures) and compute (per-query values and their means), and their sum (end-to-end).

Peak RSS is ``ru_maxrss`` of that subprocess. The per-query values are written out after the
timed calls and compared with pytrec_eval's (means and per query).

Usage (from the repository root, in an environment with the peers installed)::

    python benchmarks/bench_trec.py [--queries 100000 | --quick] [--repeats 3]
        [--peers pytrec_eval,ir_measures,ranx] [--seed 0] [--no-cold] [--combine-chunks] [--json OUT]

It needs Linux (``/proc``, ``ru_maxrss`` in KiB). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Only the standard library at module level: this file is also the child process, whose import
# times and memory are measured.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.provenance import commit, version  # noqa: E402

QUICK_QUERIES = 10_000
RETRIEVED_PER_QUERY = 100
JUDGED_PER_QUERY = (5, 15)
LABEL_PROBABILITIES = (0.45, 0.30, 0.15, 0.10)  # labels 0..3
# A warm-repeat loop stops once it has used this much time (at least one repeat always runs).
REPEAT_BUDGET_S = 300.0
# Per-query values further apart than this count as a disagreement.
TOLERANCE = 1e-9

TARGET_END_TO_END_RATIO = 5.0  # vs the fastest peer
TARGET_COMPUTE_RATIO_RANX = 10.0
THREAD_VARIABLES = ("NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "OMP_NUM_THREADS")

OURS = "retrieval_eval"
PEERS = ("pytrec_eval", "ir_measures", "ranx")
REFERENCE = "pytrec_eval"

# Our metric names and each peer's name for the same measure.
METRICS = ("ndcg@10", "map", "recip_rank", "recall@100", "precision@10")
PYTREC_MEASURES = {"ndcg@10": "ndcg_cut.10", "map": "map", "recip_rank": "recip_rank", "recall@100": "recall.100",
                   "precision@10": "P.10"}
PYTREC_KEYS = {"ndcg@10": "ndcg_cut_10", "map": "map", "recip_rank": "recip_rank", "recall@100": "recall_100",
               "precision@10": "P_10"}
IR_MEASURES = {"ndcg@10": "nDCG@10", "map": "AP", "recip_rank": "RR", "recall@100": "R@100", "precision@10": "P@10"}
RANX_METRICS = {"ndcg@10": "ndcg@10", "map": "map", "recip_rank": "mrr", "recall@100": "recall@100",
                "precision@10": "precision@10"}


# ---------------------------------------------------------------------------------------------
# Workload


def make_trec_workload(n_queries: int, *, seed: int = 0):
    """Fixed-seed qrels and run DataFrames (string ids) that every TREC tool must score identically.

    Each query retrieves exactly RETRIEVED_PER_QUERY distinct documents. Scores are distinct
    within a query even as float32 (pytrec_eval compares float32): score = (100 - rank) +
    uniform[0, 0.5), so neighbours are at least 0.5 apart. Rows are in document order, not score
    order, so every tool has to sort. 5-15 documents are judged per query (labels 0..3), about
    half of them retrieved; judged documents score higher the higher their label.
    """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n_docs = RETRIEVED_PER_QUERY
    base = rng.integers(0, 10_000_000, size=n_queries)
    n_judged = rng.integers(JUDGED_PER_QUERY[0], JUDGED_PER_QUERY[1] + 1, size=n_queries)
    n_judged_retrieved = rng.binomial(n_judged, 0.5)

    # Retrieved document at position p of query q: id base[q] + 7p. The judged retrieved ones sit
    # at the first n_judged_retrieved[q] positions of a random permutation.
    order = np.argsort(rng.random((n_queries, n_docs)), axis=1)
    judged_slot = np.arange(n_docs) < n_judged_retrieved[:, None]
    labels = np.zeros((n_queries, n_docs), dtype=np.int64)
    rows = np.broadcast_to(np.arange(n_queries)[:, None], order.shape)
    drawn = rng.choice(len(LABEL_PROBABILITIES), size=(n_queries, n_docs), p=LABEL_PROBABILITIES)
    labels[rows[judged_slot], order[judged_slot]] = drawn[judged_slot]
    judged = np.zeros((n_queries, n_docs), dtype=bool)
    judged[rows[judged_slot], order[judged_slot]] = True

    key = rng.normal(size=(n_queries, n_docs)) + 0.8 * labels
    rank = np.argsort(np.argsort(-key, axis=1), axis=1)
    score = (n_docs - rank) + 0.5 * rng.random((n_queries, n_docs))
    doc = base[:, None] + 7 * np.arange(n_docs)[None, :]
    run_query = np.repeat(np.arange(n_queries), n_docs)
    run = pd.DataFrame({"query_id": _ids("q", run_query), "doc_id": _ids("d", doc.ravel()), "score": score.ravel()})

    # Judged documents that were not retrieved: base[q] + 1 + 7j, never a retrieved id.
    n_unretrieved = n_judged - n_judged_retrieved
    un_query = np.repeat(np.arange(n_queries), n_unretrieved)
    un_slot = np.arange(len(un_query)) - np.repeat(np.cumsum(n_unretrieved) - n_unretrieved, n_unretrieved)
    un_doc = base[un_query] + 1 + 7 * un_slot
    un_label = rng.choice(len(LABEL_PROBABILITIES), size=len(un_query), p=LABEL_PROBABILITIES)
    qrels_query = np.concatenate([np.nonzero(judged)[0], un_query])
    qrels_doc = np.concatenate([doc[judged], un_doc])
    qrels_label = np.concatenate([labels[judged], un_label])
    by_query = np.argsort(qrels_query, kind="stable")
    qrels = pd.DataFrame({
        "query_id": _ids("q", qrels_query[by_query]),
        "doc_id": _ids("d", qrels_doc[by_query]),
        "relevance": qrels_label[by_query].astype(np.int64),
    })
    _check_workload(score, run_query, doc.ravel(), qrels_query, qrels_doc, n_queries)
    return qrels, run


def _ids(prefix: str, numbers):
    """String ids (pandas' default string dtype), e.g. q17, d8506242."""
    import pandas as pd

    return prefix + pd.Series(numbers).astype(str)


def _check_workload(score, run_query, run_doc, qrels_query, qrels_doc, n_queries: int) -> None:
    """No tied float32 score within a query, no repeated (query, doc), the same queries on both sides."""
    import numpy as np

    ordered = np.sort(score.astype(np.float32), axis=1)
    assert (np.diff(ordered, axis=1) > 0).all(), "tied float32 scores within a query"
    assert len(np.unique(run_query * (1 << 32) + run_doc)) == len(run_doc), "duplicate run rows"
    assert len(np.unique(qrels_query * (1 << 32) + qrels_doc)) == len(qrels_doc), "duplicate qrels rows"
    assert len(np.unique(qrels_query)) == len(np.unique(run_query)) == n_queries, "query sets differ"


def write_workload(n_queries: int, seed: int, directory: Path) -> dict[str, Any]:
    start = time.perf_counter()
    qrels, run = make_trec_workload(n_queries, seed=seed)
    qrels.to_parquet(directory / "qrels.parquet", index=False)
    run.to_parquet(directory / "run.parquet", index=False)
    relevant = qrels[qrels["relevance"] > 0]
    stats = {
        "queries": n_queries,
        "seed": seed,
        "run_rows": len(run),
        "qrels_rows": len(qrels),
        "relevant_rows": len(relevant),
        "queries_without_relevant": n_queries - relevant["query_id"].nunique(),
        "label_counts": {int(k): int(v) for k, v in qrels["relevance"].value_counts().sort_index().items()},
        "setup_s": time.perf_counter() - start,
    }
    return stats


# ---------------------------------------------------------------------------------------------
# The libraries (used in the child process). Each: import, build(DataFrames), compute(built),
# results(computed) -> (per-query DataFrame with query_id + METRICS columns, {metric: mean}).


def nested(queries, docs, values) -> dict:
    """{query: {doc: value}} from three columns, the way pytrec_eval wants its input."""
    by_query: dict = {}
    for query, doc, value in zip(queries.tolist(), docs.tolist(), values.tolist()):
        inner = by_query.get(query)
        if inner is None:
            inner = by_query[query] = {}
        inner[doc] = value
    return by_query


def _ours_import():
    import retrieval_eval

    return retrieval_eval


def _ours_build(lib, qrels_df, run_df):
    return lib.Qrels.read(qrels_df), lib.Run.read(run_df)


def _ours_compute(lib, built):
    qrels, run = built
    return lib.evaluate(qrels, run, list(METRICS))


def _ours_results(result):
    return result.per_query[["query_id", *METRICS]], {m: float(result.summary.loc[m, "mean"]) for m in METRICS}


def _pytrec_import():
    import pytrec_eval

    return pytrec_eval


def _pytrec_build(lib, qrels_df, run_df):
    qrels = nested(qrels_df["query_id"], qrels_df["doc_id"], qrels_df["relevance"])
    evaluator = lib.RelevanceEvaluator(qrels, set(PYTREC_MEASURES.values()))
    return evaluator, nested(run_df["query_id"], run_df["doc_id"], run_df["score"])


def _pytrec_compute(lib, built):
    evaluator, run = built
    per_query = evaluator.evaluate(run)
    means = {key: lib.compute_aggregated_measure(key, [values[key] for values in per_query.values()])
             for key in PYTREC_KEYS.values()}
    return per_query, means


def _pytrec_results(computed):
    import pandas as pd

    per_query, means = computed
    table = pd.DataFrame({"query_id": list(per_query)})
    for metric, key in PYTREC_KEYS.items():
        table[metric] = [values[key] for values in per_query.values()]
    return table, {metric: means[key] for metric, key in PYTREC_KEYS.items()}


def _ir_measures_import():
    import ir_measures

    return ir_measures


def _ir_measures_build(lib, qrels_df, run_df):
    measures = [lib.parse_measure(name) for name in IR_MEASURES.values()]
    return lib.evaluator(measures, qrels_df), run_df


def _ir_measures_compute(lib, built):
    evaluator, run_df = built
    return evaluator.calc(run_df)  # (aggregated, per-query Metric list)


def _ir_measures_results(computed):
    import pandas as pd

    aggregated, metrics = computed
    ours = {name: metric for metric, name in IR_MEASURES.items()}
    long = pd.DataFrame({"query_id": [m.query_id for m in metrics], "measure": [ours[str(m.measure)] for m in metrics],
                         "value": [float(m.value) for m in metrics]})
    table = long.pivot(index="query_id", columns="measure", values="value").reset_index()
    return table[["query_id", *METRICS]], {ours[str(measure)]: float(value) for measure, value in aggregated.items()}


def _ranx_import():
    import ranx

    return ranx


def _ranx_build(lib, qrels_df, run_df):
    # ranx 0.3.21 asserts object id columns; pandas 3 reads them as `str`: part of ranx's build.
    ids = {"query_id": object, "doc_id": object}
    qrels = lib.Qrels.from_df(qrels_df.astype(ids), q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    run = lib.Run.from_df(run_df.astype(ids), q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    return qrels, run


def _ranx_compute(lib, built):
    qrels, run = built
    means = lib.evaluate(qrels, run, list(RANX_METRICS.values()))
    return run, means  # per-query values are kept in run.scores


def _ranx_results(computed):
    import pandas as pd

    run, means = computed
    first = run.scores[RANX_METRICS[METRICS[0]]]
    table = pd.DataFrame({"query_id": list(first)})
    for metric, name in RANX_METRICS.items():
        table[metric] = [float(run.scores[name][query]) for query in table["query_id"]]
    return table, {metric: float(means[name]) for metric, name in RANX_METRICS.items()}


@dataclass(frozen=True)
class Library:
    distribution: str  # for the version
    load: Callable[[], Any]
    build: Callable[[Any, Any, Any], Any]
    compute: Callable[[Any, Any], Any]
    results: Callable[[Any], tuple[Any, dict[str, float]]]


LIBRARIES = {
    OURS: Library("retrieval_eval", _ours_import, _ours_build, _ours_compute, _ours_results),
    "pytrec_eval": Library("pytrec-eval-terrier", _pytrec_import, _pytrec_build, _pytrec_compute, _pytrec_results),
    "ir_measures": Library("ir-measures", _ir_measures_import, _ir_measures_build, _ir_measures_compute,
                           _ir_measures_results),
    "ranx": Library("ranx", _ranx_import, _ranx_build, _ranx_compute, _ranx_results),
}


# ---------------------------------------------------------------------------------------------
# Child process


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def load_frames(directory: Path, combine_chunks: bool):
    """The qrels and run DataFrames, as ``pd.read_parquet`` gives them (string columns backed by
    several Arrow chunks) or, with ``combine_chunks``, with one chunk per column (as a DataFrame
    built in memory has)."""
    import pandas as pd
    import pyarrow.parquet as pq

    if combine_chunks:
        return tuple(pq.read_table(directory / f"{name}.parquet").combine_chunks().to_pandas()
                     for name in ("qrels", "run"))
    return pd.read_parquet(directory / "qrels.parquet"), pd.read_parquet(directory / "run.parquet")


def _chunks(frame) -> int | None:
    array = getattr(frame["doc_id"].array, "_pa_array", None)
    return None if array is None else array.num_chunks


def child(library: str, directory: Path, label: str, repeats: int, combine_chunks: bool) -> None:
    """Read the DataFrames, time a first and ``repeats`` warm calls, write JSON + per-query parquet."""
    lib_spec = LIBRARIES[library]
    start = time.perf_counter()
    qrels_df, run_df = load_frames(directory, combine_chunks)
    loaded = time.perf_counter()
    rss_loaded = _status_kib("VmRSS")

    t0 = time.perf_counter()
    lib = lib_spec.load()
    t1 = time.perf_counter()
    built = lib_spec.build(lib, qrels_df, run_df)
    t2 = time.perf_counter()
    computed = lib_spec.compute(lib, built)
    t3 = time.perf_counter()
    first = {"import": t1 - t0, "build": t2 - t1, "compute": t3 - t2, "total": t3 - t0}

    builds: list[float] = []
    computes: list[float] = []
    while len(builds) < repeats and (not builds or sum(builds) + sum(computes) < REPEAT_BUDGET_S):
        del built, computed
        gc.collect()
        t0 = time.perf_counter()
        built = lib_spec.build(lib, qrels_df, run_df)
        t1 = time.perf_counter()
        computed = lib_spec.compute(lib, built)
        t2 = time.perf_counter()
        builds.append(t1 - t0)
        computes.append(t2 - t1)

    peak_before_results = _status_kib("VmHWM")
    per_query, means = lib_spec.results(computed)
    per_query.to_parquet(directory / f"{label}.per_query.parquet", index=False)
    out = {
        "library": library,
        "version": version(lib_spec.distribution),
        "load_s": loaded - start,
        "doc_id_chunks": {"qrels": _chunks(qrels_df), "run": _chunks(run_df)},
        "rss_loaded_kib": rss_loaded,
        "vm_hwm_kib": peak_before_results,
        "first": first,
        "builds": builds,
        "computes": computes,
        "means": means,
        "queries_scored": len(per_query),
        "numba_threads": _numba_threads(),
        "module_file": getattr(lib, "__file__", None),
    }
    (directory / f"{label}.json").write_text(json.dumps(out), encoding="utf-8")


def _numba_threads() -> int | None:
    if "numba" not in sys.modules:
        return None
    return sys.modules["numba"].get_num_threads()


# ---------------------------------------------------------------------------------------------
# Parent: one launcher per library run


# A child's ru_maxrss starts at the RSS of the process that forked it (Linux carries the
# high-water mark over exec), so a small launcher, not the benchmark process that generated
# the workload, spawns each child and reports RUSAGE_CHILDREN.ru_maxrss.
_LAUNCHER = """
import resource, subprocess, sys
code = subprocess.run([sys.executable, *sys.argv[1:]]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(code)
"""


@dataclass
class Measurement:
    label: str
    library: str
    cache: str  # numba cache state for retrieval_eval ("cold", "warm") or "as found"
    ok: bool
    data: dict[str, Any]
    peak_kib: int | None
    wall_s: float
    load_before: float
    error: str = ""

    @property
    def build(self) -> float:
        return statistics.median(self.data["builds"])

    @property
    def compute(self) -> float:
        return statistics.median(self.data["computes"])

    @property
    def end_to_end(self) -> float:
        return statistics.median(b + c for b, c in zip(self.data["builds"], self.data["computes"]))

    @property
    def first(self) -> float:
        return self.data["first"]["total"]

    @property
    def has_repeats(self) -> bool:
        return self.ok and bool(self.data["builds"])


def run_child(library: str, label: str, cache: str, directory: Path, repeats: int, env: dict[str, str],
              combine_chunks: bool) -> Measurement:
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(Path(__file__).resolve()), "--child", library,
         "--dir", str(directory), "--label", label, "--repeats", str(repeats)]
        + (["--combine-chunks"] if combine_chunks else []),
        env=env, capture_output=True, text=True,
    )
    wall = time.perf_counter() - start
    lines = launched.stdout.strip().splitlines()
    peak = int(lines[-1]) if lines and lines[-1].isdigit() else None
    result_file = directory / f"{label}.json"
    if launched.returncode != 0 or not result_file.exists():
        return Measurement(label, library, cache, False, {}, peak, wall, load_before,
                           error=(launched.stderr.strip() or "\n".join(lines))[-3000:])
    if launched.stderr.strip():
        print(f"    [{label} stderr] " + launched.stderr.strip().replace("\n", "\n    "), file=sys.stderr)
    return Measurement(label, library, cache, True, json.loads(result_file.read_text()), peak, wall, load_before)


def plan(args: argparse.Namespace, directory: Path) -> list[tuple[str, str, str, int, dict[str, str]]]:
    """(library, label, cache state, repeats, environment) per child, in run order."""
    jobs = []
    env = dict(os.environ)
    if args.cold:
        # retrieval_eval's kernels compile into a fresh cache: the first child finds it empty, the
        # second finds what the first wrote. The peers keep their caches as found.
        ours_env = {**env, "NUMBA_CACHE_DIR": str(directory / "numba-cache")}
        jobs.append((OURS, "ours-cold", "cold", 1, ours_env))
        jobs.append((OURS, "ours", "warm", args.repeats, ours_env))
    else:
        jobs.append((OURS, "ours", "as found", args.repeats, env))
    for peer in args.peers:
        jobs.append((peer, peer, "as found", args.repeats, env))
    return jobs


# ---------------------------------------------------------------------------------------------
# Agreement


def agreement(measurements: list[Measurement], directory: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Per library and metric vs the reference (pytrec_eval, else ours): |mean difference|, max
    |per-query difference|, queries differing by more than TOLERANCE, queries missing on either side."""
    import pandas as pd

    done = {m.label: m for m in measurements if m.ok}
    reference = REFERENCE if REFERENCE in done else "ours"
    if reference not in done:
        return {}
    ref_table = pd.read_parquet(directory / f"{reference}.per_query.parquet").set_index("query_id")
    ref_means = done[reference].data["means"]
    found: dict[str, dict[str, dict[str, float]]] = {}
    for label, measurement in done.items():
        table = pd.read_parquet(directory / f"{label}.per_query.parquet").set_index("query_id")
        common = ref_table.index.intersection(table.index)
        per_metric = {}
        for metric in METRICS:
            diff = (table.loc[common, metric] - ref_table.loc[common, metric]).abs()
            per_metric[metric] = {
                "mean_diff": abs(measurement.data["means"][metric] - ref_means[metric]),
                "max_query_diff": float(diff.max()),
                "queries_differing": int((diff > TOLERANCE).sum()),
                "queries_missing": int(len(ref_table) - len(common) + len(table) - len(common)),
            }
        found[label] = per_metric
    found["_reference"] = {"label": reference}  # type: ignore[assignment]
    return found


# ---------------------------------------------------------------------------------------------
# Report


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    versions = {name: version(name) for name in ("numpy", "numba", "pandas", "pyarrow")}
    return {
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "python": platform.python_version(),
        **versions,
        "thread_environment": {name: os.environ[name] for name in THREAD_VARIABLES if name in os.environ},
        "commit": commit(),
    }


def _row_name(m: Measurement) -> str:
    version = m.data.get("version") if m.ok else None
    name = m.library + (f" {version}" if version else "")
    if m.library == OURS and m.cache != "as found":
        name += f" (numba cache {m.cache})"
    return name


def table_rows(measurements: list[Measurement], agree: dict[str, Any]) -> list[tuple[str, ...]]:
    ours = next((m for m in measurements if m.label == "ours" and m.has_repeats), None)
    rows = [("library", "build s", "compute s", "end-to-end s", "first call s", "peak RSS MB", "RSS after load MB",
             "end-to-end / ours", "compute / ours", f"max abs diff vs {agree.get('_reference', {}).get('label', '-')}: "
             "means / per query")]
    for m in measurements:
        if not m.ok:
            rows.append((_row_name(m), "FAILED", "", "", "", _mb(m.peak_kib), "", "", "", ""))
            continue
        repeated = m.has_repeats and m.label != "ours-cold"
        ratio = lambda mine, theirs: "1" if m.label == "ours" else f"{theirs / mine:.1f}x"  # noqa: E731
        diffs = agree.get(m.label)
        rows.append((
            _row_name(m),
            f"{m.build:.3f}" if repeated else "-",
            f"{m.compute:.3f}" if repeated else "-",
            f"{m.end_to_end:.3f}" if repeated else "-",
            f"{m.first:.2f}",
            _mb(m.peak_kib),
            _mb(m.data["rss_loaded_kib"]),
            ratio(ours.end_to_end, m.end_to_end) if (repeated and ours) else "-",
            ratio(ours.compute, m.compute) if (repeated and ours) else "-",
            _diffs(diffs),
        ))
    return rows


def _diffs(diffs: dict[str, dict[str, float]] | None) -> str:
    """Largest |mean difference| and largest |per-query difference| over the metrics."""
    if not diffs:
        return "-"
    means = max(d["mean_diff"] for d in diffs.values())
    queries = max(d["max_query_diff"] for d in diffs.values())
    return f"{means:.1e} / {queries:.1e}"


def _mb(kib: int | None) -> str:
    return "-" if kib is None else f"{kib / 1024:,.0f}"


def targets(measurements: list[Measurement]) -> list[tuple[str, str, str, bool]]:
    done = {m.label: m for m in measurements if m.has_repeats}
    if "ours" not in done:
        return []
    ours = done["ours"]
    found = []
    peers = [done[p] for p in PEERS if p in done]
    if peers:
        fastest = min(peers, key=lambda m: m.end_to_end)
        ratio = fastest.end_to_end / ours.end_to_end
        found.append((f"end-to-end vs the fastest peer ({fastest.library})", f"{ratio:.1f}x",
                      f">= {TARGET_END_TO_END_RATIO:.0f}x", ratio >= TARGET_END_TO_END_RATIO))
    if "ranx" in done:
        ratio = done["ranx"].compute / ours.compute
        found.append(("compute-only vs ranx", f"{ratio:.1f}x", f">= {TARGET_COMPUTE_RATIO_RANX:.0f}x",
                      ratio >= TARGET_COMPUTE_RATIO_RANX))
    reference = next((m for m in measurements if m.label == "pytrec_eval" and m.ok), None)
    if reference is not None and reference.peak_kib and ours.peak_kib:
        value = f"{ours.peak_kib / 1024:,.0f} MB vs {reference.peak_kib / 1024:,.0f} MB"
        found.append(("peak RSS vs pytrec_eval", value, "<= pytrec_eval", ours.peak_kib <= reference.peak_kib))
    return found


def print_report(results: dict[str, Any], measurements: list[Measurement]) -> None:
    work, host = results["workload"], results["machine"]
    print(f"\nWorkload: {work['queries']:,} queries x {RETRIEVED_PER_QUERY} retrieved = {work['run_rows']:,} run rows; "
          f"{work['qrels_rows']:,} qrels rows (labels {work['label_counts']}), {work['relevant_rows']:,} relevant; "
          f"{work['queries_without_relevant']:,} queries without a relevant document; seed {work['seed']}; "
          f"setup {work['setup_s']:.1f} s")
    print(f"Machine: {host['cpus']} CPUs ({host['cpu_model']}); Python {host['python']}, numpy {host['numpy']}, "
          f"numba {host['numba']}, pandas {host['pandas']}, pyarrow {host['pyarrow']}; thread settings "
          f"{host['thread_environment'] or 'default'}; commit {host['commit']}")
    chunks = next((m.data["doc_id_chunks"] for m in measurements if m.ok), {})
    print(f"DataFrames: {results['frames']} (Arrow chunks of the doc_id columns: {chunks}); "
          f"{results['repeats']} warm repeats per library after the first call (median shown)\n")
    _print_table(table_rows(measurements, results["agreement"]))

    print("\nEvery call (s): first = import + build + compute; then build + compute of each warm repeat")
    for m in measurements:
        if not m.ok:
            print(f"  {m.label}: FAILED\n    " + m.error.replace("\n", "\n    "))
            continue
        d = m.data
        first = d["first"]
        warm = "  ".join(f"{b:.3f}+{c:.3f}" for b, c in zip(d["builds"], d["computes"]))
        print(f"  {m.label}: load {d['load_s']:.2f}; first: import {first['import']:.2f}, build {first['build']:.3f}, "
              f"compute {first['compute']:.3f}; warm: {warm or '-'}; process wall {m.wall_s:.1f}; "
              f"numba threads {d['numba_threads']}; load average before {m.load_before:.2f}; "
              f"VmHWM {d['vm_hwm_kib'] / 1024:,.0f} MB")

    agree = results["agreement"]
    if agree:
        reference = agree["_reference"]["label"]
        print(f"\nMeans, and agreement with {reference}: |mean diff| / max |per-query diff| / queries differing "
              f"by more than {TOLERANCE:g} (of {work['queries']:,}) / queries missing")
        header = ("metric",) + tuple(label for label in agree if label != "_reference")
        rows = [header]
        for metric in METRICS:
            cells = [metric]
            for label in header[1:]:
                m = next(x for x in measurements if x.label == label)
                d = agree[label][metric]
                cells.append(f"{m.data['means'][metric]:.6f} ({d['mean_diff']:.1e} / {d['max_query_diff']:.1e} / "
                             f"{d['queries_differing']} / {d['queries_missing']})")
            rows.append(tuple(cells))
        _print_table(rows)

    print("\nTargets")
    for name, value, target, met in results["targets"]:
        print(f"  {name}: {value} (target {target}) -> {'met' if met else 'MISSED'}")


def _print_table(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))


def markdown_table(measurements: list[Measurement], agree: dict[str, Any]) -> str:
    rows = table_rows(measurements, agree)
    lines = ["| " + " | ".join(rows[0]) + " |", "|---|" + "---:|" * (len(rows[0]) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000, help="queries in the workload (default 100000)")
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK_QUERIES:,} queries")
    parser.add_argument("--repeats", type=int, default=3, help="warm calls per library after the first (default 3)")
    parser.add_argument("--peers", default=",".join(PEERS),
                        help=f"comma-separated subset of {','.join(PEERS)} (default all; empty: none)")
    parser.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    parser.add_argument("--no-cold", dest="cold", action="store_false",
                        help="skip the cold-numba-cache child; retrieval_eval then uses its numba cache as found")
    parser.add_argument("--combine-chunks", action="store_true",
                        help="give every library DataFrames with one Arrow chunk per column (default: as "
                             "pd.read_parquet returns them, several chunks)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    parser.add_argument("--child", choices=sorted(LIBRARIES), help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.queries = QUICK_QUERIES
    args.peers = [p for p in (name.strip() for name in args.peers.split(",")) if p]
    unknown = set(args.peers) - set(PEERS)
    if unknown:
        parser.error(f"unknown peer(s) {sorted(unknown)}; choose from {', '.join(PEERS)}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        child(args.child, args.dir, args.label, args.repeats, args.combine_chunks)
        return
    with tempfile.TemporaryDirectory(prefix="bench-trec-") as tmp:
        directory = Path(tmp)
        print(f"Writing the workload ({args.queries:,} queries, seed {args.seed}) ...", flush=True)
        workload = generate_workload(args.queries, args.seed, directory)
        measurements = []
        for library, label, cache, repeats, env in plan(args, directory):
            print(f"  running {label} ...", flush=True)
            m = run_child(library, label, cache, directory, repeats, env, args.combine_chunks)
            status = "FAILED"
            if m.ok:
                status = f"first {m.first:.1f} s"
                if m.has_repeats and label != "ours-cold":
                    status += f", end-to-end {m.end_to_end:.2f} s"
            print(f"    {status}; process wall {m.wall_s:.1f} s", flush=True)
            measurements.append(m)
        agree = agreement(measurements, directory)
    results = {
        "workload": workload,
        "machine": machine(),
        "repeats": args.repeats,
        "frames": "one Arrow chunk per column" if args.combine_chunks else "pd.read_parquet",
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "measurements": [{"label": m.label, "library": m.library, "numba_cache": m.cache, "ok": m.ok,
                          "peak_rss_kib": m.peak_kib, "process_wall_s": m.wall_s, "load_average_before": m.load_before,
                          "error": m.error, **m.data} for m in measurements],
        "agreement": agree,
        "targets": targets(measurements),
    }
    print_report(results, measurements)
    print("\nMarkdown:\n")
    print(markdown_table(measurements, agree))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def generate_workload(n_queries: int, seed: int, directory: Path) -> dict[str, Any]:
    """Generate and write the workload in a subprocess, so that this process stays small."""
    code = ("import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
            "from benchmarks.bench_trec import write_workload; "
            "print(json.dumps(write_workload(int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT), str(n_queries), str(seed), str(directory)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
