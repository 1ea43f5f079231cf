"""The preference oracle (tests/reference/prefs.py) against trec_eval 10: its expected outputs, and the binary on the quirks.

Each quirk the oracle (and so the kernels) reproduce is shown here on the real binary first, so
that the oracle is not merely a second reading of the C source.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest

from tests.reference.prefs import PrefsError, query_measures, reference_prefs
from tests.reference.prefs_files import judgment_lines, parse_judgments, parse_run, per_query_lines, run_lines

EXPECTED = [
    ("out.test.prefs", "prefs.test", "prefs.results.test", True),
    ("out.test.prefs", "prefs.comment.test", "prefs.results.test", True),
    ("out.test.qrels_prefs", "qrels.test", "results.test", False),
]


@pytest.mark.parametrize(("expected", "judgments", "run", "subgroups"), EXPECTED, ids=[f"{e[0]}:{e[1]}" for e in EXPECTED])
def test_the_oracle_prints_trec_eval_s_expected_per_query_lines(trec_eval_test, expected, judgments, run, subgroups):
    values = reference_prefs(
        parse_judgments((trec_eval_test / judgments).read_text(), subgroups=subgroups),
        parse_run((trec_eval_test / run).read_text()),
    )
    lines = [line for line in (trec_eval_test / expected).read_text().splitlines() if "\tall\t" not in line]
    assert per_query_lines(values) == lines


def trec_eval_lines(binary: Path, tmp_path: Path, judgments: dict, run: dict, *options: str) -> list[str]:
    (tmp_path / "prefs").write_text(judgment_lines(judgments))
    (tmp_path / "run").write_text(run_lines(run))
    done = subprocess.run(
        [str(binary), "-q", "-m", "all_prefs", "-R", "prefs", *options, str(tmp_path / "prefs"), str(tmp_path / "run")],
        capture_output=True, text=True, check=True,
    )
    return [line for line in done.stdout.splitlines() if "\tall\t" not in line]


def test_equal_scores_rank_by_ascending_docno(trec_eval_binary, tmp_path):
    # a > b, and a and b tie: only the ascending docno order fulfils it.
    judgments = {"q": [("g1", "s", "a", 2.0), ("g1", "s", "b", 1.0)]}
    run = {"q": [("b", 1.0), ("a", 1.0)]}
    assert query_measures(judgments["q"], run["q"])["prefs_simp_ret"] == 1.0
    assert "prefs_simp_ret        \tq\t1.0000" in trec_eval_lines(trec_eval_binary, tmp_path, judgments, run)


def test_a_group_whose_highest_level_is_minus_3_loses_its_lowest_class(trec_eval_binary, tmp_path):
    run = {"q": [("c", 3.0), ("b", 2.0), ("a", 1.0)]}
    for top, possible in ((-3.0, 1), (-2.0, 3)):
        judgments = {"q": [("g", "s", "a", top), ("g", "s", "b", -4.0), ("g", "s", "c", -5.0)]}
        assert query_measures(judgments["q"], run["q"])["prefs_num_prefs_poss"] == possible
        assert f"prefs_num_prefs_poss  \tq\t{possible}" in trec_eval_lines(trec_eval_binary, tmp_path, judgments, run)


def test_max_docs_cuts_the_ranking_and_judged_only_changes_nothing(trec_eval_binary, tmp_path):
    judgments = {"q": [("g", "s", "a", 3.0), ("g", "s", "b", 4.0), ("g", "s", "c", 5.0)]}
    run = {"q": [("x", 4.0), ("c", 3.0), ("b", 2.0), ("a", 1.0)]}  # x is not judged
    cut = per_query_lines({"q": query_measures(judgments["q"], run["q"], max_docs=2)})
    assert trec_eval_lines(trec_eval_binary, tmp_path, judgments, run, "-M2") == cut
    assert trec_eval_lines(trec_eval_binary, tmp_path, judgments, run, "-J", "-M2") == cut
    whole = per_query_lines({"q": query_measures(judgments["q"], run["q"])})
    assert trec_eval_lines(trec_eval_binary, tmp_path, judgments, run, "-J") == whole != cut


# R = 2 relevant documents, N = 3 non-relevant in two classes (0 and -1), the last holding 1: the
# Rnonrel recount reads "the first R documents of the last class", one past its end.
OVERRUN = [("g", "s", "a", 1.0), ("g", "s", "b", 1.0), ("g", "s", "c", 0.0), ("g", "s", "d", 0.0), ("g", "s", "e", -1.0)]
OVERRUN_RUN = [("e", 5.0), ("a", 4.0), ("c", 3.0), ("b", 2.0), ("d", 1.0)]


def test_the_rnonrel_recount_reads_on_into_the_next_group(trec_eval_binary, tmp_path):
    judgments = {"q": [*OVERRUN, ("h", "s", "a", 1.0), ("h", "s", "z", 0.0)]}
    values = query_measures(judgments["q"], OVERRUN_RUN)
    assert (round(values["prefs_avgjg_Rnonrel"], 4), round(values["prefs_avgjg_Rnonrel_ret"], 4)) == (0.6429, 0.6429)
    assert per_query_lines({"q": values}) == trec_eval_lines(trec_eval_binary, tmp_path, judgments, {"q": OVERRUN_RUN})


def test_past_the_query_s_own_judgments_the_rnonrel_recount_is_undefined(trec_eval_binary, tmp_path):
    """trec_eval reads memory another query left: the same query scores differently beside another one."""
    alone = trec_eval_lines(trec_eval_binary, tmp_path, {"q1": OVERRUN}, {"q1": OVERRUN_RUN})
    # A query before it whose rank pool holds a 0 where q1 reads on.
    before = [("g", "s", f"y{i}", 1.0 if i >= 5 else 0.0) for i in range(10)]
    both = trec_eval_lines(
        trec_eval_binary, tmp_path, {"a0": before, "q1": OVERRUN},
        {"a0": [(f"y{i}", 100.0 - i) for i in range(10)], "q1": OVERRUN_RUN},
    )
    rnonrel = [line for line in alone + both if line.startswith("prefs_avgjg_Rnonrel ") and "\tq1\t" in line]
    assert len(set(rnonrel)) == 2
    values = query_measures(OVERRUN, OVERRUN_RUN)
    assert math.isnan(values["prefs_avgjg_Rnonrel"]) and math.isnan(values["prefs_avgjg_Rnonrel_ret"])


def test_a_zero_group_ratio_leaves_rnonrel_at_zero(trec_eval_binary, tmp_path):
    """Two non-relevant documents only: 0/0 in the unguarded division, a NaN sum, and trec_eval prints 0."""
    judgments = {"q": [("g", "s", "a", 0.0), ("g", "s", "b", 0.0)]}
    run = {"q": [("a", 2.0), ("b", 1.0)]}
    assert query_measures(judgments["q"], run["q"])["prefs_avgjg_Rnonrel"] == 0.0
    assert "prefs_avgjg_Rnonrel   \tq\t0.0000" in trec_eval_lines(trec_eval_binary, tmp_path, judgments, run)


@pytest.mark.parametrize(
    "judgments",
    [
        # d: level 0 in subgroup s1, 2 in s2.
        [("g", "s1", "d", 0.0), ("g", "s1", "e", 1.0), ("g", "s2", "d", 2.0), ("g", "s2", "e", 1.0)],
        # a > b in s1, b > a in s2.
        [("g", "s1", "a", 2.0), ("g", "s1", "b", 1.0), ("g", "s2", "a", 1.0), ("g", "s2", "b", 2.0)],
    ],
    ids=["zero-and-positive", "contradiction"],
)
def test_inconsistent_groups_stop_trec_eval_and_the_oracle(trec_eval_binary, tmp_path, judgments):
    (tmp_path / "prefs").write_text(judgment_lines({"q": judgments}))
    (tmp_path / "run").write_text(run_lines({"q": [("a", 1.0)]}))
    done = subprocess.run(
        [str(trec_eval_binary), "-m", "all_prefs", "-R", "prefs", str(tmp_path / "prefs"), str(tmp_path / "run")],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode != 0 and done.stdout == ""
    with pytest.raises(PrefsError):
        query_measures(judgments, [("a", 1.0)])
