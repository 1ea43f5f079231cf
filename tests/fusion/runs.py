"""Random runs for fusion tests: nested dicts ``{query: {doc: score}}`` full of ties and partial overlaps."""

from __future__ import annotations

from hypothesis import strategies as st

# Few distinct scores make ties common; more than 15 documents per query reach the part of
# numba's quicksort that leaves ties out of input order.
_SCORES = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 2.5, -1.0, 7.25]), st.floats(-50, 50, allow_nan=False, width=32))
_QUERIES = [f"q{i}" for i in range(4)]
_DOCUMENTS = [f"d{i}" for i in range(24)]


@st.composite
def run(draw, queries: list[str] = _QUERIES) -> dict:
    """One run: some of the queries (at least one), each with 1-22 distinct documents."""
    chosen = draw(st.lists(st.sampled_from(queries), min_size=1, max_size=len(queries), unique=True))
    documents = st.lists(st.sampled_from(_DOCUMENTS), min_size=1, max_size=22, unique=True)
    return {q: dict(zip(draw(documents), draw(st.lists(_SCORES, min_size=22, max_size=22)))) for q in chosen}


def runs(min_runs: int = 2, max_runs: int = 5) -> st.SearchStrategy[list[dict]]:
    """2-5 runs over overlapping queries (a query in one run only happens often) and documents."""
    return st.lists(run(), min_size=min_runs, max_size=max_runs)


def params_for(method: str, n_runs: int, draw) -> dict:
    """Parameters of ``method`` for ``n_runs`` runs (``draw``: hypothesis's draw)."""
    weights = st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, -0.5]), min_size=n_runs, max_size=n_runs)
    drawn = {
        "gmnz": lambda: {"gamma": draw(st.sampled_from([0.0, 0.5, 1.0, 2.5]))},
        "wsum": lambda: {"weights": draw(weights)},
        "wmnz": lambda: {"weights": draw(weights)},
        "mixed": lambda: {"weights": draw(weights)},
        "rrf": lambda: {"k": draw(st.sampled_from([0, 1, 10, 60, 0.5]))},
        "logn_isr": lambda: {"sigma": draw(st.sampled_from([0.0, 0.01, 1.0]))},
    }
    return drawn[method]() if method in drawn else {}
