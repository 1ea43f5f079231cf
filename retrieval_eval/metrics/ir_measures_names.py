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
==================================  =====================================================

The other measures of ir_measures 0.4.3 (ERR, RBP, SDCG, INST, INSQ, BPM, NERR8-11 and the
diversity measures alpha_nDCG, ERR_IA, ...: gdeval's, cwl_eval's and ndeval's, which other parts
of issue 28 add as their own blocks of this table) are :class:`UnknownMetricError` until then;
NumQ is the number of evaluated queries, which a result gives as ``query_counts["evaluated"]``
(and the ir_measures provider computes). :data:`PENDING` lists those names.
"""

from __future__ import annotations

import ast
import functools
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..errors import ConfigError, UnknownMetricError
from .names import Metric
from .registry import parse_spelling


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
    "BPM": ("the Bejeweled Player Model of cwl_eval", ""),
    "ERR": ("expected reciprocal rank, by gdeval", ""),
    "INSQ": ("INSQ of cwl_eval", ""),
    "INST": ("INST of cwl_eval", ""),
    **{f"NERR{n}": (f"NERR{n} of cwl_eval", "") for n in (8, 9, 10, 11)},
    "RBP": ("rank-biased precision as cwl_eval computes it", "trec_eval's, with the gains scaled to [0, 1], is rbp(p=...)"),
    "SDCG": ("scaled DCG of cwl_eval", ""),
    **{name: (f"the diversity measure {measure} of ndeval", "") for name, measure in (
        ("alpha_DCG", "alpha-DCG"), ("α_DCG", "alpha-DCG"), ("alpha_nDCG", "alpha-nDCG"), ("α_nDCG", "alpha-nDCG"),
        ("ERR_IA", "ERR-IA"), ("nERR_IA", "nERR-IA"), ("NRBP", "NRBP"), ("nNRBP", "nNRBP"), ("AP_IA", "AP-IA"),
        ("MAP_IA", "AP-IA"), ("P_IA", "P-IA"), ("StRecall", "subtopic recall"),
    )},
    "NumQ": (
        "the number of queries",
        "a result gives it as query_counts['evaluated'], and the ir_measures provider of retrieval_eval computes it",
    ),
}

#: ir_measures 0.4.3's measures still of :data:`NOT_COMPUTED` because another part of issue 28 builds them
#: (gdeval's ERR, cwl_eval's, ndeval's); each part takes its names out as it adds them to :data:`MEASURES`.
PENDING: frozenset[str] = frozenset(name for name in NOT_COMPUTED if name != "NumQ")

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
            raise ConfigError(f"{measure.name} needs {key}: write {measure.name}@r, r a recall level such as 0.5")


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
    "beta": _number, "dcg": _dcg, "gains": _gains, "p": _number, "normalize": _boolean,
}
