"""The trec_eval measures and option values the differential tests draw from: the one list of what they cover.

Names and parameters are written as trec_eval 10's ``-m`` takes them (``trec_eval -h -m all_trec``
documents each). A measure missing here is not tested against the binary.
"""

from __future__ import annotations

#: Every measure of trec_eval 10 over standard qrels and results, as ``-m NAME`` (default
#: parameters), in trec_eval's table order (``te_trec_measures`` in measures.c). The preference
#: and judgment-group measures need other input formats and are not drawn here.
MEASURES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
    "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "yaap", "rbp",
    "rbp_resid", "unj",
)

#: Measures with parameters of their own, as ``-m NAME.PARAMS``: cutoff lists (one beyond any
#: run, one not a whole number, as trec_eval's own test has), recall levels, multiples of R,
#: utility's four coefficients, 11pt_avg's levels, gain maps (a gain for level 0, a negative one),
#: set_F's beta, rbp's persistence and relstring's length.
WITH_PARAMETERS = (
    "P.5,10", "P.1,3,7", "P.2000", "recall.2,20", "recall.20,2000", "iprec_at_recall.0.15,0.5,1",
    "Rprec_mult.0.5,1.5", "Rprec_mult.5.0,0.2,0.35", "utility.2,-1,0,0", "utility.1,-1,-0.5,0.01",
    "11pt_avg.0.2,0.5,0.8", "ndcg.1=3,2=9,4=4.5", "ndcg.0=1,2=-1", "G.1=2,3=0.5", "ndcg_rel.2=5", "Rndcg.1=0.5",
    "ndcg_cut.3,10", "ndcg_cut.10,20,23.4", "map_cut.2,100", "relative_P.3,4", "success.1,2", "set_F.0.5",
    "set_F.2", "rbp.p=0.5", "rbp_resid.p=0.95", "rbp.p=0.8,2=3", "unj.1,3", "relstring.5",
)

#: trec_eval's named sets of measures over standard qrels (``te_trec_measure_nicknames``).
NICKNAMES = ("official", "all_trec", "set")

#: Every ``-m`` value the tests draw.
ALL = (*MEASURES, *WITH_PARAMETERS, *NICKNAMES)

#: Relevance levels for ``-l`` (0 makes a label-0 judgment relevant; labels go up to 10).
LEVELS = (0, 1, 2, 3, 4)
#: ``-M``: at most this many documents per query (1 keeps only the top document, 0 none: every
#: ranking empty, as trec_eval takes it).
MAX_DOCS = (0, 1, 2, 3, 5, 10, 1000)
#: ``-N``: documents in the collection (fewer than some runs retrieve, and many more; 0 is
#: trec_eval's default, what it uses without -N).
COLLECTION_SIZES = (0, 5, 100, 100000)
