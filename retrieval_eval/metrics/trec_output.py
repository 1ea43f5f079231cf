"""trec_eval's three-column output (``measure<TAB>query<TAB>value``), for scripts that parse it.

Names are trec_eval's where it has the measure (``P_10``, ``ndcg_cut_10``, ``Rprec``), else our
canonical names (``judged@10``); a metric with a relevance level of its own keeps its canonical
name, since trec_eval sets one level for the whole run. Values print as trec_eval prints them:
``%6.4f`` for measures, whole numbers for counts. Per-query lines come first, queries in byte
order of their ids as trec_eval sorts them; then the ``all`` lines: ``runid``, ``num_q``, and
each measure's mean over queries (its sum for the counts num_ret, num_rel and num_rel_ret).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .names import Metric
from .registry import REGISTRY
from .result import EvaluationResult


def trec_name(metric: Metric) -> str:
    """The name trec_eval prints for ``metric``, or its canonical name when trec_eval has none."""
    definition = REGISTRY.definition(metric)
    if definition.trec_name is None or metric.params:
        return str(metric)
    return definition.trec_name.replace("{k}", str(metric.k))


def trec_lines(result: EvaluationResult, metrics: Sequence[Metric], *, per_query: bool = False) -> list[str]:
    """The lines trec_eval would print for ``metrics`` (``-q``: with per-query lines)."""
    table = result.per_query
    lines: list[str] = []
    if per_query:
        ids = table["query_id"].astype(str)
        order = sorted(range(len(ids)), key=lambda i: ids.iloc[i].encode("utf-8"))
        for row in order:
            for metric in metrics:
                lines.append(_line(metric, ids.iloc[row], table[str(metric)].iloc[row]))
    lines.append(f"{'runid':<22}\tall\t{result.run}")
    lines.append(f"{'num_q':<22}\tall\t{len(table)}")
    for metric in metrics:
        if REGISTRY.definition(metric).summed:
            lines.append(_line(metric, "all", table[str(metric)].to_numpy(dtype=np.float64).sum(), whole=True))
        else:
            lines.append(_line(metric, "all", result.summary.loc[str(metric), "mean"], whole=False))
    return lines


def _line(metric: Metric, query: str, value: float, *, whole: bool | None = None) -> str:
    if whole is None:
        whole = REGISTRY.definition(metric).integer
    shown = f"{int(value)}" if whole else f"{value:6.4f}"
    return f"{trec_name(metric):<22}\t{query}\t{shown}"
