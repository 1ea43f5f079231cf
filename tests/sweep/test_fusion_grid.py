"""Fusion grids: ranx's weight grid and parameter ranges, the expansion of entries against a plain-Python
product, names and parameter columns, the one-line text of --fuse, and every refusal naming its entry."""

from __future__ import annotations

import doctest
import itertools
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep import fusion_spec
from retrieval_eval.sweep import grids as grid_module
from retrieval_eval.sweep.fusion_spec import parse_fusion_spec
from retrieval_eval.sweep.grids import (
    MAX_CONFIGURATIONS,
    FusionGrid,
    fusion_grid,
    ranx_range,
    ranx_weight_grid,
    read_fusion_grid,
)

RUNS = ["bm25", "dense"]


def ranx_weights_oracle(step: float, n_runs: int) -> list[tuple[float, ...]]:
    """ranx 0.3.21's definition, spelled out: every vector of the rounded arange's product whose Python sum is 1.0."""
    decimals = len(str(step).split(".")[1]) if "." in str(step) else -1
    weights = [float(round(x, decimals)) for x in np.arange(0, 1 + step, step)]  # numpy's round, as ranx's on np.float64
    return [vector for vector in itertools.product(weights, repeat=n_runs) if sum(vector) == 1.0]


@given(st.sampled_from([0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 1.0, 0.125]), st.integers(1, 4))
def test_the_weight_grid_is_ranxs_product_filtered_by_its_float_test(step, n_runs):
    expected = ranx_weights_oracle(step, n_runs)
    if expected:
        assert ranx_weight_grid(step, n_runs) == expected
    else:  # a step that does not divide 1 (0.3): ranx's grid is empty, which a sweep refuses by its cause
        with pytest.raises(ConfigError, match=rf"the weight grid at step {step} has no {n_runs} weights summing to exactly 1"):
            ranx_weight_grid(step, n_runs)


def test_the_weight_grid_is_what_ranx_builds():
    optimize_weights = pytest.importorskip("ranx.fusion_optimization.optimize_weights")
    for step, n_runs in [(0.1, 2), (0.1, 3), (0.05, 3), (0.2, 4), (0.25, 2)]:
        ranx = optimize_weights.get_trial_configs(optimize_weights.get_possible_weights(step), n_runs)
        assert ranx_weight_grid(step, n_runs) == [tuple(float(w) for w in vector) for vector in ranx]
    # Two runs at step 0.1: the issue's 11 pairs; three runs: 62 of the 66 decimal vectors pass ranx's float test.
    assert len(ranx_weight_grid(0.1, 2)) == 11 and len(ranx_weight_grid(0.1, 3)) == 62


def test_ranges_are_ranxs_trial_lists():
    # optimize_rrf: range(min_k, max_k + 1, step); optimize_comb_gmnz & co.: rounded arange(min, max + step, step).
    assert ranx_range(10, 100, 10) == list(range(10, 101, 10))
    assert ranx_range(0.01, 1.0, 0.01) == [round(float(x), 2) for x in np.arange(0.01, 1.0 + 0.01, 0.01)]
    assert ranx_range(1, 100, 1) == list(range(1, 101))
    for bad in [(1, 0, 1), (0, 1, 0), (0, float("nan"), 0.1), (True, 2, 1)]:
        with pytest.raises(ConfigError, match="range"):
            ranx_range(*bad)


#: Entries drawn for the expansion property: a method with its parameters' candidate values.
_NORMS = ["min-max", "max", "sum", "zmuv", "rank", "none"]
_entries = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"method": st.just("rrf")},
            optional={"k": st.lists(st.integers(0, 200), min_size=1, max_size=3, unique=True),
                      "norm": st.lists(st.sampled_from(_NORMS), min_size=1, max_size=3, unique=True)},
        ),
        st.fixed_dictionaries(
            {"method": st.just("wsum"),
             "weights": st.one_of(st.sampled_from([{"step": 0.5}, {"step": 0.25}]),
                                  st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=3,
                                           unique=True).map(lambda pairs: [[a / 4, b / 4] for a, b in pairs]))},
            optional={"norm": st.lists(st.sampled_from(_NORMS), min_size=1, max_size=2, unique=True)},
        ),
        st.fixed_dictionaries({"method": st.just("mnz")},
                              optional={"norm": st.sampled_from(_NORMS)}),
        st.fixed_dictionaries({"method": st.just("gmnz"), "gamma": st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=1,
                                                                            max_size=2, unique=True)}),
    ),
    min_size=1,
    max_size=3,
)


