"""The statistics for many configurations of a leaderboard: every part equals its own module's function on the
leaderboard's matrices, the comparison table follows from the p-values and the means by its definition, the
lead over the runner-up is the first topic-set size, and bad settings are one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError
from retrieval_eval.sweep import leaderboard, sweep
from retrieval_eval.sweep.anova import sakai_effect_sizes, tukey_margin_of_error, two_way_anova
from retrieval_eval.sweep.discriminative import metric_discrimination
from retrieval_eval.sweep.intervals import paired_difference_intervals
from retrieval_eval.sweep.power import topic_set_sizes
from retrieval_eval.sweep.rank_correlation import metric_correlation
from retrieval_eval.sweep.significance import COMPARISON_COLUMNS, PAIR_COLUMNS, keys_of, significance
from retrieval_eval.sweep.tukey import randomised_tukey_hsd

METRICS = ["ndcg@5", "P@3", "holes@5"]  # holes: lower is better
FAST = {"resamples": 200, "rounds": 200}
SMALL = {"permutations": 300, "resamples": 200, "splits": 50}


def collection(configurations: int, queries: int, seed: int) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Qrels of ``queries`` queries (8 documents, 6 judged) and runs of growing skill, with unjudged documents."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=(queries, 8))
    qrels = pd.DataFrame(
        [(f"q{q}", f"d{d}", int(labels[q, d])) for q in range(queries) for d in range(6)], columns=["query_id", "doc_id", "relevance"]
    )
    runs = {}
    for c in range(configurations):
        scores = c / configurations * labels + rng.normal(size=labels.shape)
        runs[f"c{c}"] = pd.DataFrame(
            [(f"q{q}", f"d{d}", float(scores[q, d])) for q in range(queries) for d in range(8)], columns=["query_id", "doc_id", "score"]
        )
    return qrels, runs


@pytest.fixture(scope="module")
def board():
    qrels, runs = collection(6, 30, seed=3)
    return leaderboard(qrels, runs, METRICS, **FAST)


@pytest.fixture(scope="module")
def result(board):
    return significance(board, **SMALL, seed=7)


def test_every_pair_holds_the_tukey_p_value_the_intervals_and_the_effect_size_of_its_modules(board, result):
    # In C order, as the statistics take it (numpy sums a Fortran-ordered array's rows in another order: an ulp).
    matrix = np.ascontiguousarray(board.per_query.to_numpy(np.float64))
    names = list(board.per_query.index)
    first, second = np.triu_indices(len(names), 1)
    pairs = result.pairs
    assert list(pairs.columns) == list(PAIR_COLUMNS)
    assert pairs["a"].tolist() == [names[i] for i in first] and pairs["b"].tolist() == [names[j] for j in second]
    means = board.table[board.objective].to_numpy()
    np.testing.assert_array_equal(pairs["difference"], means[first] - means[second])
    p = randomised_tukey_hsd(matrix, permutations=300, seed=7)
    np.testing.assert_array_equal(pairs["p_tukey"], p)
    assert pairs["significant"].tolist() == (p <= board.alpha).tolist()
    anova = two_way_anova(matrix)
    margin = tukey_margin_of_error(anova, 0.95)
    assert result.margin_of_error == margin and result.residual_variance == anova.residual_variance
    intervals = paired_difference_intervals(matrix, first, second, level=0.95, resamples=200, seed=7)
    paired = intervals["difference"].to_numpy()
    np.testing.assert_allclose(paired, pairs["difference"], rtol=0, atol=1e-15)  # every query paired here
    np.testing.assert_array_equal(pairs["hsd_low"], paired - margin)
    np.testing.assert_array_equal(pairs["hsd_high"], paired + margin)
    np.testing.assert_array_equal(pairs["effect_size"], sakai_effect_sizes(paired, anova.residual_variance))
    for column in ("t_low", "t_high", "bootstrap_low", "bootstrap_high"):
        np.testing.assert_array_equal(pairs[column], intervals[column])
    assert result.anova.set_index("source").loc["systems", "F"] == anova.f_systems


def test_the_lead_over_the_runner_up_comes_first_in_the_topic_set_sizes(board, result):
    means = board.table[board.objective].to_numpy()
    lead = abs(means[0] - means[1])
    assert result.lead == lead > 0
    expected = topic_set_sizes(np.ascontiguousarray(board.per_query.to_numpy(np.float64)), min_differences=[lead, 0.01, 0.02, 0.05, 0.1],
                               alpha=board.alpha, power=0.8)  # fmt: skip
    pd.testing.assert_frame_equal(result.topic_set_sizes, expected)
    assert sum("the best's lead over the runner-up" in line for line in result.summary()) == 1


def test_each_metric_is_tested_on_the_queries_where_it_is_defined_for_every_configuration(board, result):
    for metric in METRICS:
        scores = board.metric_scores[metric]
        defined = scores.loc[:, scores.notna().all(axis=0)].to_numpy(np.float64)
        np.testing.assert_array_equal(result.pvalues[metric], randomised_tukey_hsd(defined, permutations=300, seed=7))
    expected = metric_discrimination(board.metric_scores, result.pvalues, alpha=board.alpha, splits=50, seed=7)
    pd.testing.assert_frame_equal(result.discrimination, expected)


def test_the_comparison_marks_exactly_the_configurations_beaten_significantly_in_each_metric_s_direction(board, result):
    table = result.comparison
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    names = list(board.table.index)
    keys = dict(zip(names, keys_of(len(names))))
    assert result.keys == keys
    pair_index = {pair: k for k, pair in enumerate(zip(*np.triu_indices(len(names), 1)))}
    for metric in METRICS:
        higher = metric != "holes@5"
        means = board.table[metric]
        for row in table[table["metric"] == metric].itertuples(index=False):
            i = names.index(row.configuration)
            assert row.key == keys[row.configuration] and row.mean == means[row.configuration]
            expected = []
            for j, other in enumerate(names):
                if j == i:
                    continue
                p = result.pvalues[metric][pair_index[(min(i, j), max(i, j))]]
                better = means[row.configuration] > means[other] if higher else means[row.configuration] < means[other]
                if p <= board.alpha and better:
                    expected.append(keys[other])
            assert row.beats == expected, (metric, row.configuration)


def test_keys_run_as_spreadsheet_columns():
    assert keys_of(3) == ["a", "b", "c"]
    keys = keys_of(60)
    assert keys[25:29] == ["z", "aa", "ab", "ac"] and keys[51:53] == ["az", "ba"] and len(set(keys)) == 60


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**6))
def test_the_same_seed_gives_the_same_bits_and_the_order_of_the_runs_changes_nothing(seed):
    qrels, runs = collection(4, 12, seed=seed % 1000)
    one = significance(leaderboard(qrels, runs, METRICS, **FAST), **SMALL, seed=seed)
    reversed_runs = dict(reversed(list(runs.items())))
    two = significance(leaderboard(qrels, reversed_runs, METRICS, **FAST), **SMALL, seed=seed)
    for field in ("pairs", "anova", "topic_set_sizes", "discrimination", "comparison", "correlations"):
        pd.testing.assert_frame_equal(getattr(one, field), getattr(two, field))


def test_a_sweep_asks_for_it_and_keeps_it_beside_the_leaderboard(board):
    qrels, runs = collection(3, 10, seed=1)
    plain = sweep(qrels, runs, METRICS, **FAST)
    assert plain.significance is None
    with_it = sweep(qrels, runs, METRICS, significance=True, seed=5, **FAST)
    assert with_it.significance is not None and with_it.significance.seed == 5
    again = plain.with_significance(seed=5)
    pd.testing.assert_frame_equal(again.significance.pairs, with_it.significance.pairs)
    assert again.leaderboard is plain.leaderboard and again.parameters is plain.parameters  # the sweep as it was, plus the statistics


def test_nothing_to_compare_and_bad_settings_are_one_line_errors(board):
    qrels, runs = collection(1, 10, seed=1)
    with pytest.raises(ConfigError, match="at least two configurations on at least two queries; this leaderboard has 1 configuration"):
        significance(leaderboard(qrels, runs, METRICS, **FAST))
    with pytest.raises(ConfigError, match="permutations must be an integer from 1 to 1000000, got 0"):
        significance(board, permutations=0)
    with pytest.raises(ConfigError, match="power must be a number in"):
        significance(board, power=1.0)
    with pytest.raises(ConfigError, match=r"min_differences must be positive numbers \(in the objective's units\), got -0.1"):
        significance(board, min_differences=[0.05, -0.1])
    with pytest.raises(ConfigError, match="min_differences must be a list of positive numbers"):
        significance(board, min_differences=0.05)
    with pytest.raises(ConfigError, match="significance must be True or False"):
        sweep(qrels, runs, METRICS, significance="yes")


def test_each_other_metric_s_ranking_is_compared_with_the_objective_s_and_its_flipped_verdicts_counted(board, result):
    table = result.correlations.set_index("metric")
    assert list(table.index) == ["P@3", "holes@5"]
    names = list(board.table.index)
    first, second = np.triu_indices(len(names), 1)

    def verdicts(metric: str, higher: bool) -> list[int]:
        means = board.table[metric].to_numpy()
        out = []
        for k, (i, j) in enumerate(zip(first, second)):
            better = (means[i] > means[j]) if higher else (means[i] < means[j])
            worse = (means[i] < means[j]) if higher else (means[i] > means[j])
            out.append(0 if result.pvalues[metric][k] > board.alpha else (1 if better else (-1 if worse else 0)))
        return out

    objective = verdicts("ndcg@5", True)
    for metric, higher in (("P@3", True), ("holes@5", False)):
        correlation = metric_correlation(board, "ndcg@5", metric)
        assert table.loc[metric, "tau_b"] == correlation.tau_b and table.loc[metric, "rbo"] == correlation.rbo
        assert table.loc[metric, "swapped"] == len(correlation.swapped)
        assert table.loc[metric, "flipped"] == sum(a != b for a, b in zip(verdicts(metric, higher), objective))


def test_an_unknown_setting_is_named_with_the_closest_known_one(board):
    with pytest.raises(ConfigError, match="unknown sweep setting 'permutation'; did you mean 'permutations'"):
        significance(board, permutation=100)


def test_identical_configurations_are_not_called_different_and_no_query_count_is_designed():
    qrels, runs = collection(2, 12, seed=4)
    runs["copy"] = runs["c1"].copy()
    board = leaderboard(qrels, {"c1": runs["c1"], "copy": runs["copy"]}, METRICS, **FAST)
    result = significance(board, **SMALL)
    assert result.residual_variance == 0.0 and result.margin_of_error == 0.0
    assert result.pairs["p_tukey"].tolist() == [1.0] and not result.pairs["significant"].any()
    assert result.topic_set_sizes.empty and list(result.topic_set_sizes.columns) == ["min_difference", "t_test_topics",
                                                                                    "t_test_power", "anova_topics", "anova_power"]
    assert any("the residual variance V_E is 0" in line for line in result.summary())


def test_the_topic_set_sizes_can_be_designed_with_sakai_s_within_system_variance(board, result):
    from retrieval_eval.sweep.power import within_system_variance

    within = significance(board, **SMALL, seed=7, topic_set_variance="within-system")
    matrix = np.ascontiguousarray(board.per_query.to_numpy(np.float64))
    expected = topic_set_sizes(matrix, min_differences=[result.lead, 0.01, 0.02, 0.05, 0.1], alpha=board.alpha, power=0.8,
                               variance=within_system_variance(matrix))  # fmt: skip
    pd.testing.assert_frame_equal(within.topic_set_sizes, expected)
    assert result.topic_set_variance == "residual" and within.topic_set_variance == "within-system"
    assert "(within-system variance)" in "\n".join(within.summary())
    with pytest.raises(ConfigError,
                       match="topic_set_variance must be one of residual, within-system, got 'within'; did you mean 'within-system'"):
        significance(board, topic_set_variance="within")
