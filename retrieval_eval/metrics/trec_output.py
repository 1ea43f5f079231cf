"""trec_eval's three-column output (``measure<TAB>query<TAB>value``), for scripts that parse it.

Names are trec_eval's where it has the measure (``P_10``, ``ndcg_cut_10``, ``Rprec``), else our
canonical names (``judged@10``); a metric with a relevance level of its own keeps its canonical
name unless it is the level of the whole output (trec_eval's ``-l``). Values print as trec_eval prints them:
``%6.4f`` for measures, whole numbers for counts. Per-query lines come first, queries in byte
order of their ids as trec_eval sorts them; then the ``all`` lines: ``runid`` (the run's tag),
``num_q``, and
each measure's mean over queries (its sum for the counts num_ret, num_rel and num_rel_ret).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InputError
from .names import Metric
from .registry import REGISTRY
from .result import EvaluationResult


#: What ``trec_eval`` prints without ``-m``: its "official" measures (num_q and runid come anyway).
OFFICIAL = (
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{level / 10:.2f}" for level in range(11)),
    *(f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
)


def trec_name(metric: Metric, rel_level: int = 1) -> str:
    """The name trec_eval run with ``-l rel_level`` prints for ``metric``; else its canonical name."""
    definition = REGISTRY.definition(metric)
    takes_level = "rel" in dict(definition.params)
    params = dict(metric.params)
    if definition.trec_name is None or (takes_level and int(params.get("rel", "1")) != rel_level):
        return str(metric)
    name = definition.trec_name.replace("{k}", str(metric.k))
    if "recall" in params:
        name = name.replace("{recall}", f"{float(params['recall']):.2f}")
    return name


def trec_lines(
    result: EvaluationResult,
    metrics: Sequence[Metric],
    *,
    per_query: bool = False,
    rel_level: int = 1,
    run_id: str | None = None,
) -> list[str]:
    """The lines trec_eval would print for ``metrics`` (``-q``: with per-query lines; ``-l``: rel_level).

    ``run_id``: the ``runid`` line's value (trec_eval prints the run file's tag); default the run's name.
    """
    lines: list[str] = []
    definitions = {metric: REGISTRY.definition(metric) for metric in metrics}
    run = result.run if run_id is None else run_id
    if per_query:
        ids = [str(query_id) for query_id in result.query_ids.to_pylist()]
        _printable("query id", ids)
        # trec_eval prints geometric means (gm_map) only for all queries.
        columns = [
            (f"{trec_name(metric, rel_level):<22}", definitions[metric].integer, result.values(metric).tolist())
            for metric in metrics
            if not definitions[metric].geometric
        ]
        for row in sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8")):
            for name, whole, values in columns:
                lines.append(f"{name}\t{ids[row]}\t{_value(values[row], whole)}")
    lines.append(f"{'runid':<22}\tall\t{run}")
    lines.append(f"{'num_q':<22}\tall\t{len(result.query_ids)}")
    means = result.means
    for metric in metrics:
        if definitions[metric].aggregate == "sum":
            total, whole = result.values(metric).sum(), True
        else:
            total, whole = means[str(metric)], False
        lines.append(f"{trec_name(metric, rel_level):<22}\tall\t{_value(total, whole)}")
    return lines


def _printable(what: str, values: list[str]) -> None:
    """Refuse a value that would break the columns: trec_eval's lines are split on whitespace.

    (The run id is the last column, read to the end of the line; a path with spaces stays.)
    """
    for value in values:
        if not value or any(char.isspace() for char in value):
            raise InputError(
                f"{what} {value!r} is empty or holds whitespace, which trec_eval's output format cannot print; "
                "use the per-query table (-o) instead"
            )


def _value(value: float, whole: bool) -> str:
    """As trec_eval prints a value: whole numbers for counts, else ``%6.4f``."""
    return f"{int(value)}" if whole else f"{value:6.4f}"
