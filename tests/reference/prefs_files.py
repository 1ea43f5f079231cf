"""trec_eval's text files for the preference oracle: judgments and runs read as trec_eval reads them, values printed as it prints them.

Standard library only. Judgments: ``qid jg jsg docno rel_level`` (``-R prefs``) or ``qid jg docno
rel_level`` (``-R qrels_prefs``, subgroup ``"0"``); a line starting with ``#`` is a comment. Runs:
``qid Q0 docno rank score run_id``, every line a result. Values: ``%-22s\\t%s\\t%6.4f`` (``%ld`` for the
counts), trec_eval's ``-q`` lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tests.reference.prefs import COUNTS, MEASURES, Judgment, Retrieved


def parse_judgments(text: str, *, subgroups: bool = True) -> dict[str, list[Judgment]]:
    """``{qid: [(group, subgroup, docno, level)]}`` of a prefs (``subgroups``) or qrels_prefs file."""
    out: dict[str, list[Judgment]] = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.split():
            continue
        fields = line.split()
        if subgroups:
            qid, group, subgroup, docno, level = fields
        else:
            (qid, group, docno, level), subgroup = fields, "0"
        out.setdefault(qid, []).append((group, subgroup, docno, float(level)))
    return out


def parse_run(text: str) -> dict[str, list[Retrieved]]:
    """``{qid: [(docno, score)]}`` of a TREC run file."""
    out: dict[str, list[Retrieved]] = {}
    for line in text.splitlines():
        fields = line.split()
        if fields:
            out.setdefault(fields[0], []).append((fields[2], float(fields[4])))
    return out


def judgment_lines(judgments: Mapping[str, Sequence[Judgment]]) -> str:
    """A prefs file holding ``judgments``."""
    return "".join(f"{q} {g} {s} {d} {level!r}\n" for q, rows in judgments.items() for g, s, d, level in rows)


def run_lines(run: Mapping[str, Sequence[Retrieved]]) -> str:
    """A TREC run file holding ``run`` (ranks as listed; trec_eval ignores them)."""
    return "".join(
        f"{q} Q0 {d} {i + 1} {score!r} run\n" for q, rows in run.items() for i, (d, score) in enumerate(rows)
    )


def value_line(measure: str, qid: str, value: float) -> str:
    """One ``-q`` line as trec_eval prints it."""
    if measure in COUNTS:
        return f"{measure:<22}\t{qid}\t{int(value)}"
    return f"{measure:<22}\t{qid}\t{value:6.4f}"


def per_query_lines(values: Mapping[str, Mapping[str, float]], measures: Iterable[str] = MEASURES) -> list[str]:
    """trec_eval's ``-q`` lines of ``{qid: {measure: value}}``, queries in the order given, measures in trec_eval's."""
    wanted = list(measures)
    return [value_line(m, qid, row[m]) for qid, row in values.items() for m in MEASURES if m in wanted]
