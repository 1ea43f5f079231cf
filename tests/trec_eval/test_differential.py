"""``retrieval-eval evaluate --trec`` against the real trec_eval 10 binary, byte for byte, on random input.

Random qrels and runs (tests/trec_eval/strategies.py) under random trec_eval command lines (the
measures of tests/trec_eval/measures.py, nicknames, -q -c -n -J -l -M -N); the whole stdout and the
exit status must be what :func:`tests.trec_eval.differential.expected` says for trec_eval's.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.trec_eval.differential import TREC_EVAL_DUPLICATE, TREC_EVAL_MISSING_QUERY, assert_same, expected, on_standard_input, run_ours
from tests.trec_eval.measures import MEASURES, NICKNAMES, WITH_PARAMETERS
from tests.trec_eval.strategies import Collection, Query, collections, command_options


def _compare(binary: Path, collection: Collection, options: list[str]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = collection.write(Path(directory))
        assert_same(binary, options, qrels, run)


def _queries(*queries: tuple[str, tuple, tuple]) -> Collection:
    return Collection(tuple(Query(*query) for query in queries))


@given(collection=collections(), options=command_options())
# The smallest cases of the classes the random tests found, kept.
# -c -M 0: the stand-in ranking of a judged query without results is cut to nothing too (0/0: -nan).
@example(_queries(("1", (("d1", 0),), (("d1", "0"),)), ("2", (("d1", 0),), ())),
         ["-q", "-c", "-M", "0", "-m", "iprec_at_recall.0", "-m", "11pt_avg"])
# -J empties a ranking of unjudged documents: iprec_at_recall at level 0 is 0/0 there.
@example(_queries(("1", (("a", 1),), (("x", "1"),)), ("9", (("a", 0),), (("q", "1"),))), ["-q", "-J"])
# rbp's gains above 1 beside another measure (its defined value is rbp's alone).
@example(_queries(("1", (("d1", 0),), (("d1", "0"),)), ("2", (("d1", 2),), (("d1", "0"),))),
         ["-q", "-m", "official", "-m", "11pt_avg", "-m", "rbp.p=0.5"])
# A document twice below the -M cut: trec_eval never sees it; --trec refuses it.
@example(_queries(("1", (("d1", 0),), (("d1", "0"), ("d1", "1")))), ["-M", "1", "-m", "num_ret"])
# -M 0 and -N 0 (trec_eval's default collection size).
@example(_queries(("1", (("a", 1), ("b", 0)), (("a", "1"), ("x", "1")))), ["-M", "0", "-m", "map", "-m", "11pt_avg"])
@example(_queries(("1", (("a", 1), ("b", 0)), (("a", "1"), ("x", "1")))), ["-N", "0", "-m", "utility.1,1,1,1"])
def test_random_command_lines(trec_eval_binary, collection, options):
    _compare(trec_eval_binary, collection, options)


@pytest.mark.parametrize("nickname", NICKNAMES)
@given(collection=collections(), data=st.data())
def test_nicknames_per_query(trec_eval_binary, nickname, collection, data):
    # Every measure of the set on each example, per query and in the `all` lines.
    options = data.draw(command_options(given=(nickname,)), label="options")
    _compare(trec_eval_binary, collection, ["-q", "-m", nickname, *options])


@given(collection=collections(), measure=st.sampled_from((*MEASURES, *WITH_PARAMETERS)),
       options=st.sampled_from(([], ["-c"], ["-J"], ["-l", "2"], ["-M", "3"], ["-N", "100"], ["-M", "0"])))
def test_one_measure_per_query(trec_eval_binary, collection, measure, options):
    # One measure at a time, so that a discrepancy names its measure.
    _compare(trec_eval_binary, collection, ["-q", "-m", measure, *options])


ONE_MISSING = Collection((Query("1", (("a", 1),), (("a", "1"),)), Query("2", (("a", 1),), ()),
                          Query("3", (("b", 0),), (("b", "2"),))))


@pytest.mark.parametrize("options", [[], ["-q"], ["-q", "-m", "P.5"], ["-n"]])
def test_a_judged_query_without_results(trec_eval_binary, tmp_path, options):
    # trec_eval 10 refuses it (trec_eval 9 and pytrec_eval leave the query out of the mean).
    qrels, run = ONE_MISSING.write(tmp_path)
    theirs, want = expected(trec_eval_binary, options, qrels, run)
    assert theirs.status == TREC_EVAL_MISSING_QUERY and "result qid '2' not found in qrels" in theirs.stderr
    ours = run_ours(options, qrels, run)
    assert ours == want
    # Refused or left out, the query is named, in one line.
    assert "'2'" in ours.stderr and len(ours.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("options", [["-c"], ["-c", "-q", "-m", "all_trec"], ["-c", "-l", "2", "-M", "1"]])
def test_a_judged_query_without_results_under_c(trec_eval_binary, tmp_path, options):
    qrels, run = ONE_MISSING.write(tmp_path)
    assert_same(trec_eval_binary, options, qrels, run)


@pytest.mark.parametrize("options", [["-q"], ["-q", "-m", "all_trec"]])
def test_results_on_standard_input(trec_eval_binary, tmp_path, options):
    # trec_eval reads the results from standard input when the file is "-"; -c scores the judged query without results.
    qrels, run = ONE_MISSING.write(tmp_path)
    theirs, ours = on_standard_input(trec_eval_binary, ["-c", *options], qrels, run)
    assert theirs.status == 0 and theirs.stdout.count(b"\n") > 3
    assert ours == theirs, (ours.stderr, ours.stdout.decode(), theirs.stdout.decode())


@pytest.mark.parametrize("side", ["run", "qrels"])
@pytest.mark.parametrize("options", [[], ["-q"], ["-q", "-c", "-m", "P.5"]])
def test_a_document_twice_in_one_query(trec_eval_binary, tmp_path, side, options):
    twice = Query("2", (("a", 1), ("b", 0)) + ((("a", 0),) if side == "qrels" else ()),
                  (("b", "2"), ("a", "1")) + ((("a", "3"),) if side == "run" else ()))
    qrels, run = Collection((Query("1", (("a", 1),), (("a", "1"),)), twice)).write(tmp_path)
    theirs, want = expected(trec_eval_binary, options, qrels, run)
    assert theirs.status == TREC_EVAL_DUPLICATE and "duplicate docs a" in theirs.stderr
    ours = run_ours(options, qrels, run)
    assert ours == want, ours.stderr
    assert "'a'" in ours.stderr and len(ours.stderr.strip().splitlines()) == 1
