"""Plain-Python oracles of judgment groups, written from trec_eval 10's C (get_qrels_jg.c, form_res_rels_jg.c,
m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c), one query at a time, without numpy."""

from __future__ import annotations

RELVALUE_NONPOOL = -1  # trec_eval: a retrieved document the group does not judge
RELVALUE_UNJUDGED = -2  # trec_eval: judged with a negative label (in the pool, not judged)


def segments(rows, policy="last"):
    """{query: [(group, subgroup, {doc: label})]}, groups in byte order of the names, as trec_eval sorts them.

    ``rows``: (query, group, subgroup, doc, label). ``policy``: which label a document repeated within
    one (query, group, subgroup) keeps.
    """
    out = {}
    for query, group, subgroup, doc, label in rows:
        per_query = out.setdefault(query, {})
        docs = per_query.setdefault((group.encode(), subgroup.encode()), {})
        if doc not in docs or policy == "last" or (policy == "max" and label > docs[doc]):
            docs[doc] = label
    return {
        query: [(g.decode(), s.decode(), docs) for (g, s), docs in sorted(per_query.items())]
        for query, per_query in out.items()
    }


def trec_ranking(run_docs):
    """Documents of one query in trec_eval's order: score descending, then docno descending (bytes)."""
    return [doc for doc, _ in sorted(run_docs, key=lambda item: (-item[1], _Descending(item[0])))]


class _Descending:
    def __init__(self, doc):
        self.key = doc.encode() if isinstance(doc, str) else doc

    def __lt__(self, other):
        return self.key > other.key

    def __eq__(self, other):
        return self.key == other.key


def group_lists(ranking, judged, *, rel_level=1, max_docs=None, judged_only=False):
    """form_res_rels_jg.c for one group: (rel list in rank order, num_rel, num_rel_ret, num_ret)."""
    if max_docs is not None:
        ranking = ranking[:max_docs]
    rels = []
    for doc in ranking:
        if doc not in judged:
            rels.append(RELVALUE_NONPOOL)
        elif judged[doc] < 0:
            rels.append(RELVALUE_UNJUDGED)
        else:
            rels.append(judged[doc])
    if judged_only:
        rels = [rel for rel in rels if rel >= 0]
    num_rel = sum(1 for label in judged.values() if label >= 0 and label >= rel_level)
    num_rel_ret = sum(1 for rel in rels if rel >= rel_level)
    return rels, num_rel, num_rel_ret, len(rels)


def map_avgjg(groups, rel_level=1):
    """m_map_avgjg.c; ``groups``: group_lists() of each group of the query, in group order."""
    value = 0.0
    for rels, num_rel, _, _ in groups:
        rel_so_far, total = 0, 0.0
        for i, rel in enumerate(rels):
            if rel >= rel_level:
                rel_so_far += 1
                total += rel_so_far / (i + 1)
        if rel_so_far:
            value += total / num_rel
    return value / len(groups) if len(groups) > 1 else value


def p_avgjg(groups, cutoff, rel_level=1):
    """m_P_avgjg.c at one cutoff."""
    value = 0.0
    for rels, _, _, _ in groups:
        # C divides doubles: a cutoff past 2^53 is rounded to one first.
        value += float(sum(1 for rel in rels[:cutoff] if rel >= rel_level)) / float(cutoff)
    return value / len(groups) if len(groups) > 1 else value


def rprec_mult_avgjg(groups, mult, rel_level=1):
    """m_Rprec_mult_avgjg.c at one multiple of R, by its loop (from the last retrieved document up)."""
    value = 0.0
    for rels, num_rel, num_rel_ret, num_ret in groups:
        cutoff = int(mult * num_rel + 0.9)
        if cutoff > num_ret:
            value += num_rel_ret / cutoff
            continue
        rel_so_far = num_rel_ret
        for i in range(num_ret, 0, -1):
            if rel_so_far <= 0:
                break
            if i == cutoff:
                value += rel_so_far / i
            if rels[i - 1] >= rel_level:
                rel_so_far -= 1
    return value / len(groups) if len(groups) > 1 else value
