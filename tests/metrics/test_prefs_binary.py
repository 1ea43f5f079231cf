"""The preference family against the trec_eval 10 binary on generated files: every per-query line of ``-q -m all_prefs``.

The files go to both unchanged (``-R prefs`` and ``-R qrels_prefs`` layouts, read by our readers), under
``-c`` (a judged query the run lacks retrieves nothing, trec_eval's one-document stand-in being judged
nowhere) and random ``-M``. Where trec_eval stops (an inconsistent group) we raise; where it reads
memory the query never wrote we give NaN, and that line is not compared.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numba
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import InputError, Qrels, evaluate
from tests.metrics.test_prefs import NAMES, collections
from tests.reference.prefs import MEASURES
from tests.reference.prefs_files import judgment_lines, run_lines, value_line

pytestmark = pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")


def trec_eval(binary: Path, layout: str, judgments: Path, run: Path, max_docs: int | None) -> tuple[int, dict]:
    """trec_eval's exit status and its per-query lines, keyed (measure, query)."""
    cut = [] if max_docs is None else [f"-M{max_docs}"]
    done = subprocess.run(
        [str(binary), "-q", "-c", "-m", "all_prefs", "-R", layout, *cut, str(judgments), str(run)],
        capture_output=True, text=True, check=False, timeout=60,
    )
    lines = {}
    for line in done.stdout.splitlines():
        measure, query, _ = line.split("\t")
        if query != "all" and measure.strip() in MEASURES:
            lines[measure.strip(), query] = line
    return done.returncode, lines


def ours(layout: str, judgments: Path, run: Path, max_docs: int | None) -> dict:
    """Our per-query lines, keyed (measure, query); None for a value trec_eval does not define."""
    qrels = Qrels.read(judgments, judgments=layout, format="trec", duplicates="raise")
    result = evaluate(qrels, run, list(NAMES.values()), query_set="qrels", max_docs=max_docs, run_duplicates="raise")
    table = result.per_query.set_index("query_id")
    lines = {}
    for query in table.index:
        for measure in MEASURES:
            value = float(table.loc[query, NAMES[measure]])
            lines[measure, query] = None if math.isnan(value) else value_line(measure, query, value)
    return lines


def assert_same_lines(binary: Path, layout: str, judgments: Path, run: Path, max_docs: int | None) -> None:
    status, theirs = trec_eval(binary, layout, judgments, run, max_docs)
    if status != 0:
        with pytest.raises(InputError, match="judgment group"):
            ours(layout, judgments, run, max_docs)
        return
    mine = ours(layout, judgments, run, max_docs)
    assert set(mine) == set(theirs)
    for key, line in mine.items():
        if line is not None:
            assert line == theirs[key]


@given(collections(), st.sampled_from([None, 1, 2, 3, 5]))
def test_prefs_files_give_trec_eval_s_lines(trec_eval_binary, tmp_path_factory, data, max_docs):
    judgments, run = data
    if not run:
        return  # trec_eval cannot read an empty run file
    folder = tmp_path_factory.mktemp("prefs")
    (folder / "prefs").write_text(judgment_lines(judgments), encoding="utf-8")
    (folder / "run").write_text(run_lines(run), encoding="utf-8")
    assert_same_lines(trec_eval_binary, "prefs", folder / "prefs", folder / "run", max_docs)


@given(collections(), st.sampled_from([None, 1, 3]))
def test_qrels_prefs_files_give_trec_eval_s_lines(trec_eval_binary, tmp_path_factory, data, max_docs):
    judgments, run = data
    if not run:
        return
    # One subgroup per group: the second column is the group. A document keeps one level per group.
    rows = {q: {(g, d): level for g, _, d, level in lines} for q, lines in judgments.items()}
    text = "".join(f"{q} {g} {d} {level!r}\n" for q, judged in rows.items() for (g, d), level in judged.items())
    folder = tmp_path_factory.mktemp("qrels_prefs")
    (folder / "qrels").write_text(text, encoding="utf-8")
    (folder / "run").write_text(run_lines(run), encoding="utf-8")
    assert_same_lines(trec_eval_binary, "qrels_prefs", folder / "qrels", folder / "run", max_docs)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="65,537 groups take seconds as Python; the compiled build is the same code")
def test_the_pair_counts_wrap_past_65535_groups_as_trec_eval_s_unsigned_short(trec_eval_binary, tmp_path):
    # 65,537 groups prefer a to b, one b to a: trec_eval's count of the first wraps to 1, so the pair scores 1/2.
    lines = [f"q g{g:06d} s {doc} {level}\n" for g in range(65_537) for doc, level in (("a", 2), ("b", 1))]
    (tmp_path / "prefs").write_text("".join(lines) + "q h s a 1\nq h s b 2\n")
    (tmp_path / "run").write_text("q Q0 a 1 2 r\nq Q0 b 2 1 r\n")
    assert_same_lines(trec_eval_binary, "prefs", tmp_path / "prefs", tmp_path / "run", None)
    assert ours("prefs", tmp_path / "prefs", tmp_path / "run", None)["prefs_pair", "q"].endswith("\t0.5000")
