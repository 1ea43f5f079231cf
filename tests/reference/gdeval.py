"""Plain-Python oracle for gdeval.pl 1.3's output (the TREC Web track's nDCG@k, ERR@k, amean and URisk).

A transcription of gdeval.pl 1.3's loops, standard library only, independent of the
``retrieval_eval`` package: the qrels keep judgments above 0 (``%seen``), the run is sorted by
topic number, score descending, then docno descending in byte order (``runOrder``), each
topic's gains are walked rank by rank (``dcg``, ``err``), ``riskWeighted`` gives URisk against
the baseline's values, and ``processRun``'s ``-c`` loop over the topics the run lacks keeps the
previous topic's baseline value where the baseline has none (its variables are declared once,
outside the loop). The 1.2a copy that ir_measures ships prints the same per-topic lines
without the amean line (it divides by ln(i + 2), 1.3 by log2: equal to 5 decimals).

Inputs: qrels as ``(topic, docno, label)``, runs as ``(topic, docno, score, runid)`` in file
order, topics as digit strings.
"""

from __future__ import annotations

import functools
import math

MAX_JUDGMENT = 4


def _dcg(k: int, gains: list[int]) -> float:
    score = 0.0
    for i, gain in enumerate(gains[:k]):
        score += (2**gain - 1) / (math.log(i + 2) / math.log(2.0))
    return score


def _err(k: int, gains: list[int]) -> float:
    score, decay = 0.0, 1.0
    for i, gain in enumerate(gains[:k]):
        r = (2**gain - 1) / (2**MAX_JUDGMENT)
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


def _run_order(a: tuple, b: tuple) -> int:
    (topic_a, doc_a, score_a), (topic_b, doc_b, score_b) = a, b
    if int(topic_a) != int(topic_b):
        return -1 if int(topic_a) < int(topic_b) else 1
    if score_a != score_b:
        return 1 if score_a < score_b else -1
    bytes_a, bytes_b = doc_a.encode(), doc_b.encode()
    return (bytes_a < bytes_b) - (bytes_a > bytes_b)


def _risk(run: float, base: float, alpha: float) -> float:
    return (1 + alpha) * (run - base) if run < base else run - base


def _process(qrels, run, k, all_topics, risk=None):
    """(lines, ndcg by topic, err by topic, runid) of one run, as processRun."""
    judgment, ideal_gains = {}, {}
    for topic, doc, label in qrels:
        if label > 0:
            judgment[(topic, doc)] = label
            ideal_gains.setdefault(topic, []).append(label)
    ideal = {topic: _dcg(k, sorted(gains, reverse=True)) for topic, gains in ideal_gains.items()}
    runid = run[-1][3] if run else "?????"
    rows = sorted(((t, d, s) for t, d, s, _ in run), key=functools.cmp_to_key(_run_order))
    if risk is not None:
        base_ndcg, base_err, base_id, alpha, alpha_text = risk
        runid = f"{runid} (rel to. {base_id}, rs=1+a, a={alpha_text})"
    lines, by_ndcg, by_err, totals = [f"runid,topic,ndcg@{k},err@{k}"], {}, {}, [0.0, 0.0]
    topics = []
    for topic, doc, _ in rows:
        if not topics or topics[-1][0] != topic:
            topics.append((topic, []))
        topics[-1][1].append(judgment.get((topic, doc), 0))

    def done(topic, gains, b_ndcg, b_err):
        ndcg, err = _dcg(k, gains) / ideal[topic], _err(k, gains)
        if risk is not None:
            ndcg, err = _risk(ndcg, b_ndcg, alpha), _risk(err, b_err, alpha)
        totals[0] += ndcg
        totals[1] += err
        lines.append(f"{runid},{topic},{ndcg:.5f},{err:.5f}")
        by_ndcg[topic], by_err[topic] = ndcg, err

    for topic, gains in topics:
        if topic in ideal:
            done(topic, gains, *((base_ndcg.get(topic, 0.0), base_err.get(topic, 0.0)) if risk else (0.0, 0.0)))
    count = len(by_ndcg)
    if all_topics:
        count = len(ideal)
        if risk is not None:
            b_ndcg = b_err = 0.0
            retrieved = {topic for topic, _ in topics}
            for topic in sorted((t for t in ideal if t not in retrieved), key=int):
                if topic in base_ndcg:
                    b_ndcg, b_err = base_ndcg[topic], base_err[topic]
                done(topic, [], b_ndcg, b_err)
    means = [total / count if count else total for total in totals]
    lines.append(f"{runid},amean,{means[0]:.5f},{means[1]:.5f}")
    return lines, by_ndcg, by_err, runid


def gdeval_lines(qrels, run, *, k=20, baseline=None, alpha_text="0", all_topics=False) -> list[str]:
    """What ``gdeval.pl [-c] [-k k] [-baseline B -riskAlpha A] qrels run`` prints, line by line."""
    risk = None
    if baseline is not None:
        _, base_ndcg, base_err, base_id = _process(qrels, baseline, k, all_topics)
        risk = (base_ndcg, base_err, base_id, float(alpha_text), alpha_text)
    return _process(qrels, run, k, all_topics, risk)[0]
