"""Hypothesis strategies for the differential tests: TREC qrels and runs, and trec_eval command lines.

A collection is a few queries, each judged, retrieved or both: ids that sort differently as
strings and as numbers ("9" < "10" as numbers only) and by case ("B" < "a"), graded labels from
-2 to 10, tied scores (also written differently: "1" and "1.0", "0" and "-0"), infinite,
huge and subnormal scores, documents judged but not retrieved and retrieved but not judged, a
query judged with label 0 or below only, tabs or runs of blanks between fields, other values in
the fields trec_eval never reads, text after the run tag, now and then a document twice
in one query (an error for trec_eval only in a query it evaluates), and now and then one query
retrieving about a thousand documents. Every query that is judged has a label >= 0: trec_eval 10 has no
defined answer otherwise (form_res_rels.c sizes an array by the largest label + 1: it fails on the
first such query and writes out of bounds on a later one).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from tests.trec_eval.measures import ALL, COLLECTION_SIZES, LEVELS, MAX_DOCS

QUERY_IDS = ("1", "2", "9", "10", "11", "100", "301", "-1", "a", "B", "q-1", "Q_2", "é")
DOC_IDS = ("d1", "d2", "d9", "d10", "d100", "9", "10", "A", "a", "D3", "a#b", "doc-7", "x.1", "é")
# Labels above 9 print as '>' in relstring.
LABELS = (-2, -1, 0, 1, 2, 3, 4, 10)
# Score texts: equal values written differently (1 and 1.0, 0 and -0), negative, fractional,
# exponent forms, infinities, the largest and a subnormal double.
SCORES = ("0", "-0", "1", "1.0", "1", "2", "0.5", "-1", "-0.25", "3.25", "1e-3", "10", "1e2", "0.1", "inf", "-inf",
          "1e308", "1e-320")
RUN_TAG = "run.1"
DEEP = 1000


@dataclass(frozen=True)
class Query:
    """One query's judged documents ``(doc, label)`` and retrieved documents ``(doc, score text)``."""

    query_id: str
    judged: tuple[tuple[str, int], ...]
    retrieved: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Collection:
    """Queries, the seed of a deep first query (or None) and of the line order: small to print, files on demand."""

    queries: tuple[Query, ...]
    deep_seed: int | None = None
    order_seed: int = 0
    shuffle_qrels: bool = False
    trailing_text: bool = False  # text after the run tag, which trec_eval ignores
    separator: str = " "  # between fields: any run of blanks and tabs
    unused: tuple[str, str] = ("0", "Q0")  # the qrels' second field and the run's second, never read

    def lines(self) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, str]]]:
        qrels, run = [], []
        for index, query in enumerate(self.queries):
            judged, retrieved = query.judged, query.retrieved
            if self.deep_seed is not None and index == 0:
                judged, retrieved = _deep_query(self.deep_seed, judged=bool(judged), retrieved=bool(retrieved))
            qrels += [(query.query_id, doc, label) for doc, label in judged]
            run += [(query.query_id, doc, score) for doc, score in retrieved]
        order = random.Random(self.order_seed)
        if self.shuffle_qrels:
            order.shuffle(qrels)
        order.shuffle(run)
        return qrels, run

    def write(self, directory: Path) -> tuple[Path, Path]:
        qrels_lines, run_lines = self.lines()
        qrels, run = directory / "qrels", directory / "run"
        tail = " and more text" if self.trailing_text else ""
        iteration, q0 = self.unused
        qrels.write_text("".join(self.separator.join((q, iteration, d, str(label))) + "\n" for q, d, label in qrels_lines),
                         encoding="utf-8")
        # The rank column is ignored by trec_eval (it sorts by score): write it out of order.
        run.write_text("".join(self.separator.join((q, q0, d, str(len(run_lines) - i), s, RUN_TAG)) + tail + "\n"
                               for i, (q, d, s) in enumerate(run_lines)), encoding="utf-8")
        return qrels, run


@st.composite
def judgments(draw, docs: st.SearchStrategy[str]) -> list[tuple[str, int]]:
    """A query's judged documents (distinct), at least one of them labelled >= 0."""
    judged = draw(st.lists(st.tuples(docs, st.sampled_from(LABELS)), min_size=1, max_size=8, unique_by=lambda j: j[0]))
    if max(label for _, label in judged) < 0:
        judged[0] = (judged[0][0], draw(st.sampled_from([label for label in LABELS if label >= 0])))
    return judged


