"""ir_measures' measure names (version 0.4.3) as registry metrics.

ir_measures writes a measure as ``Name(param=value, ...)@at``: ``nDCG@10``, ``AP(rel=2)``,
``P(rel=2,judged_only=True)@5``, ``nDCG(dcg='exp-log2')@10``, ``nDCG(gains={0:0,1:1,2:3})``,
``IPrec@0.5`` (the ``@`` of IPrec is the recall level), with Python's literals as values; a
parameter at its default is left out (``AP(rel=1)`` is ``AP``). Names are case-sensitive, so
they never clash with the registry's lowercase names.

Each measure below is the registry metric whose values ir_measures' default provider gives it
(pytrec_eval for most, ``judged`` for Judged, ``msmarco`` for RR@k, ``ranx`` and gdeval for
nDCG(dcg='exp-log2')): ``rel`` (a document is relevant when its label is >= rel) becomes the
metric's ``rel``, the cutoff its ``@k``. ``judged_only=True`` is not part of a metric here but
an evaluation option (trec_eval's ``-J``): :func:`parse` returns it beside the metric.

==================================  =====================================================
ir_measures                         registry metric
==================================  =====================================================
Accuracy(rel=r)[@k]                 accuracy(rel=r)[@k] (ir_measures' accuracy provider)
AP, MAP, AP@k                       map, map@k
Bpref, BPref                        bpref
Compat(p=p, normalize=b)            compat(p=p,normalize=b) (ir_measures' compat provider)
infAP                               infap
IPrec@r                             iprec_at_recall(recall=r) (trec_eval 10's rounding)
Judged@k                            judged@k (Judged without @k: an error)
nDCG, NDCG, nDCG@k                  ndcg, ndcg@k (linear gain)
nDCG(dcg='exp-log2')[@k]            ndcg_burges[@k] (gain 2^l - 1)
nDCG(gains={l:g, ...})              ndcg(gains=l:g;...) (no cutoff; integers >= 0)
NumRel                              num_rel
NumRet, NumRet(rel=r), NumRelRet    num_ret, num_rel_ret(rel=r), num_rel_ret(rel=1)
P@k, Precision@k                    precision@k
R@k, Recall@k                       recall@k
RR, MRR, RR@k                       recip_rank, recip_rank@k
Rprec, RPrec                        rprec
SetAP                               set_map
SetF(beta=b)                        set_f(beta=b)
SetP, SetP(relative=True), SetRelP  set_precision, set_relative_precision
SetR                                set_recall
Success@k                           success@k
ERR@k                               err(skip=false)@k (gdeval's; 0 where gdeval skips a query)
alpha_nDCG@k, α_nDCG@k, alpha_DCG@k alpha_ndcg@k, alpha_dcg@k (alpha=a; ndeval, subtopic qrels)
ERR_IA@k, nERR_IA@k, P_IA@k         err_ia@k, nerr_ia@k, p_ia@k
StRecall@k, NRBP, nNRBP             strec@k, nrbp, nnrbp (alpha=a, beta=b)
AP_IA, MAP_IA                       map_ia
==================================  =====================================================

NumQ is the number of evaluated queries, which a result gives as ``query_counts["evaluated"]``
(and the ir_measures provider computes); every other measure of ir_measures 0.4.3 resolves here
(gdeval's, cwl_eval's and ndeval's measures are their families' blocks at the end of this table).
"""

from __future__ import annotations

import ast
import functools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...errors import ConfigError, UnknownMetricError
from ..names import Metric
from ..registry import parse_spelling


@dataclass(frozen=True)
class PeerMetric:
    """A peer's measure as a registry metric, with the evaluation option its name sets (ir_measures' ``judged_only``)."""

    metric: Metric
    judged_only: bool = False


#: A parameter ir_measures requires, or leaves unset by default (a sentinel, never a value).
REQUIRED, UNSET = "<required>", "<unset>"


@dataclass(frozen=True)
class IrMeasure:
    """One ir_measures measure: its parameters with ir_measures' defaults, and the registry metric it is.

    ``params``: name -> default (:data:`REQUIRED` or :data:`UNSET` when ir_measures has none);
    ``at``: the parameter that ``@`` sets; ``metric(given)``: the registry name and parameters
    (a dict of registry parameter texts) for the parameters given (``rel``, ``judged_only`` and
    the ``at`` parameter are handled by :func:`parse`); ``omits_undefined``: see the field.
    """

    name: str
    params: Mapping[str, object]
    metric: Callable[[dict[str, object]], tuple[str, dict[str, str]]]
    at: str = "cutoff"
    aliases: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    #: ir_measures' provider reports no value where the registry metric's is NaN (Accuracy), nor a
    #: default for a query it leaves out: its mean is over the queries it reports.
    omits_undefined: bool = False


