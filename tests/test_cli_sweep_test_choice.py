"""`retrieval-eval sweep --test --correction`: the chosen test's columns in the JSON, a bad name one line."""

from __future__ import annotations

import json

from tests.test_cli import run_cli
from tests.test_cli_sweep import FAST, QRELS, _runs


def test_the_chosen_test_and_correction_are_the_json_s_columns(capsys, tmp_path):
    code, stdout, err = run_cli(capsys, "sweep", QRELS, *_runs(tmp_path), "--format", "json", "--all-pairs",
                                "--test", "wilcoxon", "--correction", "bh", *FAST)  # fmt: skip
    assert code == 0 and err == ""
    document = json.loads(stdout)
    assert (document["test"], document["correction"]) == ("wilcoxon", "bh")
    second = document["table"][1]
    assert {"p_t", "p_t_bh", "p_wilcoxon", "p_wilcoxon_bh"} <= set(second) and "p_randomization" not in second
    assert second["tied_with_best"] == (second["p_wilcoxon_bh"] > document["alpha"])
    assert document["pairwise"][0]["significant"] == (document["pairwise"][0]["p_wilcoxon_bh"] <= document["alpha"])


def test_a_bad_test_exits_2_with_one_line(capsys, tmp_path):
    code, stdout, err = run_cli(capsys, "sweep", QRELS, *_runs(tmp_path), "--test", "wilcox", *FAST)
    assert code == 2 and stdout == ""
    assert err.splitlines() == ["retrieval-eval: error: test must be one of randomization, t, wilcoxon, sign, got 'wilcox'; "
                                "did you mean 'wilcoxon'?"]  # fmt: skip