def _deep_query(seed: int, *, judged: bool, retrieved: bool):
    """About a thousand retrieved documents with many tied scores, 60 of them judged, 20 judged and not retrieved."""
    rng = random.Random(seed)
    ranking = [(f"deep{i}", str(rng.randrange(300) / 4)) for i in range(DEEP - rng.randrange(5))]
    labels = [(f"deep{i}", rng.choice(LABELS)) for i in rng.sample(range(DEEP), 60)]
    labels += [(f"unretrieved{i}", rng.choice(LABELS)) for i in range(20)]
    labels.append(("deep0", 2))
    return (tuple({doc: label for doc, label in labels}.items()) if judged else (),
            tuple(ranking) if retrieved else ())


@st.composite
def collections(draw) -> Collection:
    ids = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=6, unique=True))
    # Most queries on both sides; some judged only (trec_eval: status 4 without -c), some retrieved only.
    sides = [draw(st.sampled_from(("both", "both", "both", "judged", "retrieved"))) for _ in ids]
    sides[0] = "both"  # at least one query in common, or trec_eval has nothing to average
    docs = st.sampled_from(DOC_IDS)
    queries = []
    for query_id, side in zip(ids, sides):
        judged = draw(judgments(docs)) if side != "retrieved" else []
        retrieved = (draw(st.lists(st.tuples(docs, st.sampled_from(SCORES)), min_size=1, max_size=10, unique_by=lambda r: r[0]))
                     if side != "judged" else [])
        if draw(st.integers(0, 9)) == 9:  # now and then a document twice (trec_eval: status 4 if it evaluates the query)
            if retrieved and draw(st.booleans()):
                retrieved.append((retrieved[0][0], draw(st.sampled_from(SCORES))))
            elif judged:
                judged.append((judged[0][0], draw(st.sampled_from(LABELS))))
        queries.append(Query(query_id, tuple(judged), tuple(retrieved)))
    deep_seed = draw(st.integers(0, 2**16)) if draw(st.integers(0, 4)) == 4 else None
    return Collection(tuple(queries), deep_seed, draw(st.integers(0, 2**16)), draw(st.booleans()), draw(st.booleans()),
                      draw(st.sampled_from((" ", "\t", "  \t "))), draw(st.sampled_from((("0", "Q0"), ("Q0", "0"), ("7", "x")))))


#: dcg, ideal_dcg and ndcg share one parameter block in trec_eval (m_ndcg.c's default_ndcg_gains):
#: with a gain map given to one of them and another of them measured, trec_eval aborts (a double
#: free, status 134 or 139) or gives the other the same map (``-m all_trec -m dcg.1=3`` prints
#: ``ndcg_1=3``). No defined answer: not drawn.
SHARED_GAINS = ("dcg", "ideal_dcg", "ndcg")


def trec_eval_defines(measures: list[str]) -> bool:
    """trec_eval has a defined answer for these ``-m`` values (see SHARED_GAINS)."""
    names = {measure.split(".", 1)[0] for measure in measures} | ({"ndcg"} if "all_trec" in measures else set())
    mapped = any("." in measure and measure.split(".", 1)[0] in SHARED_GAINS for measure in measures)
    return not (mapped and len(names & set(SHARED_GAINS)) > 1)


@st.composite
def measure_options(draw, given: tuple[str, ...] = ()) -> list[str]:
    """No -m (trec_eval's official set), or one to three ``-m`` values (measures, groups, nicknames; repeats too)."""
    chosen = draw(st.one_of(st.just([]), st.lists(st.sampled_from(ALL), min_size=1, max_size=3))
                  .filter(lambda measures: trec_eval_defines([*given, *measures])))
    return [argument for measure in chosen for argument in ("-m", measure)]


@st.composite
def command_options(draw, given: tuple[str, ...] = ()) -> list[str]:
    """trec_eval options (-q, -c, -n, -J, -l N, -M N, -N N, -m ...) in a random order; ``given``: -m values the caller adds."""
    groups = [[flag] for flag in ("-q", "-c", "-n", "-J") if draw(st.booleans())]
    for flag, values in (("-l", LEVELS), ("-M", MAX_DOCS), ("-N", COLLECTION_SIZES)):
        value = draw(st.one_of(st.none(), st.sampled_from(values)))
        if value is not None:
            groups.append([flag, str(value)])
    measures = draw(measure_options(given))
    groups += [measures[i:i + 2] for i in range(0, len(measures), 2)]
    return [argument for group in draw(st.permutations(groups)) for argument in group]
