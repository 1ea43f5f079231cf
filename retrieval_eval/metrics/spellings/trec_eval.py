"""trec_eval 10's measure table: its names, parameters, nicknames and printed names, as registry metrics.

trec_eval computes and prints its measures in the order of one table (``te_trec_measures`` in
its measures.c), whatever order ``-m`` names them in. A measure is asked for by name, with
parameters after a dot (``-m P.5,10``, ``-m ndcg.1=3,2=9``, ``-m utility.2,-1,0,0``), or by a
nickname of a set of measures (``official``, ``all_trec``, ...). Each measure gives one or more
*values*, each with the name trec_eval prints and the registry metric that computes it:

- cutoff lists (``P``, ``recall``, ``ndcg_cut``, ...): one value per cutoff, ``P_5``; the
  cutoffs are read as C's ``atol`` reads them (``23.4`` is 23), sorted, and must be distinct
  and positive;
- level lists (``iprec_at_recall``, ``Rprec_mult``): one value per level, printed ``%3.2f``
  (``Rprec_mult_0.20``), read as C's ``atof``, sorted, distinct;
- number lists and name=value pairs (``utility``, ``11pt_avg``, ``set_F``, ``relstring``,
  ``ndcg``, ``G``, ``rbp``, ...): one value, printed as the name alone, or with the parameter
  text as given when there is one (``utility_2,-1,0,0``, ``ndcg_1=3,2=9``).

``-m`` names a measure more than once: the first parameters given are the ones used, as in
trec_eval. A name that is neither a measure nor a nickname is left to the registry (our own
names, such as ``judged@10``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ...errors import ConfigError
from ..names import Metric
from ..registry import REGISTRY

#: How a measure reads its parameters.
NONE, CUTOFFS, LEVELS, NUMBERS, PAIRS = "none", "cutoffs", "levels", "numbers", "pairs"
#: How the ``all`` line summarizes a value over queries.
MEAN, SUM, GEOMETRIC, NO_SUMMARY = "mean", "sum", "geometric", "none"

_DEFAULT_CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
_RECALL_LEVELS = tuple(f"{level / 10:.1f}" for level in range(11))
_RPREC_MULTIPLES = tuple(f"{multiple / 10:.1f}" for multiple in range(2, 21, 2))


@dataclass(frozen=True)
class TrecEvalMeasure:
    """One row of trec_eval's measure table.

    ``metric(parameter)`` names the registry metric of one value: ``parameter`` is one cutoff or
    level (as a number), or the whole parameter list (numbers or (name, value) pairs), or None
    when the measure takes none. ``whole``: values are counts, printed as whole numbers.
    ``per_query``: printed on the per-query lines (the geometric means and num_q are not).
    """

    name: str
    params: str = NONE
    defaults: tuple = ()
    metric: Callable[[object], str] | None = None
    summary: str = MEAN
    whole: bool = False
    per_query: bool = True


def _cut(template: str) -> Callable[[object], str]:
    return lambda k: template.format(k=k)


def _level(template: str) -> Callable[[object], str]:
    return lambda level: template.format(level=repr(level))


def _named(name: str) -> Callable[[object], str]:
    return lambda parameter: name


def _gains(name: str, persistence: bool = False) -> Callable[[object], str]:
    """A measure of name=value pairs: ``ndcg.1=3,2=9`` is ``ndcg(gains=1:3.0;2:9.0)``.

    As trec_eval's setup_gains and m_rbp.c read the pairs: those named by an integer are the gain
    map, in their order; ``p`` (rbp, rbp_resid: the last one given) is the persistence; any other
    pair is ignored.
    """

    def metric(pairs: object) -> str:
        gains = [(label, gain) for label, gain in pairs or () if _VALID_INT.match(label)]
        params = []
        persistences = [value for key, value in pairs or () if key == "p"]
        if persistence and persistences:
            params.append(f"p={_number_text(persistences[-1])}")
        if gains:
            params.append(f"gains={';'.join(f'{int(label)}:{_number_text(gain)}' for label, gain in gains)}")
        return f"{name}({','.join(params)})" if params else name

    return metric


#: gain_init.c's valid_int: an optional sign, then one or more digits.
_VALID_INT = re.compile(r"^[+-]?[0-9]+$")


def _utility(numbers: object) -> str:
    if numbers is None:
        return "utility"
    if len(numbers) != 4:
        raise ConfigError(f"utility takes 4 numbers (the gains of relevant and non-relevant retrieved, of relevant and "
                          f"non-relevant not retrieved), got {len(numbers)}")
    return "utility(" + ",".join(f"{key}={_number_text(value)}" for key, value in zip("abcd", numbers)) + ")"


def _levels_average(numbers: object) -> str:
    if numbers is None:
        return "iprec_11pt"
    return f"iprec_11pt(levels={';'.join(_number_text(level) for level in numbers)})"


def _one_number(name: str, key: str) -> Callable[[object], str]:
    def metric(numbers: object) -> str:
        if numbers is None:
            return name
        return f"{name}({key}={_number_text(numbers[0])})"

    return metric


def _number_text(value: float) -> str:
    return repr(float(value))


_PREFS = (
    ("prefs_num_prefs_poss", True), ("prefs_num_prefs_ful", True), ("prefs_num_prefs_ful_ret", True),
    ("prefs_simp", False), ("prefs_pair", False), ("prefs_avgjg", False), ("prefs_avgjg_Rnonrel", False),
    ("prefs_simp_ret", False), ("prefs_pair_ret", False), ("prefs_avgjg_ret", False),
    ("prefs_avgjg_Rnonrel_ret", False), ("prefs_simp_imp", False), ("prefs_pair_imp", False),
    ("prefs_avgjg_imp", False),
)

#: trec_eval's measures in the order it prints them (te_trec_measures, measures.c).
MEASURES: tuple[TrecEvalMeasure, ...] = (
    TrecEvalMeasure("runid", summary=NO_SUMMARY, per_query=False),
    TrecEvalMeasure("num_q", summary=NO_SUMMARY, whole=True, per_query=False),
    TrecEvalMeasure("num_ret", metric=_named("num_ret"), summary=SUM, whole=True),
    TrecEvalMeasure("num_rel", metric=_named("num_rel"), summary=SUM, whole=True),
    TrecEvalMeasure("num_rel_ret", metric=_named("num_rel_ret"), summary=SUM, whole=True),
    TrecEvalMeasure("map", metric=_named("map")),
    TrecEvalMeasure("gm_map", metric=_named("gm_map"), summary=GEOMETRIC, per_query=False),
    TrecEvalMeasure("Rprec", metric=_named("rprec")),
    TrecEvalMeasure("bpref", metric=_named("bpref")),
    TrecEvalMeasure("recip_rank", metric=_named("recip_rank")),
    TrecEvalMeasure("iprec_at_recall", LEVELS, _RECALL_LEVELS, _level("iprec_at_recall(recall={level})")),
    TrecEvalMeasure("P", CUTOFFS, _DEFAULT_CUTOFFS, _cut("precision@{k}")),
    TrecEvalMeasure("relstring", NUMBERS, ("10",), summary=NO_SUMMARY),
    TrecEvalMeasure("recall", CUTOFFS, _DEFAULT_CUTOFFS, _cut("recall@{k}")),
    TrecEvalMeasure("infAP", metric=_named("infap")),
    TrecEvalMeasure("gm_bpref", metric=_named("gm_bpref"), summary=GEOMETRIC, per_query=False),
    TrecEvalMeasure("Rprec_mult", LEVELS, _RPREC_MULTIPLES, _level("rprec_mult(mult={level})")),
    TrecEvalMeasure("utility", NUMBERS, ("1", "-1", "0", "0"), _utility),
    TrecEvalMeasure("11pt_avg", NUMBERS, _RECALL_LEVELS, _levels_average),
    TrecEvalMeasure("binG", metric=_named("bing")),
    TrecEvalMeasure("G", PAIRS, (), _gains("g")),
    TrecEvalMeasure("dcg", PAIRS, (), _gains("dcg")),
    TrecEvalMeasure("ideal_dcg", PAIRS, (), _gains("ideal_dcg")),
    TrecEvalMeasure("ndcg", PAIRS, (), _gains("ndcg")),
    TrecEvalMeasure("ndcg_rel", PAIRS, (), _gains("ndcg_rel")),
    TrecEvalMeasure("Rndcg", PAIRS, (), _gains("rndcg")),
    TrecEvalMeasure("ndcg_cut", CUTOFFS, _DEFAULT_CUTOFFS, _cut("ndcg@{k}")),
    TrecEvalMeasure("map_cut", CUTOFFS, _DEFAULT_CUTOFFS, _cut("map@{k}")),
    TrecEvalMeasure("relative_P", CUTOFFS, _DEFAULT_CUTOFFS, _cut("relative_precision@{k}")),
    TrecEvalMeasure("success", CUTOFFS, ("1", "5", "10"), _cut("success@{k}")),
    TrecEvalMeasure("set_P", metric=_named("set_precision")),
    TrecEvalMeasure("set_relative_P", metric=_named("set_relative_precision")),
    TrecEvalMeasure("set_recall", metric=_named("set_recall")),
    TrecEvalMeasure("set_map", metric=_named("set_map")),
    TrecEvalMeasure("set_F", NUMBERS, ("1.0",), _one_number("set_f", "beta")),
    TrecEvalMeasure("num_nonrel_judged_ret", metric=_named("num_nonrel_judged_ret"), summary=SUM, whole=True),
    *(
        TrecEvalMeasure(name, metric=_named(name.lower()), summary=SUM if count else MEAN, whole=count)
        for name, count in _PREFS
    ),
    TrecEvalMeasure("map_avgjg", metric=_named("map_avgjg")),
    TrecEvalMeasure("P_avgjg", CUTOFFS, _DEFAULT_CUTOFFS, _cut("p_avgjg@{k}")),
    TrecEvalMeasure("Rprec_mult_avgjg", LEVELS, _RPREC_MULTIPLES, _level("rprec_mult_avgjg(mult={level})")),
    TrecEvalMeasure("yaap", metric=_named("yaap")),
    TrecEvalMeasure("rbp", PAIRS, (), _gains("rbp", persistence=True)),
    TrecEvalMeasure("rbp_resid", PAIRS, (), _gains("rbp_resid", persistence=True)),
    TrecEvalMeasure("unj", CUTOFFS, ("5", "10", "20"), _cut("unjudged@{k}")),
)
BY_NAME = {measure.name: measure for measure in MEASURES}

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
             "iprec_at_recall", "P")
#: trec_eval's nicknames of sets of measures (te_trec_measure_nicknames, measures.c).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
            "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", *(name for name, _ in _PREFS)),
    "prefs": ("runid", "num_q", *(name for name, _ in _PREFS[:6])),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


@dataclass(frozen=True)
class TrecEvalValue:
    """One printed value: trec_eval's name for it, its measure, and the registry metric that computes it.

    ``metric`` is None for runid and num_q (the output itself gives them) and for relstring,
    whose per-query text is ``length`` relevance characters.
    """

    name: str
    measure: TrecEvalMeasure
    metric: Metric | None = None
    length: int = 0


@dataclass(frozen=True)
class TrecEvalSelection:
    """What ``-m`` asked for: trec_eval's values in its table order, then other registry metrics as given."""

    values: tuple[TrecEvalValue, ...]
    others: tuple[Metric, ...]

    @property
    def metrics(self) -> list[Metric]:
        """Every registry metric to compute, each once."""
        seen: dict[Metric, None] = {}
        for value in self.values:
            if value.metric is not None:
                seen.setdefault(value.metric)
        for metric in self.others:
            seen.setdefault(metric)
        return list(seen)


