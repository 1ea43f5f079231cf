"""The pytrec_eval drop-in against pytrec_eval itself (pytrec-eval-terrier, trec_eval 9 in C) on random data.

Identical: every measure of ``supported_measures``, under every spelling of parameters pytrec_eval
reads, at relevance levels 1..3, with and without ``judged_docs_only_flag``; the queries, their
order and each query's keys in order; the types of errors; ``compute_aggregated_measure``,
``parse_qrel``, ``parse_run``, the names and the signatures. Scores include values that differ only
beyond float32 (and beyond its range), which pytrec_eval ties: so does the drop-in by default.

Where pytrec_eval and trec_eval 10 differ by definition (``iprec_at_recall`` and ``11pt_avg``:
trec_eval 9 truncates ``x R + 0.9``, 10 rounds ``x R``), both are held to the plain-Python oracle
(tests/reference/trec_measures.py), pytrec_eval with trec_eval 9's rounding and the drop-in with 10's.

Left out of the random data, because pytrec_eval's C code has undefined behaviour there (its
answers vary from run to run or it crashes; tests/compat/test_pytrec_eval_edges.py holds the
drop-in to the oracle instead): a judged query whose labels are all negative, a run query whose
dict is empty, parameters trec_eval cannot read.
"""

from __future__ import annotations

import collections
import decimal
import inspect
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.compat import pytrec_eval as dropin
from retrieval_eval.errors import InputError, RetrievalEvalError
from tests.reference.trec_measures import ELEVEN_POINTS, iprec_name, reference_trec

pytrec_eval = pytest.importorskip("pytrec_eval")

QUERY_IDS = [f"q{i}" for i in range(6)] + ["", "Q 1", "é"]
DOC_IDS = [f"d{i}" for i in range(12)] + ["", "a", "ab", "B", "é", "日本", "d 1"]
#: Scores that tie, that tie only in float32 (1 and 1 + 2^-30; 0.1 and 0.1 + 1e-12; 1e300 and 1e301 both
#: beyond float32's range; 1e-50 and 0 both below it), ints, bools and numpy's float64 (a float).
SCORES = [
    -math.inf, -2.5, -0.0, 0.0, 1e-50, 0.1, 0.1 + 1e-12, 0.25, 1, 1.0, 1.0 + 2**-30, True, 3, np.float64(7.5), 1e300, 1e301,
    math.inf,
]
CUTOFF_MEASURES = ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success")
#: Levels whose text ``%3.2f`` prints back as itself, so that a key names its level; recall levels
#: above 1 are refused here (see test_pytrec_eval_edges), multiples of R are not.
RECALL_LEVELS = ("0", "0.1", "0.25", "0.3", "0.5", "0.75", "1")
MULTIPLES = (*RECALL_LEVELS, "1.5", "2")
#: Measures that take no parameters and ignore those given (runid with parameters reads garbage in pytrec_eval).
NO_PARAMETERS = ("num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "infAP",
                 "gm_bpref", "binG", "set_P", "set_relative_P", "set_recall", "set_map", "num_nonrel_judged_ret", "num_q")
ROUNDED = ("iprec_at_recall_", "11pt_avg")


@st.composite
def judgments(draw) -> dict[str, int]:
    """A judged query's labels, -1..4, at least one of them not negative (pytrec_eval: see the module docstring)."""
    labels = draw(st.dictionaries(st.sampled_from(DOC_IDS), st.integers(-1, 4), min_size=1, max_size=10))
    if max(labels.values()) < 0:
        labels[next(iter(labels))] = draw(st.integers(0, 4))
    return labels


