"""Every kernel gives the same bits as Python, as its serial build and as its parallel build.

The inputs are the ones the library itself passes the kernels on random workloads (recorded at
each call), so that each kernel sees realistic, consistent arrays: ids hashed and grouped,
judgment indexes, joins with ties, duplicates and unjudged documents, casefolded text.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import retrieval_eval as rev
from benchmarks.workload import make_workload
from retrieval_eval.azure.f1_columns import f1_scores
from retrieval_eval.data.join import align_queries
from retrieval_eval.executions.batch.engine import plan_checks, plan_per_record, run_checks
from retrieval_eval.executions.batch.tables import flatten_records
from retrieval_eval.frontends.trec_eval.relstring import relevance_strings
from retrieval_eval.fusion import METHODS as FUSION_METHODS
from retrieval_eval.fusion import NORMALIZATIONS, align, fused_run, fused_scores, normalize
from retrieval_eval.io.jsonio import check_json_bytes
from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.partitioning import bucket_of_keys
from retrieval_eval.sweep.fused import FusedRuns
from retrieval_eval.sweep.grids import fusion_grid
from retrieval_eval.sweep.stats import bootstrap_ci, randomization_test
from retrieval_eval.sweep.tukey import randomised_tukey_hsd
from tests.executions.fixtures import ODSP, example_telemetry

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="the compiled builds are Python too without the JIT")

TREC = ["map", "ndcg", "ndcg@10", "P@5", "recall@20", "recip_rank", "bpref", "infap", "judged@10", "iprec_at_recall_0.5"]
# trec_eval's measures over every rank (gain maps, rbp) and at levels of num_rel, under -J too.
TREC_RANKED = ["g", "ndcg(gains=1:3;0:0.5)", "rbp(p=0.8)", "rbp_resid", "rprec_mult(mult=0.4)", "iprec_11pt"]
PREFS = ["prefs_num_prefs_poss", "prefs_simp", "prefs_pair", "prefs_avgjg_rnonrel", "prefs_avgjg_rnonrel_ret"]
JUDGMENT_GROUPS = ["map_avgjg", "p_avgjg@5", "rprec_mult_avgjg(mult=0.4)"]
DOCRET = ["ndcg_exp@5", "xdcg@3", "fidelity", "top1_relevance", "max_relevance@3", "holes", "holes_ratio", "holes@10"]
# A value for each fusion parameter a method needs (trained methods learn the rest from the qrels).
FUSION_PARAMS = {"weights": [0.5, 1.0, 2.0], "gamma": 0.5, "phi": 0.8, "w": 2, "n_segments": 3}


def _copy(value):
    if isinstance(value, np.ndarray):
        copy = value.copy()
        copy.setflags(write=value.flags.writeable)
        return copy
    return value


def _preferences(qrels: pd.DataFrame, seed: int) -> rev.Qrels:
    """The qrels as preferences: groups of one and of several subgroups, some documents in two groups."""
    prefs = qrels.assign(group=np.where(qrels["relevance"] % 2 == 0, "g", "h"), subgroup=qrels["doc_id"].str[-1:])
    prefs = pd.concat([prefs, prefs.sample(30, random_state=seed).assign(group="e", subgroup="0")])
    table = pa.Table.from_pandas(prefs.astype({"relevance": float}), preserve_index=False)
    return rev.Qrels(table, judgments="prefs", duplicates="last")


def _judgment_groups(qrels: pd.DataFrame, seed: int) -> rev.Qrels:
    """The qrels split among three judgment groups, some documents judged again in a fourth."""
    grouped = qrels.assign(group=(np.arange(len(qrels)) % 3).astype(str))
    grouped = pd.concat([grouped, grouped.sample(30, random_state=seed).assign(group="10")])
    return rev.Qrels(pa.Table.from_pandas(grouped, preserve_index=False), judgments="qrels_jg", duplicates="last")


def _workload_calls(monkeypatch) -> list[tuple]:
    """(kernel, arguments) of every call the library makes while scoring random workloads."""
    calls = []
    run_as_python = _config.Kernel.__call__

    def record(kernel, *args):
        calls.append((kernel, tuple(map(_copy, args))))
        return run_as_python(kernel, *args)

    monkeypatch.setenv(_config.MODE_VARIABLE, "python")
    monkeypatch.setattr(_config.Kernel, "__call__", record)
    rng = np.random.default_rng(7)
    for seed in range(3):
        workload = make_workload(40, seed=seed, retrieved=(5, 60))
        run = workload.run.copy()
        run["score"] = np.round(run["score"] / 10)  # many ties
        run = pd.concat([run, run.sample(20, random_state=seed)])  # repeated documents
        shuffled = run.sample(frac=1.0, random_state=seed)  # not grouped by query
        some = run[run["query_id"].isin(run["query_id"].unique()[::2])]  # part of the judged queries
        prefs = _preferences(workload.qrels, seed)
        grouped = _judgment_groups(workload.qrels, seed)
        _fuse_every_way(workload.qrels, [run, shuffled, some])
        for table in (run, shuffled, some):
            rev.evaluate(workload.qrels, table, TREC, run_duplicates="max", qrels_duplicates="last")
            rev.evaluate(prefs, table, PREFS, run_duplicates="max", query_set="qrels")
            rev.evaluate(grouped, table, JUDGMENT_GROUPS, run_duplicates="max", query_set="qrels", max_docs=30)
            grouped_options = rev.EvaluationOptions(judgments="qrels_jg", judged_only=True, rel_level=2, run_duplicates="max")
            rev.Evaluator(grouped, JUDGMENT_GROUPS, options=grouped_options).evaluate(table)
            rev.evaluate(workload.qrels, table, DOCRET, query_set="union")
            rev.evaluate(workload.qrels, table, TREC + DOCRET, ties="ranx", run_duplicates="max", query_set="qrels")
            judged_only = rev.EvaluationOptions(judged_only=True, query_set="qrels", run_duplicates="max")
            rev.Evaluator(workload.qrels, TREC + TREC_RANKED, options=judged_only).evaluate(table)
            trec_qrels, trec_run = rev.Qrels.read(workload.qrels), rev.Run.read(table)
            relevance_strings(trec_qrels, trec_run, align_queries(trec_qrels, trec_run), judged_only, 10)
        as_integers = {"query_id": lambda t: t["query_id"].str[1:].astype(np.int64),
                       "doc_id": lambda t: t["doc_id"].str[3:].astype(np.int64)}
        rev.evaluate(workload.qrels.assign(**as_integers), shuffled.assign(**as_integers), TREC, run_duplicates="first")
        # The bucket path (streaming a run too big for memory) passes read-only keys.
        bucket_of_keys(_config.read_only(rng.integers(0, 2**63, size=500), np.uint64), 7, seed)
    records = [example_telemetry(), None, [{"capability": "Email", "queries": [{"queryString": "Straße ÉTÉ"}]}]]
    checks = {
        "RetrievalQuery": {"capability": ODSP, "selector": "MORTGAGE", "includes": ["mortgage", "joint check"]},
        "RetrievalResult": {"capability": ODSP, "expected_items": [{"retrievalExtract_contains": "joint check"}, "$500"]},
    }
    run_checks(flatten_records(records), plan_per_record([checks, {"RetrievalQuery": checks["RetrievalQuery"]}, checks]))
    run_checks(flatten_records(records[:1]), plan_checks(1, checks))
    answers = flatten_records(records, responses=["Straße ÉTÉ plan", None, "planning"], invoked_tools=[["Search"], None, []])
    answer_checks = {"KeywordMatch": {"keywords": ["plan", "été"], "word_boundaries": True}, "ToolUse": {"tools": ["search"]}}
    run_checks(answers, plan_checks(3, answer_checks))
    answers = ["The café's ½ price.", "", "a an the", "Straße €the ΟΔΟΣ", "x", "ǅ ﬁne ﬁne"]
    f1_scores(pa.chunked_array([answers]), pa.chunked_array([answers[::-1]]))
    for lines in (True, False):  # JSON checked before parsing: per line (JSON Lines) and as one document
        check_json_bytes(b'{"a": [1, "]\\"[", {"b": []}]}\n[[]]\n', "<json>", lines=lines)
    # A leaderboard's statistics: the bootstrap's counts, the randomization test's signs, the Tukey HSD's permuted ranges.
    scores = rng.random((3, 25))
    bootstrap_ci(scores, resamples=20)
    randomization_test(scores[1:], scores[0], rounds=20)
    randomised_tukey_hsd(np.round(scores * 4) / 4, permutations=20)  # with ties
    return calls


def _fuse_every_way(qrels: pd.DataFrame, runs: list[pd.DataFrame]) -> None:
    """Every normalization, and every fusion method under the two that reorder the runs (and one that does not)."""
    aligned = align(runs, duplicates="max", top_k_in=40, names=[f"run{number}" for number in range(len(runs))])
    normalized = {norm: normalize(aligned, norm) for norm in NORMALIZATIONS}
    for method in FUSION_METHODS:
        params = {p.name: FUSION_PARAMS[p.name] for p in method.parameters if p.required or p.name == "n_segments"}
        for norm in ("min-max-inverted", "borda", "zmuv"):
            fused = fused_scores(aligned, normalized[norm], method, params, qrels=qrels if method.trained else None)
            fused_run(aligned, fused, top_k_out=30)
    # A fusion sweep's fast path: the aligned rows labelled once, each configuration ranked (trec_eval's ties too) and gathered.
    configurations = FusedRuns(aligned, fusion_grid({"method": "rrf", "k": [1, 60]}, list(aligned.run_names)), top_k_out=30)
    evaluator = rev.Evaluator(qrels, ["map", "ndcg_exp@3"])
    for configuration in configurations.prejoined().values():
        evaluator.evaluate(configuration)


def _bits(value) -> object:
    """A value as comparable bits: arrays by dtype, shape and bytes (so -0.0 and each NaN count)."""
    if isinstance(value, tuple):
        return tuple(map(_bits, value))
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    return value


def _writability(value) -> object:
    """Which arrays of a value are writable (numba compiles a specialization for each)."""
    if isinstance(value, tuple):
        return tuple(map(_writability, value))
    return value.flags.writeable if isinstance(value, np.ndarray) else None


def _distinct(calls: list[tuple]) -> list[tuple]:
    """The calls in order without repeats: a kernel given the same arguments again (dtypes, shapes, bytes and
    writability) is the same check again. The workloads score one qrels many times: 2,332 calls, 1,023 distinct."""
    seen = set()
    distinct = []
    for kernel, args in calls:
        key = (kernel.name, _bits(args), _writability(args))
        if key not in seen:
            seen.add(key)
            distinct.append((kernel, args))
    return distinct


@pytest.fixture(scope="module")
def workload_calls():
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _distinct(_workload_calls(monkeypatch))


def test_every_kernel_the_library_calls_is_covered(workload_calls):
    called = {kernel.name for kernel, _ in workload_calls}
    assert called >= {kernel.name for kernel in _config.kernels() if kernel.example is not None}


def test_builds_agree_to_the_bit(workload_calls):
    for kernel, args in workload_calls:
        builds = {"python": kernel.python, "serial": kernel.serial}
        if kernel.is_parallel:
            builds["parallel"] = kernel.parallel
        results = {}
        for name, build in builds.items():
            inputs = tuple(map(_copy, args))
            with np.errstate(over="ignore"):
                output = build(*inputs)
            results[name] = _bits((output, inputs))  # kernels that write into an argument are compared on it too
        assert results["serial"] == results["python"], (kernel.name, "serial")
        if kernel.is_parallel:
            assert results["parallel"] == results["python"], (kernel.name, "parallel")
