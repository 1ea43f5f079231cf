"""Every setting of a sweep is checked by one rule, before any run is scored, with the same message from the
API and the command line; costs and API misuse are named errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.sweep import bootstrap_ci, leaderboard, randomization_test, runs_from_files, sweep
from retrieval_eval.sweep.settings import (
    ALPHA,
    MAX_BOOTSTRAP_BYTES,
    MAX_DRAWS,
    RESAMPLES,
    ROUNDS,
    SEED,
    STATISTICS,
    check_bootstrap_memory,
)
from tests.test_cli import run_cli

from .test_leaderboard import FAST, qrels, run

DATA = Path(__file__).resolve().parents[2] / "data"
MISSING_QRELS = "no-such-qrels.trec"  # a setting's error must come before the qrels are read

# Text a user may type for each setting that its rule refuses: not a number, non-finite, out of range.
INVALID_TEXT = {
    "alpha": ["nan", "inf", "-inf", "0", "1", "2", "-1", "abc", ""],
    "resamples": ["0", "-5", "1e10", "10000000000", str(MAX_DRAWS + 1), "1.5", "nan", "abc"],
    "rounds": ["0", "-5", "1e3", str(MAX_DRAWS + 1), "2.0", "inf", "abc"],
    "seed": ["-1", "1.5", "1e3", "nan", "abc"],
}
# Values only Python can give: the wrong type.
INVALID_VALUES = [True, None, "10", [1], 2.5, float("nan"), np.float64("inf")]


def _cases():
    for setting in STATISTICS:
        for text in INVALID_TEXT[setting.name]:
            yield pytest.param(setting, text, id=f"{setting.name}={text or 'empty'}")


def test_every_setting_has_invalid_cases():
    assert set(INVALID_TEXT) == {setting.name for setting in STATISTICS}


@pytest.mark.parametrize(("setting", "text"), list(_cases()))
def test_an_invalid_setting_is_one_line_from_the_cli_and_the_same_error_from_the_api(capsys, tmp_path, setting, text):
    value = setting.from_text(text)
    message = f"{setting.name} must be {setting.allowed}, got {value!r}"
    with pytest.raises(ConfigError) as raised:
        leaderboard(MISSING_QRELS, {"a": "a.trec"}, **{setting.name: value})
    assert str(raised.value) == message
    code, out, err = run_cli(capsys, "sweep", MISSING_QRELS, str(tmp_path / "a.trec"), f"--{setting.name}={text}")
    assert (code, out, err) == (2, "", f"retrieval-eval: error: {message}\n")


@pytest.mark.parametrize("setting", STATISTICS, ids=lambda s: s.name)
@pytest.mark.parametrize("value", INVALID_VALUES, ids=repr)
def test_a_value_of_the_wrong_type_names_the_setting_through_sweep_and_leaderboard(setting, value):
    for call in (leaderboard, sweep):
        with pytest.raises(ConfigError, match=rf"^{setting.name} must be "):
            call(MISSING_QRELS, {"a": "a.trec"}, **{setting.name: value})


@given(st.one_of(st.integers(-10, MAX_DRAWS + 10), st.floats(allow_nan=True, allow_infinity=True)))
def test_a_setting_accepts_exactly_the_values_of_its_definition(value):
    # The definitions written out: alpha a finite real in (0, 1); the counts integers (not floats) in range.
    real = isinstance(value, (int, float)) and math.isfinite(value)
    expected = {
        ALPHA: real and 0 < value < 1,
        RESAMPLES: isinstance(value, int) and 1 <= value <= MAX_DRAWS,
        ROUNDS: isinstance(value, int) and 1 <= value <= MAX_DRAWS,
        SEED: isinstance(value, int) and value >= 0,
    }
    for setting, accepted in expected.items():
        if accepted:
            assert setting.check(value) == value and type(setting.check(value)) is (int if setting.integer else float)
        else:
            with pytest.raises(ConfigError, match=setting.name):
                setting.check(value)


def test_numpy_numbers_are_settings_and_come_back_as_python_numbers():
    assert SEED.check(np.int64(7)) == 7 and type(SEED.check(np.int64(7))) is int
    assert ALPHA.check(np.float32(0.5)) == 0.5 and type(ALPHA.check(np.float32(0.5))) is float


def test_the_bootstrap_memory_bound_is_resamples_times_configurations_times_8_bytes():
    most = MAX_BOOTSTRAP_BYTES // 8 // MAX_DRAWS  # configurations that fit at the most resamples
    check_bootstrap_memory(MAX_DRAWS, most)
    with pytest.raises(ConfigError, match=rf"resamples x configurations = {MAX_DRAWS} x {most + 1} would hold"):
        check_bootstrap_memory(MAX_DRAWS, most + 1)
    # Before any allocation, in the statistics function itself and in the leaderboard, before scoring.
    with pytest.raises(ConfigError, match="give resamples <= "):
        bootstrap_ci(np.zeros((most + 1, 3)), resamples=MAX_DRAWS)
    runs = {f"c{i}": "unread.trec" for i in range(most + 1)}
    with pytest.raises(ConfigError, match=rf"give resamples <= {MAX_BOOTSTRAP_BYTES // (8 * (most + 1))}\b"):
        leaderboard(MISSING_QRELS, runs, resamples=MAX_DRAWS)


def test_the_statistics_functions_apply_the_same_rules():
    with pytest.raises(ConfigError, match="^rounds must be an integer from 1 to 1000000, got 1.5$"):
        randomization_test(np.ones((1, 3)), np.zeros(3), rounds=1.5)
    with pytest.raises(ConfigError, match="^seed must be an integer >= 0, got -1$"):
        bootstrap_ci(np.ones((1, 3)), seed=-1)


def test_valid_settings_from_the_cli_reach_the_statistics(capsys, tmp_path):
    path = tmp_path / "a.trec"
    path.write_text((DATA / "run.trec").read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = run_cli(capsys, "sweep", str(DATA / "qrels.trec"), str(path), "--resamples", "7", "--rounds", "5",
                           "--seed", "3", "--alpha", "0.2", "--format", "json")  # fmt: skip
    def interval(seed: int) -> tuple[float, float]:
        board = leaderboard(str(DATA / "qrels.trec"), {"a.trec": str(path)}, ["ndcg@10"], resamples=7, rounds=5, seed=seed)
        return tuple(board.table[["ci_low", "ci_high"]].iloc[0])

    record = json.loads(out)["table"][0]  # the sweep's JSON is one object: the leaderboard is its table
    assert code == 0 and (record["ci_low"], record["ci_high"]) == pytest.approx(interval(3), abs=1e-9)
    assert interval(3) != interval(4)  # the seed given is the seed used


# API misuse: the library's errors, naming the argument.


def test_a_list_of_runs_is_not_a_mapping_of_configurations():
    for call in (sweep, leaderboard):
        with pytest.raises(ConfigError, match=r"^runs must be a mapping of configuration name -> run .*got a list"):
            call(MISSING_QRELS, ["run.trec"])


@pytest.mark.parametrize(
    ("keyword", "message"),
    [
        ("alpah", "unknown sweep setting 'alpah'; did you mean 'alpha'?"),
        ("bogus", "unknown sweep setting 'bogus'; the settings are objective, options, query_policy, alpha"),
    ],
)
def test_an_unknown_sweep_setting_is_named(keyword, message):
    with pytest.raises(ConfigError, match=f"^{message}"):
        sweep(MISSING_QRELS, {"a": "a.trec"}, **{keyword: 0.1})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"objective": 5}, "objective must be a metric name such as 'ndcg@10', got 5"),
        ({"options": {"k": 3}}, "options must be an EvaluationOptions, got dict"),
        ({"progress": 5}, r"progress must be a function progress\(done, total, name\), got 5"),
        ({"query_policy": None}, "query_policy must be one of intersection, zero, got None"),
        ({"costs": "latency_ms"}, "costs must be a list of column names, got 'latency_ms'"),
        ({"parameters": {"a": {"k": 1}}}, "parameters must be a pandas DataFrame indexed by configuration, got dict"),
    ],
    ids=lambda value: next(iter(value)) if isinstance(value, dict) else "",
)
def test_a_misused_argument_is_named(arguments, message):
    with pytest.raises(ConfigError, match=f"^{message}$"):
        sweep(MISSING_QRELS, {"a": "a.trec"}, **arguments)


def test_configuration_names_are_text():
    with pytest.raises(ConfigError, match="^configuration names must be text, got 3$"):
        leaderboard(MISSING_QRELS, {3: "a.trec"})


# Costs: a finite number for every configuration, else an error naming the file (or table), configuration and field.


def _files(tmp_path: Path, sidecar: str | None) -> list[str]:
    text = (DATA / "run.trec").read_text(encoding="utf-8")
    paths = []
    for name, side in (("a.trec", '{"latency_ms": 120}'), ("b.trec", sidecar)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        if side is not None:
            (tmp_path / f"{name}.json").write_text(side, encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


@pytest.mark.parametrize(
    ("sidecar", "got"),
    [('{"latency_ms": "fast"}', "'fast'"), ('{"latency_ms": NaN}', "nan"), ('{"latency_ms": Infinity}', "inf"),
     ('{"latency_ms": true}', "True"), ('{"latency_ms": null}', "None")],
)  # fmt: skip
def test_a_cost_that_is_no_finite_number_names_the_sidecar_configuration_and_field(capsys, tmp_path, sidecar, got):
    paths = _files(tmp_path, sidecar)
    where = f"{paths[1]}.json, field 'latency_ms': "
    message = f"the cost of configuration 'b.trec' must be a finite number, got {got}" if got != "None" else (
        "configuration 'b.trec' has no cost 'latency_ms'")  # fmt: skip
    with pytest.raises(InputError) as raised:
        runs_from_files(paths, costs=["latency_ms"])
    assert str(raised.value) == where + message
    code, out, err = run_cli(capsys, "sweep", str(DATA / "qrels.trec"), *paths, "--cost", "latency_ms")
    assert (code, out, err) == (2, "", f"retrieval-eval: error: {where}{message}\n")


def test_a_missing_cost_names_the_run_file(tmp_path):
    paths = _files(tmp_path, None)
    with pytest.raises(InputError, match=rf"^{re.escape(paths[1])}, field 'latency_ms': no cost 'latency_ms' for this configuration"):
        runs_from_files(paths, costs=["latency_ms"])


def test_a_cost_from_the_file_name_is_checked_too(tmp_path):
    paths = _files(tmp_path, None)
    with pytest.raises(InputError, match=rf"^{re.escape(paths[0])}, field 'cost': "
                                         r"the cost of configuration 'a.trec' must be a finite number, got 'trec'$"):
        runs_from_files(paths, param_pattern=r"\.(?P<cost>\w+)$", costs=["cost"])


def test_a_cost_in_a_parameters_table_is_checked_before_scoring():
    parameters = pd.DataFrame({"latency_ms": [1.0, math.inf]}, index=pd.Index(["a", "b"], name="configuration"))
    with pytest.raises(InputError,
                       match="^parameters, field 'latency_ms': the cost of configuration 'b' must be a finite number, got inf$"):
        sweep(MISSING_QRELS, {"a": "a.trec", "b": "b.trec"}, parameters=parameters, costs=["latency_ms"])
    with pytest.raises(InputError, match="^parameters, field 'latency_ms': configuration 'c' has no cost 'latency_ms'$"):
        sweep(MISSING_QRELS, {"a": "a.trec", "c": "c.trec"}, parameters=parameters, costs=["latency_ms"])


def test_finite_costs_give_the_pareto_front():
    parameters = pd.DataFrame({"latency_ms": [50, 10]}, index=["a", "b"])
    runs = {"a": run(good=0.9, seed=1), "b": run(good=0.2, seed=2)}
    result = sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, costs=["latency_ms"], **FAST)
    assert result.pareto.to_dict() == {"a": True, "b": True}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (pd.DataFrame({"query_id": ["q01", "q01"], "doc_id": ["d0", "d1"], "score": [math.nan, 1.0]}),
         r"^configuration 'bad' \(<DataFrame>\), row 1, field 'score': 1 NaN score\(s\)"),
        (5, r"^configuration 'bad': unsupported source of type int"),
    ],
    ids=["nan-score", "not-a-run"],
)  # fmt: skip
def test_a_bad_run_held_in_memory_names_its_configuration(bad, message):
    with pytest.raises(InputError, match=message):
        leaderboard(qrels(), {"good": run(good=0.5, seed=1), "bad": bad}, **FAST)


def test_a_bad_run_file_is_named_by_the_file(tmp_path):
    path = tmp_path / "bad.trec"
    path.write_text("q01 Q0 d0 1 nan tag\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}, row 1, field 'score'"):
        leaderboard(qrels(), {"bad": str(path)}, **FAST)


@pytest.mark.parametrize("column", ["ndcg@5", "rank", "ci_low", "pareto"])
def test_a_parameter_named_as_a_leaderboard_column_is_refused(column):
    parameters = pd.DataFrame({column: [1, 2]}, index=["a", "b"])
    runs = {"a": run(good=0.9, seed=1), "b": run(good=0.2, seed=2)}
    with pytest.raises(ConfigError, match=rf"^parameter {re.escape(repr(column))} "
                                          r"has the name of a column of the leaderboard \(rank, ndcg@5, "):
        sweep(qrels(), runs, ["ndcg@5"], parameters=parameters, **FAST)


def test_a_sidecar_parameter_named_as_a_metric_is_one_line_from_the_cli(capsys, tmp_path):
    paths = _files(tmp_path, '{"latency_ms": 40, "ndcg@10": 0.5}')
    code, out, err = run_cli(capsys, "sweep", str(DATA / "qrels.trec"), *paths, "--resamples", "20", "--rounds", "20")
    assert (code, out) == (2, "") and err.startswith("retrieval-eval: error: parameter 'ndcg@10' has the name of a column")


@pytest.mark.parametrize(
    ("sidecar", "message"),
    [("[1, 2]", "a sidecar holds one JSON object of parameter names and plain values"),
     ('{"top_k": 5, "reranker": {"name": "x"}}', "field 'reranker': a parameter is a plain value (text, number, "
      "true/false or null), got a JSON object"),
     ('{"stages": [1, 2]}', "field 'stages': a parameter is a plain value (text, number, true/false or null), got a JSON array")],
    ids=["array", "object-value", "array-value"],
)  # fmt: skip
def test_a_sidecar_that_is_no_object_of_plain_values_is_named(tmp_path, sidecar, message):
    paths = _files(tmp_path, sidecar)
    with pytest.raises(InputError) as raised:
        runs_from_files(paths)
    assert str(raised.value) == f"{paths[1]}.json" + (", " if message.startswith("field") else ": ") + message


def test_runs_from_table_names_a_misused_argument():
    from retrieval_eval.sweep import runs_from_table

    table = run(good=0.5, seed=1).assign(top_k=5)
    with pytest.raises(ConfigError, match="^parameters must be a list of column names, got 'top_k'$"):
        runs_from_table(table, "top_k")
    with pytest.raises(ConfigError, match="^table must be a pandas DataFrame, got list$"):
        runs_from_table([], ["top_k"])
    runs, parameters = runs_from_table(table, ["top_k"])
    assert list(runs) == ["top_k=5"] and parameters.to_dict("index") == {"top_k=5": {"top_k": 5}}
