"""Plain-Python oracles of the ranked-gains family's measures that ranx lacks: NCG@k (TREC Deep Learning's)."""

from __future__ import annotations


def trec_ranking(run: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, equal scores by descending document id (bytes)."""
    return sorted(run, key=lambda doc: (-run[doc], tuple(-b for b in doc.encode())  + (1,)))


def ncg_at_k(qrels: dict[str, int], run: dict[str, float], k: int, rel: int) -> float:
    """sum of the gains of the top k over that of the best k judged labels; gain = label when >= rel, else 0."""
    def gain(label: int) -> float:
        return float(label) if label >= rel else 0.0

    ranking = trec_ranking(run)[:k]
    gained = sum(gain(qrels.get(doc, 0)) for doc in ranking)
    possible = sum(gain(label) for label in sorted(qrels.values(), reverse=True)[:k])
    return gained / possible if possible > 0 else 0.0
