"""evaluate_dataset(dask=...) on a LocalCluster of 2 worker processes equals evaluate() on the same rows."""

from __future__ import annotations

import pandas as pd
import pytest

from retrieval_eval import ConfigError, EvaluationOptions, InputError, evaluate, evaluate_dataset
from tests.scale.layouts import TREC_METRICS, assert_same, random_collection, write_layout

pytest.importorskip("distributed")


@pytest.mark.parametrize("broadcast", [True, False], ids=["qrels-broadcast", "qrels-copartitioned"])
@pytest.mark.parametrize("query_set", ["qrels", "both", "union"])
def test_trec_measures_on_dask(tmp_path, monkeypatch, dask_client, broadcast, query_set):
    # The qrels go whole to every worker, or are shuffled into the run's partitions.
    monkeypatch.setattr("retrieval_eval.scale.cluster.BROADCAST_SHARE", 1.0 if broadcast else 0.0)
    qrels, run = random_collection(seed=21, repeats=False)
    rows = write_layout(run, tmp_path / "run", "shuffled", n_files=4, seed=22)
    calls = []
    streamed = evaluate_dataset(qrels, tmp_path / "run", TREC_METRICS, output=tmp_path / "out", dask=dask_client,
                                options=EvaluationOptions(query_set=query_set), progress=lambda *a: calls.append(a))
    assert_same(streamed, evaluate(qrels, rows, TREC_METRICS, query_set=query_set))
    assert calls and calls[-1][0] == calls[-1][1] and all(label.startswith("partition") for *_, label in calls)


@pytest.mark.parametrize("broadcast", [True, False], ids=["qrels-broadcast", "qrels-copartitioned"])
def test_input_order_survives_the_shuffle(tmp_path, monkeypatch, dask_client, broadcast):
    # Azure's conventions: ties in input order and the last repeated row wins, so a partition
    # must see each query's rows in input order after the shuffle.
    monkeypatch.setattr("retrieval_eval.scale.cluster.BROADCAST_SHARE", 1.0 if broadcast else 0.0)
    qrels, run = random_collection(seed=23, int_ids=True)
    rows = write_layout(run, tmp_path / "run", "whole_queries_per_file", n_files=3, seed=24)
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", dask=dask_client,
                                thresholds={"fidelity": 0.3})
    assert_same(streamed, evaluate(qrels, rows, thresholds={"fidelity": 0.3}))


def test_a_failing_partition_is_a_clear_error_and_leaves_nothing(tmp_path, dask_client):
    qrels, run = random_collection(seed=25, repeats=False)
    run = pd.concat([run, run.iloc[[3]]], ignore_index=True)
    write_layout(run, tmp_path / "run", "shuffled", n_files=3, seed=26)
    doc = run.iloc[3]
    with pytest.raises(InputError, match=rf"\(Dask partition \d+\): query '{doc.query_id}' doc '{doc.doc_id}' is retrieved more than once"):
        evaluate_dataset(qrels, tmp_path / "run", ["map"], output=tmp_path / "out", dask=dask_client)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_local_cluster_from_an_address_string(tmp_path):
    qrels, run = random_collection(seed=27)
    rows = write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=2, seed=28)
    streamed = evaluate_dataset(qrels, tmp_path / "run", output=tmp_path / "out", dask="local:2")
    assert_same(streamed, evaluate(qrels, rows))


@pytest.mark.parametrize("dask", ["local:0", 3])
def test_bad_dask_arguments(tmp_path, dask):
    qrels, run = random_collection(seed=29)
    write_layout(run, tmp_path / "run", "sorted_split_mid_query", n_files=1, seed=30)
    with pytest.raises(ConfigError, match="dask|worker"):
        evaluate_dataset(qrels, tmp_path / "run", dask=dask)
