"""trec_eval's relstring: each query's top documents as a string of relevance characters (not a number).

trec_eval prints it per query only (``relstring  301  '1-0..'``); see
:mod:`retrieval_eval.kernels.trec.trec_relstring` for the characters. This is the text of one query's
line, for the trec_eval output layer to print.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ...kernels.trec.trec_relstring import relevance_string_bytes

if TYPE_CHECKING:
    from ...data import Qrels, Run
    from ...data.join import QueryAlignment
    from ...metrics.options import EvaluationOptions


def relevance_strings(
    qrels: Qrels,
    run: Run,
    alignment: QueryAlignment,
    options: EvaluationOptions,
    length: int = 10,
    *,
    length_given: bool = False,
) -> list[str]:
    """trec_eval's relstring of each query of ``alignment``: the relevance of its first ``length`` documents.

    Ranking, ``max_docs`` (``-M``) and ``judged_only`` (``-J``) are trec_eval's, as for the TREC
    measures; a length below 0 gives empty strings. A judged query the run lacks (``-c``) is
    scored against trec_eval's stand-in document, which is not in the pool: its string is ``'-'``
    when ``length_given`` (trec_eval prints ``relstring_N`` and keeps it), else empty (trec_eval
    clears ``relstring``'s), and empty under ``-J``.

    Examples
    --------
    >>> relevance_strings(qrels, run, align_queries(qrels, run), options, 5)  # doctest: +SKIP
    ['10-.0', '--1']
    """
    from ...data import rank_judged

    ranked = rank_judged(qrels, run, duplicates=options.run_duplicates or "raise", ties=options.ties or "docid")
    if options.judged_only:
        ranked = ranked.judged_only(options.max_docs)
    depth = np.iinfo(np.int64).max if options.max_docs is None else options.max_docs
    offsets, data = relevance_string_bytes(
        alignment.run_query, ranked.offsets, ranked.n_found, ranked.ranks, ranked.labels, ranked.n_ranked,
        depth, int(length_given and not options.judged_only and depth > 0), length,
    )
    texts = pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    return texts.to_pylist()