def _expected(entries: list[dict]) -> list[tuple]:
    """The plain product: each entry's norms x its parameters' values (declared order) x its weight vectors."""
    expected = []
    for entry in entries:
        norm = entry.get("norm", "min-max")
        norms = [None if n == "none" else n for n in (norm if isinstance(norm, list) else [norm])]
        weights = entry.get("weights")
        if isinstance(weights, dict):
            vectors = ranx_weights_oracle(weights["step"], 2)
        else:
            vectors = [tuple(vector) for vector in weights] if weights is not None else [None]
        parameter = {"rrf": "k", "gmnz": "gamma"}.get(entry["method"])
        values = entry.get(parameter, [{"rrf": 60}.get(entry["method"])]) if parameter else [None]
        for n in norms:
            for value in values:
                for vector in vectors:
                    params = {}
                    if parameter:
                        params[parameter] = value
                    if vector is not None:
                        params["weights"] = vector
                    expected.append((entry["method"], n, params))
    return expected


@given(_entries)
def test_a_grid_is_the_product_of_each_entrys_values_in_order(entries):
    expected = _expected(entries)
    identities = [(m, n, tuple(sorted(p.items()))) for m, n, p in expected]
    if len(set(identities)) < len(identities):
        with pytest.raises(ConfigError, match="again"):
            fusion_grid(entries, RUNS)
        return
    grid = fusion_grid(entries, RUNS)
    assert [(c.method, c.norm, dict(c.params)) for c in grid] == expected
    assert len(set(grid.names)) == len(grid)
    frame = grid.parameters()
    assert list(frame.index) == grid.names
    for config in grid:
        row = frame.loc[config.name]
        assert row["method"] == config.method and row["norm"] == ("none" if config.norm is None else config.norm)
        if config.weights is not None:
            assert (row["w_bm25"], row["w_dense"]) == config.weights
        for name, value in config.params.items():
            if name != "weights":
                assert row[name] == value


