"""ndeval's printed lines: ours (the diversity family's values) against pyndeval's values printed as ndeval.c prints.

pyndeval runs ndeval.c's measure code in process; ``tests/reference/ndeval_text.py`` transcribes
ndeval.c's printing. pyndeval ranks by score, equal scores by ascending docno; ndeval by the rank
column, or under -traditional by score, equal scores by descending docno: pyndeval gets each
topic's ranking in ndeval's order as distinct scores, cut at -M there too (pyndeval has no -M). With
``NDEVAL`` naming an ndeval 4.5 binary (ndeval.c of
pyndeval's sdist, built with ``gcc -O2 ndeval.c -lm``), the lines are also compared with its stdout.
"""

from __future__ import annotations

import os
import subprocess

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.frontends.ndeval import COLUMNS, ndeval
from tests.reference.ndeval_text import HEADER, MEASURES, ndeval_lines

pyndeval = pytest.importorskip("pyndeval")

DOCS = [f"d{i}" for i in range(8)]
#: Ways ndeval reads a run topic's number: bare, with leading zeros, after a task prefix.
SPELLINGS = ("{}", "0{}", "wt09-{}", "-{}")


@st.composite
def collections(draw):
    judged = draw(st.dictionaries(
        st.tuples(st.sampled_from([1, 2, 3]), st.sampled_from([0, 1, 2, 10]), st.sampled_from(DOCS)),
        st.sampled_from([0, 1, 1, 2]), min_size=1, max_size=30))
    retrieved = draw(st.dictionaries(st.tuples(st.sampled_from([2, 3, 4, 12]), st.sampled_from(DOCS)),
                                     st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0]), min_size=1, max_size=25))
    spelling = {topic: draw(st.sampled_from(SPELLINGS)) for topic in (2, 3, 4, 12)}
    # Ranks in any order against the scores: ndeval's default order follows them, -traditional not.
    ranks = draw(st.permutations(range(1, len(retrieved) + 1)))
    return judged, {key: (x, rank) for (key, x), rank in zip(retrieved.items(), ranks)}, spelling


def _write(tmp_path, judged, retrieved, spelling):
    """``retrieved``: (topic, docno) -> (score, rank)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{t} {s} {d} {j}\n" for (t, s, d), j in judged.items()))
    run.write_text("".join(f"{spelling[t].format(t)} Q0 {d} {rank} {x} tag{len(retrieved)}\n"
                           for (t, d), (x, rank) in retrieved.items()))
    return str(qrels), str(run)


def _values(judged, retrieved, alpha, beta, depth, traditional):
    """pyndeval's values of each judged topic of the run, ranked as ndeval ranks it."""
    ranked = []
    for topic in sorted({t for t, _ in retrieved}):
        # -traditional: score descending, then docno descending; else rank ascending.
        docs = sorted(((x, d) if traditional else (-rank, d) for (t, d), (x, rank) in retrieved.items() if t == topic),
                      reverse=True)
        docs = docs[:depth] if depth > 0 else docs
        ranked += [(str(topic), d, float(len(docs) - i)) for i, (_, d) in enumerate(docs)]
    values = pyndeval.ndeval([(str(t), str(s), d, j) for (t, s, d), j in judged.items()], ranked, list(MEASURES),
                             alpha=alpha, beta=beta)
    return f"tag{len(retrieved)}", sorted({t for t, _ in retrieved}), {int(t): v for t, v in values.items()}


@settings(max_examples=25, deadline=None)
@given(collections(), st.sampled_from([(0.5, 0.5), (0.3, 0.9), (1.0, 0.0)]), st.sampled_from([0, 0, 2]),
       st.booleans(), st.booleans(), st.one_of(st.none(), st.tuples(collections(), st.sampled_from(["0", "1", "2.50"]))))
def test_lines_match_ndeval(tmp_path_factory, collection, params, depth, complete, traditional, baseline):
    judged, retrieved, spelling = collection
    where = tmp_path_factory.mktemp("ndeval")
    qrels, run = _write(where, judged, retrieved, spelling)
    alpha, beta = params
    expected = _values(judged, retrieved, alpha, beta, depth, traditional)
    base_file, risk_alpha, base = None, "0", None
    if baseline is not None:
        (_, base_retrieved, base_spelling), risk_alpha = baseline
        (where / "base").mkdir()
        base_file = _write(where / "base", judged, base_retrieved, base_spelling)[1]
        base = _values(judged, base_retrieved, alpha, beta, depth, traditional)
    ours = ndeval(qrels, run, alpha=str(alpha), beta=str(beta), max_docs=depth, all_topics=complete,
                  traditional=traditional, baseline=base_file, risk_alpha=risk_alpha)
    assert ours == ndeval_lines(*expected, len({t for t, _, _ in judged}), complete, base, risk_alpha)


