"""ranx's metric names (version 0.3.21) as registry metrics.

ranx writes a metric as ``name[@k][-lN]``: ``ndcg@10``, ``precision@5-l2`` (relevant from
label 2), ``map``; ``@k`` cuts the ranking at k (without it ranx reads the whole ranking), ``-lN``
sets the relevance level (1 by default). Where ranx and the registry agree on a name without
``-l`` the registry reads it itself; this module reads the rest:

=========================  ===========================================================
ranx                       registry metric
=========================  ===========================================================
hits, hits-lN              num_rel_ret, num_rel_ret(rel=N)
name@k-lN                  name(rel=N)@k for precision, recall, f1, map, mrr
                           (recip_rank), hit_rate (success)
map-lN, mrr-lN             map(rel=N), recip_rank(rel=N)
r-precision-lN, bpref-lN   rprec(rel=N), bpref(rel=N)
ndcg[@k]-l1, dcg-l0, ...   the name without -l (ndcg, ndcg_burges, dcg: -l1 is ranx's default)
=========================  ===========================================================

Errors, each saying why: ``hits@k``, ``dcg@k``, ``dcg_burges[@k]`` and ``rbp.NN`` (ranx weighs
each relevant document by its label, trec_eval's rbp scales the gains) are
:class:`UnknownMetricError`; ``ndcg-lN`` and the others of gain for N other than 1 (ranx gives
labels below N no gain; here every positive label has its own gain, and ``rel`` does not apply:
``ndcg(gains=1:0)`` is ranx's ``ndcg-l2``) are :class:`ConfigError`, and so are ``precision-lN``,
``recall-lN``, ``f1-lN`` and ``hit_rate-lN`` without ``@k``.

The one spelling that means two things: ranx's ``precision``, ``recall``, ``f1`` and
``hit_rate`` without ``@k`` read the whole ranking; here a name without ``@k`` takes the
evaluation's k (as ir_measures' ``P``, ``R`` and ``Success``, which always have one) and
trec_eval's ``recall`` is its 9 cutoffs. ranx's whole-ranking values are ``set_precision``,
``set_recall``, ``set_f`` (and ``success`` has no whole-ranking form).
"""

from __future__ import annotations

import re

from ..errors import ConfigError, UnknownMetricError
from .names import Metric
from .registry import parse_spelling

#: ranx's names (its metric_switch) and the registry's name of each.
NAMES: dict[str, str] = {
    "hits": "num_rel_ret", "hit_rate": "success", "precision": "precision", "recall": "recall", "f1": "f1",
    "r-precision": "rprec", "mrr": "recip_rank", "map": "map", "dcg": "dcg", "dcg_burges": "dcg_burges",
    "ndcg": "ndcg", "ndcg_burges": "ndcg_burges", "bpref": "bpref", "rbp": "rbp",
}
#: The names whose relevance level sets the gains, not what counts as relevant.
_GAINS = ("dcg", "dcg_burges", "ndcg", "ndcg_burges")
#: The names that read the whole ranking without @k, where the registry takes the evaluation's k.
_WHOLE_RANKING = {"precision": "set_precision", "recall": "set_recall", "f1": "set_f", "hit_rate": None}

# Numbers past int64 (20 digits) are left to the registry, whose messages say so.
#: What is nearest to the ranx names that no registry metric computes (hits@k, dcg@k, dcg_burges).
_NOT_AT_K = {
    "hits": "hits@k is precision@k times k",
    "dcg": "trec_eval's dcg (linear gain, the whole ranking) is dcg",
}
_BURGES = "ndcg_burges is DCG with gain 2^l - 1 normalized"
_GRAMMAR = re.compile(r"^(?P<name>[a-z][a-z0-9_-]*?)(?:@(?P<k>\d{1,20}))?(?:-l(?P<rel>[+-]?\d{1,20}))?$")
_RBP = re.compile(r"^rbp[.@]\d{1,20}(?:-l[+-]?\d{1,20})?$")


def parse(text: str, *, rel_level: int = 1, default_k: int | None = None) -> Metric | None:
    """The registry metric a ranx name means; None when ``text`` is not a ranx name the registry does not read alike.

    ``rel_level`` is the relevance level of a name without ``-l``; ``default_k`` is not used (a
    ranx name that needs a cutoff and has none is an error or the registry's).
    """
    cleaned = text.strip()
    if _RBP.match(cleaned):
        raise UnknownMetricError(
            f"ranx's {cleaned!r} (rank-biased precision weighing each relevant document by its label) is not computed "
            "by retrieval_eval; trec_eval's rbp, with the gains scaled to [0, 1], is rbp(p=...)"
        )
    match = _GRAMMAR.match(cleaned)
    if match is None or match["name"] not in NAMES:
        return None
    name, k, rel = match["name"], match["k"], match["rel"]
    if name == "dcg_burges" or (name in _NOT_AT_K and k is not None):
        raise UnknownMetricError(f"ranx's {cleaned!r} is not computed by retrieval_eval; {_NOT_AT_K.get(name, _BURGES)}")
    if rel is None and name != "hits":
        return None
    registry_name = NAMES[name]
    params = []
    if name in _GAINS:
        # -l0 keeps label 0, whose gain is 0 anyway.
        if int(rel) not in (0, 1):
            raise ConfigError(
                f"ranx metric {cleaned!r}: ranx's -l{rel} gives labels below {rel} no gain, while {registry_name} gives "
                f"every positive label its own (rel does not apply); ndcg(gains=1:0) is ranx's ndcg-l2 without @k"
            )
    elif rel is not None:
        params.append(f"rel={int(rel)}")
    if k is None and name in _WHOLE_RANKING:
        whole = _WHOLE_RANKING[name]
        instead = f"write {whole}(rel={int(rel)}) for the whole ranking, or " if whole else "write "
        raise ConfigError(
            f"ranx metric {cleaned!r} reads the whole ranking, while {name} here takes the evaluation's k: "
            f"{instead}{name}@k-l{int(rel)} for the top k"
        )
    canonical = registry_name + (f"({','.join(params)})" if params else "") + (f"@{k}" if k is not None else "")
    return parse_spelling(cleaned, canonical, peer="ranx metric", defaults={"rel": rel_level})
