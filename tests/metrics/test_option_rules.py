"""The rules for odd options, each for every metric of the registry and every spelling.

- Integers (a cutoff, ``rel``, ``k``, ``rel_level``, ``max_docs``, the label range) fit the
  kernels' int64: past it, one ConfigError line, never an OverflowError or a numba TypingError.
- An option that sets one value may be given once: a parameter repeated in a metric's name, or a
  second threshold for the same metric under any spelling, is an error naming both, even when
  the values agree.
- A metric is a name or a Metric: anything else is a ConfigError, not a raw exception.
"""

from __future__ import annotations

import dataclasses

import pytest

from retrieval_eval import REGISTRY, ConfigError, EvaluationOptions, Evaluator, Metric, evaluate
from retrieval_eval.metrics.selection import resolve_metrics, resolve_thresholds
from retrieval_eval.metrics.spellings.ir_measures import is_measure_name
from tests.strategies import example_metric

QRELS = [{"query_id": "q", "doc_id": "a", "relevance": 2}, {"query_id": "q", "doc_id": "b", "relevance": 0}]
RUN = [{"query_id": "q", "doc_id": "a", "score": 2.0}, {"query_id": "q", "doc_id": "c", "score": 1.0}]
INT64_MAX = 2**63 - 1
PAST_INT64 = ["9223372036854775808", "99999999999999999999", "9" * 5000]
CUTOFF_DEFINITIONS = [d for d in REGISTRY if d.cutoff]
PARAMETRIZED = [d for d in REGISTRY if d.params]


def one_line_error(call, match: str) -> str:
    with pytest.raises(ConfigError, match=match) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message and len(message) < 300, message
    return message


def spellings(definition, k: int) -> list[str]:
    """Ways of writing ``example_metric(definition, k)``: canonical, upper case, each alias, and the bare
    name when the default cutoff k makes it this metric (``ndcg_exp`` at k = 3)."""
    metric = example_metric(definition, k)
    canonical = str(metric)
    # An upper-case spelling that is an ir_measures measure (RBP) is ir_measures' (its names are case-sensitive).
    upper = [] if is_measure_name(canonical.upper()) else [canonical.upper()]
    names = [canonical, *upper, definition.name]
    for alias in definition.aliases:
        if alias in definition.name_aliases:
            names.append(canonical.replace(definition.name, alias, 1))
        else:
            names.append(alias.replace("{k}", str(k)).replace("{recall}", dict(metric.params).get("recall", "")))
    found = [name for name in names if _names(name, metric, k)]
    assert found[: 1 + len(upper)] == [canonical, *upper]
    return found


def _names(text: str, metric: Metric, k: int) -> bool:
    """Whether a user's ``text`` means ``metric``: read as the front doors read it, a peer's spelling first
    (ranx's bare ``hits`` is its whole-ranking count, num_rel_ret, not hits@k)."""
    try:
        return resolve_metrics([text], k) == [metric]
    except ConfigError:
        return False


@pytest.mark.parametrize("definition", CUTOFF_DEFINITIONS, ids=lambda d: d.display_name)
@pytest.mark.parametrize("k", PAST_INT64, ids=len)
def test_every_cutoff_spelling_past_int64_is_one_clear_error(definition, k):
    for name in spellings(definition, 7):
        if "7" not in name:
            continue  # the default cutoff's spelling
        written = name.replace("7", k)
        one_line_error(lambda: REGISTRY.parse(written), r"the cutoff k must be a positive integer up to 2\^63 - 1")


@pytest.mark.parametrize("definition", CUTOFF_DEFINITIONS, ids=lambda d: d.display_name)
def test_the_largest_int64_cutoff_is_accepted(definition):
    assert REGISTRY.parse(example_metric(definition, INT64_MAX)).k == INT64_MAX


@pytest.mark.parametrize("k", [10**30, 2**63, 10**5000, 0, -1, 5.0, True, "5"],
                         ids=["1e30", "2^63", "5001 digits", "0", "-1", "5.0", "True", "text"])
def test_a_metric_value_with_a_bad_cutoff_is_one_clear_error(k):
    one_line_error(lambda: REGISTRY.parse(Metric("precision", k)), "the cutoff k must be a positive integer")


@pytest.mark.parametrize("value", PAST_INT64, ids=len)
def test_a_parameter_past_int64_is_one_clear_error(value):
    one_line_error(lambda: REGISTRY.parse(f"precision(rel={value})@5"), r"parameter rel must be an integer from -2\^63 to 2\^63 - 1")


@pytest.mark.parametrize(
    "field", [f.name for f in dataclasses.fields(EvaluationOptions) if f.name in ("k", "rel_level", "max_docs")]
)
@pytest.mark.parametrize("value", [2**63, 10**20, "99999999999999999999", 10**5000], ids=["2^63", "1e20", "text", "5001 digits"])
def test_an_integer_option_past_int64_is_one_clear_error(field, value):
    named = {"k": "the cutoff k"}.get(field, field)
    # trec_eval's -l takes any long, so rel_level is any integer that fits.
    expected = {"rel_level": "an integer from -2\\^63 to", "max_docs": "an integer >= 0 up to"}.get(field, "a positive integer up to")
    one_line_error(lambda: EvaluationOptions(**{field: value}), rf"^{named} must be {expected} 2\^63 - 1")
    assert getattr(EvaluationOptions(**{field: INT64_MAX}), field) == INT64_MAX