@st.composite
def collection(draw) -> tuple[dict, dict]:
    """(qrels, run): queries judged and retrieved, judged only, retrieved only, or with an empty qrels dict."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query in queries:
        role = draw(st.sampled_from(["both", "both", "both", "judged", "retrieved", "no judgments"]))
        if role in ("both", "judged"):
            qrels[query] = draw(judgments())
        elif role == "no judgments":
            qrels[query] = {}
        if role != "judged":
            run[query] = draw(st.dictionaries(st.sampled_from(DOC_IDS), st.sampled_from(SCORES), min_size=1, max_size=14))
    return qrels, run


@st.composite
def spellings(draw) -> list[str]:
    """Measure names as pytrec_eval users write them: bare, nicknames, with parameters after '.' or '_'."""
    names = draw(st.lists(st.sampled_from(sorted(dropin.supported_measures)), max_size=4))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["cutoffs", "levels", "ignored", "set_F", "utility", "relstring", "nickname"]))
        separator = draw(st.sampled_from("._"))
        if kind == "cutoffs":
            ks = draw(st.lists(st.integers(1, 30), min_size=1, max_size=3, unique=True))
            names.append(draw(st.sampled_from(CUTOFF_MEASURES)) + separator + ",".join(map(str, ks)))
        elif kind == "levels":
            measure, texts = draw(st.sampled_from([("iprec_at_recall", RECALL_LEVELS), ("Rprec_mult", MULTIPLES)]))
            levels = draw(st.lists(st.sampled_from(texts), min_size=1, max_size=3, unique=True))
            names.append(measure + separator + ",".join(levels))
        elif kind == "ignored":
            names.append(draw(st.sampled_from(NO_PARAMETERS)) + separator + str(draw(st.integers(1, 9))))
        elif kind == "set_F":
            names.append(f"set_F{separator}{draw(st.sampled_from(['0.5', '1', '2', '3.5']))}")
        elif kind == "utility":
            if any(name.startswith("utility") for name in names):
                continue  # two lists of coefficients merge into more than 4 (test_pytrec_eval_edges)
            coefficients = draw(st.lists(st.integers(0, 9), min_size=4, max_size=4, unique=True))
            names.append(f"utility{separator}{','.join(map(str, coefficients))}")
        elif kind == "relstring":
            names.append(f"relstring{separator}{draw(st.integers(1, 20))}")
        else:
            names.append(draw(st.sampled_from(["official", "set", "all_trec"])))
    return names


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def close(a: float, b: float) -> bool:
    """Within 1e-12 of the oracle, whose sums may be ordered otherwise (NaN where it is NaN)."""
    return same(a, b) or math.isclose(a, b, rel_tol=0, abs_tol=1e-12)


def float32_run(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run with each score a float at its float32 value, as pytrec_eval ranks it."""
    with np.errstate(over="ignore"):
        return {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}


def num_rel(judged: dict[str, int], level: int) -> int:
    return sum(label >= level for label in judged.values())


def rules_agree(key: str, relevant: int) -> bool:
    """Whether trec_eval 9's (long)(x R + 0.9) and 10's lround(x R) reach recall level x at the same document."""
    levels = [float(key.rsplit("_", 1)[1])] if key.startswith("iprec_at_recall_") else list(ELEVEN_POINTS)
    return all(int(x * relevant + 0.9) == math.floor(x * relevant + 0.5) for x in levels)


def assert_same_shape(ours: dict, theirs: dict) -> None:
    """The same queries in the same order, each with the same keys in the same order, all values floats."""
    assert list(ours) == list(theirs)
    for query, values in theirs.items():
        assert list(ours[query]) == list(values), query
        assert all(type(value) is float for value in ours[query].values())


def assert_identical(ours: dict, theirs: dict) -> None:
    """:func:`assert_same_shape`, and every value the same float (NaN where the other is NaN)."""
    assert_same_shape(ours, theirs)
    for query, values in theirs.items():
        for key, value in values.items():
            assert same(ours[query][key], value), (query, key, ours[query][key], value)