def test_names_state_what_the_entry_states_and_columns_hold_every_value():
    grid = fusion_grid(
        [{"method": "rrf", "k": [10, 60]}, {"method": "RRF", "norm": "borda"},
         {"method": "CombMNZ", "norm": ["none", "zmuv"]}, {"method": "wsum", "norm": "min-max", "weights": [0.3, 0.7]}],
        RUNS,
    )  # fmt: skip
    assert grid.names == ["rrf,k=10", "rrf,k=60", "rrf,norm=borda", "mnz,norm=none", "mnz,norm=zmuv",
                          "wsum,norm=min-max,w=0.3/0.7"]  # fmt: skip
    frame = grid.parameters()
    assert list(frame.columns) == ["method", "norm", "k", "w_bm25", "w_dense"]
    assert frame["k"].tolist()[:3] == [10, 60, 60]  # the default k in its column, not in the name
    assert frame["norm"].tolist() == ["min-max", "min-max", "borda", "none", "zmuv", "min-max"]
    assert frame["k"].dtype.kind == "f" and frame["w_bm25"].dtype.kind == "f"  # numeric axes, NaN where absent
    assert grid.norms == ["min-max", "borda", None, "zmuv"]
    assert "6 configurations" in repr(grid)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([{"method": "rff"}], r"^fusion grid entry 1: unknown fusion method 'rff'; did you mean 'rrf'\?"),
        ([{"k": 3}], r"^fusion grid entry 1: an entry names its fusion method"),
        ([{"method": 3}], r"^fusion grid entry 1: method must be a fusion method's name, got 3"),
        ([{"method": "rrf"}, {"method": "rrf", "kk": 1}], r"^fusion grid entry 2 \(rrf\): no key 'kk' .* did you mean 'k'\?"),
        ([{"method": "rrf", "weights": [0.5, 0.5]}], r"^fusion grid entry 1 \(rrf\): no key 'weights'"),
        ([{"method": "rrf", "k": -1}], r"^fusion grid entry 1 \(rrf\): k must be a finite number >= 0, got -1"),
        ([{"method": "rrf", "k": []}], r"^fusion grid entry 1 \(rrf\): k is a value or a non-empty list"),
        ([{"method": "rrf", "k": [10, 10]}], r"^fusion grid entry 1 \(rrf\): k lists 10 twice"),
        ([{"method": "rrf", "k": {"min": 1}}], r"^fusion grid entry 1 \(rrf\): k as a range is"),
        ([{"method": "rrf", "norm": "minmax2"}], r"^fusion grid entry 1 \(rrf\): unknown fusion normalization 'minmax2'"),
        ([{"method": "rrf", "norm": ["max", "max"]}], r"norm lists 'max' twice"),
        ([{"method": "rrf", "norm": 1}], r"norm must be a normalization's name"),
        ([{"method": "wsum"}], r"^fusion grid entry 1 \(wsum\): fusion method 'wsum' needs weights="),
        ([{"method": "wsum", "weights": [0.2, 0.3, 0.5]}], r"weights must be 2 numbers \(one per run\), got 3"),
        ([{"method": "wsum", "weights": [[0.5, 0.5], 0.5]}], r"weights is one vector \[w1, w2, \.\.\.\], a list of vectors"),
        ([{"method": "wsum", "weights": {"step": 0}}], r"the weight grid's step must be a number in \(0, 1\], got 0"),
        ([{"method": "wsum", "weights": {"steps": 0.1}}], r"weights as a grid is \{\"step\": s\}"),
        ([{"method": "wsum", "weights": [float("inf"), 1.0]}], r"weights must be finite numbers"),
        ([{"method": "rrf"}, {"method": "rrf", "k": 60}],
         r"^fusion grid entry 2 \(rrf\): configuration 'rrf,k=60' is 'rrf' of fusion grid entry 1 \(rrf\) again"),
        ([{"method": "rrf", "norm": ["none", "max"]}, {"method": "rrf", "norm": "none"}], r"'rrf,norm=none' .* again"),
        ([{"method": "probfuse", "probs": [[0.5], [0.5]]}], r"probs takes one plain value per configuration"),
        ([{"method": "rrf", "k": [60, 60.0]}], r"k lists 60.0 twice"),
        ([{"method": "rrf", "k": 60}, {"method": "rrf", "k": 60.0}], r"configuration 'rrf,k=60.0' is 'rrf,k=60' of fusion grid entry 1"),
        ([{"method": "rrf", "k": {"min": 0, "max": 1, "step": 1e-9}}], r"k: the range from 0 to 1 by 1e-09 has more than 100000 values"),
        ([{"method": "wsum", "weights": {"step": 1e-9}}], r"the weight grid at step 1e-09 has more than 100000 weights"),
        ([3], r"^fusion grid entry 1: an entry is an object"),
        ([], r"^a fusion grid is a non-empty list of entries"),
        ("rrf", r"cannot read the file"),
    ],
)
def test_a_bad_entry_is_one_line_naming_it(entries, message):
    with pytest.raises((ConfigError, InputError), match=message) as raised:
        fusion_grid(entries, RUNS)
    assert "\n" not in str(raised.value)


def test_a_trained_methods_estimates_have_no_column():
    grid = fusion_grid([{"method": "probfuse", "n_segments": [2, 5]}, {"method": "slidefuse", "w": 3}], RUNS)
    assert grid.names == ["probfuse,n_segments=2", "probfuse,n_segments=5", "slidefuse,w=3"]
    assert list(grid.parameters().columns) == ["method", "norm", "n_segments", "w"]  # no probs: made from the qrels


def test_a_grid_past_the_limit_is_refused_before_it_is_built(monkeypatch):
    monkeypatch.setattr(grid_module, "MAX_CONFIGURATIONS", 50)
    with pytest.raises(ConfigError, match="more than 50 configurations"):
        fusion_grid([{"method": "rrf", "k": list(range(40))}, {"method": "mnz", "norm": _NORMS[:5]},
                     {"method": "rrf", "norm": "max", "k": list(range(10))}], RUNS)  # fmt: skip
    with pytest.raises(ConfigError, match="more than 50 vectors"):
        ranx_weight_grid(0.1, 3)  # 11 weights, 62 vectors
    with pytest.raises(ConfigError, match="more than 50 weights"):
        ranx_weight_grid(0.01, 2)
    assert MAX_CONFIGURATIONS == 100_000


def test_runs_and_labels_are_checked():
    with pytest.raises(ConfigError, match="at least two runs"):
        fusion_grid([{"method": "rrf"}], ["only"])
    with pytest.raises(ConfigError, match="two runs are named 'a'"):
        fusion_grid([{"method": "rrf"}], ["a", "a"])
    grid = fusion_grid([{"method": "rrf"}], RUNS)
    assert fusion_grid(grid, RUNS) is grid
    with pytest.raises(ConfigError, match="built for the runs"):
        fusion_grid(grid, ["x", "y"])
    with pytest.raises(ConfigError, match=r"^--fuse 'rff': unknown fusion method"):
        fusion_grid([{"method": "rff"}], RUNS, labels=["--fuse 'rff'"])
    with pytest.raises(ConfigError, match="labels must name each of the 1 entries"):
        fusion_grid([{"method": "rrf"}], RUNS, labels=["a", "b"])


