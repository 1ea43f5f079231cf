"""Label agreement against independent oracles: a judge built through a known confusion matrix (closed forms),
scikit-learn's kappas and confusion matrix, the krippendorff package; its invariances; and one-line errors."""

from __future__ import annotations

import json
import warnings
from fractions import Fraction

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from retrieval_eval.data import Qrels
from retrieval_eval.errors import ConfigError, DuplicateError, InputError
from retrieval_eval.judging.agreement import label_agreement

#: The judge's labels of 100 pairs people labelled 0 (40), 1 (30), 2 (20), 3 (10): row i, column j holds
#: how many of the pairs labelled i the judge labels j.
KNOWN = np.array([[30, 10, 0, 0], [5, 20, 5, 0], [0, 4, 12, 4], [0, 0, 2, 8]])


def known_pairs(confusion: np.ndarray = KNOWN) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Human and judge frames of the pairs of ``confusion``, the judge's rows in another order than the human's."""
    human_labels, judge_labels = [], []
    for i, j in np.ndindex(confusion.shape):
        human_labels += [i] * confusion[i, j]
        judge_labels += [j] * confusion[i, j]
    n = len(human_labels)
    queries = [f"q{index % 7}" for index in range(n)]
    docs = [f"d{index}" for index in range(n)]
    human = pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": human_labels})
    judge = pd.DataFrame({"query_id": queries, "doc_id": docs, "relevance": judge_labels})
    return human, judge.iloc[::-1].reset_index(drop=True)


def test_a_judge_through_a_known_confusion_matrix_gives_the_closed_forms(tmp_path):
    human, judge = known_pairs()
    path = tmp_path / "human.trec"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in human.itertuples(index=False)))
    agreement = label_agreement(str(path), judge)
    assert agreement.confusion.tolist() == KNOWN.tolist() and agreement.confusion.dtype == np.int64
    assert agreement.levels == (0, 1, 2, 3) and agreement.n_pairs == 100
    assert agreement.n_human_only == agreement.n_judge_only == 0
    rows, columns = KNOWN.sum(axis=1), KNOWN.sum(axis=0)
    observed = Fraction(70, 100)
    chance = Fraction(int(rows @ columns), 100**2)  # (40*35 + 30*34 + 20*19 + 10*12) / 100^2
    assert chance == Fraction(292, 1000)
    assert agreement.observed_agreement == float(observed) and agreement.chance_agreement == float(chance)
    assert agreement.kappa == pytest.approx(float((observed - chance) / (1 - chance)), abs=1e-15)
    # Krippendorff's nominal alpha of two coders: 1 - (2N - 1) * 2 (N - agreed) / ((2N)^2 - sum_c (r_c + c_c)^2).
    totals = rows + columns
    alpha = 1 - Fraction(199 * 2 * 30, 200**2 - int(totals @ totals))
    assert agreement.alpha_nominal == pytest.approx(float(alpha), abs=1e-15)
    # Relevant from label 2: rows 2 and 3 against columns 2 and 3.
    binary = label_agreement(human, judge, relevance_level=2)
    assert binary.binary_confusion.tolist() == [[65, 5], [4, 26]]
    observed2, chance2 = Fraction(91, 100), Fraction(70 * 69 + 30 * 31, 100**2)
    assert binary.binary_kappa == pytest.approx(float((observed2 - chance2) / (1 - chance2)), abs=1e-15)
    assert agreement.per_level.to_dict("list") == {"human": [40, 30, 20, 10], "judge": [35, 34, 19, 12], "both": [30, 20, 12, 8]}
    frame = agreement.confusion_frame
    assert frame.index.name == "human" and frame.columns.name == "judge" and frame.loc[2, 3] == 4


def _oracles(human: list[int], judge: list[int], levels: list[int]) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's undefined-kappa warning: its NaN is the oracle
        kappas = {weights or "unweighted": cohen_kappa_score(human, judge, labels=levels, weights=weights)
                  for weights in (None, "linear", "quadratic")}  # fmt: skip
    data = np.array([human, judge], dtype=float)
    alphas = {level: krippendorff.alpha(reliability_data=data, level_of_measurement=level) for level in ("nominal", "ordinal", "interval")}
    return kappas | {f"alpha_{level}": value for level, value in alphas.items()}


def _frames(human: list[int], judge: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    ids = [f"d{index}" for index in range(len(human))]
    return (
        pd.DataFrame({"query_id": "q", "doc_id": ids, "relevance": human}),
        pd.DataFrame({"query_id": "q", "doc_id": ids, "relevance": judge}),
    )


labels = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=40).filter(
    lambda pairs: len({label for pair in pairs for label in pair}) >= 2
)


@given(labels)
def test_kappas_alphas_and_the_confusion_matrix_are_the_oracles(pairs):
    human, judge = map(list, zip(*pairs))
    agreement = label_agreement(*_frames(human, judge))
    levels = sorted(set(human) | set(judge))
    assert agreement.levels == tuple(levels)
    assert agreement.confusion.tolist() == confusion_matrix(human, judge, labels=levels).tolist()
    expected = _oracles(human, judge, levels)
    found = {"unweighted": agreement.kappa, "linear": agreement.kappa_linear, "quadratic": agreement.kappa_quadratic,
             "alpha_nominal": agreement.alpha_nominal, "alpha_ordinal": agreement.alpha_ordinal,
             "alpha_interval": agreement.alpha_interval}  # fmt: skip
    assert found == pytest.approx(expected, abs=1e-12, nan_ok=True)


@given(labels, st.randoms(use_true_random=False))
def test_kappa_is_symmetric_and_no_order_of_the_pairs_changes_anything(pairs, random):
    human, judge = map(list, zip(*pairs))
    agreement = label_agreement(*_frames(human, judge))
    swapped = label_agreement(*reversed(_frames(human, judge)))
    assert swapped.confusion.tolist() == agreement.confusion.T.tolist()
    for name in ("kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal", "alpha_ordinal", "alpha_interval"):
        assert getattr(swapped, name) == pytest.approx(getattr(agreement, name), abs=1e-12, nan_ok=True)
    left, right = _frames(human, judge)
    shuffled = [frame.sample(frac=1.0, random_state=random.randrange(2**32)) for frame in (left, right)]
    assert label_agreement(*shuffled).to_dict() == agreement.to_dict()


@given(st.lists(st.integers(-2, 4), min_size=2, max_size=30).filter(lambda values: len(set(values)) >= 2))
def test_identical_labels_agree_perfectly(values):
    agreement = label_agreement(*_frames(values, values))
    assert agreement.observed_agreement == 1.0
    assert agreement.kappa == agreement.kappa_linear == agreement.kappa_quadratic == 1.0
    assert agreement.alpha_nominal == pytest.approx(1.0) and agreement.alpha_interval == pytest.approx(1.0)


def test_levels_given_count_unused_levels_and_an_undefined_kappa_is_nan_with_a_note():
    human, judge = _frames([2, 2, 2], [2, 2, 2])
    agreement = label_agreement(human, judge, levels=range(4))
    assert agreement.levels == (0, 1, 2, 3) and agreement.confusion[2, 2] == 3 and agreement.confusion.sum() == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(cohen_kappa_score([2, 2, 2], [2, 2, 2], labels=[0, 1, 2, 3]))
    assert np.isnan(agreement.kappa) and np.isnan(agreement.alpha_ordinal) and agreement.observed_agreement == 1.0
    assert any("kappa is undefined (NaN): chance agreement is 1, both sides label every pair 2" in note for note in agreement.notes)
    assert json.loads(json.dumps(agreement.to_dict(), allow_nan=False))["kappa"]["unweighted"] is None


def test_pairs_of_one_side_only_are_counted_and_left_out():
    human = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"x": 1}}
    judge = {"q1": {"a": 1, "b": 1, "z": 0}, "q3": {"y": 2}}
    agreement = label_agreement(human, judge)
    assert (agreement.n_pairs, agreement.n_human_only, agreement.n_judge_only) == (2, 2, 2)
    assert agreement.confusion.tolist() == [[0, 1], [0, 1]] and agreement.levels == (0, 1)
    text = str(agreement)
    assert "2 pairs judged by both (2 by the human qrels only, 2 by the judge only)" in text
    assert "confusion (rows human, columns judge):" in text and "pairs judged by one side only are not compared" in text


def test_integer_ids_pair_whatever_their_width_and_a_policy_of_the_qrels_is_kept():
    human = pd.DataFrame({"query_id": np.array([1, 1, 2], np.int32), "doc_id": np.array([7, 8, 7], np.int32), "relevance": [1, 0, 2]})
    judge = pd.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": [7, 8, 7, 7], "relevance": [1, 1, 0, 2]})
    agreement = label_agreement(human, Qrels.read(judge, duplicates="max"))
    assert agreement.confusion.tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(DuplicateError, match="judged more than once"):
        label_agreement(human, judge)


@pytest.mark.parametrize(
    ("human", "judge", "options", "error", "message"),
    [
        ({"q": {"a": 1}}, {"q": {"b": 1}}, {}, InputError, r"no \(query, document\) pair is judged by both the human qrels"),
        ({"q": {"a": 1, "b": 1}}, {"q": {"a": 1, "b": 1}}, {}, InputError, "every one of the 2 pairs has label 1 on both sides"),
        ({"q": {"a": 1, "b": 0}}, {"q": {"a": 5, "b": 0}}, {"levels": [0, 1, 2]}, InputError,
         r"<dict>, field 'relevance': 1 label\(s\) outside levels \[0, 1, 2\], first 5 \(query 'q', doc 'a'\)"),
        ({"q": {"a": 1}}, {"q": {"a": 1}}, {"levels": [1]}, ConfigError, "levels must be two or more distinct integer labels"),
        ({"q": {"a": 1}}, {"q": {"a": 1}}, {"levels": [0, 1.5]}, ConfigError, "levels must be integer labels, got 1.5"),
        ({"q": {"a": 1}}, {"q": {"a": 1}}, {"relevance_level": "1"}, ConfigError, "relevance_level must be integer labels"),
    ],
)
def test_bad_inputs_fail_in_one_line_naming_what_is_wrong(human, judge, options, error, message):
    with pytest.raises(error, match=message) as raised:
        label_agreement(human, judge, **options)
    assert "\n" not in str(raised.value)


def test_non_integer_labels_and_ids_of_two_kinds_name_the_input():
    floats = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [0.5]})
    with pytest.raises(InputError, match="label agreement needs integer relevance labels \\(categories\\), got 0.5"):
        label_agreement({"q": {"a": 1}}, floats)
    numbers = pd.DataFrame({"query_id": [1], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match="query_ids are strings in <dict> but integers in <DataFrame>"):
        label_agreement({"1": {"a": 1}}, numbers)
