"""ranx's metric names (version 0.3.21) as registry metrics.

ranx writes a metric as ``name[@k][-lN]``: ``ndcg@10``, ``precision@5-l2`` (relevant from
label 2), ``map``; ``@k`` cuts the ranking at k (without it ranx reads the whole ranking), ``-lN``
sets the relevance level (1 by default). Where ranx and the registry agree on a name without
``-l`` the registry reads it itself; this module reads the rest:

=========================  ===========================================================
ranx                       registry metric
=========================  ===========================================================
hits, hits-lN              num_rel_ret, num_rel_ret(rel=N)
hits@k-lN                  hits(rel=N)@k (ranked_gains family)
name@k-lN                  name(rel=N)@k for precision, recall, f1, map, mrr
                           (recip_rank), hit_rate (success)
map-lN, mrr-lN             map(rel=N), recip_rank(rel=N)
r-precision-lN, bpref-lN   rprec(rel=N), bpref(rel=N)
ndcg[@k]-l1, -l0           ndcg[@k], ndcg_burges[@k] (-l1 is ranx's default)
ndcg[@k]-lN, other N       ndcg_ranx(rel=N)[@k], ndcg_burges_ranx(rel=N)[@k]
dcg@k-lN                   dcg(rel=N)@k
dcg_burges[@k]-lN          dcg_burges(rel=N)[@k]
dcg-l1, dcg-l0             dcg (trec_eval's)
dcg-lN, other N            dcg_ranx(rel=N)
rbp.NN-lN, rbp@NN-lN       rbp_label(p=0.NN,rel=N) (each relevant document weighed by
                           its label; trec_eval's rbp scales the gains to [0, 1])
=========================  ===========================================================

Every name of ranx's ``metric_switch`` resolves; ``dcg-lN`` for N other than 0 and 1 (ranx's
whole-ranking DCG that gives labels below N no gain; trec_eval's ``dcg`` here has no relevance
level) is ``dcg_ranx(rel=N)``. :class:`ConfigError`: ``precision-lN``, ``recall-lN``, ``f1-lN``
and ``hit_rate-lN`` without ``@k`` (below). ``rbp`` without its persistence (which ranx refuses) is
trec_eval's rbp, the registry's.

The one spelling that means two things: ranx's ``precision``, ``recall``, ``f1`` and
``hit_rate`` without ``@k`` read the whole ranking; here a name without ``@k`` takes the
evaluation's k (as ir_measures' ``P``, ``R`` and ``Success``, which always have one) and
trec_eval's ``recall`` is its 9 cutoffs. ranx's whole-ranking values are ``set_precision``,
``set_recall``, ``set_f`` (and ``success`` has no whole-ranking form).
"""

from __future__ import annotations

import re

from ...errors import ConfigError
from ..names import Metric
from ..registry import parse_spelling

#: ranx's names (its metric_switch) and the registry's name of each.
NAMES: dict[str, str] = {
    "hits": "hits", "hit_rate": "success", "precision": "precision", "recall": "recall", "f1": "f1",
    "r-precision": "rprec", "mrr": "recip_rank", "map": "map", "dcg": "dcg", "dcg_burges": "dcg_burges",
    "ndcg": "ndcg", "ndcg_burges": "ndcg_burges", "bpref": "bpref",
}
#: The names whose relevance level sets the gains: at levels 0 and 1 the TREC family's measure, else ranx's own.
_GAINS = {"ndcg": "ndcg_ranx", "ndcg_burges": "ndcg_burges_ranx", "dcg": None}
#: The names that read the whole ranking without @k, where the registry takes the evaluation's k.
_WHOLE_RANKING = {"precision": "set_precision", "recall": "set_recall", "f1": "set_f", "hit_rate": None}

# Numbers past int64 (20 digits) are left to the registry, whose messages say so.
_GRAMMAR = re.compile(r"^(?P<name>[a-z][a-z0-9_-]*?)(?:@(?P<k>\d{1,20}))?(?:-l(?P<rel>[+-]?\d{1,20}))?$")
_RBP = re.compile(r"^rbp[.@](?P<p>\d{1,20})(?:-l(?P<rel>[+-]?\d{1,20}))?$")


def is_rbp_name(text: str) -> bool:
    """``text`` is ranx's ``rbp.NN[-lN]`` (``rbp@NN``): never trec_eval's ``rbp.p=0.9``, whose parameters are name=value pairs."""
    return _RBP.match(text.strip()) is not None


def parse(text: str, *, rel_level: int = 1, default_k: int | None = None) -> Metric | None:
    """The registry metric a ranx name means; None when ``text`` is not a ranx name the registry does not read alike.

    ``rel_level`` is the relevance level of a name without ``-l``; ``default_k`` is not used (a
    ranx name that needs a cutoff and has none is an error or the registry's).
    """
    cleaned = text.strip()
    rbp = _RBP.match(cleaned)
    if rbp is not None:
        rel = int(rbp["rel"]) if rbp["rel"] is not None else rel_level
        # ranx reads the digits as a decimal fraction: rbp.95 is p = 0.95, rbp.5 is 0.5.
        canonical = f"rbp_label(p={float('0.' + rbp['p'])!r},rel={rel})"
        return parse_spelling(cleaned, canonical, peer="ranx metric")
    match = _GRAMMAR.match(cleaned)
    if match is None or match["name"] not in NAMES:
        return None
    name, k, rel = match["name"], match["k"], match["rel"]
    if name == "hits" and k is None:
        canonical = "num_rel_ret" + (f"(rel={int(rel)})" if rel is not None else "")
        return parse_spelling(cleaned, canonical, peer="ranx metric", defaults={"rel": rel_level})
    if rel is None:
        return None
    registry_name = NAMES[name]
    params = [] if rel is None else [f"rel={int(rel)}"]
    if name in _GAINS and (k is not None or name != "dcg"):
        if int(rel) in (0, 1) and name != "dcg":
            # -l0 keeps label 0, whose gain is 0 anyway: the TREC family's measure.
            params = []
        else:
            registry_name = _GAINS[name] or name
    elif name == "dcg":
        if int(rel) in (0, 1):
            return parse_spelling(cleaned, "dcg", peer="ranx metric")
        # trec_eval's dcg has no relevance level: ranx's whole-ranking DCG at a level is dcg_ranx.
        registry_name = "dcg_ranx"
    if k is None and name in _WHOLE_RANKING:
        whole = _WHOLE_RANKING[name]
        instead = f"write {whole}(rel={int(rel)}) for the whole ranking, or " if whole else "write "
        raise ConfigError(
            f"ranx metric {cleaned!r} reads the whole ranking, while {name} here takes the evaluation's k: "
            f"{instead}{name}@k-l{int(rel)} for the top k"
        )
    canonical = registry_name + (f"({','.join(params)})" if params else "") + (f"@{k}" if k is not None else "")
    return parse_spelling(cleaned, canonical, peer="ranx metric", defaults={"rel": rel_level})
