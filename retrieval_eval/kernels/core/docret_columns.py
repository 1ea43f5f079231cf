"""The columns of the document-retrieval kernels' output (one row per query): the numba and numpy builds share them."""

NDCG_EXP = 0
XDCG = 1
FIDELITY = 2
TOP1_RELEVANCE = 3
MAX_RELEVANCE = 4
HOLES = 5
HOLES_RATIO = 6
HOLES_AT_K = 7
TOTAL_RETRIEVED = 8
TOTAL_GROUND_TRUTH = 9
# 1.0 when some ranked document has a nonzero label (Azure's third branch); not a metric.
RELEVANT_RETRIEVED = 10
N_COLUMNS = 11
