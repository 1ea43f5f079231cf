"""How far a judge's labels agree with people's, on the (query, document) pairs both judge.

Notation: N pairs, L levels l_0 < ... < l_{L-1}; C the L x L confusion matrix (C[i, j]: the pairs
people label l_i and the judge l_j); r_i = sum_j C[i, j] and c_j = sum_i C[i, j] the two margins.

- observed agreement p_o = sum_i C[i, i] / N; chance agreement p_e = sum_i r_i c_i / N^2.
- Cohen's kappa (1960) with disagreement weights w: kappa_w = 1 - sum_ij w_ij C_ij / sum_ij w_ij E_ij,
  E_ij = r_i c_j / N. Unweighted: w_ij = [i != j] (then kappa = (p_o - p_e) / (1 - p_e)); linear:
  |i - j|; quadratic: (i - j)^2, with i, j the positions of the levels (scikit-learn's
  ``cohen_kappa_score``: for levels 0, 1, 2, 3 the positions are the labels). Where the denominator
  is 0 (p_e = 1: both sides give every pair the same one level) kappa is undefined and NaN, as
  scikit-learn returns it; the result's ``notes`` say so.
- Krippendorff's alpha for two coders and no missing value: with the coincidence matrix
  o = C + C^T (each pair adds both ordered pairs of its two values), n_i = sum_j o_ij, n = 2N,
  alpha = 1 - (n - 1) sum_ij o_ij d_ij / sum_ij n_i n_j d_ij, the difference d_ij nominal
  [i != j], interval (l_i - l_j)^2, ordinal (sum_{g=i..j} n_g - (n_i + n_j) / 2)^2
  (Krippendorff 2011, "Computing Krippendorff's alpha-reliability"). NaN where every value is the same.
- binary: a label >= ``relevance_level`` is relevant; the 2 x 2 confusion (rows people, columns the
  judge; index 0 not relevant, 1 relevant) and its unweighted kappa.

Everything is counted with one ``bincount`` over the pairs' level codes: no loop over pairs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ConfigError, InputError
from ..views import counted, decimal, values_table
from .pairs import PairedLabels, paired_labels, read_judgments

if TYPE_CHECKING:
    import pandas as pd

#: The disagreement weights of the weighted kappas, by name (positions i, j of two levels).
KAPPA_WEIGHTS = ("unweighted", "linear", "quadratic")
#: Krippendorff's difference functions.
ALPHA_LEVELS = ("nominal", "ordinal", "interval")


@dataclass(frozen=True)
class LabelAgreement:
    """The agreement of a judge's labels with people's (see the module's docstring for every formula).

    Attributes
    ----------
    human_source, judge_source
        Where the two sets of labels came from.
    n_pairs
        N, the (query, document) pairs both judge: what every statistic counts.
    n_human_only, n_judge_only
        Pairs judged by one side only (reported, not compared).
    levels
        The levels l_0 < ... < l_{L-1}: the labels either side gives, or those asked for.
    confusion
        C, L x L int64: rows people's level, columns the judge's (:attr:`confusion_frame` labels them).
    observed_agreement, chance_agreement
        p_o and p_e (fractions of the N pairs).
    kappa, kappa_linear, kappa_quadratic
        Cohen's kappa, unweighted and with linear and quadratic weights (NaN where undefined).
    alpha_nominal, alpha_ordinal, alpha_interval
        Krippendorff's alpha with each difference function (NaN where undefined).
    relevance_level
        The binary threshold: a label >= it is relevant.
    binary_confusion
        2 x 2 int64: rows people (not relevant, relevant), columns the judge.
    binary_kappa
        Cohen's kappa of the binary labels (NaN where undefined).
    notes
        What is undefined and why, and what was left out.
    """

    human_source: str
    judge_source: str
    n_pairs: int
    n_human_only: int
    n_judge_only: int
    levels: tuple[int, ...]
    confusion: np.ndarray
    observed_agreement: float
    chance_agreement: float
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    alpha_nominal: float
    alpha_ordinal: float
    alpha_interval: float
    relevance_level: int
    binary_confusion: np.ndarray
    binary_kappa: float
    notes: tuple[str, ...] = ()

    @property
    def human_counts(self) -> np.ndarray:
        """r: the pairs people give each level (int64, one per level)."""
        return self.confusion.sum(axis=1)

    @property
    def judge_counts(self) -> np.ndarray:
        """c: the pairs the judge gives each level (int64, one per level)."""
        return self.confusion.sum(axis=0)

    @property
    def confusion_frame(self) -> pd.DataFrame:
        """:attr:`confusion` as a DataFrame: index ``human`` levels, columns ``judge`` levels."""
        import pandas as pd

        return pd.DataFrame(
            self.confusion,
            index=pd.Index(self.levels, name="human"),
            columns=pd.Index(self.levels, name="judge"),
        )

    @property
    def per_level(self) -> pd.DataFrame:
        """Per level: ``human`` and ``judge`` (the pairs each side gives it) and ``both`` (C[i, i])."""
        import pandas as pd

        return pd.DataFrame(
            {"human": self.human_counts, "judge": self.judge_counts, "both": np.diagonal(self.confusion).copy()},
            index=pd.Index(self.levels, name="level"),
        )

    def to_dict(self) -> dict[str, Any]:
        """Every number as plain JSON values (NaN as None); matrices as lists of rows."""
        return {
            "human": self.human_source,
            "judge": self.judge_source,
            "pairs": {"both": self.n_pairs, "human_only": self.n_human_only, "judge_only": self.n_judge_only},
            "levels": list(self.levels),
            "confusion": self.confusion.tolist(),
            "per_level": {
                str(level): {"human": int(h), "judge": int(j)}
                for level, h, j in zip(self.levels, self.human_counts, self.judge_counts)
            },
            "observed_agreement": _plain(self.observed_agreement),
            "chance_agreement": _plain(self.chance_agreement),
            "kappa": {name: _plain(value) for name, value in zip(KAPPA_WEIGHTS, self._kappas)},
            "alpha": {name: _plain(value) for name, value in zip(ALPHA_LEVELS, self._alphas)},
            "binary": {
                "relevance_level": self.relevance_level,
                "confusion": self.binary_confusion.tolist(),
                "kappa": _plain(self.binary_kappa),
            },
            "notes": list(self.notes),
        }

    @property
    def _kappas(self) -> tuple[float, float, float]:
        return self.kappa, self.kappa_linear, self.kappa_quadratic

    @property
    def _alphas(self) -> tuple[float, float, float]:
        return self.alpha_nominal, self.alpha_ordinal, self.alpha_interval

    def __str__(self) -> str:
        lines = [
            f"label agreement of {self.judge_source} with {self.human_source}: {counted(self.n_pairs, 'pair')} judged by both "
            f"({self.n_human_only} by the human qrels only, {self.n_judge_only} by the judge only)",
            f"  observed agreement {decimal(self.observed_agreement)} (chance {decimal(self.chance_agreement)})",
            "  Cohen's kappa " + ", ".join(f"{name} {decimal(value)}" for name, value in zip(KAPPA_WEIGHTS, self._kappas)),
            "  Krippendorff's alpha " + ", ".join(f"{name} {decimal(value)}" for name, value in zip(ALPHA_LEVELS, self._alphas)),
            f"  binary at label >= {self.relevance_level}: kappa {decimal(self.binary_kappa)}",
            "",
            "confusion (rows human, columns judge):",
            *_matrix_lines(self.confusion, [str(level) for level in self.levels]),
            "",
            f"binary confusion (relevant: label >= {self.relevance_level}):",
            *_matrix_lines(self.binary_confusion, ["not relevant", "relevant"]),
        ]
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)


def label_agreement(
    human: Any,
    judge: Any,
    *,
    levels: Iterable[int] | None = None,
    relevance_level: int = 1,
) -> LabelAgreement:
    """The agreement of the ``judge``'s labels with the ``human`` ones, on the pairs both judge.

    Parameters
    ----------
    human, judge
        Judgments: anything :meth:`~retrieval_eval.Qrels.read` reads (TREC qrels, parquet, CSV/TSV,
        JSONL, pandas/pyarrow tables with ``query_id``, ``doc_id``, ``relevance``, a nested dict,
        a Qrels). Integer labels; a pair judged twice within one side is an error (as trec_eval).
        They are paired on (query id, document id); ids are strings, or integers on both sides.
    levels
        The label scale, e.g. ``range(4)``; default: every label either side gives. At least two
        levels; a label outside them is an error naming the side and the pair.
    relevance_level
        The binary threshold: a label >= it is relevant.

    Returns
    -------
    LabelAgreement

    Raises
    ------
    InputError
        No pair is judged by both, fewer than two levels in the labels, a label outside
        ``levels``, ids of different kinds, non-integer labels (each naming the input).
    ConfigError
        ``levels`` or ``relevance_level`` not integers, or fewer than two levels given.

    Examples
    --------
    >>> human = {"q1": {"a": 0, "b": 1, "c": 2, "d": 2}}
    >>> judge = {"q1": {"a": 0, "b": 2, "c": 2, "d": 2, "e": 1}}
    >>> agreement = label_agreement(human, judge)
    >>> agreement.n_pairs, agreement.n_judge_only, agreement.confusion.tolist()
    (4, 1, [[1, 0, 0], [0, 0, 1], [0, 0, 2]])
    >>> round(agreement.kappa, 4), agreement.binary_confusion.tolist()
    (0.5556, [[1, 0], [0, 3]])
    """
    relevance_level = _integer(relevance_level, "relevance_level")
    given = None if levels is None else _given_levels(levels)
    human_qrels, judge_qrels = read_judgments(human, "human qrels"), read_judgments(judge, "judge labels")
    pairs = paired_labels(human_qrels, judge_qrels)
    if len(pairs.human) == 0:
        raise InputError(
            f"no (query, document) pair is judged by both the human qrels ({human_qrels.source}, {len(human_qrels)} "
            f"pairs) and the judge labels ({judge_qrels.source}, {len(judge_qrels)} pairs): are they of the same "
            "collection, with ids written the same way?"
        )
    scale = given if given is not None else np.union1d(pairs.human, pairs.judge)
    if len(scale) < 2:
        raise InputError(
            f"every one of the {len(pairs.human)} pairs has label {int(scale[0])} on both sides: agreement beyond chance "
            "needs two levels; give levels= (say range(4)) to count them on a scale"
        )
    human_codes = _codes(pairs, pairs.human, scale, human_qrels.source)
    judge_codes = _codes(pairs, pairs.judge, scale, judge_qrels.source)
    size = len(scale)
    confusion = np.bincount(human_codes * size + judge_codes, minlength=size * size).reshape(size, size)
    return _agreement(confusion, scale, relevance_level, human_qrels.source, judge_qrels.source, pairs)


def _agreement(
    confusion: np.ndarray, scale: np.ndarray, relevance_level: int, human: str, judge: str, pairs: PairedLabels
) -> LabelAgreement:
    n = int(confusion.sum())
    positions = np.arange(len(scale), dtype=np.float64)
    apart = positions[:, None] - positions[None, :]
    relevant = (scale >= relevance_level).astype(np.int64)
    # R (L x 2) sends each level to not relevant / relevant: the binary confusion is R^T C R.
    indicator = np.stack([1 - relevant, relevant], axis=1)
    binary = indicator.T @ confusion @ indicator
    rows, columns = confusion.sum(axis=1), confusion.sum(axis=0)
    notes = []
    kappas = [_kappa(confusion, weights) for weights in (apart != 0, np.abs(apart), apart**2)]
    if np.isnan(kappas[0]):
        level = int(scale[np.argmax(rows)])
        notes.append(f"kappa is undefined (NaN): chance agreement is 1, both sides label every pair {level}")
    alphas = [_alpha(confusion, scale, kind) for kind in ALPHA_LEVELS]
    if np.isnan(alphas[0]):
        notes.append("Krippendorff's alpha is undefined (NaN): every label given is the same")
    binary_kappa = _kappa(binary, np.array([[0.0, 1.0], [1.0, 0.0]]))
    if np.isnan(binary_kappa):
        side = "relevant" if binary[1, 1] else "not relevant"
        notes.append(f"binary kappa is undefined (NaN): both sides find every pair {side} at label >= {relevance_level}")
    if pairs.n_human_only or pairs.n_judge_only:
        notes.append(
            f"pairs judged by one side only are not compared: {pairs.n_human_only} of the human qrels, "
            f"{pairs.n_judge_only} of the judge"
        )
    return LabelAgreement(
        human_source=human,
        judge_source=judge,
        n_pairs=n,
        n_human_only=pairs.n_human_only,
        n_judge_only=pairs.n_judge_only,
        levels=tuple(int(level) for level in scale),
        confusion=_read_only(confusion.astype(np.int64)),
        observed_agreement=float(np.trace(confusion) / n),
        chance_agreement=float(rows @ columns / n**2),
        kappa=kappas[0],
        kappa_linear=kappas[1],
        kappa_quadratic=kappas[2],
        alpha_nominal=alphas[0],
        alpha_ordinal=alphas[1],
        alpha_interval=alphas[2],
        relevance_level=relevance_level,
        binary_confusion=_read_only(binary.astype(np.int64)),
        binary_kappa=binary_kappa,
        notes=tuple(notes),
    )


def _kappa(confusion: np.ndarray, weights: np.ndarray) -> float:
    """1 - sum(w C) / sum(w E), E the outer product of the margins over N; NaN where sum(w E) is 0."""
    counts = confusion.astype(np.float64)
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    chance = float(np.sum(weights * expected))
    return float(1.0 - np.sum(weights * counts) / chance) if chance > 0 else float("nan")


def _alpha(confusion: np.ndarray, scale: np.ndarray, kind: str) -> float:
    """Krippendorff's alpha of two coders from the coincidence matrix C + C^T; NaN where every value is the same."""
    coincidences = (confusion + confusion.T).astype(np.float64)
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    index = np.arange(len(scale))
    if kind == "nominal":
        difference = (index[:, None] != index[None, :]).astype(np.float64)
    elif kind == "interval":
        values = scale.astype(np.float64)
        difference = (values[:, None] - values[None, :]) ** 2
    else:
        # sum of n_g for g from min(i, j) to max(i, j), by cumulative sums.
        low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
        cumulative = np.cumsum(totals)
        between = cumulative[high] - cumulative[low] + totals[low]
        difference = (between - (totals[:, None] + totals[None, :]) / 2) ** 2
    expected = float(np.sum(np.outer(totals, totals) * difference))
    return float(1.0 - (n - 1) * np.sum(coincidences * difference) / expected) if expected > 0 else float("nan")


def _codes(pairs: PairedLabels, labels: np.ndarray, scale: np.ndarray, source: str) -> np.ndarray:
    """Each label's position in ``scale``; a label outside it is an error naming the first such pair."""
    codes = np.minimum(np.searchsorted(scale, labels), len(scale) - 1)
    outside = scale[codes] != labels
    if outside.any():
        row = int(np.argmax(outside))
        raise InputError(
            f"{int(outside.sum())} label(s) outside levels {[int(level) for level in scale]}, first {int(labels[row])} "
            f"(query {pairs.query_id[row].as_py()!r}, doc {pairs.doc_id[row].as_py()!r})",
            source=source,
            field="relevance",
        )
    return codes


def _given_levels(levels: Iterable[int]) -> np.ndarray:
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
        raise ConfigError(f"levels must be a list of integer labels (say range(4)), got {levels!r}")
    values = [_integer(level, "levels") for level in levels]
    scale = np.unique(np.array(values, dtype=np.int64))
    if len(scale) != len(values) or len(scale) < 2:
        raise ConfigError(f"levels must be two or more distinct integer labels, got {values}")
    return scale


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"{name} must be integer labels, got {value!r}")
    return int(value)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _plain(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _matrix_lines(matrix: np.ndarray, names: list[str]) -> list[str]:
    """A square matrix of counts as aligned text: a column of row names, then one column per name."""
    return values_table(["", *names], [[name, *map(int, row)] for name, row in zip(names, matrix)])
