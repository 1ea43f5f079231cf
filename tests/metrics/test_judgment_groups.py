"""map_avgjg, p_avgjg@k and rprec_mult_avgjg against trec_eval 10: its expected output, its binary, and an oracle.

The oracle (tests/reference/judgment_groups.py) follows the C of form_res_rels_jg.c and the three
measures line by line in plain Python, so the kernel must give its doubles exactly; the binary
then checks both at the 4 decimals it prints, on generated qrels with random groups, documents
judged in several groups, queries lacking groups, negative labels and ties, under -l, -M and -J.
"""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval import EvaluationOptions, Evaluator
from retrieval_eval.errors import ConfigError
from tests.reference import judgment_groups as oracle

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
MULTIPLES = tuple(m / 10 for m in range(2, 21, 2))
METRICS = ["map_avgjg", *(f"p_avgjg@{k}" for k in CUTOFFS), *(f"rprec_mult_avgjg(mult={m!r})" for m in MULTIPLES)]
PRINTED = ["map_avgjg", *(f"P_avgjg_{k}" for k in CUTOFFS), *(f"Rprec_mult_avgjg_{m:.2f}" for m in MULTIPLES)]
TREC = dict(query_set="both", qrels_duplicates="raise", run_duplicates="raise")


def _options(**extra) -> EvaluationOptions:
    return EvaluationOptions(judgments="qrels_jg", **{**TREC, **extra})


def _values(result) -> dict[str, list[float]]:
    """{query: [its value of each of METRICS]} (under -l the canonical names carry rel=)."""
    columns = list(result.columns.values())
    assert len(columns) == len(METRICS)
    return {query: [float(c[i]) for c in columns] for i, query in enumerate(result.query_ids.to_pylist())}


def _per_query_lines(result) -> list[str]:
    """The per-query lines trec_eval -q prints for these measures."""
    return [
        f"{printed:<22}\t{query}\t{value:6.4f}"
        for query, values in _values(result).items()
        for printed, value in zip(PRINTED, values)
    ]


@pytest.mark.parametrize("qrels", ["qrels.123", "qrels.comments.123"])
def test_reproduces_out_test_qrels_jg(trec_eval_test, qrels):
    result = Evaluator(trec_eval_test / qrels, METRICS, options=_options()).evaluate(trec_eval_test / "results.test")
    expected = [line for line in (trec_eval_test / "out.test.qrels_jg").read_text().splitlines() if "\tall\t" not in line]
    assert _per_query_lines(result) == expected


# Generated collections: a few queries, each judged by some of the groups (names whose byte order
# is not their numeric order), documents judged in several groups with different labels.
GROUPS = ["0", "1", "10", "9", "a"]
DOCS = [f"d{i}" for i in range(8)] + ["D", "d#"]
SCORES = [0.5, 1.0, 1.0, 2.0, 3.25]


@st.composite
def collections(draw):
    qrels, run = [], []
    for query in draw(st.lists(st.sampled_from(["1", "2", "10", "x"]), min_size=1, max_size=3, unique=True)):
        for group in draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3, unique=True)):
            for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)):
                qrels.append((query, group, doc, draw(st.integers(-1, 3))))
        retrieved = draw(st.lists(st.sampled_from(DOCS), max_size=9, unique=True))
        run += [(query, doc, draw(st.sampled_from(SCORES))) for doc in retrieved]
    return qrels, run


def _expected(qrels, run, rel_level, max_docs, judged_only):
    """{query: [value of each of METRICS]} by the oracle, for the queries both judged and retrieved."""
    groups = oracle.segments([(q, g, "0", d, label) for q, g, d, label in qrels])
    out = {}
    for query in dict.fromkeys(q for q, _, _ in run):
        if query not in groups:
            continue
        ranking = oracle.trec_ranking([(d, s) for q, d, s in run if q == query])
        lists = [
            oracle.group_lists(ranking, judged, rel_level=rel_level, max_docs=max_docs, judged_only=judged_only)
            for _, _, judged in groups[query]
        ]
        out[query] = [
            oracle.map_avgjg(lists, rel_level),
            *(oracle.p_avgjg(lists, k, rel_level) for k in CUTOFFS),
            *(oracle.rprec_mult_avgjg(lists, m, rel_level) for m in MULTIPLES),
        ]
    return out


