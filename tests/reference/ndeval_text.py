"""ndeval 4.5's ``outputMeasures`` (ndeval.c), transcribed: its lines from per-topic values.

The values come from elsewhere (pyndeval, which runs ndeval.c's measure code); this is only the
printing: the header, a ``%s,%d,%.6f,...`` line per topic of the run in ascending number (0 for a
topic without judgments), and the ``amean`` line, each column's running sum in that order divided
by ``actualTopics`` (topics judged and retrieved; all judged topics under ``-c``), C's 0 / 0 a NaN
that glibc prints as ``-nan``.
"""

from __future__ import annotations

HEADER = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,alpha-DCG@5,alpha-DCG@10,"
    "alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,"
    "strec@5,strec@10,strec@20"
)
#: pyndeval's names of the columns, in the header's order.
MEASURES = tuple(HEADER.split(",")[2:])


def _f(value: float) -> str:
    return "-nan" if value != value else "%.6f" % value


def ndeval_lines(runid: str, run_topics: list[int], values: dict[int, dict[str, float]], judged_topics: int,
                 complete: bool) -> list[str]:
    """``values``: each judged topic of the run's ndeval values; ``judged_topics``: the qrels' topic count."""
    lines = [HEADER]
    totals = [0.0] * len(MEASURES)
    for topic in sorted(run_topics):
        row = [values[topic][m] if topic in values else 0.0 for m in MEASURES]
        lines.append(f"{runid},{topic}," + ",".join(_f(v) for v in row))
        totals = [total + v for total, v in zip(totals, row)]
    actual = judged_topics if complete else len(values)
    means = [total / actual if actual else float("nan") for total in totals]
    lines.append(f"{runid},amean," + ",".join(_f(v) for v in means))
    return lines
