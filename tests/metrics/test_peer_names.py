"""The peers' names: ir_measures' measure objects and strings, ranx's names, name lists; what each means and each error.

The values each spelling's metric gives against the peers themselves are in test_peer_names_values.py.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval import REGISTRY, ConfigError, Metric, UnknownMetricError, evaluate
from retrieval_eval.metrics.spellings import ir_measures as ir_measures_names
from retrieval_eval.metrics.spellings.ir_measures import MEASURES, NOT_COMPUTED, REQUIRED, UNSET
from retrieval_eval.metrics.spellings.peers import measure_text, parse_peer, split_names

irm = pytest.importorskip("ir_measures")


def peer(text: str, rel_level: int = 1, default_k: int | None = None) -> str | None:
    metric = parse_peer(text, rel_level=rel_level, default_k=default_k)
    return None if metric is None else str(metric)


def test_importing_and_parsing_names_imports_no_peer():
    code = (
        "import sys; from retrieval_eval.metrics.spellings.peers import parse_peer, measure_text; "
        "parse_peer('nDCG@10', rel_level=1, default_k=None); parse_peer('hits-l2', rel_level=1, default_k=None); "
        "measure_text(object()); print(sorted(m for m in ('ir_measures', 'ranx', 'pytrec_eval') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_table_holds_every_measure_of_ir_measures_with_its_own_parameters_and_defaults():
    """The table is ir_measures 0.4.3's registry: every name, each measure's parameters, defaults, ``@`` and aliases."""
    from ir_measures.measures.base import _NOT_PROVIDED

    registry = irm.measures.registry
    ours = {*MEASURES, *NOT_COMPUTED, *(alias for m in MEASURES.values() for alias in m.aliases)}
    assert ours == set(registry)
    for name, measure in MEASURES.items():
        theirs = registry[name]
        assert theirs.NAME == name and theirs.AT_PARAM == measure.at
        expected = {
            key: REQUIRED if info.required else UNSET if info.default is _NOT_PROVIDED else info.default
            for key, info in theirs.SUPPORTED_PARAMS.items()
        }
        assert dict(measure.params) == expected, name
        for alias, preset in measure.aliases.items():
            assert registry[alias].NAME == name and registry[alias].params == dict(preset), alias


# Spellings of ir_measures and what they mean here (the values are checked against ir_measures elsewhere).
IR_MEASURES = [
    ("nDCG@10", "ndcg@10"), ("NDCG", "ndcg"), ("AP", "map"), ("MAP@100", "map@100"), ("AP(rel=2)", "map(rel=2)"),
    ("P(rel=2)@5", "precision(rel=2)@5"), ("Precision@5", "precision@5"), ("R@100", "recall@100"),
    ("Recall(rel=3)@10", "recall(rel=3)@10"), ("RR", "recip_rank"), ("MRR@10", "recip_rank@10"),
    ("RR(rel=2)@10", "recip_rank(rel=2)@10"), ("Rprec", "rprec"), ("RPrec(rel=2)", "rprec(rel=2)"), ("Bpref", "bpref"),
    ("BPref(rel=2)", "bpref(rel=2)"), ("infAP", "infap"), ("Judged@10", "judged@10"), ("Success@1", "success@1"),
    ("IPrec@0.5", "iprec_at_recall(recall=0.5)"), ("IPrec(rel=2)@0", "iprec_at_recall(recall=0.0,rel=2)"),
    ("IPrec(recall=0.25)", "iprec_at_recall(recall=0.25)"), ("nDCG(dcg='exp-log2')@10", "ndcg_burges@10"), ("ERR@20", "err(skip=false)@20"),
    ("nDCG(dcg='log2')", "ndcg"), ("nDCG(gains={0:0, 1:1, 2:3})", "ndcg(gains=2:3.0)"), ("nDCG(gains={1:1})", "ndcg"),
    ("nDCG(gains={3:1, 0:2})", "ndcg(gains=0:2.0;3:1.0)"), ("NumRel", "num_rel"), ("NumRel(rel=2)", "num_rel(rel=2)"),
    ("NumRet", "num_ret"), ("NumRet(rel=2)", "num_rel_ret(rel=2)"), ("NumRelRet", "num_rel_ret"),
    ("NumRelRet(rel=3)", "num_rel_ret(rel=3)"), ("SetP", "set_precision"), ("SetP(relative=True)", "set_relative_precision"),
    ("SetRelP(rel=2)", "set_relative_precision(rel=2)"), ("SetRelP(relative=False)", "set_precision"),
    ("SetR", "set_recall"), ("SetF", "set_f"), ("SetF(beta=0.5)", "set_f(beta=0.5)"), ("SetAP(rel=2)", "set_map(rel=2)"),
    ("  P @ 5 ", "precision@5"), ("AP(judged_only=False)", "map"),
]


@pytest.mark.parametrize(("text", "expected"), IR_MEASURES)
def test_each_ir_measures_spelling_is_one_registry_metric(text, expected):
    assert peer(text) == expected
    # ir_measures reads the same text as the same measure, and its str is a spelling of it too.
    assert peer(str(irm.parse_measure(text.strip().replace(" ", "")))) == expected


def test_a_name_that_leaves_rel_out_takes_the_evaluation_s_relevance_level():
    assert peer("AP", rel_level=2) == "map(rel=2)"
    assert peer("AP(rel=1)", rel_level=2) == "map"  # written out: rel 1, whatever the evaluation's level
    assert peer("NumRelRet", rel_level=3) == "num_rel_ret"  # ir_measures' NumRelRet is NumRet(rel=1)
    assert peer("hits", rel_level=2) == "num_rel_ret(rel=2)"


def test_a_cutoff_ir_measures_requires_takes_default_k_or_is_an_error():
    assert peer("P", default_k=10) == "precision@10" and peer("Success", default_k=3) == "success@3"
    with pytest.raises(ConfigError, match="needs a cutoff: write P@k"):
        peer("P")


# Measures whose cutoff ir_measures leaves optional but which have none without it here (nor in
# the provider: pyndeval needs one).
_CUT_NEEDED = ("Judged", "ERR", "ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "P_IA", "StRecall")


@given(st.sampled_from(sorted(MEASURES)), st.data())
def test_an_ir_measures_object_is_named_as_ir_measures_writes_it_and_means_what_its_text_means(name, data):
    measure = irm.measures.registry[name]
    params = {}
    for key in measure.SUPPORTED_PARAMS:
        value = data.draw(
            {
                "cutoff": st.integers(1, 1000), "rel": st.integers(0, 4), "judged_only": st.just(False),
                "relative": st.booleans(), "beta": st.sampled_from([0.5, 1.0, 2.0]), "recall": st.sampled_from([0.0, 0.3, 1.0]),
                "dcg": st.sampled_from(["log2", "exp-log2"]), "gains": st.just({0: 0, 2: 5}),
                "alpha": st.sampled_from([0.25, 0.5]),
                "T": st.sampled_from([1.0, 2.5]), "p": st.sampled_from([0.5, 0.8, 0.95]), "min_rel": st.just(0),
                "max_rel": st.integers(1, 4), "normalize": st.booleans(),
            }[key] | (st.nothing() if key == "max_rel" else st.none())  # ir_measures refuses a C/W/L measure without max_rel
        )
        if value is not None:
            params[key] = value
    if params.get("gains") and ("cutoff" in params or params.get("dcg") == "exp-log2"):
        del params["gains"]
    if measure.SUPPORTED_PARAMS.get("cutoff") and measure.SUPPORTED_PARAMS["cutoff"].required or name in _CUT_NEEDED:
        params.setdefault("cutoff", 10)
    if name == "IPrec":
        params.setdefault("recall", 0.5)
    if name == "SDCG":
        params.pop("dcg", None)  # ir_measures' SDCG takes only dcg='log2'
    if name == "RBP":
        params.pop("cutoff", None)  # cwl_eval's RBP (ir_measures' default provider of it) takes no cutoff
    obj = measure(**params)
    obj.validate_params()
    assert measure_text(obj) == str(obj)
    assert parse_peer(measure_text(obj), rel_level=1, default_k=None) == parse_peer(
        str(irm.parse_measure(str(obj))), rel_level=1, default_k=None
    )


@pytest.mark.parametrize("item", ["nDCG@10", Metric("ndcg", 10), 3, None, object(), irm.Qrel("q", "d", 1), irm.pytrec_eval])
def test_anything_but_an_ir_measures_measure_has_no_measure_text(item):
    assert measure_text(item) is None


@pytest.mark.parametrize("name", sorted(NOT_COMPUTED))
def test_an_ir_measures_measure_no_metric_computes_is_an_unknown_metric_naming_it(name):
    measure = irm.measures.registry[name]
    text = str(measure @ 10) if "cutoff" in measure.SUPPORTED_PARAMS else str(measure)
    # An alias's object is written under its measure's name (MAP_IA is AP_IA).
    written = measure.NAME
    with pytest.raises(UnknownMetricError, match=rf"ir_measures' {written} \(.+\) is not computed by retrieval_eval"):
        peer(text)
    with pytest.raises(UnknownMetricError, match=rf"ir_measures' {name} \(.+\) is not computed by retrieval_eval"):
        peer(name)


IR_MEASURES_ERRORS = [
    ("Judged", ConfigError, "Judged without a cutoff"),
    ("nDCG(gains={2:3})@10", ConfigError, "nDCG with gains= and a cutoff is not computed here"),
    ("nDCG(gains={2:3}, dcg='exp-log2')", ConfigError, "gains= only with dcg='log2'"),
    ("nDCG(gains={2:1.5})", ConfigError, "gains' gains must be integers >= 0"),
    ("nDCG(gains={2:-1})", ConfigError, "gains' gains must be integers >= 0"),
    ("nDCG(gains={-1:2})", ConfigError, "gains' labels must be integers >= 0"),
    ("nDCG(gains=[1, 2])", ConfigError, "gains must be a dict"),
    ("nDCG(dcg='exp')@10", ConfigError, "dcg must be 'log2' .* or 'exp-log2'"),
    ("AP(foo=1)", ConfigError, "'AP\\(foo=1\\)': AP takes cutoff, rel, judged_only, got foo"),
    ("nDCG(rel=2)", ConfigError, "nDCG takes cutoff, dcg, gains, judged_only, got rel"),
    ("Rprec@10", ConfigError, "Rprec takes no cutoff"),
    ("P@5.0", ConfigError, "the cutoff must be an integer, got 5.0"),
    ("P@0", ConfigError, "the cutoff must be a positive integer, got 0"),
    ("P(rel=True)@5", ConfigError, "rel must be an integer, got True"),
    ("P(rel='2')@5", ConfigError, "rel must be an integer, got '2'"),
    ("SetP(relative=1)", ConfigError, "relative must be True or False"),
    ("SetF(beta=float('inf'))", ConfigError, "parameter values are Python literals"),
    ("IPrec", ConfigError, "IPrec needs recall"),
    ("IPrec@2", ConfigError, "'IPrec@2' \\(iprec_at_recall\\(recall=2.0\\) here\\): parameter recall must be a number from 0 to 1"),
    ("P(judged_only=True)@5", ConfigError, "judged_only=True ranks only the judged documents, an option of the whole"),
    ("P@99999999999999999999", ConfigError, "up to 2\\^63 - 1"),
]


@pytest.mark.parametrize(("text", "error", "match"), IR_MEASURES_ERRORS)
def test_a_parameter_not_reproduced_is_one_line_naming_the_measure_and_the_parameter(text, error, match):
    with pytest.raises(error, match=match) as raised:
        peer(text)
    message = str(raised.value)
    assert "\n" not in message and len(message) < 300
    assert text.strip() in message or text.split("(")[0].split("@")[0] in message


# ranx's spellings the registry does not read alike, and what each means here.
RANX = [
    ("hits", "num_rel_ret"), ("hits-l2", "num_rel_ret(rel=2)"), ("precision@5-l2", "precision(rel=2)@5"),
    ("recall@10-l3", "recall(rel=3)@10"), ("f1@5-l2", "f1(rel=2)@5"), ("hit_rate@3-l2", "success(rel=2)@3"),
    ("mrr-l2", "recip_rank(rel=2)"), ("mrr@10-l2", "recip_rank(rel=2)@10"), ("map-l2", "map(rel=2)"),
    ("map@100-l2", "map(rel=2)@100"), ("r-precision-l2", "rprec(rel=2)"), ("bpref-l2", "bpref(rel=2)"),
    ("ndcg-l1", "ndcg"), ("ndcg@10-l0", "ndcg@10"), ("ndcg_burges@5-l1", "ndcg_burges@5"), ("dcg-l1", "dcg"),
    ("precision@5-l1", "precision@5"),
]


@pytest.mark.parametrize(("text", "expected"), RANX)
def test_each_ranx_spelling_is_one_registry_metric(text, expected):
    assert peer(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("precision@5", "precision@5"), ("map@100", "map@100"), ("mrr", "recip_rank"), ("mrr@10", "recip_rank@10"),
     ("ndcg_burges", "ndcg_burges"), ("r-precision", "rprec"), ("hit_rate@5", "success@5"), ("f1@3", "f1@3")],
)
def test_ranx_names_the_registry_reads_alike_are_left_to_it(text, expected):
    assert peer(text) is None
    assert str(REGISTRY.parse(text)) == expected


RANX_ERRORS = [
    ("precision-l2", ConfigError, "reads the whole ranking.*set_precision\\(rel=2\\).*precision@k-l2"),
    ("recall-l1", ConfigError, "set_recall\\(rel=1\\)"),
    ("f1-l2", ConfigError, "set_f\\(rel=2\\)"),
    ("hit_rate-l2", ConfigError, "write hit_rate@k-l2 for the top k"),
]
#: ranx's names of the ranked-gains family (issue 28), each with its registry metric.
RANX_GAINS = [
    ("hits@5", "hits@5"), ("hits@5-l2", "hits(rel=2)@5"), ("dcg@10", "dcg@10"), ("dcg@10-l3", "dcg(rel=3)@10"),
    ("dcg_burges", "dcg_burges"), ("dcg_burges@10-l2", "dcg_burges(rel=2)@10"), ("rbp.95", "rbp_label(p=0.95)"),
    ("rbp@8-l2", "rbp_label(p=0.8,rel=2)"), ("rbp.05", "rbp_label(p=0.05)"), ("ndcg@10-l2", "ndcg_ranx(rel=2)@10"),
    ("ndcg_burges-l3", "ndcg_burges_ranx(rel=3)"), ("ndcg-l-1", "ndcg_ranx(rel=-1)"), ("ndcg@10-l0", "ndcg@10"),
    ("dcg-l2", "dcg_ranx(rel=2)"), ("dcg-l1", "dcg"),
]


@pytest.mark.parametrize(("text", "canonical"), RANX_GAINS)
def test_ranx_s_gain_names_are_the_ranked_gains_metrics(text, canonical):
    metric = peer(text) or REGISTRY.parse(text)
    assert str(metric) == canonical


@pytest.mark.parametrize(("text", "error", "match"), RANX_ERRORS)
def test_a_ranx_name_not_reproduced_is_one_line_naming_it(text, error, match):
    with pytest.raises(error, match=match) as raised:
        peer(text)
    assert text in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("text", ["ndcg@10", "ndcg_cut.10", "P_5", "precision", "p(rel=2)@5", "R-precision", "fidelity",
                                  "iprec@0.5", "top3_max_relevance", "ndcg_exp@10", "nonsense", "", "P(", "map@" + "9" * 5000])
def test_names_of_no_peer_are_left_to_the_registry(text):
    assert peer(text) is None


NAMES = st.sampled_from(["nDCG@10", "P(rel=2)@5", "nDCG(gains={0:0, 1:1})", "AP(rel=2, judged_only=False)", "map",
                         "ndcg_cut.10", "hits-l2", "iprec_at_recall(recall=0.5)", "[a b]", "{x y}"])


@given(st.lists(NAMES, min_size=1, max_size=5), st.lists(st.sampled_from([" ", "  ", "\t", "\n", " \t "]), min_size=6, max_size=6))
def test_a_space_separated_list_splits_into_its_names(names, spaces):
    text = spaces[0] + "".join(name + space for name, space in zip(names, spaces[1:] * 2))
    assert split_names(text) == names


@pytest.mark.parametrize("text", ["nDCG(gains={0:0, 1:1", "P(rel=2)@5 x)", "nDCG@10", "", "   "])
def test_text_whose_brackets_do_not_balance_or_with_one_name_is_one_name(text):
    assert split_names(text) == ([text.strip()] if text.strip() and "(" not in text and ")" not in text else [text])


def test_ir_measures_objects_and_name_lists_evaluate_as_their_registry_metrics():
    qrels = [{"query_id": "q", "doc_id": d, "relevance": label} for d, label in (("a", 2), ("b", 0), ("c", 1))]
    run = [{"query_id": "q", "doc_id": d, "score": s} for d, s in (("a", 1.0), ("b", 3.0), ("c", 2.0), ("x", 0.5))]
    asked = evaluate(qrels, run, [irm.nDCG @ 10, "P@2 AP(rel=2)", irm.NumRelRet, "hits-l2"])
    plain = evaluate(qrels, run, ["ndcg@10", "precision@2", "map(rel=2)", "num_rel_ret", "num_rel_ret(rel=2)"])
    for name in ["ndcg@10", "precision@2", "map(rel=2)", "num_rel_ret", "num_rel_ret(rel=2)"]:
        metric = REGISTRY.parse(name)
        assert asked.values(metric).tolist() == plain.values(metric).tolist()


def test_is_measure_name_looks_at_the_leading_name_only():
    assert ir_measures_names.is_measure_name("nDCG@10") and ir_measures_names.is_measure_name("ERR")
    assert not ir_measures_names.is_measure_name("ndcg@10") and not ir_measures_names.is_measure_name("P_5")
