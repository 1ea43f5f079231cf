"""The leaderboard's and all pairs' choice of test and correction: today's columns by default, the chosen test's
p-values those of its function on the same differences, and what decides tied_with_best and significant."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.report.legend import reading_guide
from retrieval_eval.report.sweep_text import sweep_json, sweep_text
from retrieval_eval.report.tables import to_markdown
from retrieval_eval.sweep import leaderboard, pairwise, sweep
from retrieval_eval.sweep.settings import CORRECTIONS, TESTS
from retrieval_eval.sweep.stats import corrected, paired_p_values
from tests.sweep.test_leaderboard import FAST, qrels, run

SEED = 3
AGAINST_BEST = ["effect_size", "wins", "ties", "losses", "tied_with_best"]


def _runs() -> dict:
    return {f"c{index}": run(good=good, seed=index) for index, good in enumerate([0.3, 0.55, 0.6, 0.7, 0.75, 0.9])}


@pytest.fixture(scope="module")
def boards():
    """The same runs under every test and correction, with all pairs."""
    runs, truth = _runs(), qrels()
    return {(test, correction): leaderboard(truth, runs, ["ndcg@5"], all_pairs=True, seed=SEED, test=test,
                                            correction=correction, **FAST)
            for test, correction in itertools.product(TESTS, CORRECTIONS)}  # fmt: skip


def test_the_defaults_give_today_s_columns_and_values(boards):
    default = leaderboard(qrels(), _runs(), ["ndcg@5"], all_pairs=True, seed=SEED, **FAST)
    board = boards["randomization", "holm"]
    assert (default.test, default.correction, default.p_column) == ("randomization", "holm", "p_randomization_holm")
    columns = list(default.table.columns)
    start = columns.index("p_t")
    assert columns[start : start + 9] == ["p_t", "p_t_holm", "p_randomization", "p_randomization_holm", *AGAINST_BEST]
    assert list(default.pairwise.columns) == ["a", "b", "mean_a", "mean_b", "difference", "p_t", "p_t_holm",
                                              "p_randomization", "p_randomization_holm", "significant"]  # fmt: skip
    assert default.table.equals(board.table) and default.pairwise.equals(board.pairwise)


@pytest.mark.parametrize(("test", "correction", "expected"), [
    ("wilcoxon", "bh", ["p_t", "p_t_bh", "p_wilcoxon", "p_wilcoxon_bh"]),
    ("sign", "bonferroni", ["p_t", "p_t_bonferroni", "p_sign", "p_sign_bonferroni"]),
    ("t", "holm", ["p_t", "p_t_holm"]),
    ("randomization", "none", ["p_t", "p_randomization"]),
    ("t", "none", ["p_t"]),
])  # fmt: skip
def test_the_p_value_columns_are_the_t_test_s_and_the_chosen_test_s(boards, test, correction, expected):
    board = boards[test, correction]
    columns = list(board.table.columns)
    start = columns.index("p_t")
    assert columns[start : start + len(expected) + len(AGAINST_BEST)] == [*expected, *AGAINST_BEST]
    assert list(board.pairwise.columns) == ["a", "b", "mean_a", "mean_b", "difference", *expected, "significant"]
    assert list(board.pairwise.columns) == list(pairwise.pair_columns(test, correction))
    assert board.p_column == (f"p_{test}" if correction == "none" else f"p_{test}_{correction}")


@pytest.mark.parametrize(("test", "correction"), list(itertools.product(TESTS, CORRECTIONS)))
def test_the_chosen_test_s_p_values_are_its_function_s_and_decide_the_ties(boards, test, correction):
    board = boards[test, correction]
    table, pairs = board.table, board.pairwise
    matrix = np.ascontiguousarray(board.per_query.to_numpy(np.float64))  # C order, as the leaderboard sums rows
    others = table.iloc[1:]
    for name in dict.fromkeys(("t", test)):
        p = paired_p_values(name, matrix[1:] - matrix[0], rounds=FAST["rounds"], seed=SEED)
        assert np.array_equal(others[f"p_{name}"].to_numpy(), p)
        if correction != "none":
            assert np.array_equal(others[f"p_{name}_{correction}"].to_numpy(), corrected(correction, p))
        first, second = np.triu_indices(len(matrix), 1)
        p_pairs = paired_p_values(name, matrix[second] - matrix[first], rounds=FAST["rounds"], seed=SEED)
        assert np.array_equal(pairs[f"p_{name}"].to_numpy(), p_pairs)
        if correction != "none":
            assert np.array_equal(pairs[f"p_{name}_{correction}"].to_numpy(), corrected(correction, p_pairs))
    assert others["tied_with_best"].tolist() == (others[board.p_column] > board.alpha).tolist()
    assert pairs["significant"].tolist() == (pairs[board.p_column] <= board.alpha).tolist()


def test_the_choice_changes_which_configurations_are_tied(boards):
    # The runs are chosen so that the tests and corrections do not all agree: the option matters.
    verdicts = {key: tuple(board.table["tied_with_best"]) for key, board in boards.items()}
    assert len(set(verdicts.values())) > 1
    # Uncorrected, fewer are tied than with any correction of the same test; Bonferroni ties at least as many as Holm.
    for test in TESTS:
        count = {correction: sum(verdicts[test, correction]) for correction in CORRECTIONS}
        assert count["none"] <= min(count["bh"], count["holm"]) and count["holm"] <= count["bonferroni"]


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("test", "wilcox", "test must be one of randomization, t, wilcoxon, sign, got 'wilcox'; did you mean 'wilcoxon'?"),
    ("correction", "holms", "correction must be one of holm, bh, bonferroni, none, got 'holms'; did you mean 'holm'?"),
    ("correction", 1, "correction must be one of holm, bh, bonferroni, none, got 1"),
])  # fmt: skip
def test_a_bad_name_is_refused_before_any_run_is_scored(setting, value, message):
    heard = []
    with pytest.raises(ConfigError) as raised:
        leaderboard(qrels(), _runs(), ["ndcg@5"], progress=lambda *args: heard.append(args), **{setting: value}, **FAST)
    assert str(raised.value) == message and heard == []
    with pytest.raises(ConfigError, match=setting):
        pairwise.all_pairs(np.zeros((2, 3)), ["a", "b"], np.zeros(2), alpha=0.05, rounds=1, seed=0, **{setting: value})


def test_a_sweep_passes_them_and_every_view_says_the_chosen_test():
    result = sweep(qrels(), _runs(), ["ndcg@5"], all_pairs=True, seed=SEED, test="wilcoxon", correction="bh", **FAST)
    board = result.leaderboard
    assert (board.test, board.correction, board.p_column) == ("wilcoxon", "bh", "p_wilcoxon_bh")
    text = sweep_text(result, width=120)
    assert "(Benjamini-Hochberg-adjusted Wilcoxon p <= 0.05)" in text
    assert "all pairs (Benjamini-Hochberg-adjusted over 15 pairs; * significant at 0.05):" in text
    assert "p Wilcoxon" in text and "p randomization" not in text and "Holm" not in text
    assert '"test": "wilcoxon"' in sweep_json(result) and '"correction": "bh"' in sweep_json(result)
    assert "| p (BH) |" in to_markdown(result)
    guide = dict(reading_guide(result))
    assert "the Wilcoxon signed-rank test's p-value, Benjamini-Hochberg-adjusted over the 5 comparisons" in guide["†"]
    assert "Holm" not in " ".join(guide.values())
    assert "p_wilcoxon_bh" in board._repr_html_() and "p_randomization_holm" not in board._repr_html_()


def test_the_t_test_uncorrected_shows_one_p_value_per_pair():
    result = sweep(qrels(), _runs(), ["ndcg@5"], all_pairs=True, test="t", correction="none", **FAST)
    text = sweep_text(result, width=120)
    assert "(unadjusted t-test p <= 0.05)" in text and "all pairs (unadjusted over 15 pairs" in text
    assert text.count("p t-test") == 1
    best = result.leaderboard.table.iloc[1]
    assert f"{best['p_t']:.4f}"[:5] in text
