"""Means built to land exactly on a rounding boundary of trec_eval's ``%6.4f``: a 5 in the fifth decimal.

With ``n`` queries each retrieving ``k`` documents of which ``r_i`` are relevant, and exactly ``k``
relevant documents judged per query, P_k, recall_k, relative_P_k and set_P under ``-M k`` are all
``r_i / k`` for each query, and their mean is ``R / (k n)`` with ``R`` the sum of the ``r_i``. For
``k n`` in 32, 160 and 800, ``2e4 / (k n)`` is odd, so an odd ``R`` puts the exact mean on ``x.xxxx5``:
which digit prints then depends on the double that trec_eval's sum (in query id order, one double
per query, divided by ``n``) lands on, and the digit ours prints must be the same. Under ``-c`` some
of the ``n`` queries may be judged only: each adds 0 to the sum and 1 to ``n``, as trec_eval counts.
"""

from __future__ import annotations

import tempfile
from fractions import Fraction
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.trec_eval.differential import assert_same
from tests.trec_eval.strategies import Collection, Query

#: (cutoff k, queries n): k n is 32, 160 or 800. k = 4 and 8 give values exact in binary (the printed
#: digit is then printf's rounding of an exact half), the others inexact ones.
SHAPES = ((20, 8), (10, 16), (5, 32), (4, 8), (8, 4), (40, 4), (100, 8), (32, 25))
# Ids whose byte order (trec_eval's summation order) is neither their numeric order nor the file's.
IDS = tuple(str(i) for i in (1, 2, 3, 5, 8, 9, 10, 11, 12, 20, 21, 99, 100, 101, 110, 200, 301, 302, 303, 1000, 1001,
                            1010, 1100, 2000, 2001, 3000, 3001, 3003, 4000, 5000, 9000, 9999))


@st.composite
def boundary_means(draw) -> tuple[int, bool, Collection]:
    k, n = draw(st.sampled_from(SHAPES))
    missing = draw(st.integers(0, min(3, n - 1)))  # judged queries without results, scored under -c
    relevant = draw(st.lists(st.integers(0, k), min_size=n - missing, max_size=n - missing)) + [0] * missing
    if sum(relevant) % 2 == 0:
        relevant[0] += 1 if relevant[0] < k else -1
    ids = draw(st.permutations(IDS))[:n]
    queries = []
    for index, (query_id, r) in enumerate(zip(ids, relevant)):
        # k retrieved at distinct scores, the r relevant ones anywhere in them; k - r relevant not retrieved.
        positions = draw(st.permutations(range(k)))[:r]
        retrieved = tuple((f"d{j}", str(k - j)) for j in range(k)) if index < n - missing else ()
        judged = tuple((f"d{j}", draw(st.integers(1, 3))) for j in positions)
        judged += tuple((f"u{j}", 1) for j in range(k - r))
        judged += tuple((f"d{j}", 0) for j in range(k) if j not in positions and draw(st.booleans()))
        queries.append(Query(query_id, judged, retrieved))
    exact = Fraction(sum(relevant), k * n) * 10**4
    assert exact - int(exact) == Fraction(1, 2), "not on a boundary"
    return k, missing > 0, Collection(tuple(queries), None, draw(st.integers(0, 2**16)), draw(st.booleans()))


@given(case=boundary_means(), per_query=st.booleans())
def test_means_on_a_rounding_boundary(trec_eval_binary, case, per_query):
    k, complete, collection = case
    options = ["-m", f"P.{k}", "-m", f"recall.{k}", "-m", f"relative_P.{k}", "-m", "set_P", "-M", str(k)]
    options += ["-c"] if complete else []
    with tempfile.TemporaryDirectory() as directory:
        qrels, run = collection.write(Path(directory))
        assert_same(trec_eval_binary, ["-q", *options] if per_query else options, qrels, run)