def _write(tmp_path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} {g} {d} {label}\n" for q, g, d, label in qrels))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, d, s in run))
    return qrels_path, run_path


@given(
    collection=collections(),
    rel_level=st.integers(1, 3),
    max_docs=st.none() | st.integers(1, 6),
    judged_only=st.booleans(),
)
def test_kernel_gives_the_oracle_doubles(tmp_path_factory, collection, rel_level, max_docs, judged_only):
    qrels, run = collection
    if not run:
        return
    qrels_path, run_path = _write(tmp_path_factory.mktemp("jg"), qrels, run)
    options = _options(rel_level=rel_level, max_docs=max_docs, judged_only=judged_only)
    result = Evaluator(qrels_path, METRICS, options=options).evaluate(run_path)
    assert _values(result) == _expected(qrels, run, rel_level, max_docs, judged_only)


@pytest.mark.filterwarnings("ignore::retrieval_eval.metrics.evaluator.NoSharedQueriesWarning")  # a group of other queries
@given(collection=collections(), rel_level=st.integers(1, 2), judged_only=st.booleans())
def test_the_average_over_groups_of_trecs_own_measures(tmp_path_factory, collection, rel_level, judged_only):
    """map_avgjg and p_avgjg@k are the TREC family's map and precision@k per group, summed in group order, / groups."""
    qrels, run = collection
    if not run:
        return
    folder = tmp_path_factory.mktemp("jg")
    qrels_path, run_path = _write(folder, qrels, run)
    names = ["map", *(f"precision@{k}" for k in CUTOFFS[:3])]
    options = dict(rel_level=rel_level, judged_only=judged_only)
    grouped = _values(Evaluator(qrels_path, METRICS, options=_options(**options)).evaluate(run_path))
    per_group = {}
    for group in sorted({g for _, g, _, _ in qrels}, key=str.encode):
        path = folder / f"group_{group}"
        path.write_text("".join(f"{q} 0 {d} {label}\n" for q, g, d, label in qrels if g == group))
        result = Evaluator(path, names, options=EvaluationOptions(**TREC, **options)).evaluate(run_path)
        for i, query in enumerate(result.query_ids.to_pylist()):
            per_group.setdefault(query, []).append([float(c[i]) for c in result.columns.values()])
    for query, values in grouped.items():
        groups = per_group[query]
        sums = [sum(column, 0.0) for column in zip(*groups)]  # left to right: trec_eval's order
        expected = [total / len(groups) if len(groups) > 1 else total for total in sums]
        assert values[: len(names)] == expected
        assert all(0.0 <= value <= 1.0 for value in values)


@settings(max_examples=15)
@given(
    collection=collections(),
    rel_level=st.integers(1, 3),
    max_docs=st.none() | st.integers(1, 6),
    judged_only=st.booleans(),
)
def test_agrees_with_the_binary(trec_eval_binary, tmp_path_factory, collection, rel_level, max_docs, judged_only):
    qrels, run = collection
    if not run:
        return  # trec_eval cannot read an empty file
    qrels_path, run_path = _write(tmp_path_factory.mktemp("jg"), qrels, run)
    flags = ["-l", str(rel_level), *(["-M", str(max_docs)] if max_docs else []), *(["-J"] if judged_only else [])]
    # -c: every judged query, one the run lacks retrieving nothing (without it trec_eval 10 stops there).
    done = subprocess.run(
        [str(trec_eval_binary), "-q", "-R", "qrels_jg", "-m", "qrels_jg", *flags, "-c", str(qrels_path), str(run_path)],
        capture_output=True, text=True, check=True,
    )
    binary = [line for line in done.stdout.splitlines() if "\tall\t" not in line and not line.startswith(("runid", "num_q"))]
    options = _options(rel_level=rel_level, max_docs=max_docs, judged_only=judged_only, query_set="qrels")
    ours = _per_query_lines(Evaluator(qrels_path, METRICS, options=options).evaluate(run_path))
    assert sorted(ours) == sorted(binary)  # trec_eval prints queries in strcmp order


