"""ndeval 4.5's ``outputMeasures`` (ndeval.c), transcribed: its lines from per-topic values.

The values come from elsewhere (pyndeval, which runs ndeval.c's measure code); this is only the
printing: the header, a ``%s,%d,%.6f,...`` line per topic of the run in ascending number (0 for a
topic without judgments), and the ``amean`` line, each column's running sum in that order divided
by ``actualTopics`` (topics judged and retrieved; all judged topics under ``-c``; with a baseline,
the lines printed if more), C's 0 / 0 a NaN that glibc prints as ``-nan``. With a baseline, the
values are URisk's (``RiskBased``) over the run's and baseline's topics merged as ndeval merges them.
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
                 complete: bool, baseline: tuple[str, list[int], dict[int, dict[str, float]]] | None = None,
                 risk_alpha: str = "0") -> list[str]:
    """``values``: each judged topic of the run's ndeval values; ``judged_topics``: the qrels' topic count;
    ``baseline``: its runid, topics and values, for the risk lines (outputMeasures' merge loop)."""
    lines = [HEADER]
    rl = sorted(run_topics)
    bl = sorted(baseline[1]) if baseline else []
    base_values = baseline[2] if baseline else {}
    if baseline:
        runid = f"{runid} (rel to. {baseline[0]}; rs=1+a; a={risk_alpha})"
    a = float(risk_alpha)
    totals = [0.0] * len(MEASURES)
    i = j = num_topics = 0
    while i < len(rl) or (j < len(bl) and complete):
        zero_run, zero_base = i >= len(rl), j >= len(bl) or not baseline
        if not zero_run and not zero_base:
            if rl[i] == bl[j]:
                topic, i, j = rl[i], i + 1, j + 1
            elif rl[i] > bl[j]:
                topic, zero_run, j = bl[j], True, j + 1
                if not complete:
                    continue
            else:
                topic, zero_base, i = rl[i], True, i + 1
        elif zero_run:
            topic, j = bl[j], j + 1
        else:
            topic, i = rl[i], i + 1
        row = []
        for m in MEASURES:
            r = 0.0 if zero_run else values.get(topic, {}).get(m, 0.0)
            b = 0.0 if zero_base else base_values.get(topic, {}).get(m, 0.0)
            row.append(r - b if r >= b else (a + 1) * (r - b))
        lines.append(f"{runid},{topic}," + ",".join(_f(v) for v in row))
        totals = [total + v for total, v in zip(totals, row)]
        num_topics += 1
    actual = judged_topics if complete else len(values)
    if baseline:
        actual = max(actual, num_topics)
    means = [total / actual if actual else float("nan") for total in totals]
    lines.append(f"{runid},amean," + ",".join(_f(v) for v in means))
    return lines
