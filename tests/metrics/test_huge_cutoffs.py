"""A cutoff costs what the data can fill, not k: every cutoff metric at a huge k, against the oracles.

A ranking of n documents cut at k >= n is the whole ranking, so a huge k must cost what k = n
costs and give what the definition gives: the oracles slice their lists at k (``ranked[:k]``),
which is exact and free for any k. Where k itself is in the formula (precision@k = hits / k,
holes@k = unjudged / k, xdcg's normalization sum of 0.6^(i-1) over i <= k) the values still
follow from the data and k alone.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, evaluate
from retrieval_eval.kernels.core import docret
from retrieval_eval.metrics.families.document_retrieval import FAMILY as DOCUMENT_RETRIEVAL
from retrieval_eval.metrics.families.judgment_groups import FAMILY as JUDGMENT_GROUPS
from retrieval_eval.metrics.families.trec import FAMILY as TREC
from tests.metrics.test_trec_oracle import as_text, frames
from tests.metrics.test_trec_oracle import collection as trec_collection
from tests.reference.azure_docret import reference_docret
from tests.reference.trec_measures import measure_names, reference_trec
from tests.strategies import collection, example_metric, label_scale, tables

# Generated collections include runs that share no query with the qrels: scoring them is the point here.
pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

HUGE = (10**8, 10**12, 2**63 - 1)
# Past this rank 0.6^(rank-1) is 0.0 in float64 (checked below), so xdcg's normalization at any
# larger k is its sum over these ranks, which the oracle can afford.
XDCG_RANKS = 1500


def cutoff_metrics(family: str, k: int) -> list[str]:
    return [str(example_metric(d, k)) for d in REGISTRY if d.cutoff and d.family == family]


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def test_the_tests_cover_every_cutoff_metric_of_the_registry():
    families = {d.family for d in REGISTRY if d.cutoff}
    # p_avgjg@k at a huge k: tests/metrics/test_judgment_groups.py; the diversity measures stop at
    # ndeval's 20 (tests/metrics/test_diversity_vs_pyndeval.py), the C/W/L ones at cwl_eval's depth + 1 (below);
    # gdeval's, the ranked gains' and Accuracy's are in the memory-limited run below.
    assert families == {TREC, DOCUMENT_RETRIEVAL, JUDGMENT_GROUPS, "diversity", "cwl", "gdeval", "ranked_gains", "accuracy"}
    # Every TREC cutoff measure is one the oracle computes; the document-retrieval ones are mapped below.
    assert set(cutoff_metrics(TREC, 7)) <= set(measure_names([7]))
    assert {name.split("@")[0] for name in cutoff_metrics(DOCUMENT_RETRIEVAL, 7)} == {
        "ndcg_exp", "xdcg", "max_relevance", "holes"
    }


def test_xdcg_weights_vanish_before_the_ranks_the_oracle_sums():
    assert math.pow(0.6, XDCG_RANKS - 1) == 0.0
    assert docret.XDCG_WEIGHTS_VANISH < XDCG_RANKS


@given(data=trec_collection(), k=st.sampled_from(HUGE), rel_level=st.integers(1, 2), seed=st.integers(0, 99))
def test_trec_measures_at_a_huge_cutoff_equal_the_oracle(data, k, rel_level, seed):
    qrels, run = data
    qrels_frame, run_frame = frames(qrels, run, seed)
    if run_frame.empty:
        return
    names = cutoff_metrics(TREC, k)
    expected = reference_trec(as_text(qrels), as_text(run), cutoffs=[k], rel_level=rel_level)
    table = evaluate(qrels_frame, run_frame, names, rel_level=rel_level).per_query.set_index("query_id")
    for query, values in expected.items():
        for name, column in zip(names, table.columns):
            assert float(table.loc[query, column]) == values[name], (query, name)


@given(data=st.data(), scale=label_scale(), k=st.sampled_from(HUGE))
def test_document_retrieval_metrics_at_a_huge_cutoff_equal_the_oracle(data, scale, k):
    queries = data.draw(collection(*scale, int_ids=False))
    qrels, run = tables(queries, None)
    table = evaluate(
        qrels, run, cutoff_metrics(DOCUMENT_RETRIEVAL, k), label_min=scale[0], label_max=scale[1]
    ).per_query.set_index("query_id")
    for query, (gt, ret) in queries.items():
        # No list is longer than XDCG_RANKS, so the oracle's slices at XDCG_RANKS are its slices at k.
        oracle = reference_docret(gt, ret, k=XDCG_RANKS, label_min=scale[0], label_max=scale[1], azure_gains=False)
        expected = {
            f"ndcg_exp@{k}": oracle[f"ndcg_exp@{XDCG_RANKS}"],
            f"xdcg@{k}": oracle[f"xdcg@{XDCG_RANKS}"],
            f"max_relevance@{k}": oracle[f"max_relevance@{XDCG_RANKS}"],
            # Every ranked document is in the top k: the unjudged among them are the holes.
            f"holes@{k}": oracle["holes"] / k,
        }
        for name, value in expected.items():
            assert same(float(table.loc[query, name]), value), (query, name)


@given(k=st.integers(1, 3000), length=st.integers(0, 3000))
def test_discount_tables_stop_at_the_data_and_keep_azures_sum(k, length):
    log2_discounts, weights, norm = docret.discount_tables(k, length)
    assert len(log2_discounts) == len(weights) == min(k, length)
    # Azure's own computation, over all k ranks.
    full = [math.pow(0.6, rank - 1) for rank in range(1, k + 1)]
    assert norm == float(sum(full))
    np.testing.assert_array_equal(weights, full[: min(k, length)])
    np.testing.assert_array_equal(log2_discounts, [math.log2(rank + 1) for rank in range(1, min(k, length) + 1)])


QRELS_TEXT = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\nq2 0 d4 1\nq3 0 d5 1\n"
RUN_TEXT = "q1 Q0 d1 1 3.0 r\nq1 Q0 d9 2 2.0 r\nq2 Q0 d4 1 5 r\nq2 Q0 d3 2 4 r\nq3 Q0 d7 1 1 r\n"
LONGEST = 2  # the longest list of those files, ranked or judged
# The reproduction: -m holes@100000000 on these 5-line files took 5.8 GB.
MEMORY_LIMIT = 2 * 1024**3
LIMITED_CLI = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from retrieval_eval.cli import main

sys.exit(main(sys.argv[1:]))
"""