@pytest.mark.parametrize("k", [10**8, 10**12, 2**63 - 1])
def test_p_avgjg_at_a_huge_cutoff_equals_the_oracle(trec_eval_test, k):
    qrels = [tuple(line.split()) for line in (trec_eval_test / "qrels.123").read_text().splitlines()]
    qrels = [(q, g, d, int(label)) for q, g, d, label in qrels if q == "302"]
    run = [(q, d, float(s)) for q, _, d, _, s, _ in (line.split() for line in (trec_eval_test / "results.test").read_text().splitlines())]
    run = [row for row in run if row[0] == "302"]
    groups = oracle.segments([(q, g, "0", d, label) for q, g, d, label in qrels])["302"]
    ranking = oracle.trec_ranking([(d, s) for _, d, s in run])
    lists = [oracle.group_lists(ranking, judged) for _, _, judged in groups]
    result = Evaluator(trec_eval_test / "qrels.123", [f"p_avgjg@{k}"], options=_options()).evaluate(trec_eval_test / "results.test")
    assert result.values(f"p_avgjg@{k}")[result.query_ids.to_pylist().index("302")] == oracle.p_avgjg(lists, k) > 0


def test_other_layouts_are_refused_naming_the_measure(trec_eval_binary, trec_eval_test):
    qrels, results = trec_eval_test / "qrels.test", trec_eval_test / "results.test"
    refused = subprocess.run([str(trec_eval_binary), "-m", "map_avgjg", str(qrels), str(results)], capture_output=True, text=True)
    assert refused.returncode != 0 and "rel_info format not qrels_jg" in refused.stderr
    with pytest.raises(ConfigError, match=r"^map_avgjg reads judgments in the 'qrels_jg' layout"):
        Evaluator(qrels, ["map_avgjg"], options=EvaluationOptions(**TREC)).evaluate(results)
    grouped = trec_eval_test / "qrels.123"
    refused = subprocess.run(
        [str(trec_eval_binary), "-R", "qrels_jg", "-m", "P.5", str(grouped), str(results)], capture_output=True, text=True
    )
    assert refused.returncode != 0 and "rel_info format not qrels" in refused.stderr
    with pytest.raises(ConfigError, match=r"^precision@5 reads judgments in the 'qrels' layout"):
        Evaluator(grouped, ["P@5", "map_avgjg"], options=_options()).evaluate(results)


@pytest.mark.parametrize("name", ["rprec_mult_avgjg", "rprec_mult_avgjg(mult=x)", "rprec_mult_avgjg(mult=inf)",
                                  "rprec_mult_avgjg(mult=1_0)"])
def test_rprec_mult_avgjg_needs_a_number(name):
    with pytest.raises(ConfigError, match="mult"):
        Evaluator([{"query_id": "1", "doc_id": "a", "relevance": 1, "group": "0"}], [name], options=_options())


def test_every_metric_of_the_family_extracts_its_own_values(trec_eval_test):
    """Scored together or one at a time, each metric gives the same values (none reads another's column)."""
    from retrieval_eval.metrics.families.judgment_groups import DEFINITIONS

    names = [d.display_name.replace("@k", "@7").replace("(mult=m)", "(mult=0.6)") for d in DEFINITIONS]
    qrels, run = trec_eval_test / "qrels.123", trec_eval_test / "results.test"
    together = Evaluator(qrels, names, options=_options()).evaluate(run)
    for name in names:
        alone = Evaluator(qrels, [name], options=_options()).evaluate(run)
        assert list(alone.values(name)) == list(together.values(name)), name
    assert len({together.values(name).tobytes() for name in names}) == len(names)


def test_names_round_trip_and_carry_trec_names():
    from retrieval_eval.metrics.registry import REGISTRY

    assert str(REGISTRY.parse("rprec_mult_avgjg(mult=.50)")) == "rprec_mult_avgjg(mult=0.5)"
    assert str(REGISTRY.parse("P_avgjg_10")) == "p_avgjg@10"
    assert REGISTRY.definition(REGISTRY.parse("p_avgjg@10")).trec_name == "P_avgjg_{k}"
