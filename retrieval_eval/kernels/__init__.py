"""numba kernels: pure functions over numpy arrays (no pandas, no strings, no Python objects).

Every kernel is compiled with the flags of :mod:`retrieval_eval.kernels._config`.
"""
