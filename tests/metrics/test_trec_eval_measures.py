"""trec_eval's measure table: -m parsing, nicknames, printed names, and the all line's arithmetic."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, ConfigError
from retrieval_eval.frontends.trec_eval.output import trec_eval_lines
from retrieval_eval.metrics.selection import resolve_metrics
from retrieval_eval.metrics.spellings.trec_eval import MEASURES, NICKNAMES, listing, select

TABLE_ORDER = [measure.name for measure in MEASURES]


def names(*arguments: str, rel_level: int = 1) -> list[str]:
    return [value.name for value in select(arguments, rel_level=rel_level).values]


def test_values_print_in_trec_evals_table_order_whatever_the_order_of_m():
    assert names("ndcg_cut.10", "map", "P.5", "num_ret") == ["num_ret", "map", "P_5", "ndcg_cut_10"]


def test_cutoffs_are_read_as_atol_reads_them_sorted():
    assert names("ndcg_cut.10,20,23.4") == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]
    assert names("P.5,7,3") == ["P_3", "P_5", "P_7"]
    assert [value.metric.k for value in select(["P.5,7,3"]).values] == [3, 5, 7]


def test_levels_print_with_two_decimals_sorted():
    assert names("iprec_at_recall..10,.20,.25,.75,.50") == [
        "iprec_at_recall_0.10", "iprec_at_recall_0.20", "iprec_at_recall_0.25", "iprec_at_recall_0.50",
        "iprec_at_recall_0.75",
    ]
    assert names("Rprec_mult.5.0,0.2,0.35") == ["Rprec_mult_0.20", "Rprec_mult_0.35", "Rprec_mult_5.00"]


def test_a_level_name_is_cut_where_trec_evals_buffer_ends():
    # append_double: strlen(name) + 10 bytes, the NUL included (the binary prints Rprec_mult_12345678).
    assert names("Rprec_mult.12345678.5") == ["Rprec_mult_12345678"]
    assert names("Rprec_mult.123.5") == ["Rprec_mult_123.50"]


def test_number_and_pair_parameters_print_as_given():
    assert names("utility.2,-1,0,0") == ["utility_2,-1,0,0"]
    assert names("11pt_avg..25,.5,.75") == ["11pt_avg_.25,.5,.75"]
    assert names("ndcg.1=3,2=9,4=4.5") == ["ndcg_1=3,2=9,4=4.5"]
    assert names("utility", "ndcg", "11pt_avg") == ["utility", "11pt_avg", "ndcg"]


def test_the_first_parameters_given_are_used():
    assert names("P.5", "P.10") == ["P_5"]
    assert [name for name in names("all_trec", "P.7") if name.startswith("P_")] == ["P_7"]


def test_nicknames_expand_in_table_order():
    official = names("official")
    assert official[:10] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                             "recip_rank"]
    assert official[-9:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    for nickname, members in NICKNAMES.items():
        measures = {value.measure.name for value in select([nickname]).values}
        assert measures == set(members), nickname
        order = [value.measure.name for value in select([nickname]).values]
        assert order == sorted(order, key=TABLE_ORDER.index)


def test_default_parameters_as_trec_eval_has_them():
    assert names("success") == ["success_1", "success_5", "success_10"]
    assert names("unj") == ["unj_5", "unj_10", "unj_20"]
    assert names("Rprec_mult")[0] == "Rprec_mult_0.20" and len(names("Rprec_mult")) == 10
    assert names("relstring") == ["relstring"] and select(["relstring"]).values[0].length == 10
    assert select(["relstring.20"]).values[0].length == 20


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("P.5,5", "given twice"),
        ("P.0", "positive"),
        ("P.-3,5", "positive"),
        ("P.", "nothing after"),
        ("P.x", "not a number"),
        ("ndcg.1=3,2", "malformed pair"),
        ("utility.1,2", "4 numbers"),
    ],
)
def test_bad_parameters_are_one_line_errors_naming_the_measure(argument, message):
    with pytest.raises(ConfigError, match=message) as error:
        select([argument])
    assert argument.split(".")[0] in str(error.value) and "\n" not in str(error.value)


def test_the_api_expands_trec_names_and_k_never_overrides_their_cutoffs():
    assert resolve_metrics(["P"], k=3) == [REGISTRY.parse(f"P@{k}") for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert resolve_metrics(["recall.20,100", "precision"], k=3) == [
        REGISTRY.parse("recall@20"), REGISTRY.parse("recall@100"), REGISTRY.parse("precision@3"),
    ]
    assert resolve_metrics(["ndcg_cut"], k=3)[0] == REGISTRY.parse("ndcg@5")
    assert REGISTRY.parse("gm_map") in resolve_metrics(["official"], k=3)


def test_every_measure_is_listed():
    rows = listing()
    assert [row["measure"] for row in rows] == TABLE_ORDER
    assert len(TABLE_ORDER) == 57  # trec_eval 10's te_trec_measures


def plain_trec_eval_mean(values: list[float]) -> float:
    """te_acc_meas_s then te_calc_avg_meas_s: add in query order, divide by the number of queries."""
    total = 0.0
    for value in values:
        total += value
    return total / len(values)


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=60))
def test_the_all_line_adds_in_query_order_then_divides(values):
    query_ids = [f"q{i:03d}" for i in range(len(values))]
    selection = select(["map", "gm_map", "num_ret"])
    columns = {
        REGISTRY.parse("map"): np.array(values),
        REGISTRY.parse("gm_map"): np.array(values),
        REGISTRY.parse("num_ret"): np.arange(len(values), dtype=np.float64),
    }
    lines = trec_eval_lines(selection, columns, query_ids, run_id="r")
    logs = 0.0
    for value in values:
        logs += math.log(max(value, 0.00001))
    assert lines == [
        f"num_ret               \tall\t{sum(range(len(values)))}",
        f"map                   \tall\t{plain_trec_eval_mean(values):6.4f}",
        f"gm_map                \tall\t{math.exp(logs / len(values)):6.4f}",
    ]


def test_per_query_lines_go_query_by_query_in_byte_order():
    selection = select(["map", "num_ret", "gm_map"])
    columns = {
        REGISTRY.parse("map"): np.array([0.5, 0.25, 1.0]),
        REGISTRY.parse("gm_map"): np.array([0.5, 0.25, 1.0]),
        REGISTRY.parse("num_ret"): np.array([3.0, 2.0, 1.0]),
    }
    lines = trec_eval_lines(selection, columns, ["b", "10", "9"], run_id="r", per_query=True, summary=False)
    assert lines == [
        "num_ret               \t10\t2", "map                   \t10\t0.2500",
        "num_ret               \t9\t1", "map                   \t9\t1.0000",
        "num_ret               \tb\t3", "map                   \tb\t0.5000",
    ]