@given(collection(), st.integers(1, 3), st.booleans())
def test_every_supported_measure_is_pytrec_evals_value(data, level, judged_only):
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures, level, judged_only).evaluate(run)
    ours = dropin.RelevanceEvaluator(qrels, dropin.supported_measures, level, judged_only).evaluate(run)
    assert_same_shape(ours, theirs)
    ranked = float32_run(run)
    trec_eval_9 = reference_trec(qrels, ranked, rel_level=level, judged_only=judged_only, iprec_rounding=0.9)
    trec_eval_10 = reference_trec(qrels, ranked, rel_level=level, judged_only=judged_only)
    for query, values in theirs.items():
        for key, value in values.items():
            if not key.startswith(ROUNDED):
                assert same(ours[query][key], value), (query, key, ours[query][key], value)
                continue
            name = "iprec_11pt" if key == "11pt_avg" else iprec_name(float(key.rsplit("_", 1)[1]))
            assert same(value, trec_eval_9[query][name]), (query, key)
            assert same(ours[query][key], trec_eval_10[query][name]), (query, key)


@given(collection(), spellings(), st.integers(1, 3), st.booleans())
def test_measure_spellings_give_pytrec_evals_keys_and_values(data, names, level, judged_only):
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=level, judged_docs_only_flag=judged_only).evaluate(run)
    ours = dropin.RelevanceEvaluator(qrels, names, relevance_level=level, judged_docs_only_flag=judged_only).evaluate(run)
    assert_same_shape(ours, theirs)
    for query, values in theirs.items():
        relevant = num_rel(qrels[query], level)
        for key, value in values.items():
            if key.startswith(ROUNDED) and not rules_agree(key, relevant):
                continue  # the definitions differ here: test_every_supported_measure_is_pytrec_evals_value
            assert same(ours[query][key], value), (query, key, ours[query][key], value)


@given(collection(), st.integers(1, 3), st.booleans())
def test_float64_scores_rank_as_trec_eval_10(data, level, judged_only):
    """score_precision="float64" ranks the scores as given: the default's ranking of the scores rounded
    beforehand, and the oracle's (trec_eval 10's) of the scores as they are."""
    qrels, run = data
    exact = dropin.RelevanceEvaluator(qrels, dropin.supported_measures, level, judged_only, score_precision="float64")
    rounded = dropin.RelevanceEvaluator(qrels, dropin.supported_measures, level, judged_only)
    assert_identical(exact.evaluate(float32_run(run)), rounded.evaluate(run))
    as_floats = {q: {d: float(score) for d, score in docs.items()} for q, docs in run.items()}
    expected = reference_trec(qrels, as_floats, rel_level=level, judged_only=judged_only)
    for query, values in exact.evaluate(run).items():
        for key, name in (("map", "map"), ("recip_rank", "recip_rank"), ("P_5", "precision@5"), ("ndcg", "ndcg"),
                          ("iprec_at_recall_0.30", iprec_name(0.3)), ("11pt_avg", "iprec_11pt")):
            assert close(values[key], expected[query][name]), (query, key, values[key], expected[query][name])


def test_float32_ties_pytrec_eval_breaks_by_document_id():
    """1 and 1 + 1e-9 are one float32: pytrec_eval ties them and ranks the larger id first; float64 does not."""
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert expected == {"q": {"recip_rank": 0.5}}
    assert dropin.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run) == expected
    assert dropin.RelevanceEvaluator(qrels, {"recip_rank"}, score_precision="float64").evaluate(run) == {"q": {"recip_rank": 1.0}}


def test_interpolated_precision_reaches_a_recall_level_by_rounding_not_by_adding_0_9():
    """R = 2, level 0.6: trec_eval 9 (pytrec_eval) waits for the 2nd relevant document, trec_eval 10 the 1st (1.2 rounds to 1)."""
    qrels = {"q": {"r1": 1, "r2": 1}}
    run = {"q": {"r1": 3.0, "x": 2.0, "y": 1.5, "r2": 1.0}}
    measures = {"iprec_at_recall.0.6", "11pt_avg.0.6"}
    assert pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run) == {"q": {"iprec_at_recall_0.60": 0.5, "11pt_avg": 0.5}}
    assert dropin.RelevanceEvaluator(qrels, measures).evaluate(run) == {"q": {"iprec_at_recall_0.60": 1.0, "11pt_avg": 1.0}}


