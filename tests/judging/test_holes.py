"""Judge-filled holes: exactly the pool is judged, holes@K is 0 afterwards except at the listed errors, human labels
never change, and every label says where it came from (in a table column or the sidecar of a TREC file)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import retrieval_eval as rev
from retrieval_eval.errors import InputError
from retrieval_eval.io.label_sources import read_label_sources
from retrieval_eval.judging.holes import judge_holes
from retrieval_eval.judging.limits import Limits, RetryPolicy
from retrieval_eval.judging.provenance import HUMAN, write_labels
from retrieval_eval.judging.settings import JudgeSettings
from retrieval_eval.pooling import pool
from tests.judging.server import Reply, ScriptedServer, chat_reply


def doc_label(request) -> int:
    """The scripted judge's label: the digit after 'text of d' in the prompt, mod 4."""
    text = request.user_text
    return int(text.split("text of d", 1)[1].split()[0]) % 4


def labelling(request):
    return chat_reply(json.dumps({"label": doc_label(request)}), request)


def server_settings(server, **extra) -> JudgeSettings:
    return JudgeSettings.openai(base_url=server.url + "/v1", model="judge-model",
                                retry=RetryPolicy(max_retries=1, base_delay=0.0), **extra)


def corpus(n_queries: int, n_docs: int, seed: int):
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(n_queries)
                          for d in rng.choice(n_docs, size=min(3, n_docs), replace=False)],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {}
    for name in ("bm25", "dense"):
        rows = [(f"q{q}", f"d{d}", float(rng.integers(0, 5))) for q in range(n_queries)
                for d in rng.choice(n_docs, size=min(8, n_docs), replace=False)]
        runs[name] = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    topics = {f"q{q}": f"what about {q}" for q in range(n_queries)}
    docs = {f"d{d}": f"text of d{d} here" for d in range(n_docs)}
    return qrels, runs, topics, docs


def holes_at(qrels, runs, k):
    evaluator = rev.Evaluator(qrels, [f"holes@{k}"], options=rev.EvaluationOptions(ties="docid"))
    return {name: evaluator.evaluate(run).values(f"holes@{k}") for name, run in runs.items()}


@settings(max_examples=8)
@given(st.integers(1, 6), st.integers(3, 20), st.integers(1, 6), st.integers(0, 2**16))
def test_holes_at_k_are_zero_after_judging_and_human_labels_never_change(n_queries, n_docs, depth, seed):
    qrels, runs, topics, docs = corpus(n_queries, n_docs, seed)
    with ScriptedServer(labelling) as server:
        filled = judge_holes(qrels, runs, depth, topics=topics, docs=docs, settings=server_settings(server))
        expected_pool = pool(runs, depth, qrels=qrels)
        # Exactly the pool was judged, one request per (query, document).
        asked = sorted((r.user_text.split("Query: ")[1].split("\n")[0], r.user_text.split("text of ")[1].split()[0])
                       for r in server.chat_requests())
        assert asked == sorted((topics[q], d) for q, d in zip(expected_pool["query_id"], expected_pool["doc_id"]))
    labels = filled.labels.to_pandas()
    human = labels[labels["source"] == HUMAN].drop(columns="source").reset_index(drop=True)
    pd.testing.assert_frame_equal(human.sort_values(["query_id", "doc_id"]).reset_index(drop=True),
                                  qrels.sort_values(["query_id", "doc_id"]).reset_index(drop=True), check_dtype=False)
    judged = labels[labels["source"] != HUMAN]
    assert set(judged["source"]) <= {f"judge:{filled.fingerprint}"}
    assert judged["relevance"].tolist() == [int(d[1:]) % 4 for d in judged["doc_id"]]
    for name, values in holes_at(labels[["query_id", "doc_id", "relevance"]], runs, depth).items():
        assert np.all(values == 0), name
    assert filled.errors.num_rows == 0 and filled.totals.requests == len(expected_pool)