def is_trec_eval_name(text: str) -> bool:
    """A trec_eval measure or nickname, with or without parameters (``P``, ``P.5,10``, ``all_trec``)."""
    name = text.split(".", 1)[0]
    return name in BY_NAME or name in NICKNAMES


def select(
    names: Iterable[str | Metric], *, rel_level: int = 1, default_k: int | None = None
) -> TrecEvalSelection:
    """Resolve ``-m`` arguments as trec_eval does (see the module docstring).

    Names trec_eval does not know are parsed by the registry (``default_k`` for a name without a
    cutoff) and kept in the order given, after trec_eval's values.
    """
    marked: set[str] = set()
    parameters: dict[str, str] = {}
    others: list[Metric] = []
    for given in names:
        if isinstance(given, str) and is_trec_eval_name(given.strip()):
            name, dot, text = given.strip().partition(".")
            if dot:
                if not text:
                    raise ConfigError(f"measure {given!r}: nothing after the '.' (trec_eval: improper measure)")
                parameters.setdefault(name, text)
            marked.update(NICKNAMES.get(name, (name,)))
            continue
        metric = REGISTRY.parse(given, default_k=default_k, defaults={"rel": rel_level})
        if metric not in others:
            others.append(metric)
    values = [
        value
        for measure in MEASURES
        if measure.name in marked
        for value in _values(measure, parameters.get(measure.name), rel_level)
    ]
    return TrecEvalSelection(tuple(values), tuple(others))


