"""cwl_eval's printed lines, byte for byte: :func:`retrieval_eval.frontends.cwl_eval.cwl_eval` against cwl_eval 1.0.12's
``main`` run in process on the same files (random runs with repeated documents, unjudged documents and topics, float
labels, element costs, metrics files in every class's syntax, residuals and headers).

cwl_eval prints ``-0.0000`` for some values that round to zero (the sign of a residual of two equal sums, which its
summation order settles): the oracle's text is compared with that sign dropped, as ours prints it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.frontends.cwl_eval import CLASSES, DEFAULT_METRICS, cwl_eval

cwl_main = pytest.importorskip("cwl.cwl_eval").main
import cwl  # noqa: E402

#: Every class, its arguments written as ints and as floats (the names print them so), defaults and all given.
METRIC_LINES = (
    "PrecisionCWLMetric(3)", "PrecisionCWLMetric()", "RRCWLMetric()", "APCWLMetric()", "RBPCWLMetric(0.6)",
    "RBPCWLMetric()", "INSTCWLMetric(1)", "INSTCWLMetric(2.5)", "INSQCWLMetric(2)", "NDCGCWLMetric(4)",
    "BPMCWLMetric(1.5,4)", "BPMCWLMetric()", "BPMDCWLMetric(2,6,0.5,1.0,0.3)", "BPMDCWLMetric()",
    "NERReq8CWLMetric(4)", "NERReq9CWLMetric(3)", "NERReq10CWLMetric(0.8)", "NERReq11CWLMetric(2)",
    "NPVCWLMetric(0.2)", "SETCWLMetric(0.4,8)", "SETCWLMetric()", "TBGCWLMetric(5)", "TBGCWLMetric()",
    "UMeasureCWLMetric(7.0)", "UMeasureCWLMetric()", "IFTGoalCWLMetric(1.0,0.9,2)",
    "IFTRateCWLMetric(0.3,0.8,3.0)", "IFTGoalRateCWLMetric(2,0.9,1.0,0.2,0.7,2.0)",
)
DOCS = [f"d{i}" for i in range(8)]


@pytest.fixture(scope="module", autouse=True)
def cwl_measures_importable():
    """cwl_eval imports a metrics file's classes as ``ruler.measures.*``: its package folder must be on sys.path."""
    folder = os.path.dirname(cwl.__file__)
    sys.path.insert(0, folder)
    logging.getLogger("cwl").disabled = True
    yield
    sys.path.remove(folder)


def oracle(folder: str, *args, **kwargs) -> list[str]:
    """cwl_eval's ``main``'s printed lines (it logs to ./cwl.log, so it runs in ``folder``)."""
    out = io.StringIO()
    logger = logging.getLogger("cwl")
    with contextlib.chdir(folder), contextlib.redirect_stdout(out):
        try:
            cwl_main(*args, **kwargs)
        finally:
            for handler in list(logger.handlers):  # main adds a handler each call
                logger.removeHandler(handler)
                handler.close()
    return out.getvalue().replace("-0.0000", "0.0000").splitlines()


@st.composite
def collections(draw):
    topics = [f"t{i}" for i in range(draw(st.integers(1, 3)))]
    run, qrels = [], []
    for topic in topics:
        side = draw(st.sampled_from(["both", "both", "run"]))
        for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8)):  # repeats allowed: each counts
            run.append(f"{topic} {draw(st.sampled_from('ABC'))} {doc} 1 0.5 tag")
        if side == "both":
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.sampled_from(["0", "1", "0.5", "0.3"]), min_size=1))
            qrels += [f"{topic} 0 {doc} {label}" for doc, label in judged.items()]
    qrels = qrels or ["other 0 d0 1"]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


@settings(max_examples=12, deadline=None)
@given(
    collections(),
    st.lists(st.sampled_from(METRIC_LINES), min_size=1, max_size=6),
    st.booleans(), st.booleans(), st.booleans(),
    st.sampled_from(["1.0", "2", "0.7"]), st.sampled_from(["1.0", "0.3"]),
    st.sampled_from([1000, 9]),
)
def test_the_lines_are_cwl_evals(collection, metrics, residuals, colnames, priced, max_cost, min_cost, depth):
    qrels_text, run_text = collection
    with tempfile.TemporaryDirectory() as folder:
        qrels, run, metrics_file, costs = (os.path.join(folder, name) for name in ("qrels", "run", "metrics", "costs"))
        for path, text in ((qrels, qrels_text), (run, run_text), (metrics_file, "\n".join(metrics) + "\n"),
                           (costs, "A 2.37\nB\t0.61\n")):
            with open(path, "w") as handle:
                handle.write(text)
        cost_file = costs if priced else None
        expected = oracle(folder, run, qrels, cost_file, metrics_file, None, colnames, residuals,
                          1.0, 0.0, max_cost, min_cost, depth)
        ours = cwl_eval(qrels, run, metrics_file=metrics_file, costs_file=cost_file, residuals=residuals,
                        colnames=colnames, max_cost=max_cost, min_cost=min_cost, max_depth=depth)
    assert ours == expected


