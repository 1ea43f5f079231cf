"""gdeval.pl 1.3's output: the per-topic lines, the ``amean`` line and its risk-sensitive URisk, byte for byte.

gdeval prints ``runid,topic,ndcg@K,err@K``, then ``runid,topic,%.5f,%.5f`` for each topic of the
run that has a judgment above 0, in ascending topic number, then ``runid,amean,%.5f,%.5f``: the
sum of the printed values (added in that order) over the topics scored, or over every topic
with a judgment above 0 under ``-c`` (``all_topics``), the missing ones counting 0. ``runid`` is
the tag of the run's last line (``?????`` for an empty run).

Topics: gdeval drops everything up to a topic's last ``-`` (``trec2010-51`` is topic 51) and
takes only numbers; it compares them as numbers, so ``051`` and ``51`` are one topic in one
place and two in another: here they are an error.

Risk (``baseline``): each topic's value v of the run becomes URisk's v - b, or (1 + alpha)(v - b)
when v < b, b the baseline's value for the topic (0 when the baseline lacks it); the runid is
``runid (rel to. baseline-runid, rs=1+a, a=ALPHA)`` with alpha as written. Under ``-c`` the
topics the run lacks are scored 0 against the baseline and printed after the others, in
ascending number; gdeval keeps the previous such topic's baseline value for one the baseline
lacks too (its loop declares them once), and so does this.

Not checked, as trec_eval does not check them either: the run's ``Q0`` and rank fields
(gdeval.pl stops at a line whose second field is not ``Q0`` or whose rank is not a number).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ConfigError, InputError
from ..metrics.families.gdeval import DEFAULT_K
from ..metrics.names import Metric
from ..metrics.options import EvaluationOptions

#: gdeval's runid when the run has no line.
NO_RUNID = "?????"


@dataclass(frozen=True)
class TopicValues:
    """One run's gdeval values: topics (ascending number), nDCG, ERR, and whether the run retrieved for each."""

    topics: list[str]
    ndcg: np.ndarray
    err: np.ndarray
    retrieved: np.ndarray
    runid: str


def gdeval(
    qrels: Any,
    run: Any,
    *,
    k: int = DEFAULT_K,
    baseline: Any | None = None,
    risk_alpha: str = "0",
    all_topics: bool = False,
) -> list[str]:
    """The lines ``gdeval.pl [-c] [-k K] [-baseline BASELINE] [-riskAlpha A] QRELS RUN`` prints.

    ``risk_alpha``: the text of alpha (gdeval prints it as given), a number >= 0.
    """
    from ..data import Qrels

    alpha = risk_alpha_value(risk_alpha)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"k must be an integer >= 1 (gdeval's -k), got {k!r}")
    judged = _topics_of(Qrels.read(qrels))
    main = _scores(judged, run, k)
    runid = main.runid
    topics = [topic for topic, kept in zip(main.topics, main.retrieved) if kept]
    if baseline is not None:
        base = _scores(judged, baseline, k)
        runid = f"{runid} (rel to. {base.runid}, rs=1+a, a={risk_alpha})"
        ndcg, err = (_urisk(main, values, base, base_values, alpha, all_topics) for values, base_values in
                     ((main.ndcg, base.ndcg), (main.err, base.err)))
        if all_topics:  # then the judged topics the run lacks, as _urisk orders them
            topics += [topic for topic, kept in zip(main.topics, main.retrieved) if not kept]
    else:
        ndcg, err = main.ndcg[main.retrieved], main.err[main.retrieved]
    lines = [f"runid,topic,ndcg@{k},err@{k}"]
    lines += [f"{runid},{topic},{a:.5f},{b:.5f}" for topic, a, b in zip(topics, ndcg, err)]
    count = len(main.topics) if all_topics else int(main.retrieved.sum())
    # gdeval adds topic after topic, in the order printed, and divides when it scored any.
    totals = [float(np.cumsum(np.concatenate([[0.0], values]))[-1]) for values in (ndcg, err)]
    means = [total / count if count else total for total in totals]
    lines.append(f"{runid},amean,{means[0]:.5f},{means[1]:.5f}")
    return lines


def risk_alpha_value(text: str) -> float:
    """URisk's alpha from its text (as gdeval and ndeval take -riskAlpha), a number >= 0."""
    try:
        alpha = float(text)
    except (TypeError, ValueError):
        raise ConfigError(f"riskAlpha must be a number >= 0, got {text!r}") from None
    if not alpha >= 0 or "_" in text:
        raise ConfigError(f"riskAlpha must be a number >= 0, got {text!r}")
    return alpha


