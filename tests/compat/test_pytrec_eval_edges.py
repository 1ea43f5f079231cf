"""The pytrec_eval drop-in where pytrec_eval has no defined answer, and its errors.

Every measure against the plain-Python oracles (tests/reference/trec_measures.py and trec_ranked.py,
trec_eval 10's arithmetic) on data pytrec_eval cannot take: judged queries whose dict in the run is
empty (scored as retrieving nothing) and judged queries whose labels are all negative. Then each
documented difference: NaN scores, parameters trec_eval cannot read, relevance levels below 1,
arguments that are not dicts; and the lifecycle (evaluate again, the qrels changed after).
"""

from __future__ import annotations

import doctest
import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.compat import pytrec_eval as dropin
from retrieval_eval.errors import ConfigError, DuplicateError, InputError
from tests.compat.test_pytrec_eval import DOC_IDS, QUERY_IDS, SCORES, close, float32_run
from tests.reference.trec_measures import iprec_name, reference_trec
from tests.reference.trec_ranked import reference_ranked

TREC_CUTOFFS = (1, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
MULTIPLES = tuple(m / 10 for m in range(2, 21, 2))
#: The drop-in's keys without a cut-off or level -> the oracles' names (reference_trec's, then reference_ranked's).
TREC_NAMES = {
    "num_ret": "num_ret", "num_rel": "num_rel", "num_rel_ret": "num_rel_ret", "map": "map", "Rprec": "rprec",
    "bpref": "bpref", "recip_rank": "recip_rank", "infAP": "infap", "ndcg": "ndcg", "set_P": "set_precision",
    "set_recall": "set_recall", "set_F": "set_f", "set_map": "set_map", "set_relative_P": "set_relative_precision",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
}
RANKED_NAMES = {"11pt_avg": "iprec_11pt", "binG": "bing", "G": "g", "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg", "utility": "utility"}
CUT_NAMES = {"P": "precision", "recall": "recall", "ndcg_cut": "ndcg", "map_cut": "map", "relative_P": "relative_precision",
             "success": "success"}
CONSTANTS = {"runid": 0.0, "num_q": 1.0, "relstring": 0.0}


@st.composite
def collection(draw) -> tuple[dict, dict]:
    """(qrels, run) with what pytrec_eval cannot take: empty rankings, judged queries with only negative labels."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query in queries:
        role = draw(st.sampled_from(["both", "both", "nothing retrieved", "negative labels", "judged", "retrieved"]))
        if role != "retrieved":
            labels = st.integers(-2, -1) if role == "negative labels" else st.integers(-1, 4)
            qrels[query] = draw(st.dictionaries(st.sampled_from(DOC_IDS), labels, min_size=1, max_size=10))
        if role != "judged":
            size = 0 if role == "nothing retrieved" else draw(st.integers(0, 14))
            run[query] = draw(st.dictionaries(st.sampled_from(DOC_IDS), st.sampled_from(SCORES), min_size=size, max_size=size))
    return qrels, run


def expected_value(key: str, trec: dict[str, float], ranked: dict[str, float]) -> float:
    """The oracles' value of the drop-in's ``key`` for one query."""
    if key in CONSTANTS:
        return CONSTANTS[key]
    if key in ("gm_map", "gm_bpref"):
        return math.log(max(trec[key[3:]], 0.00001))
    if key in TREC_NAMES:
        return trec[TREC_NAMES[key]]
    if key in RANKED_NAMES:
        return ranked[RANKED_NAMES[key]]
    measure, parameter = key.rsplit("_", 1)
    if measure == "iprec_at_recall":
        return trec[iprec_name(float(parameter))]
    if measure == "Rprec_mult":
        return ranked[f"rprec_mult(mult={float(parameter)!r})"]
    return trec[f"{CUT_NAMES[measure]}@{parameter}"]


@given(collection(), st.integers(1, 3), st.booleans())
def test_every_measure_is_trec_eval_10s_with_empty_rankings_and_negative_labels(data, level, judged_only):
    qrels, run = data
    ours = dropin.RelevanceEvaluator(qrels, dropin.supported_measures, level, judged_only).evaluate(run)
    ranked = float32_run(run)
    trec = reference_trec(qrels, ranked, rel_level=level, judged_only=judged_only, cutoffs=TREC_CUTOFFS)
    rest = reference_ranked(qrels, ranked, rel_level=level, judged_only=judged_only, multiples=MULTIPLES)
    # The run's judged queries, in the run's order, an empty dict included.
    assert list(ours) == [query for query in run if qrels.get(query)]
    for query, values in ours.items():
        assert len(values) == 95  # pytrec_eval's all_trec: 34 measures, 95 values
        for key, value in values.items():
            expected = expected_value(key, trec[query], rest[query])
            assert close(value, expected), (query, key, value, expected)


def test_a_judged_query_that_retrieved_nothing_is_scored_as_an_empty_ranking():
    qrels = {"q1": {"a": 1, "b": 2, "c": 0}, "q2": {"a": 1}}
    found = dropin.RelevanceEvaluator(qrels, {"num_ret", "num_rel", "map", "P_5", "iprec_at_recall"}).evaluate({"q1": {}})
    values = found["q1"]
    assert list(found) == ["q1"]
    assert (values["num_ret"], values["num_rel"], values["map"], values["P_5"]) == (0.0, 2.0, 0.0, 0.0)
    # 0/0, trec_eval's starting precision, at the levels reached at the 0th relevant document: x R < 0.5.
    assert [math.isnan(values[f"iprec_at_recall_{x / 10:.2f}"]) for x in range(11)] == [True, True, True] + [False] * 8


@pytest.mark.parametrize("score", [math.nan, -math.nan])
def test_a_nan_score_is_an_error_naming_the_query_and_document(score):
    evaluator = dropin.RelevanceEvaluator({"q1": {"d1": 1}}, {"map"})
    with pytest.raises(InputError, match=r"^run, field 'score': query 'q2', document 'd2': the score is NaN") as raised:
        evaluator.evaluate({"q1": {"d1": 1.0}, "q2": {"d1": 0.5, "d2": score}})
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("measures", "named"),
    [
        ({"ndcg_10"}, "'ndcg_10' (given to trec_eval as 'ndcg.10')"),  # gain pairs: pytrec_eval aborts the process
        ({"P.0"}, "'P.0'"),  # trec_eval: negative cutoff; pytrec_eval aborts
        ({"P.5,05"}, "'P.5,05'"),  # both read as 5: duplicate cutoffs; pytrec_eval aborts
        ({"utility.1,1,0,0"}, "'utility.1,1,0,0' (given to trec_eval as 'utility.0,1')"),  # pytrec_eval: stderr and 0.0
        ({"utility.0,1,2,3", "utility.0,1,2,4"}, "(given to trec_eval as 'utility.0,1,2,3,4')"),
        ({"iprec_at_recall.1.5"}, "'iprec_at_recall.1.5'"),  # above 1: refused here, 0.0 in trec_eval
    ],
)
def test_parameters_trec_eval_cannot_read_are_errors_naming_the_measure_as_written(measures, named):
    with pytest.raises(ConfigError, match=r"^measure .*" + __import__("re").escape(named)):
        dropin.RelevanceEvaluator({"q": {"d": 1}}, measures)


def test_parameters_merge_as_pytrec_eval_merges_them():
    """Union of the texts, sorted as text: P and P_5 are P at 5 only; utility's coefficients in text order."""
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 0.5}}
    found = dropin.RelevanceEvaluator(qrels, ["P", "P_5", "P.2", "map_7", "utility.4,3,2,1", "P_1.5"]).evaluate(run)
    # utility 1,2,3,4: 1 x 1 relevant retrieved + 2 x 2 others retrieved + 3 x 0 relevant missed + 4 x (0 + 1 - 3 - 1)
    assert found == {"q": {"map": 1.0, "P_1": 1.0, "P_2": 0.5, "P_5": 0.2, "utility": -7.0}}


