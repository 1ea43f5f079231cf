"""numba kernels: pure functions over numpy arrays (no pandas, no strings, no Python objects).

Every kernel is made with the flags of :mod:`retrieval_eval.kernels._config`, which also decides
whether a call runs the kernel as Python or compiled (importing numba only then). Importing this
package, or any of its modules, does not import numba.

By domain: ``core/`` (ids, grouping, the judgment index, the joins, the document-retrieval
metrics, numpy building blocks), ``trec/`` (trec_eval's measures), ``fusion/`` (rank fusion),
``text/`` (text bytes: search, answer tokens, JSON nesting).
"""

from ._config import check_numba_environment, compile_notices
from .ahead_of_time import compile_all

__all__ = ["check_numba_environment", "compile_all", "compile_notices"]