def test_errored_items_are_listed_and_stay_holes(tmp_path):
    qrels, runs, topics, docs = corpus(3, 12, 7)

    def script(request):
        if doc_label(request) == 3:
            return Reply(500, {"error": {"message": "overloaded"}})
        return labelling(request)

    with ScriptedServer(script) as server:
        filled = judge_holes(qrels, runs, 5, topics=topics, docs=docs, settings=server_settings(server))
    errors = filled.errors.to_pandas()
    assert len(errors) and all(int(d[1:]) % 4 == 3 for d in errors["doc_id"])
    assert errors["error"].str.contains("no reply after 2 attempt").all()
    labelled = set(zip(filled.labels["query_id"].to_pylist(), filled.labels["doc_id"].to_pylist()))
    assert not labelled & set(zip(errors["query_id"], errors["doc_id"]))
    holes = holes_at(filled.labels.select(["query_id", "doc_id", "relevance"]).to_pandas(), runs, 5)
    assert any(np.any(values > 0) for values in holes.values())


def test_labels_written_as_trec_keep_their_sources_in_a_sidecar(tmp_path):
    qrels, runs, topics, docs = corpus(2, 10, 3)
    with ScriptedServer(labelling) as server:
        filled = judge_holes(qrels, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
    out = tmp_path / "qrels_judged.trec"
    written = write_labels(filled.labels, out, judge=filled.summary())
    assert [p.rsplit("/", 1)[-1] for p in written] == ["qrels_judged.trec.judge.json", "qrels_judged.trec.sources.tsv",
                                                      "qrels_judged.trec"]
    lines = out.read_text().splitlines()
    assert len(lines) == filled.labels.num_rows and all(len(line.split()) == 4 for line in lines)
    sources = read_label_sources(out).to_pandas()
    assert sources["source"].tolist() == filled.labels["source"].to_pylist()
    summary = json.loads((tmp_path / "qrels_judged.trec.judge.json").read_text())
    assert summary["fingerprint"] == filled.fingerprint and summary["judge"]["model"] == "judge-model"
    # Judging again from the written file: its judge labels count as judged, nothing is asked.
    with ScriptedServer(labelling) as server:
        again = judge_holes(out, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
        assert len(server.requests) == 0
    assert again.labels["source"].to_pylist() == filled.labels["source"].to_pylist()


@pytest.mark.parametrize("suffix", [".tsv", ".parquet", ".jsonl"])
def test_labels_written_as_a_table_carry_a_source_column(tmp_path, suffix):
    qrels, runs, topics, docs = corpus(2, 10, 5)
    with ScriptedServer(labelling) as server:
        filled = judge_holes(qrels, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
    out = tmp_path / f"labels{suffix}"
    write_labels(filled.labels, out)
    assert read_label_sources(out)["source"].to_pylist() == filled.labels["source"].to_pylist()


def test_a_cached_second_judging_sends_nothing(tmp_path):
    qrels, runs, topics, docs = corpus(3, 15, 11)
    with ScriptedServer(labelling) as server:
        first = judge_holes(qrels, runs, 6, topics=topics, docs=docs, settings=server_settings(server, cache=tmp_path))
        sent = len(server.requests)
        second = judge_holes(qrels, runs, 6, topics=topics, docs=docs,
                             settings=server_settings(server, cache=tmp_path, limits=Limits(concurrency=1)))
        assert len(server.requests) == sent > 0
    assert second.labels.equals(first.labels) and second.totals.cache_hits == sent


def test_missing_or_empty_texts_are_named_before_anything_is_sent():
    qrels, runs, topics, docs = corpus(2, 10, 1)
    with ScriptedServer(labelling) as server:
        del topics["q1"]
        with pytest.raises(InputError, match=r"the topics mapping, field 'topics': query 'q1' of the pool has no text"):
            judge_holes(qrels, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
        topics["q1"] = "back"
        docs = {key: "" if key == "d3" else value for key, value in docs.items()}
        pooled = set(pool(runs, 4, qrels=qrels)["doc_id"])
        if "d3" in pooled:
            with pytest.raises(InputError, match="the text of document 'd3' is empty"):
                judge_holes(qrels, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
        assert len(server.requests) == 0


def test_texts_are_read_from_the_files_explain_reads(tmp_path):
    qrels, runs, topics, docs = corpus(2, 8, 2)
    topics_file, docs_file = tmp_path / "topics.tsv", tmp_path / "docs.jsonl"
    topics_file.write_text("".join(f"{key}\t{value}\n" for key, value in topics.items()))
    docs_file.write_text("".join(json.dumps({"doc_id": key, "title": "t", "text": value}) + "\n"
                                 for key, value in docs.items()))
    with ScriptedServer(labelling) as server:
        filled = judge_holes(qrels, runs, 3, topics=topics_file, docs=docs_file, settings=server_settings(server))
        assert all("text of d" in request.user_text for request in server.chat_requests())
    assert filled.judged.num_rows == len(pool(runs, 3, qrels=qrels))
    assert pa.types.is_string(filled.labels["query_id"].type)


def test_explain_shows_which_labels_came_from_the_judge(tmp_path):
    from retrieval_eval.explain import explain
    from retrieval_eval.report.explain_text import query_report

    qrels, runs, topics, docs = corpus(2, 10, 3)
    with ScriptedServer(labelling) as server:
        filled = judge_holes(qrels, runs, 4, topics=topics, docs=docs, settings=server_settings(server))
    out = tmp_path / "judged.trec"
    write_labels(filled.labels, out)
    explanation = explain(out, runs["bm25"], metrics=["ndcg@5"], top=4)
    ranked = explanation.ranked
    judged = set(zip(filled.judged["query_id"].to_pylist(), filled.judged["doc_id"].to_pylist()))
    by_judge = ranked["label_source"].str.startswith("judge:").fillna(False).to_numpy(dtype=bool)
    assert by_judge.any()
    assert [pair in judged for pair in zip(ranked["query_id"], ranked["doc_id"])] == list(by_judge)
    report = query_report(explanation, ranked.loc[by_judge, "query_id"].iloc[0])
    assert f"* a label given by judge:{filled.fingerprint}, not by people" in report
    assert "label_source" not in explain(qrels, runs["bm25"], metrics=["ndcg@5"], top=4).ranked


def test_judging_the_judged_pairs_gives_labels_to_compare_with_people():
    from retrieval_eval.judging import judge_judged, label_agreement

    qrels, runs, topics, docs = corpus(4, 12, 9)
    with ScriptedServer(labelling) as server:
        everything = judge_judged(qrels, topics=topics, docs=docs, settings=server_settings(server))
        assert len(server.requests) == len(qrels)
        sampled = judge_judged(qrels, topics=topics, docs=docs, settings=server_settings(server), sample=5, seed=3)
    judged = everything.labels.to_pandas()
    assert sorted(zip(judged["query_id"], judged["doc_id"])) == sorted(zip(qrels["query_id"], qrels["doc_id"]))
    assert judged["relevance"].tolist() == [int(d[1:]) % 4 for d in judged["doc_id"]]
    assert set(judged["source"]) == {f"judge:{everything.fingerprint}"}
    assert sampled.labels.num_rows == 5 and set(zip(sampled.labels["query_id"].to_pylist(),
                                                    sampled.labels["doc_id"].to_pylist())) <= set(zip(qrels["query_id"], qrels["doc_id"]))
    agreement = label_agreement(qrels, judged[["query_id", "doc_id", "relevance"]], levels=[0, 1, 2, 3])
    assert agreement.n_pairs == len(qrels)
    expected = np.mean(qrels["relevance"].to_numpy() == np.array([int(d[1:]) % 4 for d in qrels["doc_id"]]))
    assert agreement.observed_agreement == pytest.approx(expected)