def test_the_defaults_and_a_higher_max_gain(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 2\n1 0 b 0.5\n2 0 a 1.5\n")
    (tmp_path / "run").write_text("1 Q0 b 1 1 r\n1 Q0 x 2 1 r\n1 Q0 a 3 1 r\n3 Q0 a 1 1 r\n")
    (tmp_path / "m").write_text("PrecisionCWLMetric(2)\nRBPCWLMetric(0.8)\nAPCWLMetric()\nTBGCWLMetric(3)\n")
    qrels, run, metrics = (str(tmp_path / name) for name in ("qrels", "run", "m"))
    ours = cwl_eval(qrels, run, metrics_file=metrics, residuals=True, max_gain=2.0)
    assert ours == oracle(str(tmp_path), run, qrels, None, metrics, None, False, True, 2.0)
    assert [line.split("\t")[1] for line in ours[:4]] == ["P@2", "RBP@0.8", "AP", "TBG-H@3 "]
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0.5\n")
    defaults = cwl_eval(qrels, run, colnames=True)
    assert defaults == oracle(str(tmp_path), run, qrels, None, None, None, True)
    assert len(defaults) == 1 + 2 * len(DEFAULT_METRICS)


def test_every_family_measure_has_its_class():
    from retrieval_eval.metrics.families.cwl.measures import MEASURES

    assert sorted(known.measure for known in CLASSES.values()) == sorted(m.name for m in MEASURES)
    assert all(CLASSES[m.cwl_class].measure == m.name for m in MEASURES)


@pytest.mark.parametrize(("run", "metrics", "costs", "kwargs", "message"), [
    ("t1 A a 1 1 r\nt2 A a 1 1 r\nt1 A b 1 1 r\n", None, None, {}, "run, row 3: topic 't1' comes back"),
    ("t1 A a 1 1 r\n", "RRCWLMetric()\n\nAPCWLMetric()\n", None, {}, "metrics, row 2: expected a measure"),
    ("t1 A a 1 1 r\n", "TrAPCWLMetric()\n", None, {}, "unknown measure class 'TrAPCWLMetric'"),
    ("t1 A a 1 1 r\n", "RBPCWLMetric(1e-3)\n", None, {}, "argument '1e-3' is not a number"),
    ("t1 A a 1 1 r\n", "NDCGCWLMetric()\n", None, {}, "NDCGCWLMetric needs its argument k"),
    ("t1 A a 1 1 r\n", "NDCGCWLMetric(2.5)\n", None, {}, "cutoff K must be an integer from 1 to max_depth + 1 (1001), got 2.5"),
    ("t1 A a 1 1 r\n", "PrecisionCWLMetric(1,2)\n", None, {}, "takes at most 1 arguments"),
    ("t1 A a 1 1 r\n", None, "A 1\nA 2\n", {}, "costs, row 2: element type 'A' is priced twice"),
    ("t1 A a 1 1 r\n", None, "A one\n", {}, "cost 'one' is not a number"),
    ("t1 A a 1 1 r\n", None, "A\n", {}, "expected 2 whitespace-separated fields"),
    ("t1 A a 1 1 r\n", None, None, {"max_gain": 0.5}, "gain 1 (topic t1, document a) is outside [0, 0.5]"),
    ("t1 A a 1 1 r extra\n", None, None, {}, "expected 6 whitespace-separated fields"),
])
def test_bad_input_is_one_clear_error(tmp_path, run, metrics, costs, kwargs, message):
    (tmp_path / "qrels").write_text("t1 0 a 1\n")
    (tmp_path / "run").write_text(run)
    paths = {}
    for name, text in (("metrics_file", metrics), ("costs_file", costs)):
        if text is not None:
            path = tmp_path / name.split("_")[0]
            path.write_text(text)
            paths[name] = str(path)
    with pytest.raises(InputError) as error:
        cwl_eval(str(tmp_path / "qrels"), str(tmp_path / "run"), **paths, **kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_cutoff_past_the_depth_is_an_error(tmp_path):
    (tmp_path / "qrels").write_text("t1 0 a 1\n")
    (tmp_path / "run").write_text("t1 A a 1 1 r\n")
    with pytest.raises(InputError, match=r"max_depth \+ 1 \(7\), got 10"):
        cwl_eval(str(tmp_path / "qrels"), str(tmp_path / "run"), max_depth=6)
