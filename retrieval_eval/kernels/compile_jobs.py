"""Compiling the kernels' builds in several processes at once (``compile_all(jobs=N)``).

numba compiles one function at a time in a process (its compiler holds a global lock), so the
only way to use more cores for the 70 builds is more processes. Each worker is a fresh Python
(``spawn``: no state of the parent's numba copied in) that takes builds one at a time from a
shared queue, the longest first by :mod:`.compile_estimates`, so that no core idles at the end
behind one long build. numba writes each cache file whole (a temporary file renamed), so two
processes never leave a torn file; when two builds call the same kernel, both compile it and the
later write of its index wins, at worst costing a later process one compile of that kernel.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from .compile_estimates import CPU_SECONDS


def compile_in_processes(
    names: Sequence[str], jobs: int, progress: Callable[[int, int, str], None] | None = None
) -> dict[str, float]:
    """Compile the builds ``names`` (:func:`~._config.build_name` s) in ``jobs`` worker processes.

    Returns the seconds each build took in its worker, in the order of ``names``;
    ``progress(done, total, name)`` is called as each one finishes.
    """
    longest_first = sorted(names, key=lambda name: -CPU_SECONDS.get(name, 1.0))
    seconds: dict[str, float] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, max(len(names), 1)), mp_context=context) as pool:
        futures = {pool.submit(_compile_named, name): name for name in longest_first}
        for done, future in enumerate(as_completed(futures), 1):
            seconds[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(names), futures[future])
    return {name: seconds[name] for name in names}


def _compile_named(name: str) -> float:
    """In a worker: compile the build called ``name``."""
    from ._config import ahead_of_time_builds, compile_build

    return compile_build(ahead_of_time_builds()[name])
