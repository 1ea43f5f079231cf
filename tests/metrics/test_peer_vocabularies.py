"""Every name of ir_measures 0.4.3's and ranx 0.3.21's vocabularies resolves here, or is in a documented list.

The vocabularies are read from the peers themselves: ``ir_measures.measures.registry`` with each
provider's ``SUPPORTED_MEASURES``, and the names of ranx's ``metric_switch``. Left out for good:
:data:`LEFT_OUT` (a name of it that resolves fails this test, so the list cannot go stale).
"""

from __future__ import annotations

import inspect
import re

import pytest

from retrieval_eval import REGISTRY
from retrieval_eval.errors import UnknownMetricError
from retrieval_eval.metrics.spellings import ir_measures as ir_measures_names_table
from retrieval_eval.metrics.spellings.peers import parse_peer

irm = pytest.importorskip("ir_measures")
ranx_metrics = pytest.importorskip("ranx.metrics")

#: Names no registry metric is: NumQ counts the evaluated queries (a result's query_counts["evaluated"]; the
#: ir_measures provider computes it).
LEFT_OUT = {"NumQ"}
#: A spelling of each ranx name that ranx itself accepts (rbp needs its persistence).
RANX_SPELLING = {"rbp": "rbp.95"}
#: ranx's names of the whole ranking only (ranx reads no cutoff of theirs).
RANX_WHOLE = {"rbp", "bpref", "r-precision"}


def resolves(name: str) -> bool:
    try:
        metric = parse_peer(name, rel_level=1, default_k=10) or REGISTRY.parse(name, default_k=10)
    except UnknownMetricError:
        return False
    REGISTRY.definition(metric)
    return True


def ir_measures_names() -> set[str]:
    names = set(irm.measures.registry)
    for provider in irm.providers.registry.values():
        names |= {measure.NAME for measure in provider.SUPPORTED_MEASURES}
    return names


def ranx_names() -> set[str]:
    return set(re.findall(r'metric == "([\w-]+)"', inspect.getsource(ranx_metrics.metric_switch)))


def _spelling(name: str) -> str:
    """The measure with a cutoff (or recall level) where ir_measures requires one, and max_rel (cwl_eval's gain scale)
    where the name table requires it."""
    measure = irm.measures.registry[name]
    params = measure.SUPPORTED_PARAMS
    entry = ir_measures_names_table.measure_entry(name)
    if entry is not None and entry.params.get("max_rel") is ir_measures_names_table.REQUIRED:
        measure = measure(max_rel=3)
    if name == "IPrec":
        return f"{name}@0.5"
    if name == "Judged":  # Judged of the whole ranking is not computed here (ir_measures_names)
        return f"{name}@10"
    if "cutoff" in params and params["cutoff"].required:
        return f"{measure}@10"
    return str(measure)


def test_the_vocabularies_are_read_whole():
    assert {"Compat", "Accuracy", "nDCG", "ERR", "alpha_nDCG"} <= ir_measures_names()
    assert {"hits", "dcg_burges", "rbp", "ndcg"} <= ranx_names() and len(ranx_names()) == 14


@pytest.mark.parametrize("name", sorted(ir_measures_names()))
def test_every_ir_measures_name_resolves_or_is_listed(name):
    if name in LEFT_OUT:
        assert not resolves(name)
    else:
        assert resolves(_spelling(name)), name


@pytest.mark.parametrize("name", sorted(ranx_names()))
@pytest.mark.parametrize("form", ["{}", "{}@5", "{}@5-l2"])
def test_every_ranx_name_resolves(name, form):
    spelling = RANX_SPELLING.get(name, name)
    if name in RANX_WHOLE:
        form = form.replace("@5", "")
    assert resolves(form.format(spelling)), form.format(spelling)