@pytest.mark.parametrize("level", [0, -1, -(2**40)])
def test_a_relevance_level_below_1_is_a_type_error(level):
    """pytrec_eval refuses 0 with a TypeError and reads a negative level as 2^32 + level (nothing relevant)."""
    with pytest.raises(TypeError, match=f"relevance_level must be at least 1.*got {level}"):
        dropin.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, level)


@pytest.mark.parametrize("run", [None, [], 0, "", [("q", {"d": 1.0})]])
def test_a_run_that_is_not_a_dict_is_a_type_error(run):
    """pytrec_eval returns {} for any falsy argument."""
    with pytest.raises(TypeError, match=r"^run: expected a dict \{query_id: \{doc_id: score\}\}"):
        dropin.RelevanceEvaluator({"q": {"d": 1}}, {"map"}).evaluate(run)


def test_nothing_to_score_gives_empty_results():
    evaluator = dropin.RelevanceEvaluator({"q1": {"d": 1}, "q2": {}}, {"map", "P_5"})
    assert evaluator.evaluate({}) == {}
    assert evaluator.evaluate({"q2": {"d": 1.0}, "q3": {"d": 1.0}}) == {}  # q2 has no judgments, q3 none at all
    assert dropin.RelevanceEvaluator({}, {"map"}).evaluate({"q1": {"d": 1.0}}) == {}
    assert dropin.RelevanceEvaluator({"q1": {"d": 1}}, set()).evaluate({"q1": {"d": 1.0}, "q9": {}}) == {"q1": {}}


def test_runid_with_parameters_is_0():
    """pytrec_eval reads uninitialised memory there."""
    found = dropin.RelevanceEvaluator({"q": {"d": 1}}, {"runid.5", "num_q_2", "relstring.3"}).evaluate({"q": {"d": 1.0}})
    assert found == {"q": {"runid": 0.0, "num_q": 1.0, "relstring": 0.0}}


