"""Compiling every kernel build ahead of first use (:func:`compile_all`), in one process or several at once.

numba compiles one function at a time in a process (its compiler holds a global lock), so the
only way to use more cores for the 70 builds is more processes. Each worker is a fresh Python
(``spawn``: no state of the parent's numba copied in) that takes builds one at a time from a
shared queue, the longest first by :mod:`.compile_estimates`, so that no core idles at the end
behind one long build. numba writes each cache file whole (a temporary file renamed), so two
processes never leave a torn file; when two builds call the same kernel, both compile it and the
later write of its index wins, at worst costing a later process one compile of that kernel.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from . import _config
from ._config import Kernel, build_name, jit_disabled
from .compile_estimates import CPU_SECONDS


def compile_all(progress: Callable[[int, int, str], None] | None = None, *, jobs: int = 1) -> dict[str, float]:
    """Compile (or load from numba's cache) every compiled build the library calls, ahead of first use.

    Each kernel the library calls (those with an ``example``) runs its serial build, and its
    parallel build if it has one, once on tiny arrays of exactly the library's argument types;
    the kernels they call are compiled with them. The machine code lands in numba's cache
    (``__pycache__`` beside the modules, or ``NUMBA_CACHE_DIR``), so later processes only load it.

    ``jobs`` > 1 compiles in that many worker processes at once (:func:`compile_in_processes`): numba
    compiles one function at a time per process, so on a machine of several cores the wall time
    falls by about that factor. ``progress(done, total, name)`` is called after each build (in
    the order they finish when ``jobs`` > 1). Returns the seconds each build took, keyed
    ``module.function`` (``module.function (parallel)`` for parallel builds), in the builds'
    order: a few seconds each on a cold cache, milliseconds on a warm one. Raises
    ``RuntimeError`` when ``NUMBA_DISABLE_JIT`` is set (there is nothing to compile).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    if jit_disabled():
        raise RuntimeError("NUMBA_DISABLE_JIT is set: the kernels run as Python, there is nothing to compile")
    builds = ahead_of_time_builds()
    if jobs > 1:
        return compile_in_processes(list(builds), jobs, progress)
    seconds: dict[str, float] = {}
    for done, name in enumerate(builds, 1):
        seconds[name] = compile_build(builds[name])
        if progress is not None:
            progress(done, len(builds), name)
    return seconds


def ahead_of_time_builds() -> dict[str, tuple[Kernel, bool]]:
    """Every build :func:`compile_all` compiles, by its :func:`build_name`: (kernel, parallel), in the kernels' order."""
    return {
        build_name(kernel, parallel): (kernel, parallel)
        for kernel in _config.kernels()
        if kernel.example is not None
        for parallel in (False, True)[: 1 + kernel.is_parallel]
    }


def compile_build(build: tuple[Kernel, bool]) -> float:
    """Run one build on its example (compiling it, or loading it from the cache); the seconds it took."""
    kernel, parallel = build
    start = time.perf_counter()
    (kernel.parallel if parallel else kernel.serial)(*kernel.example())
    return time.perf_counter() - start


def compile_in_processes(
    names: Sequence[str], jobs: int, progress: Callable[[int, int, str], None] | None = None
) -> dict[str, float]:
    """Compile the builds ``names`` (:func:`~._config.build_name` s) in ``jobs`` worker processes.

    Returns the seconds each build took in its worker, in the order of ``names``;
    ``progress(done, total, name)`` is called as each one finishes.
    """
    # Here, not at import: the package is imported by every command, worker processes by few.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

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
    return compile_build(ahead_of_time_builds()[name])
