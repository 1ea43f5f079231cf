"""trec_eval's own test suite: every expected output reproduced byte for byte by ``evaluate --trec``.

The expected outputs and the command line behind each are in ``shared/peers/trec_eval_test``
(its README); they are read from there at test time. Each case runs the command line of its
expected output, trec_eval's flags unchanged, through the command line in-process.
"""

from __future__ import annotations

import pytest

from retrieval_eval.cli import main

# (expected output, trec_eval's arguments as upstream's `make quicktest` gives them)
CASES = [
    ("out.test", "qrels.test results.test"),
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
    (
        "out.test.meas_params",
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
        "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "qrels.test results.test",
    ),
    ("out.test.aqZ", "-q -m all_trec -Z zscores_file qrels.test results.test"),
]


@pytest.mark.parametrize(("expected", "arguments"), CASES, ids=[f"{e}:{a.split()[-2]}" for e, a in CASES])
def test_reproduces_trec_eval_test_output(capsys, monkeypatch, trec_eval_test, expected, arguments):
    monkeypatch.chdir(trec_eval_test)
    capsys.readouterr()
    status = main(["evaluate", "--trec", *arguments.split()])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert out == (trec_eval_test / expected).read_text(encoding="utf-8")