def expand(text: str, *, rel_level: int = 1) -> list[tuple[str, Metric]]:
    """The registry metrics a trec_eval name or nickname means, each under the name it goes by.

    ``P`` is P at trec_eval's 9 cutoffs (``P_5``, ..., ``P_1000``), ``P.5,10`` at 5 and 10,
    ``official`` and ``all_trec`` its sets, in trec_eval's order; a name that means one metric
    goes by ``text`` as written (``ndcg_cut.10``), several by trec_eval's printed names. The
    values without a registry metric (runid, num_q, relstring) are left out.
    """
    values = [value for value in select([text], rel_level=rel_level).values if value.metric is not None]
    if len(values) == 1:
        return [(text.strip(), values[0].metric)]
    return [(value.name, value.metric) for value in values]


def listing() -> list[dict[str, object]]:
    """trec_eval's table as rows: measure, default parameters, the registry metrics of its values, nicknames."""
    rows = []
    for measure in MEASURES:
        try:
            metrics = [str(value.metric) for value in _values(measure, None, 1) if value.metric is not None]
        except ConfigError:
            metrics = []
        rows.append({
            "measure": measure.name,
            "defaults": list(measure.defaults),
            "metrics": metrics,
            "nicknames": [nickname for nickname, names in NICKNAMES.items() if measure.name in names],
        })
    return rows