@given(
    st.sampled_from(["num_ret", "num_rel", "gm_map", "gm_bpref", "map", "P_5", "ndcg_cut_10"]),
    st.lists(st.floats(-20, 20, allow_nan=False), min_size=1, max_size=50),
)
def test_compute_aggregated_measure_is_pytrec_evals_float(measure, values):
    assert dropin.compute_aggregated_measure(measure, values) == pytrec_eval.compute_aggregated_measure(measure, values)
    assert type(dropin.compute_aggregated_measure(measure, values)) is float


@given(collection())
def test_the_means_of_the_dropin_are_pytrec_evals(data):
    """The usual last step: compute_aggregated_measure over each measure's per-query values."""
    qrels, run = data
    measures = {"map", "gm_map", "num_rel_ret", "P_10", "ndcg_cut_10", "bpref"}
    per_query = [dropin.RelevanceEvaluator(qrels, measures).evaluate(run), pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)]
    if not per_query[1]:
        return
    means = [
        {key: module.compute_aggregated_measure(key, [values[key] for values in found.values()]) for key in next(iter(found.values()))}
        for module, found in zip((dropin, pytrec_eval), per_query)
    ]
    assert means[0] == means[1]


#: Fields of a TREC line: no whitespace (str.split splits at U+0085 and U+00A0 too).
TOKENS = st.text(st.characters(min_codepoint=33, max_codepoint=0x2FF, exclude_categories=("Z", "C")), min_size=1, max_size=4)


@given(st.lists(st.tuples(st.sampled_from(QUERY_IDS[:6]), TOKENS, st.integers(-2, 4)), max_size=30))
def test_parse_qrel_is_pytrec_evals(rows):
    lines = _distinct_documents([f"{q} 0 {d} {label}\n" for q, d, label in rows])
    ours, theirs = dropin.parse_qrel(lines), pytrec_eval.parse_qrel(lines)
    assert ours == theirs
    assert isinstance(ours, collections.defaultdict)


@given(st.lists(st.tuples(st.sampled_from(QUERY_IDS[:6]), TOKENS, st.integers(1, 1000),
                          st.floats(allow_nan=False, allow_infinity=True)), max_size=30))
def test_parse_run_is_pytrec_evals(rows):
    lines = _distinct_documents([f"{q} Q0 {d} {rank} {score!r} tag\n" for q, d, rank, score in rows])
    assert dropin.parse_run(lines) == pytrec_eval.parse_run(lines)


def _distinct_documents(lines: list[str]) -> list[str]:
    """The lines without a repeated (query, document): pytrec_eval asserts there (the drop-in: test_pytrec_eval_edges)."""
    seen = set()
    kept = []
    for line in lines:
        key = tuple(line.split()[::2][:2])
        if key not in seen:
            seen.add(key)
            kept.append(line)
    return kept


def test_names_and_signatures_are_pytrec_evals():
    assert dropin.supported_measures == pytrec_eval.supported_measures
    assert dict(dropin.supported_nicknames) == pytrec_eval.supported_nicknames
    for name in pytrec_eval.__all__ + ["compute_aggregated_measure"]:
        assert hasattr(dropin, name), name
    theirs = inspect.signature(pytrec_eval.RelevanceEvaluator.__init__).parameters
    ours = inspect.signature(dropin.RelevanceEvaluator.__init__).parameters
    assert [(p.name, p.default, p.kind) for p in theirs.values()] == [(p.name, p.default, p.kind) for p in ours.values()][:len(theirs)]
    assert [p.kind for p in ours.values()][len(theirs):] == [inspect.Parameter.KEYWORD_ONLY]
    assert list(inspect.signature(dropin.RelevanceEvaluator.evaluate).parameters) == ["self", "scores"]


@given(collection())
def test_no_measures_give_each_judged_query_an_empty_dict(data):
    qrels, run = data
    assert dropin.RelevanceEvaluator(qrels, set()).evaluate(run) == pytrec_eval.RelevanceEvaluator(qrels, set()).evaluate(run)


