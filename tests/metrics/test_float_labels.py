"""Float relevance labels (issue 28, item 6): read from every input form, taken by the measures whose
definitions allow them (against plain-Python oracles), refused in one line by the others, and
whole labels given as floats scored to the bit as integers."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, Evaluator, Qrels, evaluate
from retrieval_eval.errors import InputError
from retrieval_eval.frontends.trec_eval.run import trec_eval
from retrieval_eval.metrics.registry import REGISTRY
from tests.reference.trec_measures import measure_names, reference_trec

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")

CUTOFFS = (1, 2, 3, 5, 10)
DOCS = [f"d{i}" for i in range(8)]
SCORES = [x / 2 for x in range(-4, 5)]
FLOAT_LABELS = [-1.5, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.75, 3.0]
#: The measures of the document-retrieval family that take float labels, at k = 3.
DOCRET_FLOAT = ["ndcg_exp@3", "xdcg@3", "holes", "holes_ratio", "holes@3", "total_retrieved_documents",
                "total_ground_truth_documents"]
#: A label range that holds every label generated here (the document-retrieval family checks it).
WIDE = EvaluationOptions(label_min=-2, label_max=5)
TREC_MORE = ["rprec_mult(mult=0.5)", "iprec_11pt", "set_f", "utility", "bing", "yaap", "unjudged@5", "ndcg_burges"]


@st.composite
def collection(draw, labels):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        side = draw(st.sampled_from(["both", "both", "qrels", "run"]))
        if side != "run":
            qrels[f"q{q}"] = draw(st.dictionaries(st.sampled_from(DOCS), labels, min_size=1, max_size=6))
        if side != "qrels":
            run[f"q{q}"] = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=8))
    qrels.setdefault("q0", {"d0": draw(labels)})
    run.setdefault("q0", {"d1": 1.0})
    return qrels, run


def frame(side, value):
    return pd.DataFrame([(q, d, v) for q, docs in side.items() for d, v in docs.items()], columns=["query_id", "doc_id", value])


@settings(max_examples=60, deadline=None)
@given(data=collection(st.sampled_from(FLOAT_LABELS)), rel_level=st.integers(1, 2))
def test_trec_measures_on_float_labels_equal_the_oracle(data, rel_level):
    qrels, run = data
    names = measure_names(CUTOFFS)
    expected = reference_trec(qrels, run, cutoffs=CUTOFFS, rel_level=rel_level, float_labels=True)
    result = evaluate(frame(qrels, "relevance"), frame(run, "score"), names, rel_level=rel_level, query_set="both")
    per_query = result.per_query.set_index("query_id")
    columns = [c for c in result.per_query.columns if c != "query_id"]
    assert set(per_query.index) == set(expected)
    for query, values in expected.items():
        for name, column in zip(names, columns):
            ours, theirs = float(per_query.loc[query, column]), values[name]
            assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (query, name, ours, theirs)


def _docret_oracle(judged: dict[str, float], ranked: list[str], k: int) -> dict[str, float]:
    """ndcg_exp@k and xdcg@k from their definitions (metrics/families/document_retrieval/__init__.py), for any real labels."""
    labels = [judged.get(doc, 0.0) for doc in ranked]
    if not any(label != 0 for label in labels):
        return {"ndcg_exp@3": 0.0, "xdcg@3": 0.0}
    gain = lambda label: 2.0 ** max(label, 0) - 1.0  # noqa: E731
    dcg = sum(gain(label) / math.log2(i + 2) for i, label in enumerate(labels[:k]))
    ideal = sorted(judged.values(), reverse=True)
    idcg = sum(gain(label) / math.log2(i + 2) for i, label in enumerate(ideal[:k]))
    xdcg = sum(25 * label * 0.6**i for i, label in enumerate(labels[:k])) / sum(0.6**i for i in range(k))
    return {"ndcg_exp@3": dcg / idcg if idcg > 0 else 0.0, "xdcg@3": xdcg}


@settings(max_examples=40, deadline=None)
@given(data=collection(st.sampled_from([x for x in FLOAT_LABELS if x >= 0])))
def test_document_retrieval_measures_on_float_labels_equal_their_definitions(data):
    qrels, run = data
    result = evaluate(frame(qrels, "relevance"), frame(run, "score"), DOCRET_FLOAT, query_set="both")
    per_query = result.per_query.set_index("query_id")
    for query in per_query.index:
        # Azure's order: score descending, ties in input order.
        ranked = sorted(run[query], key=lambda doc: -run[query][doc])
        for name, value in _docret_oracle(qrels[query], ranked, 3).items():
            assert float(per_query.loc[query, name]) == pytest.approx(value, rel=1e-12, abs=1e-12), (query, name)


FLOAT_TAKERS = measure_names(CUTOFFS) + TREC_MORE + DOCRET_FLOAT


@settings(max_examples=40, deadline=None)
@given(data=collection(st.integers(-2, 4)))
def test_whole_labels_given_as_floats_give_the_bits_of_integers(data, tmp_path_factory):
    qrels, run = data
    ints, runs = frame(qrels, "relevance"), frame(run, "score")
    floats = ints.assign(relevance=ints["relevance"].astype(np.float64))
    path = tmp_path_factory.mktemp("q") / "q.trec"
    path.write_text("".join(f"{q} 0 {d} {float(r)}\n" for q, d, r in ints.itertuples(index=False)))
    assert Qrels.read(floats).labels.dtype == Qrels.read(path).labels.dtype == np.int64
    metrics = FLOAT_TAKERS + ["fidelity", "top1_relevance", "dcg", "ndcg(gains=1:3.0)"]
    expected = Evaluator(ints, metrics, options=WIDE).evaluate(runs).per_query
    for source in (floats, path):
        got = Evaluator(source, metrics, options=WIDE).evaluate(runs).per_query
        for column in expected.columns[1:]:
            assert np.array_equal(got[column].to_numpy(), expected[column].to_numpy(), equal_nan=True), column


@pytest.mark.parametrize("mode", ["python", "compiled"])
def test_both_builds_give_the_same_bits_on_float_labels(monkeypatch, mode):
    rng = np.random.default_rng(0)
    queries, docs = 40, 30
    qrels = pd.DataFrame({
        "query_id": np.repeat([f"q{i}" for i in range(queries)], 10),
        "doc_id": np.tile([f"d{i}" for i in range(10)], queries),
        "relevance": np.round(rng.uniform(-1, 3, queries * 10), 2),
    })
    run = pd.DataFrame({
        "query_id": np.repeat([f"q{i}" for i in range(queries)], docs),
        "doc_id": np.tile([f"d{i}" for i in range(docs)], queries),
        "score": np.round(rng.normal(size=queries * docs), 1),
    })
    metrics = ["ndcg@10", "ndcg", "ndcg_burges@5", "map", "P@5", "bpref", "infap", "iprec_11pt"] + DOCRET_FLOAT
    values = {}
    for build in ("python", mode):
        monkeypatch.setenv("RETRIEVAL_EVAL_KERNELS", build)
        values[build] = Evaluator(qrels, metrics, options=WIDE).evaluate(run).per_query
    for column in values["python"].columns[1:]:
        assert np.array_equal(values["python"][column].to_numpy(), values[mode][column].to_numpy(), equal_nan=True), column


@pytest.mark.parametrize("name, takes", [
    ("ndcg@10", True), ("ndcg", True), ("ndcg(gains=1:3.0)", False), ("map", True), ("P@5", True), ("bpref", True),
    ("rprec_mult(mult=0.5)", True), ("dcg", False), ("rbp", False), ("ndcg_exp@3", True), ("xdcg@3", True),
    ("holes", True), ("fidelity", False), ("top1_relevance", False), ("max_relevance@3", False),
])
def test_which_measures_take_float_labels(name, takes):
    metric = REGISTRY.parse(name)
    assert REGISTRY.definition(metric).takes_float_labels(metric) is takes


QRELS = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "relevance": [1.0, 0.5, 2.0]})
RUN = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]})


@pytest.mark.parametrize("name", ["fidelity", "top1_relevance", "max_relevance@3", "dcg", "ndcg(gains=1:3.0)", "g",
                                  "rbp", "rbp_resid", "rndcg", "ndcg_rel", "ideal_dcg"])
def test_a_measure_that_needs_integers_refuses_float_labels_in_one_line(name):
    with pytest.raises(InputError) as raised:
        Evaluator(QRELS, ["ndcg@10", name]).evaluate(RUN)
    message = str(raised.value)
    assert "\n" not in message and raised.value.row == 2 and raised.value.field == "relevance"
    assert message.startswith(f"<DataFrame>, row 2, field 'relevance': {REGISTRY.parse(name)} needs integer relevance "
                              "labels, got 0.5 (query '1' doc 'b')")


def test_the_trec_eval_front_end_refuses_what_trec_eval_would_truncate(tmp_path):
    qrels = tmp_path / "q.trec"
    qrels.write_text("1 0 a 1\n1 0 b 0.5\n")
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    with pytest.raises(InputError, match=r"row 2, field 'relevance': trec_eval reads relevance labels as integers and "
                                         r"would truncate 0.5 \(query '1' doc 'b'\) \(C's atol\)"):
        trec_eval(qrels, run, ["ndcg"])
    whole, integers = tmp_path / "w.trec", tmp_path / "i.trec"
    whole.write_text("1 0 a 1.0\n1 0 b 0\n")
    integers.write_text("1 0 a 1\n1 0 b 0\n")
    assert trec_eval(whole, run, ["ndcg", "P.1"]).lines == trec_eval(integers, run, ["ndcg", "P.1"]).lines


def _forms(tmp_path):
    rows = [("1", "a", 1.0), ("1", "b", 0.5), ("2", "a", 2.0)]
    text = tmp_path / "q.trec"
    text.write_text("".join(f"{q} 0 {d} {r:g}\n" for q, d, r in rows))
    csv = tmp_path / "q.csv"
    csv.write_text("query_id,doc_id,relevance\n" + "".join(f"{q},{d},{r}\n" for q, d, r in rows))
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text("".join(json.dumps({"query_id": q, "doc_id": d, "relevance": r}) + "\n" for q, d, r in rows))
    table = pa.table({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "relevance": [r[2] for r in rows]})
    parquet = tmp_path / "q.parquet"
    pq.write_table(table, parquet)
    nested = {"1": {"a": 1, "b": 0.5}, "2": {"a": 2}}
    forms = {"trec": text, "csv": csv, "jsonl": jsonl, "parquet": parquet, "arrow": table, "pandas": table.to_pandas(),
             "dict": nested, "float32": table.set_column(2, "relevance", table["relevance"].cast(pa.float32()))}
    ir_measures = pytest.importorskip("ir_measures")
    forms["ir_measures"] = [ir_measures.Qrel(q, d, r) for q, d, r in rows]
    return forms


def test_every_input_form_reads_float_labels(tmp_path):
    for name, source in _forms(tmp_path).items():
        qrels = Qrels.read(source)
        assert qrels.labels.dtype == np.float64 and not qrels.integer_labels, name
        assert sorted(qrels.labels.tolist()) == [0.5, 1.0, 2.0], name
        assert qrels.first_non_integer_label() is not None, name


def test_label_range_checks_name_a_float_label():
    with pytest.raises(InputError, match=r"1 label\(s\) outside the label range \[0, 1\], first 2 "):
        Qrels.read(QRELS).check_label_range(0, 1)
    with pytest.raises(InputError, match=r"outside the label range \[0.75, 4\], first 0.5 \(query '1' doc 'b'\)"):
        Qrels.read(QRELS).check_label_range(0.75, 4)


def test_the_command_line_refuses_float_labels_under_trec_and_scores_them_without(tmp_path, capsys):
    from retrieval_eval.cli import main

    qrels, run = tmp_path / "q.trec", tmp_path / "r.trec"
    qrels.write_text("1 0 a 1\n1 0 b 0.5\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    assert main(["evaluate", str(qrels), str(run), "--trec", "-m", "ndcg"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "row 2, field 'relevance': trec_eval reads relevance labels as integers" in error
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["ndcg"]["mean"] == 1.0