@pytest.mark.parametrize(
    ("field", "value"), [("label_min", -(2**63) - 1), ("label_max", 2**63), ("label_max", 10**5000)], ids=["min", "max", "5001 digits"]
)
def test_a_label_bound_past_int64_is_one_clear_error(field, value):
    one_line_error(lambda: EvaluationOptions(**{field: value}), rf"{field} must be an integer from -2\^63 to 2\^63 - 1")


def test_huge_options_reach_no_kernel_as_an_overflow():
    # Numbers that fit are scored: the kernels take int64.
    result = evaluate(QRELS, RUN, ["P@5", "ndcg_exp@3"], rel_level=INT64_MAX, max_docs=INT64_MAX, label_min=0,
                      label_max=INT64_MAX // 2)
    assert result.means["P@5"] == 0.0 and result.canonical_names["P@5"] == "precision(rel=9223372036854775807)@5"


@pytest.mark.parametrize("definition", PARAMETRIZED, ids=lambda d: d.display_name)
@pytest.mark.parametrize("same_value", [False, True])
def test_a_parameter_given_twice_is_an_error_naming_it(definition, same_value):
    values = {"rel": ("2", "2" if same_value else "3"), "recall": ("0.5", "0.5" if same_value else "0.25")}
    # The numbers of the TREC measures' other parameters, and their lists.
    values.update({key: ("0.5", "0.5" if same_value else "2.5") for key in ("mult", "beta", "p", "a", "b", "c", "d")})
    values["alpha"] = ("0.5", "0.5" if same_value else "0.25")
    # The C/W/L measures' user-model parameters, gain rules and outputs, and Compat's normalize.
    values.update({key: ("0.5", "0.5" if same_value else "0.75")
                   for key in ("theta", "t", "hb", "hc", "gain_med", "phi", "rate", "halflife", "l", "b1", "r1", "b2", "r2")})
    values.update({key: ("1", "1" if same_value else "2") for key in ("bin_rel", "min_rel", "max_rel")})
    values["out"] = ("eu", "eu" if same_value else "ec")
    values["normalize"] = ("true", "true" if same_value else "false")
    values["skip"] = ("true", "true" if same_value else "false")
    values["levels"] = ("0.2;0.8", "0.2;0.8" if same_value else "0.5")
    values["gains"] = ("1:3.5", "1:3.5" if same_value else "2:9.0")
    for key, _ in definition.params:
        first, second = values[key]
        others = [f"{other}={values[other][0]}" for other, _ in definition.params if other != key]
        params = ",".join([f"{key}={first}", *others, f"{key}={second}"])
        name = f"{definition.name}({params})" + ("@5" if definition.cutoff else "")
        one_line_error(lambda: REGISTRY.parse(name), rf"parameter {key} is given twice \({key}={first}, {key}={second}\)")
        metric = Metric(definition.name, 5 if definition.cutoff else None, ((key, first), (key, second)))
        one_line_error(lambda: REGISTRY.parse(metric), f"parameter {key} is given twice")


@pytest.mark.parametrize("definition", list(REGISTRY), ids=lambda d: d.display_name)
def test_a_second_threshold_for_a_metric_is_an_error_under_every_spelling(definition):
    names = spellings(definition, 3)
    for first in names:
        for second in names:
            for values in ((0.25, 0.75), (0.5, 0.5)):
                message = one_line_error(
                    lambda: resolve_thresholds([(first, values[0]), (second, values[1])], k=3), "has two thresholds"
                )
                assert f"{first}={values[0]!r}" in message and f"{second}={values[1]!r}" in message


def test_a_mapping_of_two_spellings_is_refused_by_the_front_doors():
    for call in (
        lambda: evaluate(QRELS, RUN, thresholds={"P@5": 0.1, "precision@5": 0.9}),
        lambda: Evaluator(QRELS, thresholds={"ndcg_exp": 0.5, "ndcg_exp@3": 0.5}),
    ):
        one_line_error(call, "has two thresholds")


def test_one_threshold_per_metric_is_kept_in_order():
    thresholds = resolve_thresholds([("P@5", 0.1), ("map", 0.2), (Metric("ndcg", 10), 0.3)], k=3)
    assert [(str(t.metric), t.value) for t in thresholds] == [("precision@5", 0.1), ("map", 0.2), ("ndcg@10", 0.3)]


@pytest.mark.parametrize("thresholds", ["P@5=0.1", 5, [("P@5",)], [("P@5", 0.1, 0.2)], ["P@5"]])
def test_thresholds_of_another_shape_are_a_config_error(thresholds):
    one_line_error(lambda: resolve_thresholds(thresholds, k=3), "thresholds are")


@pytest.mark.parametrize("metrics", [[None], [3], ["map", None], [b"map"], [["map"]], [{"name": "map"}], 5, 2.5])
def test_a_metric_that_is_not_a_name_is_a_config_error(metrics):
    one_line_error(lambda: evaluate(QRELS, RUN, metrics), "metric")
    one_line_error(lambda: Evaluator(QRELS, metrics), "metric")


@pytest.mark.parametrize("key", [None, 3, ("map",)])
def test_a_threshold_key_that_is_not_a_name_is_a_config_error(key):
    one_line_error(lambda: evaluate(QRELS, RUN, ["map"], thresholds={key: 0.5}), "a metric is a name")