def test_evaluations_are_independent_of_each_other_and_of_the_inputs_afterwards():
    qrels = {"q": {"a": 1, "b": 1}}
    run = {"q": {"a": 1.0, "b": 2.0, "c": 3.0}}
    at_1 = dropin.RelevanceEvaluator(qrels, {"P.1"})
    at_2 = dropin.RelevanceEvaluator(qrels, {"P.2"})
    first = at_1.evaluate(run)
    assert at_2.evaluate(run) == {"q": {"P_2": 0.5}}
    qrels["q"]["c"] = 1
    run["q"]["c"] = 0.0
    assert at_1.evaluate({"q": {"a": 1.0, "b": 2.0, "c": 3.0}}) == first == {"q": {"P_1": 0.0}}


def test_ids_are_compared_whole():
    """pytrec_eval's C strings end at a NUL: there 'd' and 'd\\x00x' are one document."""
    found = dropin.RelevanceEvaluator({"q": {"d": 1}}, {"num_rel_ret", "num_ret"}).evaluate({"q": {"d\x00x": 2.0, "e": 1.0}})
    assert found == {"q": {"num_ret": 2.0, "num_rel_ret": 0.0}}


@pytest.mark.parametrize(
    ("qrels", "run", "message"),
    [
        ({"q": {"d": 2**70}}, {},
         r"^qrels, field 'relevance': query 'q', document 'd': the relevance 1180591620717411303424 is out of range"),
        ({"q": {"d": 1}}, {"q": {"d": 10**400}}, r"^run, field 'score': query 'q', document 'd': the score 1000.* is out of range"),
        ({"q": {"\ud800": 1}}, {}, r"^qrels: query 'q', document '\\ud800': the id '\\ud800' cannot be written in UTF-8"),
        ({"\ud800": {"d": 1}}, {}, r"^qrels: query '\\ud800': the id '\\ud800' cannot be written in UTF-8"),
        ({"q": [1]}, {}, r"^qrels: query 'q': expected a dict \{doc_id: relevance\}, got list"),
    ],
)
def test_values_the_core_cannot_hold_are_errors_naming_them(qrels, run, message):
    with pytest.raises(InputError, match=message):
        dropin.RelevanceEvaluator(qrels, {"map"}).evaluate(run)


def test_measures_must_be_a_collection_of_names():
    with pytest.raises(ConfigError, match=r"measures is the string 'map': give a set or list of names, such as \{'map'\}"):
        dropin.RelevanceEvaluator({"q": {"d": 1}}, "map")
    with pytest.raises(ConfigError, match="score_precision must be one of"):
        dropin.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, score_precision="float16")


def test_parse_qrel_and_parse_run_name_the_line_of_an_error():
    with pytest.raises(DuplicateError, match=r"^qrels, row 3: query 'q1': document 'd1' is given twice"):
        dropin.parse_qrel(["q1 0 d1 1", "q1 0 d2 0", "q1 0 d1 2"])
    with pytest.raises(InputError, match=r"^qrels, row 2: expected 4 fields \(query_id iteration doc_id relevance\), got 3"):
        dropin.parse_qrel(["q1 0 d1 1", "q1 d2 0"])
    with pytest.raises(InputError, match=r"^run, row 1, field 'score': 'x' is not a number"):
        dropin.parse_run(["q1 Q0 d1 1 x tag"])
    with pytest.raises(InputError, match=r"^qrels, row 1, field 'relevance': '1.0' is not an int"):
        dropin.parse_qrel(["q1 0 d1 1.0"])


def test_the_repr_is_short():
    evaluator = dropin.RelevanceEvaluator({"q1": {"d": 1}, "q2": {}}, dropin.supported_measures)
    assert repr(evaluator) == (
        "RelevanceEvaluator(judged_queries=1, measures=[runid, num_q, num_ret, num_rel, num_rel_ret, map, ... (95 values)])"
    )


def test_the_module_examples():
    failed, attempted = doctest.testmod(dropin, optionflags=doctest.ELLIPSIS)
    assert attempted >= 4
    assert failed == 0


def test_a_small_evaluation_loads_neither_pandas_nor_numba():
    """What a first call costs beyond pytrec_eval's: no pandas (pa.array would import it), no numba (python kernels)."""
    code = (
        "import json, sys\n"
        "from retrieval_eval.compat.pytrec_eval import RelevanceEvaluator\n"
        "evaluator = RelevanceEvaluator({'q1': {'a': 1, 'é': 2}, 'q2': {'b': 0}}, {'official', 'ndcg_cut', 'recall'})\n"
        "evaluator.evaluate({'q1': {'a': 1.0, 'c': 2.0}, 'q2': {}, 'q3': {'a': 1.0}})\n"
        "print(json.dumps(sorted({name.partition('.')[0] for name in sys.modules})))\n"
    )
    # The kernels in their default mode, as a user's process runs them (the suite pins "compiled").
    env = {**os.environ, "RETRIEVAL_EVAL_KERNELS": "auto"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert not set(json.loads(done.stdout.strip().splitlines()[-1])) & {"pandas", "numba"}