def test_a_grid_file_is_a_list_of_entries_or_one(tmp_path):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps([{"method": "rrf", "k": [10, 20]}, {"method": "wsum", "weights": {"step": 0.5}}]))
    assert fusion_grid(path, RUNS).names == ["rrf,k=10", "rrf,k=20", "wsum,w=0.0/1.0", "wsum,w=0.5/0.5", "wsum,w=1.0/0.0"]
    path.write_text(json.dumps({"method": "rrf"}))
    assert read_fusion_grid(path) == [{"method": "rrf"}] and isinstance(fusion_grid(str(path), RUNS), FusionGrid)
    path.write_text(json.dumps([{"method": "rrf"}, {"method": "rrf", "k": "x"}]))
    with pytest.raises(ConfigError, match=rf"^{str(path)}: entry 2 \(rrf\): k must be a finite number"):
        fusion_grid(path, RUNS)
    for text in ["[]", '"rrf"', "[{]"]:
        path.write_text(text)
        with pytest.raises(InputError, match=str(path)):
            fusion_grid(path, RUNS)


def test_the_text_of_fuse_is_an_entry():
    assert parse_fusion_spec("rrf:k=10,20,60,100") == {"method": "rrf", "k": [10, 20, 60, 100]}
    assert parse_fusion_spec(" wsum:norm=min-max,max,sum:step=0.1 ") == {
        "method": "wsum", "norm": ["min-max", "max", "sum"], "weights": {"step": 0.1}}  # fmt: skip
    assert parse_fusion_spec("wsum:w=0.3/0.7,1/0") == {"method": "wsum", "weights": [[0.3, 0.7], [1, 0]]}
    assert parse_fusion_spec("gmnz:gamma=1e-1:norm=none") == {"method": "gmnz", "gamma": [0.1], "norm": ["none"]}
    assert parse_fusion_spec("mnz") == {"method": "mnz"}
    assert parse_fusion_spec("rrf:k=ten") == {"method": "rrf", "k": ["ten"]}  # left to the method's check
    assert parse_fusion_spec("slidefuse:w=2,5") == {"method": "slidefuse", "w": [2, 5]}  # no '/': SlideFuse's window
    grid = fusion_grid([parse_fusion_spec("rrf:k=10,60"), parse_fusion_spec("wsum:norm=max:step=0.5")], RUNS)
    assert grid.names == ["rrf,k=10", "rrf,k=60", "wsum,norm=max,w=0.0/1.0", "wsum,norm=max,w=0.5/0.5",
                          "wsum,norm=max,w=1.0/0.0"]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":k=1", "it begins with the fusion method"),
        ("rrf:k", "'k' is not KEY=VALUES"),
        ("rrf:=3", "'=3' is not KEY=VALUES"),
        ("rrf:k=1,,2", "k= lists an empty value"),
        ("rrf:k=1:k=2", "k= is given twice"),
        ("wsum:step=0.1:w=0.5/0.5", r"the weights are given twice \(step=, w= or weights=\)"),
        ("wsum:step=0.1,0.2", "step= is one number"),
        ("wsum:w=0.5/0.5,1", r"w= lists weight vectors, one weight per run joined by '/'"),
    ],
)
def test_bad_fuse_text_is_one_line_quoting_it(text, message):
    with pytest.raises(ConfigError, match=rf"^--fuse {text!r}: .*{message}"):
        parse_fusion_spec(text)


def test_the_fusion_names_are_exported_by_the_sweep_package():
    import retrieval_eval.sweep as sweep
    from retrieval_eval.sweep.fused import fused_runs

    assert sweep.parse_fusion_spec is parse_fusion_spec and sweep.fused_runs is fused_runs and sweep.FusionGrid is FusionGrid
    assert {"fused_runs", "FusedRuns", "FusionGrid", "FusionConfig", "ranx_weight_grid", "ranx_range"} <= set(sweep.__all__)


def test_the_docstring_examples_hold():
    for module in (grid_module, fusion_spec):
        assert doctest.testmod(module).failed == 0