@pytest.mark.skipif(not os.environ.get("NDEVAL"), reason="NDEVAL does not name an ndeval binary (no network at "
                    "test time to fetch pyndeval's sdist and build its ndeval.c)")
@settings(max_examples=25, deadline=None)
@given(collections(), collections(), st.sampled_from([{}, {"all_topics": True}, {"max_docs": 2}, {"alpha": "0.3", "beta": "0.9"}]),
       st.booleans(), st.booleans())
def test_lines_match_the_ndeval_binary(tmp_path_factory, collection, base_collection, options, traditional, risk):
    judged, retrieved, spelling = collection
    where = tmp_path_factory.mktemp("ndeval")
    qrels, run = _write(where, judged, retrieved, spelling)
    (where / "base").mkdir()
    base = _write(where / "base", judged, base_collection[1], base_collection[2])[1]
    options = {**options, "traditional": traditional, **({"baseline": base, "risk_alpha": "1.5"} if risk else {})}
    names = {"all_topics": "-c", "max_docs": "-M", "alpha": "-alpha", "beta": "-beta", "traditional": "-traditional",
             "baseline": "-baseline", "risk_alpha": "-riskAlpha"}
    flags = [part for key, value in options.items() if value is not False
             for part in ([names[key]] if value is True else [names[key], str(value)])]
    theirs = subprocess.run([os.environ["NDEVAL"], *flags, qrels, run], capture_output=True, text=True, check=True).stdout
    assert "\n".join(ndeval(qrels, run, **options)) + "\n" == theirs


def test_header_and_nan_lines(tmp_path):
    """A judged topic without a relevant document: nNRBP -nan; no topic both judged and retrieved: every mean -nan."""
    assert "runid,topic," + ",".join(COLUMNS) == HEADER
    qrels, run = _write(tmp_path, {(2, 1, "d1"): 0}, {(2, "d1"): (1.0, 1), (4, "d1"): (1.0, 1)}, {2: "{}", 4: "{}"})
    lines = ndeval(qrels, run)
    assert [line.split(",")[15] for line in lines[1:]] == ["-nan", "0.000000", "-nan"]
    qrels, run = _write(tmp_path, {(1, 1, "d1"): 1}, {(4, "d1"): (1.0, 1)}, {4: "{}"})
    assert set(ndeval(qrels, run)[-1].split(",")[2:]) == {"-nan"}
    assert set(ndeval(qrels, run, all_topics=True)[-1].split(",")[2:]) == {"0.000000"}


@pytest.mark.parametrize(("qrels", "run", "message"), [
    ("q1 1 d1 1\n", "1 Q0 d1 1 1 t\n", "topic 'q1' is not a natural number"),
    ("1 a d1 1\n", "1 Q0 d1 1 1 t\n", "subtopic 'a' is not a natural number"),
    ("1 1 d1 -1\n", "1 Q0 d1 1 1 t\n", r"judgment -1 \(query .1. doc .d1.\) is not a natural number"),
    ("10000000 1 d1 1\n", "1 Q0 d1 1 1 t\n", "at most 1000009"),
    ("1 1 d1 1\n", "a-b-1 Q0 d1 1 1 t\n", "topic 'a-b-1' is not a natural number"),
    ("1 1 d1 1\n", "1 Q0 d1 1 1 t\n01 Q0 d1 2 1 t\n", "row 2: query '1' doc 'd1' is retrieved more than once"),
    ("1 1 d1 1\n", "1 Q0 d1 1 1 t\nwt09-1 Q0 d2 1 1 t\n", r"row 2, field 'rank': duplicate rank \(1\) for topic 1"),
    ("1 1 d1 1\n", "1 Q0 d1 x 1 t\n", "rank 'x' is not a natural number"),
])
def test_bad_input_names_the_row(tmp_path, qrels, run, message):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    with pytest.raises(InputError, match=message):
        ndeval(str(tmp_path / "q"), str(tmp_path / "r"))


def test_bad_parameters(tmp_path):
    qrels, run = _write(tmp_path, {(1, 1, "d1"): 1}, {(1, "d1"): (1.0, 1)}, {1: "{}"})
    with pytest.raises(ConfigError, match="alpha must be a number from 0 to 1"):
        ndeval(qrels, run, alpha="2")
    with pytest.raises(ConfigError, match="beta"):
        ndeval(qrels, run, beta="x")
    table = pa.table({"query_id": ["1"], "doc_id": ["d1"], "score": [1.0]})
    with pytest.raises(ConfigError, match="rank column of a TREC run file"):
        ndeval(qrels, table)
    # A run without a tag is named as in results; the values are the file's.
    assert [line.partition(",")[2] for line in ndeval(qrels, table, traditional=True)] == [
        line.partition(",")[2] for line in ndeval(qrels, run)]
