"""The numeric settings of a sweep's statistics, each with one rule for the API and the command line.

A setting's rule says what it allows (``alpha``: a number in (0, 1)); :meth:`Setting.check`
applies it to a value from Python, and the command line hands its text to the same check
(:meth:`Setting.from_text` reads a number where the text is one and passes anything else on
as text), so that ``--alpha nan`` and ``alpha=float("nan")`` fail with the same message.
A leaf like :mod:`retrieval_eval.policies`: the command line reads the defaults from here
without loading the numerical stack.

The bounds on the resampling counts:

- ``resamples``, ``rounds`` and ``permutations`` are at most :data:`MAX_DRAWS` (10^6). A
  percentile of 10^6 bootstrap means, or a p-value from 10^6 randomization rounds or Tukey
  permutations (resolution 10^-6), is already far finer than per-query scores of a few hundred
  queries can support; the time of each grows with draws x queries x configurations.
- The bootstrap keeps every resample's mean of every configuration (8 bytes each) and
  ``np.quantile`` copies them once, so resamples x configurations x 8 bytes is at most
  :data:`MAX_BOOTSTRAP_BYTES` (512 MiB, about 1 GiB at the peak): with the default 10^4
  resamples, up to 6710 configurations (:func:`check_bootstrap_memory`). The draws themselves
  go in batches of a fixed size, whatever the number of queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..constraints import Interval, closest, did_you_mean
from ..errors import ConfigError

#: The most bootstrap resamples or randomization rounds (see the module docstring).
MAX_DRAWS = 1_000_000
#: The most memory the bootstrap means of a leaderboard may take: resamples x configurations x 8 bytes.
MAX_BOOTSTRAP_BYTES = 512 * 2**20


@dataclass(frozen=True)
class Setting:
    """A number a sweep takes: an ``integer`` (or a real number) within ``[low, high]``, open at a bound where said.

    Booleans, text and non-finite numbers are never a setting's value; a real setting takes an
    integer too (``alpha=0`` is the number 0, outside (0, 1)).
    """

    name: str
    default: int | float
    integer: bool
    low: float
    high: float | None = None
    open_bounds: bool = False
    help: str = ""

    @property
    def flag_help(self) -> str:
        """The help of the setting's flag: what it is, what it allows, its default."""
        return f"{self.help}: {self.allowed} (default {self.default})"

    @property
    def interval(self) -> Interval:
        """The numbers the setting allows (:class:`~retrieval_eval.constraints.Interval`)."""
        return Interval(self.low, self.high, self.open_bounds, self.open_bounds, self.integer)

    @property
    def allowed(self) -> str:
        """What the setting allows, as the error messages and ``--help`` say it."""
        return self.interval.allowed

    def check(self, value: Any) -> int | float:
        """``value`` as an int or float within the bounds, else a :class:`~retrieval_eval.ConfigError` naming the setting."""
        return self.interval.check(self.name, value)

    def from_text(self, text: str) -> Any:
        """The number ``text`` reads as (an int for an integer setting, a float otherwise), or else ``text`` itself.

        Nothing is rejected here: :meth:`check` judges the result, so the command line and the
        API give the same message.
        """
        try:
            return int(text) if self.integer else float(text)
        except ValueError:
            return text


ALPHA = Setting("alpha", 0.05, integer=False, low=0.0, high=1.0, open_bounds=True,
                help="significance level of the comparisons with the best")  # fmt: skip
RESAMPLES = Setting("resamples", 10_000, integer=True, low=1, high=MAX_DRAWS, help="bootstrap resamples")
ROUNDS = Setting("rounds", 10_000, integer=True, low=1, high=MAX_DRAWS, help="randomization-test rounds")
PERMUTATIONS = Setting("permutations", 10_000, integer=True, low=1, high=MAX_DRAWS, help="randomised Tukey HSD permutations")
#: The power a topic-set size is designed for (Sakai's usual 1 - beta = 0.8).
POWER = Setting("power", 0.8, integer=False, low=0.0, high=1.0, open_bounds=True,
                help="statistical power the topic-set sizes are designed for")  # fmt: skip
SPLITS = Setting("splits", 1000, integer=True, low=1, high=MAX_DRAWS, help="random splits of the queries in two halves (swap rates)")
SEED = Setting("seed", 0, integer=True, low=0, help="seed of the random draws (the same seed, the same draws)")
LEVEL = Setting("level", 0.95, integer=False, low=0.0, high=1.0, open_bounds=True,
                help="confidence level of the bootstrap intervals")  # fmt: skip