def limited_cli(*arguments: str) -> subprocess.CompletedProcess:
    """The command line in a child process under an address-space limit (the test session is not bound by it).

    Python builds only: numba's threads reserve address space of their own, which says nothing
    about what k allocates.
    """
    environment = {**os.environ, "RETRIEVAL_EVAL_KERNELS": "python"}
    return subprocess.run(
        [sys.executable, "-c", LIMITED_CLI.format(limit=MEMORY_LIMIT), *arguments],
        capture_output=True, text=True, env=environment, timeout=120,
    )


def test_a_huge_cutoff_runs_within_a_memory_limit_and_gives_the_values_at_the_list_length(tmp_path: Path):
    qrels, run = tmp_path / "qrels.trec", tmp_path / "run.trec"
    qrels.write_text(QRELS_TEXT)
    run.write_text(RUN_TEXT)
    huge = {"holes": 10**8, "ndcg_exp": 10**12, "xdcg": 10**12, "max_relevance": 10**12, "ndcg": 10**12,
            "map": 2**63 - 1, "recall": 10**12, "precision": 10**12}
    # The families of the peers' measures beyond trec_eval.
    huge |= {name: 10**12 for name in ("err", "gdeval_ndcg", "hits", "dcg", "ncg", "dcg_burges", "ndcg_ranx",
                                       "ndcg_burges_ranx", "accuracy")}
    asked = [argument for name, k in huge.items() for argument in ("-m", f"{name}@{k}")]
    done = limited_cli("evaluate", str(qrels), str(run), *asked, "-c", "--format", "json")
    assert done.returncode == 0, done.stderr
    means = {name: value["mean"] for name, value in json.loads(done.stdout)["metrics"].items()}
    at_longest = evaluate(str(qrels), str(run), [f"{name}@{LONGEST}" for name in huge], query_set="qrels").means
    xdcg_at_limit = evaluate(str(qrels), str(run), [f"xdcg@{XDCG_RANKS}"], query_set="qrels").means
    for name, k in huge.items():
        expected = at_longest[f"{name}@{LONGEST}"]
        if name in ("holes", "precision"):
            # Their counts share k slots, not LONGEST: the same counts over a larger k.
            expected = pytest.approx(expected * LONGEST / k, rel=1e-15)
        elif name == "xdcg":
            expected = xdcg_at_limit[f"xdcg@{XDCG_RANKS}"]
        assert means[f"{name}@{k}"] == expected, name


def test_a_cwl_cutoff_past_cwl_evals_depth_is_one_clear_error():
    from retrieval_eval import ConfigError

    for name in ("cwl_p@1002", "cwl_ndcg@1000000000000", "cwl_bpm(t=1)@9223372036854775807"):
        with pytest.raises(ConfigError, match=r"the cutoff can be at most 1001 \(cwl_eval's depth \+ 1\)"):
            evaluate([{"query_id": "q", "doc_id": "d", "relevance": 1}], [{"query_id": "q", "doc_id": "d", "score": 1.0}], [name])


def test_a_cutoff_or_option_past_int64_is_one_line_and_exit_2(tmp_path: Path):
    qrels, run = tmp_path / "qrels.trec", tmp_path / "run.trec"
    qrels.write_text(QRELS_TEXT)
    run.write_text(RUN_TEXT)
    # -k 99999999999999999999 grew to 24 GB before the kernel's OverflowError.
    for arguments in (["-k", "99999999999999999999"], ["-m", "holes@99999999999999999999"], ["-l", "9223372036854775808"]):
        done = limited_cli("evaluate", str(qrels), str(run), *arguments)
        assert done.returncode == 2, (arguments, done.stderr)
        assert done.stderr.count("\n") == 1 and "2^63 - 1" in done.stderr, done.stderr


def test_a_cutoff_past_int64_is_one_clear_error():
    from retrieval_eval import ConfigError

    for name in ("holes@9223372036854775808", "ndcg_exp@99999999999999999999", "p_99999999999999999999"):
        with pytest.raises(ConfigError, match=r"positive integer up to 2\^63 - 1") as raised:
            evaluate([{"query_id": "q", "doc_id": "d", "relevance": 1}], [{"query_id": "q", "doc_id": "d", "score": 1.0}], [name])
        assert "\n" not in str(raised.value)
