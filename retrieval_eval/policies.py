"""The named policies of an evaluation and their choices: one vocabulary for the API, the CLI and the data layer.

A leaf like :mod:`retrieval_eval.errors`: it imports nothing, so the command line can list the
choices without loading the numerical stack.
"""

#: Which queries are evaluated: every judged one (a query the run lacks retrieved nothing;
#: trec_eval's ``-c``), those both judged and retrieved (trec_eval's default), or all of both.
QUERY_SETS = ("qrels", "both", "union")
#: The query sets that evaluate judged queries the run lacks (as retrieving nothing).
SETS_WITH_JUDGED_ONLY = ("qrels", "union")
#: How equal scores are ordered: descending document id (trec_eval), input order (azure-ai-evaluation),
#: or ranx's order (a ``ranx.Run`` sorts each query's documents, in first-occurrence order, with
#: an unstable quicksort: numba's, or numpy's under ``NUMBA_DISABLE_JIT``; see
#: retrieval_eval.kernels.core.ranx_ties).
TIE_ORDERS = ("docid", "input", "ranx")
#: The tie policy that orders no ties: each measure is its mean over every ordering of tied scores
#: (an expected value in closed form; see retrieval_eval.metrics.tie_average).
TIE_AVERAGE = "average"
#: Every tie policy of an evaluation: a tie order, or the average over all of them.
TIE_POLICIES = (*TIE_ORDERS, TIE_AVERAGE)
#: Which row counts when a document is repeated within a query: the last, the first, the one
#: with the highest score or label, or none (an error naming the first repeated row).
DUPLICATE_POLICIES = ("last", "first", "max", "raise")
#: How the judgments file is laid out (trec_eval's ``-R``): ``qrels`` (qid, ignored, docno, label),
#: ``qrels_jg`` (qid, judgment group, docno, label), ``qrels_prefs`` (the qrels_jg layout read as
#: preferences within each group) and ``prefs`` (qid, group, subgroup, docno, label).
JUDGMENT_FORMATS = ("qrels", "qrels_jg", "qrels_prefs", "prefs")
#: How a sweep lines up the runs' queries: those every run was scored on, or all of them with 0
#: where a run has none.
QUERY_POLICIES = ("intersection", "zero")
#: The tie orders a pool ranks by (ranx's order needs ranx's Run of each run; refused rather than guessed).
POOL_TIES = ("docid", "input")
#: Which label a merge of two judgment files keeps where both judge a document differently:
#: none (an error listing the conflicts), the new file's, the old file's, the larger.
MERGE_POLICIES = ("raise", "new", "old", "max")
#: How the judge cache is used: read and write, replay only (send nothing), refresh (ask again, overwrite).
CACHE_MODES = ("read-write", "replay", "refresh")
#: PartialMatch's ways of comparing a response with the expected text (see retrieval_eval.executions.text_match).
PARTIAL_MATCH_MODES = ("token_f1", "upstream_v1")