def _urisk(
    main: TopicValues, values: np.ndarray, base: TopicValues, base_values: np.ndarray, alpha: float, all_topics: bool
) -> np.ndarray:
    """URisk per topic (the run's topics first, then under ``all_topics`` the judged ones it lacks)."""
    found = pc.index_in(pa.array(main.topics, pa.string()), value_set=pa.array(base.topics, pa.string()))
    where = found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    known = where >= 0
    known[known] &= base.retrieved[where[known]]
    b = np.where(known, base_values[np.maximum(where, 0)], 0.0)
    missing = ~main.retrieved
    # A lacking topic the baseline lacks too takes the previous lacking topic's baseline value (0 at first).
    last_known = np.maximum.accumulate(np.where(missing & known, np.arange(len(b)), -1))
    carried = np.where(last_known >= 0, b[np.maximum(last_known, 0)], 0.0)
    b = np.where(missing & ~known, carried, b)
    risk = np.where(values < b, (1.0 + alpha) * (values - b), values - b)
    order = np.concatenate([np.flatnonzero(main.retrieved), np.flatnonzero(missing) if all_topics else []]).astype(np.int64)
    return risk[order]


def _scores(judged: Any, run: Any, k: int) -> TopicValues:
    """gdeval's nDCG@k and ERR@k of every topic with a judgment above 0, and whether ``run`` retrieved for it."""
    from ..data import Run
    from ..io.trec import trec_run_tag
    from ..metrics.evaluator import Evaluator, NoSharedQueriesWarning

    read = _topics_of(Run.read(run))
    metrics = [Metric("gdeval_ndcg", k), Metric("err", k)]
    with warnings.catch_warnings():
        # gdeval prints its lines for a run that shares no topic with the qrels, and no warning.
        warnings.simplefilter("ignore", NoSharedQueriesWarning)
        result = Evaluator(judged, metrics, options=EvaluationOptions(query_set="qrels")).evaluate(read)
    ndcg, err = result.values(metrics[0]), result.values(metrics[1])
    seen = ~np.isnan(ndcg)
    ids = result.query_ids.filter(pa.array(seen))
    _check_one_spelling(pa.concat_arrays([ids.cast(pa.string()), read.query_ids.cast(pa.string())]))
    topics = [str(topic) for topic in ids.to_pylist()]
    # Ascending number: a shorter number (leading zeros dropped) is smaller.
    order = sorted(range(len(topics)), key=lambda i: (len(topics[i].lstrip("0")), topics[i].lstrip("0")))
    retrieved = pc.is_in(ids, value_set=read.query_ids).to_numpy(zero_copy_only=False)
    tag = trec_run_tag(run) if len(read) else None
    return TopicValues(
        [topics[i] for i in order], ndcg[seen][order], err[seen][order], retrieved[order],
        NO_RUNID if not len(read) else (tag or read.name),
    )


def _topics_of(data: Any) -> Any:
    """Qrels or a run with gdeval's topics: each id up to its last ``-`` dropped, the rest a number."""
    ids = data.table["query_id"].cast(pa.string())
    topics = pc.replace_substring_regex(ids, pattern=r"^.*-", replacement="")
    numbers = pc.match_substring_regex(topics, pattern=r"^[0-9]+$")
    if not pc.all(numbers).as_py():
        row = int(np.flatnonzero(~numbers.to_numpy(zero_copy_only=False))[0])
        raise InputError(
            f"topic {ids[row].as_py()!r} is not a number (gdeval takes topics such as 51 or trec2010-51)",
            source=data.source, row=row + 1, field="query_id",
        )
    if topics.equals(ids):
        return data
    table = data.table.set_column(data.table.schema.get_field_index("query_id"), "query_id", topics)
    return type(data)(table, source=data.source, **({"name": data.name} if hasattr(data, "name") else {}))


def _check_one_spelling(topics: pa.Array) -> None:
    """Raise when two topics are one number (``051`` and ``51``): gdeval would merge them in some places only."""
    distinct = pc.unique(topics)
    numbers = pc.unique(pc.utf8_ltrim(distinct, characters="0"))
    if len(numbers) != len(distinct):
        raise InputError(
            "two topics are the same number written differently (leading zeros): gdeval compares topics as "
            "numbers in some places and as text in others; write each topic one way"
        )