def _named(name: str) -> Callable[[dict[str, object]], tuple[str, dict[str, str]]]:
    return lambda given: (name, {})


def _ndcg(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    exponential = given.get("dcg", "log2") == "exp-log2"
    gains = given.get("gains")
    if gains is None:
        return ("ndcg_burges" if exponential else "ndcg"), {}
    if exponential:
        raise ConfigError("nDCG takes gains= only with dcg='log2' (ir_measures has no provider of both)")
    if "cutoff" in given:
        raise ConfigError(
            "nDCG with gains= and a cutoff is not computed here (trec_eval's ndcg_cut has no gain map): "
            "drop the cutoff, or the gains"
        )
    # As ir_measures prints the map: by label, without the labels whose gain is their own value.
    pairs = sorted((label, gain) for label, gain in gains.items() if label != gain)
    return "ndcg", ({"gains": ";".join(f"{label}:{gain}" for label, gain in pairs)} if pairs else {})


def _num_ret(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    # NumRet counts every retrieved document; with rel it counts the relevant ones (NumRelRet is NumRet(rel=1)).
    return ("num_rel_ret" if "rel" in given else "num_ret"), {}


def _set_f(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    return "set_f", ({"beta": repr(float(given["beta"]))} if "beta" in given else {})


def _set_p(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    return ("set_relative_precision" if given.get("relative") else "set_precision"), {}


def _judged(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    if "cutoff" not in given:
        raise ConfigError(
            "Judged without a cutoff (the share of the whole ranking that is judged) is not computed here: write Judged@k"
        )
    return "judged", {}


_REL = {"rel": 1}
_RANKED = {"rel": 1, "judged_only": False}
MEASURES: dict[str, IrMeasure] = {
    measure.name: measure
    for measure in (
        IrMeasure("AP", {"cutoff": UNSET, **_RANKED}, _named("map"), aliases={"MAP": {}}),
        IrMeasure("Bpref", dict(_REL), _named("bpref"), aliases={"BPref": {}}),
        IrMeasure("infAP", dict(_REL), _named("infap")),
        IrMeasure("IPrec", {"recall": REQUIRED, **_RANKED}, _named("iprec_at_recall"), at="recall"),
        IrMeasure("Judged", {"cutoff": UNSET}, _judged),
        IrMeasure(
            "nDCG", {"cutoff": UNSET, "dcg": "log2", "gains": UNSET, "judged_only": False}, _ndcg, aliases={"NDCG": {}}
        ),
        IrMeasure("NumRel", dict(_REL), _named("num_rel")),
        IrMeasure("NumRet", {"rel": UNSET}, _num_ret, aliases={"NumRelRet": {"rel": 1}}),
        IrMeasure("P", {"cutoff": REQUIRED, **_RANKED}, _named("precision"), aliases={"Precision": {}}),
        IrMeasure("R", {"cutoff": REQUIRED, **_RANKED}, _named("recall"), aliases={"Recall": {}}),
        IrMeasure("RR", {"cutoff": UNSET, **_RANKED}, _named("recip_rank"), aliases={"MRR": {}}),
        IrMeasure("Rprec", dict(_RANKED), _named("rprec"), aliases={"RPrec": {}}),
        IrMeasure("SetAP", dict(_RANKED), _named("set_map")),
        IrMeasure("SetF", {"rel": 1, "beta": 1.0, "judged_only": False}, _set_f),
        IrMeasure("SetP", {"rel": 1, "relative": False, "judged_only": False}, _set_p, aliases={"SetRelP": {"relative": True}}),
        IrMeasure("SetR", dict(_REL), _named("set_recall")),
        IrMeasure("Success", {"cutoff": REQUIRED, **_RANKED}, _named("success")),
    )
}
# gdeval's ERR (ir_measures computes it only at a cutoff, by gdeval). A judged query without a label above 0, which
# gdeval skips, is NaN in err@k; ir_measures gives it its default, 0, as err(skip=false)@k does
# (nDCG(dcg='exp-log2')@k, also gdeval's there, is ndcg_burges@k, 0 for such a query as ir_measures has it).
MEASURES["ERR"] = IrMeasure("ERR", {"cutoff": UNSET}, lambda given: ("err", {"skip": "false"}))

# ndeval's diversity measures, as ir_measures' pyndeval provider gives them (subtopic qrels, the
# subtopic in the qrels' iteration column, read as qrels_jg). ERR_IA, nERR_IA and P_IA take no
# alpha there (ndeval's 0.5); without a cutoff they take the evaluation's k.
def _diverse(name: str) -> Callable[[dict[str, object]], tuple[str, dict[str, str]]]:
    def metric(given: dict[str, object]) -> tuple[str, dict[str, str]]:
        return name, {key: repr(float(given[key])) for key in ("alpha", "beta") if key in given}

    return metric


_ALPHA_CUT = {"cutoff": UNSET, "alpha": 0.5, **_RANKED}
_CUT = {"cutoff": UNSET, **_RANKED}
_NRBP = {"alpha": 0.5, "beta": 0.5, **_REL}
MEASURES.update({
    measure.name: measure
    for measure in (
        IrMeasure("alpha_DCG", _ALPHA_CUT, _diverse("alpha_dcg"), aliases={"α_DCG": {}}),
        IrMeasure("alpha_nDCG", _ALPHA_CUT, _diverse("alpha_ndcg"), aliases={"α_nDCG": {}}),
        IrMeasure("ERR_IA", _CUT, _diverse("err_ia")),
        IrMeasure("nERR_IA", _CUT, _diverse("nerr_ia")),
        IrMeasure("P_IA", _CUT, _diverse("p_ia")),
        IrMeasure("StRecall", {"cutoff": UNSET, **_REL}, _diverse("strec")),
        IrMeasure("NRBP", _NRBP, _diverse("nrbp")),
        IrMeasure("nNRBP", _NRBP, _diverse("nnrbp")),
        IrMeasure("AP_IA", dict(_RANKED), _diverse("map_ia"), aliases={"MAP_IA": {}}),
    )
})

# ir_measures' own measures (its compat and accuracy providers; issue 28, item 4): the families of
# retrieval_eval.metrics.families.ir_measures_extras. Compat's p and normalize are parameters of compat.
def _compat(given: dict[str, object]) -> tuple[str, dict[str, str]]:
    params = {}
    if "p" in given:
        params["p"] = repr(float(given["p"]))
    if "normalize" in given:
        params["normalize"] = str(bool(given["normalize"])).lower()
    return "compat", params


MEASURES.update({
    "Compat": IrMeasure("Compat", {"p": 0.95, "normalize": True}, _compat),
    "Accuracy": IrMeasure("Accuracy", {"cutoff": UNSET, **_REL}, _named("accuracy"), omits_undefined=True),
})
_ALIASES = {alias: (measure, preset) for measure in MEASURES.values() for alias, preset in measure.aliases.items()}

#: ir_measures' measures that no registry metric computes: what each is, and what is nearest here.
NOT_COMPUTED: dict[str, tuple[str, str]] = {
    "NumQ": (
        "the number of queries",
        "a result gives it as query_counts['evaluated'], and the ir_measures provider of retrieval_eval computes it",
    ),
}

_IDENTIFIER = re.compile(r"\s*([^\W\d]\w*)")


def measure_entry(name: str) -> IrMeasure | None:
    """The table's entry of an ir_measures measure name or alias (``NDCG`` is nDCG's), None when it has none."""
    return MEASURES.get(name) or _ALIASES.get(name, (None,))[0]


def is_measure_name(text: str) -> bool:
    """``text`` starts with the name of an ir_measures measure (``nDCG@10``, ``ERR``); nothing else is checked."""
    match = _IDENTIFIER.match(text)
    return match is not None and (match[1] in MEASURES or match[1] in _ALIASES or match[1] in NOT_COMPUTED)


def parse(text: str, *, rel_level: int = 1, default_k: int | None = None) -> PeerMetric | None:
    """The registry metric an ir_measures measure name means, and its ``judged_only``; None when ``text`` is not one.

    ``rel_level`` is the relevance level of a name that leaves ``rel`` out; ``default_k`` the
    cutoff of one that needs a cutoff (P, R, Success) and has none (None: an error). A measure
    no registry metric computes is an :class:`UnknownMetricError`; a parameter it does not take,
    or a value it cannot take, a :class:`ConfigError` naming the measure and the parameter.
    """
    if not is_measure_name(text):
        return None
    parsed = _expression(text)
    if parsed is None:
        return None
    name, given = parsed
    if name in NOT_COMPUTED:
        what, nearest = NOT_COMPUTED[name]
        raise UnknownMetricError(
            f"ir_measures' {name} ({what}) is not computed by retrieval_eval" + (f"; {nearest}" if nearest else "")
        )
    measure, preset = (MEASURES[name], {}) if name in MEASURES else _ALIASES[name]
    given = {**preset, **given}
    try:
        _check(measure, given)
        registry_name, registry_params = measure.metric(given)
    except ConfigError as error:
        raise ConfigError(f"ir_measures measure {text.strip()!r}: {error}") from None
    if "rel" in given:
        registry_params["rel"] = str(given["rel"])
    if measure.at == "recall":
        registry_params["recall"] = repr(float(given["recall"]))
    canonical = registry_name
    if registry_params:
        canonical += "(" + ",".join(f"{key}={value}" for key, value in registry_params.items()) + ")"
    if "cutoff" in given:
        canonical += f"@{given['cutoff']}"
    elif measure.params.get("cutoff") is REQUIRED and default_k is None:
        raise ConfigError(f"ir_measures measure {text.strip()!r} needs a cutoff: write {name}@k")
    metric = parse_spelling(text, canonical, peer="ir_measures measure", default_k=default_k, defaults={"rel": rel_level})
    return PeerMetric(metric, bool(given.get("judged_only", False)))


@functools.lru_cache(maxsize=1024)
def _expression(text: str) -> tuple[str, dict[str, object]] | None:
    """``Name(param=value, ...)@at`` as the measure's name and its parameters (the ``@`` one under its own name).

    None when ``text`` is not such an expression (``R-precision`` starts with ``R`` but is the
    registry's): the registry then reads it. Cached (a list of metrics is parsed several times
    per evaluation), so callers copy the parameters before changing them.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    at = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        node, at = node.left, node.right
    given: dict[str, object] = {}
    if isinstance(node, ast.Call):
        if node.args or any(keyword.arg is None for keyword in node.keywords):
            return None
        for keyword in node.keywords:
            given[keyword.arg] = _literal(keyword.value, text)
        node = node.func
    if not isinstance(node, ast.Name):
        return None
    name = node.id
    if at is not None:
        measure = MEASURES.get(name) or _ALIASES.get(name, (None,))[0]
        given[measure.at if measure is not None else "cutoff"] = _literal(at, text)
    return name, given


def _literal(node: ast.expr, text: str) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ConfigError(f"ir_measures measure {text.strip()!r}: parameter values are Python literals (numbers, "
                          f"strings, True/False, {{label: gain}}), got {ast.unparse(node)!r:.60}") from None


def _check(measure: IrMeasure, given: dict[str, object]) -> None:
    """Every parameter given is one the measure takes, with a value it can take; the required ones are given."""
    if "cutoff" in given and "cutoff" not in measure.params:
        raise ConfigError(f"{measure.name} takes no cutoff")
    for key, value in given.items():
        if key not in measure.params:
            raise ConfigError(f"{measure.name} takes {', '.join(measure.params) or 'no parameters'}, got {key}")
        _VALUES[key](key, value)
    for key, default in measure.params.items():
        if default is REQUIRED and key not in given and key != "cutoff":
            how = f"{measure.name}@r, r a recall level such as 0.5" if key == measure.at else f"{measure.name}({key}=...)"
            raise ConfigError(f"{measure.name} needs {key}: write {how}")


def _integer(key: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ConfigError(f"{key} must be an integer, got {value!r}")


def _cutoff(key: str, value: object) -> None:
    _integer("the cutoff", value)
    if value <= 0:
        raise ConfigError(f"the cutoff must be a positive integer, got {value!r}")


def _boolean(key: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be True or False, got {value!r}")


def _number(key: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ConfigError(f"{key} must be a finite number, got {value!r}")


def _dcg(key: str, value: object) -> None:
    if value not in ("log2", "exp-log2"):
        raise ConfigError(f"dcg must be 'log2' (linear gain) or 'exp-log2' (gain 2^l - 1), got {value!r}")


def _gains(key: str, value: object) -> None:
    """A gain map of integer labels to integer gains >= 0, as ir_measures hands it to pytrec_eval (as labels)."""
    if not isinstance(value, dict):
        raise ConfigError(f"gains must be a dict {{label: gain}}, got {value!r:.60}")
    for label, gain in value.items():
        if isinstance(label, bool) or not isinstance(label, int) or label < 0:
            # trec_eval's gain map leaves negative labels (unjudged documents) out of the ideal ranking, pytrec_eval's
            # qrels mapped by ir_measures do not.
            raise ConfigError(f"gains' labels must be integers >= 0, got {label!r}")
        if isinstance(gain, bool) or not isinstance(gain, int) or gain < 0:
            raise ConfigError(
                f"gains' gains must be integers >= 0 (ir_measures gives them to pytrec_eval as labels), got {label}: {gain!r}"
            )


_VALUES: dict[str, Callable[[str, object], None]] = {
    "cutoff": _cutoff, "rel": _integer, "judged_only": _boolean, "relative": _boolean, "recall": _number,
    "beta": _number, "dcg": _dcg, "gains": _gains, "alpha": _number, "p": _number, "normalize": _boolean,
}


# ---- The C/W/L measures, which ir_measures' default provider gives by cwl_eval (issue 28, item 3) ----
# ir_measures' cwl_eval provider maps labels (negatives as 0) to gains: binary at rel for RBP,
# scaled from [min_rel, max_rel] to [0, 1] for the others: the cwl measures' bin_rel and max_rel.

def _cwl(
    name: str, params: Mapping[str, tuple[str, float]], *, binary: bool = False
) -> Callable[[dict[str, object]], tuple[str, dict[str, str]]]:
    """The cwl family's ``name``, its parameters ``params`` (registry key -> ir_measures key and default) from the given;
    ``binary``: gains binary at ``rel`` (default 1), else scaled by ``min_rel`` and ``max_rel``."""

    def metric(given: dict[str, object]) -> tuple[str, dict[str, str]]:
        if "cutoff" in given and name == "cwl_rbp":
            raise ConfigError("RBP@k is not computed here: cwl_eval's RBP (ir_measures' default provider) takes no cutoff")
        out = {key: repr(float(given.get(theirs, default))) for key, (theirs, default) in params.items()}
        if binary:
            # RBP's rel is cwl_eval's binary gain, not a registry rel: taken out, so that parse does not add it.
            out["bin_rel"] = repr(float(given.pop("rel", 1)))
        else:
            low, high = given.get("min_rel", 0), given["max_rel"]
            out |= {"min_rel": repr(float(low)), "max_rel": repr(float(high))}
        return name, out

    return metric


_SCALED = {"min_rel": 0, "max_rel": REQUIRED}
MEASURES.update({
    measure.name: measure
    for measure in (
        IrMeasure("RBP", {"cutoff": UNSET, "p": 0.8, "rel": UNSET}, _cwl("cwl_rbp", {"theta": ("p", 0.8)}, binary=True)),
        IrMeasure("INST", {"T": 1.0, **_SCALED}, _cwl("cwl_inst", {"t": ("T", 1.0)})),
        IrMeasure("INSQ", {"T": 1.0, **_SCALED}, _cwl("cwl_insq", {"t": ("T", 1.0)})),
        IrMeasure("BPM", {"cutoff": REQUIRED, "T": 1.0, **_SCALED}, _cwl("cwl_bpm", {"t": ("T", 1.0)})),
        IrMeasure("SDCG", {"cutoff": REQUIRED, "dcg": "log2", **_SCALED}, _cwl("cwl_ndcg", {})),
        IrMeasure("NERR8", {"cutoff": REQUIRED, **_SCALED}, _cwl("cwl_nerr8", {})),
        IrMeasure("NERR9", {"cutoff": REQUIRED, **_SCALED}, _cwl("cwl_nerr9", {})),
        IrMeasure("NERR10", {"p": 0.9, **_SCALED}, _cwl("cwl_nerr10", {"phi": ("p", 0.9)})),
        IrMeasure("NERR11", {"T": 1.0, **_SCALED}, _cwl("cwl_nerr11", {"t": ("T", 1.0)})),
    )
})
_VALUES.update({"T": _number, "min_rel": _integer, "max_rel": _integer})