#: (qrels, measures, run) that pytrec_eval refuses with a TypeError.
TYPE_ERRORS = {
    "query id not a str": ({1: {"d": 1}}, {"map"}, {}),
    "document id not a str": ({"q": {1: 1}}, {"map"}, {}),
    "document id bytes": ({"q": {b"d": 1}}, {"map"}, {}),
    "relevance a float": ({"q": {"d": 1.0}}, {"map"}, {}),
    "relevance a str": ({"q": {"d": "1"}}, {"map"}, {}),
    "judgments not a dict": ({"q": [("d", 1)]}, {"map"}, {}),
    "measure not a str": ({"q": {"d": 1}}, {1}, {}),
    "measures None": ({"q": {"d": 1}}, None, {}),
    "run query id not a str": ({"q": {"d": 1}}, {"map"}, {1: {"d": 1.0}}),
    "run document id not a str": ({"q": {"d": 1}}, {"map"}, {"q": {1: 1.0}}),
    "score a str": ({"q": {"d": 1}}, {"map"}, {"q": {"d": "1.0"}}),
    "score None": ({"q": {"d": 1}}, {"map"}, {"q": {"d": None, "e": 1.0}}),
    "score a Decimal": ({"q": {"d": 1}}, {"map"}, {"q": {"d": decimal.Decimal("0.5")}}),
    "score a list": ({"q": {"d": 1}}, {"map"}, {"q": {"d": [1.0]}}),
    "scores not a dict": ({"q": {"d": 1}}, {"map"}, {"q": [("d", 1.0)]}),
    "run not a dict": ({"q": {"d": 1}}, {"map"}, [("q", {"d": 1.0})]),
}


@pytest.mark.parametrize("case", sorted(TYPE_ERRORS))
def test_what_pytrec_eval_refuses_with_a_type_error_is_a_type_error(case):
    qrels, measures, run = TYPE_ERRORS[case]
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    with pytest.raises(TypeError) as raised:
        dropin.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert isinstance(raised.value, RetrievalEvalError)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("qrels", "run"),
    [({"q": {"a": np.int64(1), "b": np.bool_(True)}}, {"q": {"a": 1.0, "b": 0.5}}),
     ({"q": {"a": 1, "b": 1}}, {"q": {"a": np.float32(1.0), "b": np.int64(3), "c": np.float16(0.5)}})],
)
def test_numpy_numbers_pytrec_eval_refuses_are_taken_as_the_same_python_numbers(qrels, run):
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    plain = ({q: {d: int(v) for d, v in docs.items()} for q, docs in qrels.items()},
             {q: {d: float(v) for d, v in docs.items()} for q, docs in run.items()})
    measures = {"map", "num_rel", "recip_rank"}
    expected = pytrec_eval.RelevanceEvaluator(plain[0], measures).evaluate(plain[1])
    assert_identical(dropin.RelevanceEvaluator(qrels, measures).evaluate(run), expected)


@pytest.mark.parametrize("relevance_level", [0, 1.5, "2", None])
def test_relevance_levels_pytrec_eval_refuses_are_type_errors(relevance_level):
    qrels = {"q": {"d": 1}}
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level)
    with pytest.raises(TypeError, match="relevance_level"):
        dropin.RelevanceEvaluator(qrels, {"map"}, relevance_level)


@pytest.mark.parametrize("measures", [{"foo"}, {"P_x"}, {" P_5"}, {"prefs"}, {"yaap"}, {"rbp"}, "map"])
def test_unsupported_measures_are_value_errors(measures):
    qrels = {"q": {"d": 1}}
    with pytest.raises(ValueError):
        pytrec_eval.RelevanceEvaluator(qrels, measures)
    with pytest.raises(ValueError):
        dropin.RelevanceEvaluator(qrels, measures)


def test_type_errors_name_the_query_and_document():
    evaluator = dropin.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"})
    with pytest.raises(InputError, match=r"query 'q2', document 'd7': the score '0.5' is a str"):
        evaluator.evaluate({"q1": {"d1": 1.0}, "q2": {"d6": 1.0, "d7": "0.5"}})
