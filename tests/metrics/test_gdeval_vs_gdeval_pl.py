"""err@k and gdeval_ndcg@k against gdeval.pl (the copy ir_measures ships, run with perl), and gdeval's printed lines.

The 1.2a copy prints the header and the per-topic lines; the amean line, ``-c`` and URisk are
gdeval 1.3's, checked against the transcription of 1.3 in ``tests/reference/gdeval.py``, whose
per-topic lines are themselves checked against the 1.2a script here.
"""

from __future__ import annotations

import importlib.resources
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import evaluate
from retrieval_eval.errors import InputError
from retrieval_eval.frontends.gdeval import gdeval
from tests.reference.gdeval import gdeval_lines

PERL = shutil.which("perl")
pytestmark = [
    pytest.mark.skipif(PERL is None, reason="gdeval.pl needs perl"),
    pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning"),
]
GDEVAL_PL = importlib.resources.files("ir_measures") / "bin" / "gdeval.pl"

TOPICS = ["1", "2", "3", "10", "25"]
# Byte order differs from case-folded and numeric order: "B" < "a" < "aa" < "b", "10" < "9".
DOCS = ["a", "b", "aa", "B", "9", "10", "d-1", "é"]

judgments = st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS), st.integers(-2, 4)), min_size=1, max_size=25).map(
    lambda rows: list({(t, d): (t, d, label) for t, d, label in rows}.values())
)
rankings = st.lists(st.tuples(st.sampled_from(TOPICS), st.sampled_from(DOCS), st.sampled_from([0.5, 1.0, 1.0, 2.0, -3.0])),
                    min_size=1, max_size=30).map(lambda rows: list({(t, d): (t, d, s) for t, d, s in rows}.values()))


def _write(path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _files(tmp_path, qrels, run, runid="runA", name="run.txt"):
    q = _write(tmp_path / "qrels.txt", [f"{t} 0 {d} {label}" for t, d, label in qrels])
    r = _write(tmp_path / name, [f"{t} Q0 {d} {i + 1} {s!r} {runid}" for i, (t, d, s) in enumerate(run)])
    return q, r


def _perl(*args: str) -> list[str]:
    with importlib.resources.as_file(GDEVAL_PL) as script:
        return subprocess.run([PERL, str(script), *args], capture_output=True, text=True, check=True).stdout.splitlines()


@settings(max_examples=30)
@given(judgments, rankings, st.sampled_from([1, 2, 3, 5, 20]))
def test_per_topic_values_and_lines_match_gdeval_pl(tmp_path_factory, qrels, run, k):
    tmp = tmp_path_factory.mktemp("gd")
    q, r = _files(tmp, qrels, run)
    expected = _perl(q, r, str(k))
    lines = gdeval(q, r, k=k)
    assert lines[:-1] == expected  # 1.2a prints no amean line
    assert lines == gdeval_lines(qrels, [(t, d, s, "runA") for t, d, s in run], k=k)
    result = evaluate(q, r, [f"gdeval_ndcg@{k}", f"err@{k}"])
    ours = {
        str(topic): f"{ndcg:.5f},{err:.5f}"
        for topic, ndcg, err in zip(result.query_ids.to_pylist(), result.values(f"gdeval_ndcg@{k}"), result.values(f"err@{k}"))
        if not np.isnan(ndcg)
    }
    assert ours == {line.split(",")[1]: line.split(",", 2)[2] for line in expected[1:]}
    assert gdeval_lines(qrels, [(t, d, s, "runA") for t, d, s in run], k=k)[:-1] == expected


@settings(max_examples=30)
@given(judgments, rankings, rankings, st.sampled_from(["0", "1", "0.5", "2.0"]), st.booleans(), st.sampled_from([2, 20]))
def test_urisk_amean_and_c_match_gdeval_1_3(tmp_path_factory, qrels, run, base, alpha, complete, k):
    tmp = tmp_path_factory.mktemp("gd")
    q, r = _files(tmp, qrels, run)
    _, b = _files(tmp, qrels, base, runid="base", name="base.txt")
    expected = gdeval_lines(
        qrels, [(t, d, s, "runA") for t, d, s in run], k=k, all_topics=complete,
        baseline=[(t, d, s, "base") for t, d, s in base], alpha_text=alpha,
    )
    assert gdeval(q, r, k=k, baseline=b, risk_alpha=alpha, all_topics=complete) == expected
    assert gdeval(q, r, k=k, all_topics=complete) == gdeval_lines(
        qrels, [(t, d, s, "runA") for t, d, s in run], k=k, all_topics=complete
    )


def test_a_known_case_prints_gdevals_bytes(tmp_path):
    qrels = [("1", "a", 2), ("1", "b", 1), ("1", "c", -1), ("1", "d", 4), ("2", "x", 0), ("3", "y", 3)]
    run = [("1", "a", 1.5), ("1", "b", 1.5), ("1", "e", 0.5), ("1", "d", 0.2), ("2", "x", 1.0), ("3", "z", 1.0), ("3", "y", 1.0)]
    q, r = _files(tmp_path, qrels, run)
    assert gdeval(q, r) == [
        "runid,topic,ndcg@20,err@20", "runA,1,0.53775,0.32892", "runA,3,0.63093,0.21875", "runA,amean,0.58434,0.27383",
    ]
    assert gdeval(q, r)[:-1] == _perl(q, r, "20")


def test_labels_above_4_stop_both(tmp_path):
    q, r = _files(tmp_path, [("1", "a", 5)], [("1", "a", 1.0)])
    assert subprocess.run([PERL, str(GDEVAL_PL), q, r, "20"], capture_output=True).returncode != 0
    with pytest.raises(InputError, match="above 4"):
        gdeval(q, r)
    with pytest.raises(InputError, match="above 4"):
        evaluate(q, r, ["err@20"])


def test_topic_prefixes_are_dropped_and_two_spellings_of_a_number_refused(tmp_path):
    q = _write(tmp_path / "q.txt", ["trec-7 0 a 1"])
    r = _write(tmp_path / "r.txt", ["web-trec-7 Q0 a 1 1 runA"])
    assert gdeval(q, r)[:-1] == _perl(q, r, "20") == ["runid,topic,ndcg@20,err@20", "runA,7,1.00000,0.06250"]
    r2 = _write(tmp_path / "r2.txt", ["07 Q0 a 1 1 runA"])
    with pytest.raises(InputError, match="same number"):
        gdeval(q, r2)
    with pytest.raises(InputError, match="not a number"):
        gdeval(_write(tmp_path / "q3.txt", ["q1 0 a 1"]), r)
