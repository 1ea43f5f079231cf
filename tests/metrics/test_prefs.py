"""The preference family against its plain-Python oracle (tests/reference/prefs.py), bit for bit.

Generated judgments mix one-subgroup groups (equivalence classes) and several-subgroup groups
(preference arrays), documents judged in several groups (so the pair measures see conflicting
groups), levels of 0, negative ones and the -3.0 trec_eval counts from, judged documents the run
does not retrieve, unjudged ones it does, ties of scores, and max_docs cuts.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import ConfigError, InputError, Qrels, Run, evaluate
from retrieval_eval.metrics.families.prefs import DEFINITIONS
from tests.reference.prefs import MEASURES, PrefsError, reference_prefs
from tests.reference.prefs_files import parse_judgments, parse_run

# Byte order differs from case-folded and numeric order here: "B" < "a" < "a0" < "aa", "d10" < "d2", "é" last.
DOCS = ["a", "B", "a0", "aa", "d10", "d2", "é", "x"]
UNJUDGED = ["u1", "U2"]
GROUPS = ["g", "G", "0", "h1"]
SUBGROUPS = ["0", "1", "s"]
LEVELS = [-3.0, -1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.5, 7.0]
SCORES = [-1.0, 0.0, 0.5, 1.0, 1.0, 2.0]
QUERIES = ["q1", "Q", "10", "9"]
NAMES = {d.trec_name: d.name for d in DEFINITIONS}


@st.composite
def query_judgments(draw):
    """(group, subgroup, doc, level) rows of one query: distinct documents per (group, subgroup)."""
    rows = []
    for group in draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3, unique=True)):
        # A consistent group gives every document one level and each subgroup a part of them (no
        # contradiction possible); an arbitrary one lets subgroups disagree (trec_eval may refuse it).
        consistent = draw(st.booleans())
        true_level = {doc: draw(st.sampled_from(LEVELS)) for doc in DOCS}
        for subgroup in draw(st.lists(st.sampled_from(SUBGROUPS), min_size=1, max_size=3, unique=True)):
            for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)):
                level = true_level[doc] if consistent else draw(st.sampled_from(LEVELS))
                rows.append((group, subgroup, doc, level))
    return rows


@st.composite
def collections(draw):
    """({qid: judgments}, {qid: [(doc, score)]}): some judged queries are not in the run, some run queries are unjudged."""
    judgments = {q: draw(query_judgments()) for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True))}
    run = {}
    for q in draw(st.lists(st.sampled_from(QUERIES), max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS + UNJUDGED), min_size=1, max_size=9, unique=True))
        run[q] = [(doc, draw(st.sampled_from(SCORES))) for doc in docs]
    return judgments, run


def prefs_qrels(judgments) -> Qrels:
    rows = [(q, g, s, d, level) for q, rows in judgments.items() for g, s, d, level in rows]
    columns = ("query_id", "group", "subgroup", "doc_id", "relevance")
    table = pa.table({name: [row[i] for row in rows] for i, name in enumerate(columns)})
    return Qrels(table, judgments="prefs", duplicates="raise")


def run_table(run) -> Run:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs]
    return Run(pa.table({
        "query_id": pa.array([r[0] for r in rows], pa.string()),
        "doc_id": pa.array([r[1] for r in rows], pa.string()),
        "score": pa.array([r[2] for r in rows], pa.float64()),
    }))


def ours(judgments, run, **options) -> dict[str, dict[str, float]]:
    result = evaluate(prefs_qrels(judgments), run_table(run), list(NAMES.values()), **options)
    table = result.per_query.set_index("query_id")
    return {q: {m: float(table.loc[q, NAMES[m]]) for m in MEASURES} for q in table.index}


def same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def assert_same_values(mine, reference) -> None:
    assert set(mine) == set(reference)
    for q, values in reference.items():
        for m, value in values.items():
            assert same(mine[q][m], value), (q, m, mine[q][m], value)


@given(collections(), st.sampled_from([None, 1, 2, 3, 5]), st.sampled_from(["both", "qrels"]))
def test_every_measure_is_the_oracle_s_double(data, max_docs, query_set):
    judgments, run = data
    try:
        reference = reference_prefs(judgments, run, max_docs=max_docs, all_queries=query_set == "qrels")
    except PrefsError:
        reference = None
    evaluated = set(judgments) if query_set == "qrels" else set(judgments) & set(run)
    if not evaluated:
        return  # nothing to score: the evaluator's no-shared-queries warning, not this family's business
    if reference is None:
        # The oracle stops at the first inconsistent query of any; the kernels at the first evaluated one.
        try:
            reference = reference_prefs({q: judgments[q] for q in evaluated}, run, max_docs=max_docs, all_queries=True)
        except PrefsError:
            with pytest.raises(InputError, match="judgment group"):
                ours(judgments, run, max_docs=max_docs, query_set=query_set)
            return
    reference = {q: v for q, v in reference.items() if q in evaluated}
    assert_same_values(ours(judgments, run, max_docs=max_docs, query_set=query_set), reference)


@pytest.mark.parametrize(
    ("judgments", "run"),
    [("prefs.test", "prefs.results.test"), ("prefs.comment.test", "prefs.results.test"), ("qrels.test", "results.test")],
)
def test_trec_eval_s_test_files(trec_eval_test, judgments, run):
    layout = "qrels_prefs" if judgments.startswith("qrels") else "prefs"
    qrels = Qrels.read(trec_eval_test / judgments, judgments=layout, format="trec", duplicates="raise")
    result = evaluate(qrels, trec_eval_test / run, list(NAMES.values()))
    table = result.per_query.set_index("query_id")
    reference = reference_prefs(
        parse_judgments((trec_eval_test / judgments).read_text(), subgroups=layout == "prefs"),
        parse_run((trec_eval_test / run).read_text()),
    )
    assert_same_values({q: {m: float(table.loc[q, NAMES[m]]) for m in MEASURES} for q in table.index}, reference)


def test_ties_by_input_order_when_asked():
    judgments = {"q": [("g", "s", "b", 2.0), ("g", "s", "a", 1.0)]}
    run = {"q": [("b", 1.0), ("a", 1.0)]}  # b first in the input; a first by docno
    assert ours(judgments, run)["q"]["prefs_simp_ret"] == 0.0
    assert ours(judgments, run, ties="input")["q"]["prefs_simp_ret"] == 1.0


def test_a_repeated_document_in_the_run_is_an_error_naming_its_row():
    judgments = {"q": [("g", "s", "a", 1.0), ("g", "s", "b", 0.0)]}
    with pytest.raises(InputError, match=r"row 3: query 'q' doc 'a' is retrieved more than once"):
        ours(judgments, {"q": [("a", 1.0), ("b", 2.0), ("a", 3.0)]}, run_duplicates="raise")
    assert ours(judgments, {"q": [("a", 1.0), ("b", 2.0), ("a", 3.0)]}, run_duplicates="max")["q"]["prefs_simp"] == 1.0


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("g", "s1", "d", 0.0), ("g", "s1", "e", 1.0), ("g", "s2", "d", 2.0), ("g", "s2", "e", 1.0)],
         r"document 'd' has level 0 in one subgroup of judgment group 'g' of query 'q' and a positive level in another"),
        ([("g", "s1", "a", 2.0), ("g", "s1", "b", 1.0), ("g", "s2", "a", 1.0), ("g", "s2", "b", 2.0)],
         r"the subgroups of judgment group 'g' of query 'q' contradict each other: document '[ab]' is preferred to itself"),
    ],
    ids=["zero-and-positive", "contradiction"],
)
def test_an_inconsistent_group_is_an_error_naming_the_judgment(rows, message):
    with pytest.raises(InputError, match=message) as error:
        ours({"q": rows}, {"q": [("a", 1.0)]})
    assert "\n" not in str(error.value) and "row" in str(error.value)


def test_qrels_of_another_layout_are_refused_naming_the_measure():
    plain = Qrels(pa.table({"query_id": ["q"], "doc_id": ["a"], "relevance": pa.array([1], pa.int64())}))
    # trec_eval refuses too (form_prefs_counts.c reads only prefs and qrels_prefs).
    with pytest.raises(ConfigError, match=r"'prefs' or 'qrels_prefs'") as error:
        evaluate(plain, run_table({"q": [("a", 1.0)]}), ["prefs_simp"])
    assert "\n" not in str(error.value)


def test_a_query_without_judgments_scores_zero_and_one_without_results_retrieved_nothing():
    judgments = {"q": [("g", "s", "a", 1.0), ("g", "s", "b", 0.0)]}
    result = evaluate(prefs_qrels(judgments), run_table({"r": [("a", 1.0)]}), ["prefs_simp", "prefs_num_prefs_poss"],
                      query_set="union")
    table = result.per_query.set_index("query_id")
    assert table.loc["q", "prefs_num_prefs_poss"] == 1 and table.loc["q", "prefs_simp"] == 0.0
    assert table.loc["r", "prefs_num_prefs_poss"] == 0 and table.loc["r", "prefs_simp"] == 0.0


def test_the_counts_are_summed_in_the_summary():
    judgments = {"q1": [("g", "s", "a", 1.0), ("g", "s", "b", 0.0)],
                 "q2": [("g", "s", "a", 2.0), ("g", "s", "c", 1.0), ("g", "s", "b", 0.0)]}
    definitions = {d.name: d for d in DEFINITIONS}
    assert definitions["prefs_num_prefs_poss"].aggregate == "sum" and definitions["prefs_num_prefs_poss"].integer
    assert definitions["prefs_simp"].aggregate == "mean"
    values = ours(judgments, {"q1": [("a", 1.0)], "q2": [("a", 1.0)]})
    assert [values[q]["prefs_num_prefs_poss"] for q in ("q1", "q2")] == [1.0, 3.0]
    assert np.isfinite([v for row in values.values() for v in row.values()]).all()


@given(
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=1),
    st.lists(st.tuples(st.sampled_from(DOCS + UNJUDGED), st.sampled_from(SCORES)), unique_by=lambda r: r[0], min_size=1),
)
def test_a_perfect_ranking_is_never_beaten_in_one_group(levels, run):
    """Every judged document retrieved, best level first, does at least as well as any run (non-negative levels)."""
    judgments = {"q": [("g", "0", doc, level) for doc, level in levels.items()]}
    best = sorted(levels, key=lambda doc: -levels[doc])
    perfect = ours(judgments, {"q": [(doc, float(len(best) - i)) for i, doc in enumerate(best)]})["q"]
    other = ours(judgments, {"q": run})["q"]
    for definition in DEFINITIONS:
        if definition.ranking and not definition.integer:
            assert perfect[definition.trec_name] >= other[definition.trec_name], definition.name


def test_retrieving_only_the_relevant_documents_beats_a_perfect_ranking_on_rnonrel_ret():
    judgments = {"q": [("g", "0", "a", 1.0), ("g", "0", "b", 0.0), ("g", "0", "c", 0.0)]}
    perfect = ours(judgments, {"q": [("a", 3.0), ("b", 2.0), ("c", 1.0)]})["q"]["prefs_avgjg_Rnonrel_ret"]
    relevant_only = ours(judgments, {"q": [("a", 1.0)]})["q"]["prefs_avgjg_Rnonrel_ret"]
    assert relevant_only == 1.0 > perfect
    assert not {d.name: d for d in DEFINITIONS}["prefs_avgjg_rnonrel_ret"].ranking


@given(collections(), st.randoms(use_true_random=False))
def test_the_order_of_rows_does_not_matter(data, random):
    judgments, run = data
    rows = [(q, row) for q, lines in judgments.items() for row in lines]
    random.shuffle(rows)
    shuffled = {}
    for q, row in rows:
        shuffled.setdefault(q, []).append(row)
    retrieved = {q: random.sample(docs, len(docs)) for q, docs in run.items()}
    try:
        expected = ours(judgments, run, query_set="qrels")
    except InputError:
        with pytest.raises(InputError):
            ours(shuffled, retrieved, query_set="qrels")
        return
    assert_same_values(ours(shuffled, retrieved, query_set="qrels"), expected)


def test_integer_document_ids_rank_and_sort_as_their_decimal_text():
    # As text "10" < "9": 10 is the first unretrieved document, and among equal scores 10 ranks first.
    levels = {9: 2.0, 10: 1.0, 11: 0.0, 100: 1.0}
    rows = [("q", "g", "s" if doc != 100 else "t", doc, level) for doc, level in levels.items()]
    columns = ("query_id", "group", "subgroup", "doc_id", "relevance")
    run = [(9, 1.0), (10, 1.0)]
    as_ints = Qrels(pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)}), judgments="prefs")
    as_text = Qrels(pa.table({c: [str(r[i]) if c == "doc_id" else r[i] for r in rows] for i, c in enumerate(columns)}),
                    judgments="prefs")
    int_run = Run(pa.table({"query_id": ["q", "q"], "doc_id": [d for d, _ in run], "score": [s for _, s in run]}))
    names = list(NAMES.values())
    a = evaluate(as_ints, int_run, names).per_query[names].to_numpy()
    b = evaluate(as_text, run_table({"q": [(str(d), s) for d, s in run]}), names).per_query[names].to_numpy()
    np.testing.assert_array_equal(a, b)
    reference = reference_prefs({"q": [(g, s, str(d), level) for _, g, s, d, level in rows]}, {"q": [(str(d), s) for d, s in run]})
    assert_same_values({"q": dict(zip(MEASURES, (float(v) for v in a[0])))}, reference)
