"""fuse(): its parameters, its one-line errors, and writing the fused run."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.data import Run
from retrieval_eval.errors import ConfigError, InputError, OutputError
from retrieval_eval.fusion import METHODS, align, fuse, fusion_method, normalization_name, normalize
from retrieval_eval.io.run_files import write_run

BM25 = {"q1": {"a": 12.0, "b": 9.5, "c": 3.0}, "q2": {"x": 1.0}}
DENSE = {"q1": {"b": 0.9, "d": 0.8}, "q3": {"y": 0.5}}


def test_params_come_as_a_dict_like_ranxs_or_as_keywords():
    by_dict = fuse([BM25, DENSE], "wsum", params={"weights": [0.2, 0.8]})
    by_keyword = fuse([BM25, DENSE], "wsum", weights=(0.2, 0.8))
    assert by_dict.table.equals(by_keyword.table)
    assert by_dict.name == "wsum" and fuse([BM25, DENSE], "rrf", name="hybrid").name == "hybrid"


def test_defaults_are_ranxs():
    # rrf's k is 60, logn_isr's sigma 0.01; the normalization is min-max.
    assert fuse([BM25, DENSE], "rrf").table.equals(fuse([BM25, DENSE], "rrf", norm="min-max", k=60).table)
    assert fuse([BM25, DENSE], "logn_isr").table.equals(fuse([BM25, DENSE], "logn_isr", sigma=0.01).table)
    q1 = fuse([BM25, DENSE], "rrf").table.to_pydict()
    assert q1["doc_id"][:4] == ["b", "a", "d", "c"]
    assert math.isclose(q1["score"][0], 1 / 62 + 1 / 61, rel_tol=1e-15)


def test_the_union_of_queries_is_fused_in_order_of_first_appearance():
    fused = fuse([BM25, DENSE], "sum")
    assert fused.query_ids.to_pylist() == ["q1", "q2", "q3"]
    assert fused.table.slice(4).to_pydict() == {"query_id": ["q2", "q3"], "doc_id": ["x", "y"], "score": [0.0, 0.0]}


def test_every_method_is_found_by_its_names_in_any_case():
    for method in METHODS:
        for name in method.names:
            assert fusion_method(name.upper()) is method
    assert fusion_method("CombSUM").name == "sum" and fusion_method("comb_mnz").name == "mnz"
    assert normalization_name("Z-Score") == "zmuv" and normalization_name("min_max") == "min-max"
    assert normalization_name("none") is None and normalization_name(None) is None


@pytest.mark.parametrize(
    "runs, method, options, message",
    [
        ([BM25], "rrf", {}, "fusion needs at least two runs, got 1"),
        ([BM25, DENSE], "rff", {}, r"unknown fusion method 'rff'; did you mean 'rrf'\?"),
        ([BM25, DENSE], "comb_summ", {}, r"did you mean 'comb_sum'"),
        ([BM25, DENSE], "rrf", {"norm": "minmax2"}, r"unknown fusion normalization 'minmax2'; did you mean .*'min-max'"),
        ([BM25, DENSE], "wsum", {}, r"fusion method 'wsum' needs weights= \(one weight per run, in run order\)"),
        ([BM25, DENSE], "wsum", {"weights": [1.0]}, r"weights must be 2 numbers \(one per run\), got 1: \[1.0\]"),
        ([BM25, DENSE], "wmnz", {"weights": [1.0, float("inf")]}, r"weights must be finite numbers, got \[1.0, inf\]"),
        ([BM25, DENSE], "mixed", {"weights": "0.5,0.5"}, "weights must be a list of 2 numbers"),
        ([BM25, DENSE], "rrf", {"k": -1}, "k must be a finite number >= 0, got -1"),
        ([BM25, DENSE], "rrf", {"k": True}, "k must be a finite number >= 0, got True"),
        ([BM25, DENSE], "logn_isr", {"sigma": 2}, "sigma must be a finite number >= 0 and <= 1, got 2"),
        ([BM25, DENSE], "gmnz", {}, r"fusion method 'gmnz' needs gamma="),
        ([BM25, DENSE], "gmnz", {"gamma": float("nan")}, "gamma must be a finite number, got nan"),
        ([BM25, DENSE], "rrf", {"kk": 60}, r"fusion method 'rrf' has no parameter 'kk' \(it takes k\); did you mean 'k'\?"),
        ([BM25, DENSE], "sum", {"k": 60}, r"fusion method 'sum' has no parameter 'k' \(it takes no parameters\)"),
        ([BM25, DENSE], "rrf", {"params": {"k": 1}, "k": 2}, "fusion parameter 'k' is given twice"),
        ([BM25, DENSE], "rrf", {"top_k_out": 0}, "top_k_out must be a positive integer"),
        ([BM25, DENSE], "rrf", {"top_k_out": 2**63},
         r"top_k_out must be a positive integer \(documents per query\) up to 2\^63 - 1 or None, got 9223372036854775808"),
        ([BM25, DENSE], "rrf", {"top_k_in": 10**30},
         r"top_k_in must be a positive integer \(documents per query\) up to 2\^63 - 1 or None"),
        ([BM25, DENSE], "rrf", {"top_k_in": 2.0}, r"top_k_in must be .* got 2\.0"),
    ],
)
def test_bad_input_is_a_one_line_config_error(runs, method, options, message):
    with pytest.raises(ConfigError, match=message) as raised:
        fuse(runs, method, **options)
    assert "\n" not in str(raised.value)


def test_an_infinite_score_is_an_error_where_ranx_gives_nan():
    infinite = {"q1": {"a": float("inf"), "b": 1.0}}
    with pytest.raises(InputError, match=r"query 'q1': the scores include an infinity, which 'min-max' normalization"):
        fuse([infinite, DENSE], "sum")
    # Ranks do not care, and neither do sums that stay infinite.
    assert fuse([infinite, DENSE], "rrf", norm=None).table["doc_id"].to_pylist()[:3] == ["b", "a", "d"]
    assert fuse([infinite, DENSE], "sum", norm=None).table["score"][0].as_py() == float("inf")
    with pytest.raises(InputError, match=r"query 'q1' doc 'a': the fused score \('sum'\) has no value \(NaN\)"):
        fuse([infinite, {"q1": {"a": float("-inf")}}], "sum", norm=None)


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(
    st.lists(st.dictionaries(st.sampled_from("abcdefgh"), st.integers(-1000, 1000), min_size=1), min_size=2, max_size=3),
    st.sampled_from(["min-max", "min-max-inverted", "max", "sum", "zmuv"]),
    st.integers(500, 1013),
)
def test_finite_scores_never_overflow_a_normalization(scores, norm, exponent):
    # Every normalization but max's floor is invariant under scaling by a power of two, which is exact: scores
    # times 2 ** exponent (up to 1000 * 2 ** 1013, below float64's largest) normalize to the bits that ranx's
    # arithmetic gives the small integers. Before, zmuv's squares overflowed into z-scores of 0 (ranx's too)
    # and min-max's max - min into NaN, refused as "an infinity".
    if norm == "max":  # max divides by max(highest, 1e-9): the same bits for positive scores only
        scores = [{d: abs(v) + 1 for d, v in run.items()} for run in scores]
    small = [{"q": {d: float(v) for d, v in run.items()}} for run in scores]
    large = [{"q": {d: math.ldexp(v, exponent) for d, v in run["q"].items()}} for run in small]
    ours, expected = normalize(align(large), norm), normalize(align(small), norm)
    assert np.array_equal(ours.scores, expected.scores, equal_nan=True) and np.array_equal(ours.ranks, expected.ranks)


def test_the_issues_overflows_normalize():
    other = {"q2": {"x": 1.0}}  # fusion takes two runs or more
    big = {"q1": {"a": 1e200, "b": 5e199, "c": 1e199}}
    z = fuse([big, other], "sum", norm="zmuv").table["score"].to_pylist()[:3]
    assert z == pytest.approx([(s - 16e199 / 3) / math.sqrt(((10 - 16 / 3) ** 2 + (5 - 16 / 3) ** 2 + (1 - 16 / 3) ** 2) / 3) / 1e199
                               for s in (1e200, 5e199, 1e199)], rel=1e-14)  # fmt: skip
    huge = {"q1": {"a": 1.7e308, "b": -1.7e308, "c": 0.0}}
    assert fuse([huge, other], "sum", norm="min-max").table["score"].to_pylist()[:3] == [1.0, 0.5, 0.0]


def test_a_normalized_score_beyond_float64_is_an_error_naming_it():
    # max divides by ranx's floor 1e-9 when no score is positive: -1e300 would be -1e309.
    negative = {"q1": {"a": -1e300, "b": -2e300}}
    message = (
        r"^<dict>: query 'q1': 'max' normalization takes the score -2e\+300 of document 'b' beyond float64's range "
        r"\(its magnitude would pass 1.8e308\); use norm='min-max', 'rank' or 'borda'$"
    )
    with pytest.raises(InputError, match=message):
        fuse([DENSE, negative], "sum", norm="max")
    # An infinity of infinite input scores is ranx's value (-inf / 1e-9), not an overflow.
    infinite = fuse([{"q1": {"a": -math.inf, "b": -1.0}}, {"q2": {"x": 1.0}}], "sum", norm="max")
    assert infinite.table["score"].to_pylist()[:2] == [-1.0 / 1e-9, -math.inf]


@pytest.mark.parametrize("suffix", [".trec", ".run", ".txt"])
def test_a_fused_run_written_as_trec_reads_back_the_same(tmp_path, suffix):
    fused = fuse([BM25, DENSE], "wsum", weights=[0.3, 0.7])
    path = tmp_path / f"fused{suffix}"
    write_run(fused.table, path, tag=fused.name)
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["q1", "Q0", "b", "1", repr(fused.table["score"][0].as_py()), "wsum"]
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "4", "1", "1"]
    assert Run.read(path).table.equals(fused.table)


def test_a_fused_run_written_as_a_table_reads_back_the_same(tmp_path):
    fused = fuse([BM25, DENSE], "rrf")
    write_run(fused.table, tmp_path / "fused.parquet")
    assert pq.read_table(tmp_path / "fused.parquet").equals(fused.table)


def test_what_a_trec_line_cannot_hold_is_an_error_and_no_file(tmp_path):
    spaced = fuse([{"q1": {"a b": 1.0}}, DENSE], "sum")
    with pytest.raises(OutputError, match=r"row 2: doc_id 'a b' cannot be a TREC field"):
        write_run(spaced.table, tmp_path / "fused.trec")
    with pytest.raises(OutputError, match="the run's tag must be one word"):
        write_run(fuse([BM25, DENSE], "sum").table, tmp_path / "fused.trec", tag="my run")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("module", ["aligned", "normalization", "methods", "fusing"])
def test_the_docstring_examples_hold(module):
    imported = importlib.import_module(f"retrieval_eval.fusion.{module}")
    failed, attempted = doctest.testmod(imported, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
