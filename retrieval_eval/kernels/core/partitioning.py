"""Hash partitioning of rows by query key, for scoring a run too big for memory bucket by bucket."""

from __future__ import annotations

import numpy as np

from .._config import jit, read_only

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


# Serial only: a few nanoseconds per key, next to reading and writing the rows it routes.
@jit(example=lambda: (read_only([1, 2], np.uint64), 4, 0))
def bucket_of_keys(keys: np.ndarray, n_buckets: int, salt: int) -> np.ndarray:
    """The bucket in ``[0, n_buckets)`` of each 64-bit key: ``splitmix64(key + (salt + 1) * φ) mod n_buckets``.

    Equal keys always share a bucket. The finalizer spreads keys that differ in few bits (FNV
    hashes of similar ids, consecutive integers) evenly; a different ``salt`` gives an
    independent split, for a bucket that has to be split again.
    """
    n = keys.shape[0]
    out = np.empty(n, dtype=np.int64)
    offset = np.uint64(salt + 1) * _GOLDEN
    buckets = np.uint64(n_buckets)
    for i in range(n):
        z = keys[i] + offset
        z = (z ^ (z >> np.uint64(30))) * _MIX_1
        z = (z ^ (z >> np.uint64(27))) * _MIX_2
        z = z ^ (z >> np.uint64(31))
        out[i] = np.int64(z % buckets)
    return out