def _values(measure: TrecEvalMeasure, text: str | None, rel_level: int) -> list[TrecEvalValue]:
    """The values of one measure, its parameters given as ``text`` (None: its defaults)."""
    try:
        if measure.name in ("runid", "num_q"):
            return [TrecEvalValue(measure.name, measure)]
        if measure.params == NONE:
            return [TrecEvalValue(measure.name, measure, _metric(measure.metric(None), rel_level))]
        if measure.params == CUTOFFS:
            cutoffs = _distinct(sorted(_c_long(item) for item in _items(text, measure.defaults)))
            if cutoffs[0] <= 0:
                raise ConfigError(f"cutoffs must be positive (trec_eval: Negative cutoff detected), got {cutoffs[0]}")
            return [TrecEvalValue(f"{measure.name}_{k}", measure, _metric(measure.metric(k), rel_level)) for k in cutoffs]
        if measure.params == LEVELS:
            levels = _distinct(sorted(_c_double(item) for item in _items(text, measure.defaults)))
            return [
                TrecEvalValue(_level_name(measure.name, level), measure, _metric(measure.metric(level), rel_level))
                for level in levels
            ]
        name = measure.name if text is None else f"{measure.name}_{text}"
        if measure.params == NUMBERS:
            numbers = None if text is None else [_c_double(item) for item in text.split(",")]
            if measure.name == "relstring":
                # trec_eval casts the double to long: 20.7 characters are 20.
                return [TrecEvalValue(name, measure, None, max(int(numbers[0]) if numbers else 10, 0))]
            return [TrecEvalValue(name, measure, _metric(measure.metric(numbers), rel_level))]
        pairs = None if text is None else _pairs(text)
        return [TrecEvalValue(name, measure, _metric(measure.metric(pairs), rel_level))]
    except ConfigError as error:
        shown = measure.name if text is None else f"{measure.name}.{text}"
        raise ConfigError(f"measure {shown!r}: {error}") from None


def _metric(name: str, rel_level: int) -> Metric:
    return REGISTRY.parse(name, defaults={"rel": rel_level})


def _items(text: str | None, defaults: Sequence[str]) -> list[str]:
    return list(defaults) if text is None else text.split(",")


def _distinct(values: list) -> list:
    for before, after in zip(values, values[1:]):
        if before == after:
            raise ConfigError(f"{before} is given twice (trec_eval: duplicate cutoffs detected)")
    return values


def _level_name(name: str, level: float) -> str:
    """``name_%3.2f`` in a buffer of strlen(name) + 10 bytes, as trec_eval's append_double cuts it."""
    return f"{name}_{level:3.2f}"[: len(name) + 9]


def _pairs(text: str) -> list[tuple[str, float]]:
    """``name=value,name=value`` as trec_eval's get_param_pairs reads it."""
    pairs = []
    for item in text.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key or "=" in value:
            raise ConfigError(f"malformed pair parameters in {text!r}: write name=value,name=value")
        pairs.append((key, _c_double(value)))
    return pairs


_C_LONG = re.compile(r"^[ \t\n\v\f\r]*([+-]?\d+)")
_C_DOUBLE = re.compile(r"^[ \t\n\v\f\r]*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def _c_long(text: str) -> int:
    """The number C's ``atol`` reads at the start of ``text`` (``23.4`` is 23); text without one is an error."""
    match = _C_LONG.match(text)
    if match is None:
        raise ConfigError(f"{text!r} is not a number")
    return int(match[1])


def _c_double(text: str) -> float:
    """The number C's ``atof`` reads at the start of ``text``; text without one is an error (atof gives 0)."""
    match = _C_DOUBLE.match(text)
    if match is None:
        raise ConfigError(f"{text!r} is not a number")
    return float(match[1])