#: The numeric settings of a leaderboard, each a flag of ``retrieval-eval sweep`` of the same name.
STATISTICS = (ALPHA, RESAMPLES, ROUNDS, SEED)


@dataclass(frozen=True)
class Method:
    """A test or a correction a leaderboard may use: its ``name`` (the setting's value and the columns'
    suffix), how the terminal and the report say it (``words``: "randomization test", "Holm-adjusted";
    ``short``: "randomization", "Holm") and its ``caveat``."""

    name: str
    words: str
    short: str
    caveat: str


#: The paired tests of a configuration against another (:func:`~.stats.paired_p_values`), by name.
TEST_METHODS = {method.name: method for method in (
    Method("randomization", "randomization test", "randomization",
           "Fisher's sign flips, exact for the null that each query's two scores are exchangeable, assumes "
           "nothing of their distribution; its p-values come in steps of 1/(1 + rounds)"),
    Method("t", "t-test", "t-test",
           "assumes normal per-query differences, robust to that from about 30 queries"),
    Method("wilcoxon", "Wilcoxon signed-rank test", "Wilcoxon",
           "assumes differences symmetric about their median and tests the median, "
           "not the mean; queries with no difference are dropped"),
    Method("sign", "sign test", "sign test",
           "counts only which of the two wins each query (ties dropped), the magnitudes ignored: assumes "
           "least, has the least power"),
)}  # fmt: skip
#: The corrections of a family of p-values (:func:`~.stats.corrected`), by name.
CORRECTION_METHODS = {method.name: method for method in (
    Method("holm", "Holm-adjusted", "Holm",
           "step-down, the family-wise error rate at most alpha, whatever the dependence between the tests"),
    Method("bh", "Benjamini-Hochberg-adjusted", "BH",
           "step-up, the false discovery rate (the expected share of false ones among those "
           "called significant) at most alpha, under independence or positive dependence; not the family-wise "
           "error rate"),
    Method("bonferroni", "Bonferroni-adjusted", "Bonferroni",
           "the family-wise error rate at most alpha, whatever the dependence; the most conservative"),
    Method("none", "unadjusted", "unadjusted",
           "each comparison's own error rate only; among many comparisons some are significant by chance"),
)}  # fmt: skip
#: The names of the tests and of the corrections, defaults first.
TESTS = tuple(TEST_METHODS)
CORRECTIONS = tuple(CORRECTION_METHODS)


#: The variance estimates the topic-set sizes can be designed with (:mod:`.power`): the residual
#: variance V_E of the two-way ANOVA (the paired comparisons' noise), or Sakai's within-system
#: variance (IRJ 2016: it keeps the variation between queries, so the sizes are larger).
TOPIC_SET_VARIANCES = ("residual", "within-system")


def p_value_columns(test: str, correction: str) -> tuple[str, ...]:
    """The p-value columns of a leaderboard or of its pairs: the t-test's ``p_t`` and, unless
    ``correction`` is ``"none"``, ``p_t_{correction}``, then the same two of ``test`` (once, where it is the t-test)."""
    columns: list[str] = []
    for name in dict.fromkeys(("t", test)):
        columns += [f"p_{name}"] + ([] if correction == "none" else [f"p_{name}_{correction}"])
    return tuple(columns)


def decision_column(test: str, correction: str) -> str:
    """The column that decides ``tied_with_best`` and ``significant``: ``p_{test}_{correction}`` (``p_{test}`` uncorrected)."""
    return f"p_{test}" if correction == "none" else f"p_{test}_{correction}"


def check_bootstrap_memory(resamples: int, configurations: int) -> None:
    """Refuse a bootstrap whose means (resamples x configurations x 8 bytes) pass :data:`MAX_BOOTSTRAP_BYTES`."""
    needed = resamples * configurations * 8
    if needed > MAX_BOOTSTRAP_BYTES:
        most = MAX_BOOTSTRAP_BYTES // (8 * configurations)
        raise ConfigError(
            f"resamples x configurations = {resamples} x {configurations} would hold {needed / 2**30:.2f} GiB of "
            f"bootstrap means (8 bytes each; at most {MAX_BOOTSTRAP_BYTES // 2**20} MiB): give resamples <= {most}"
        )


def unknown_settings(given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse a keyword that is none of ``known``, naming it and the closest known one."""
    known = list(known)
    for name in given:
        if name not in known:
            hint = did_you_mean(closest(name, known), before="", after=" ")
            raise ConfigError(f"unknown sweep setting {name!r}; {hint}the settings are {', '.join(known)}")
