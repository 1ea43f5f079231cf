"""The columns of the TREC pass kernels' outputs (``scalars`` and the rows of ``at_k``): the numba and numpy builds share them."""

# Columns of the measures without a cutoff.
NDCG = 0
NDCG_BURGES = 1
MAP = 2
RECIP_RANK = 3
RPREC = 4
BPREF = 5
INFAP = 6
NUM_RET = 7
NUM_REL = 8
NUM_REL_RET = 9
NUM_NONREL_JUDGED_RET = 10
YAAP = 11
BING = 12
# The documents the measures saw: num_ret, or the stand-in ranking's length for a query the run lacks.
LENGTH = 13
N_SCALARS = 14

# Rows of the measures at each cutoff.
NDCG_AT = 0
NDCG_BURGES_AT = 1
MAP_AT = 2
PRECISION_AT = 3
RECALL_AT = 4
RECIP_RANK_AT = 5
SUCCESS_AT = 6
JUDGED_AT = 7
F1_AT = 8
RELATIVE_PRECISION_AT = 9
UNJUDGED_AT = 10
N_AT_K = 11

INFAP_EPSILON = 0.00001
