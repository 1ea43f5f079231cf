"""The one place where numba compilation flags are set and where a kernel chooses how it runs.

A kernel is written once, as a plain Python function over numpy arrays, and decorated with
:func:`jit` or :func:`parallel_jit`. The decorator returns a :class:`Kernel`, which holds the
function and runs it in one of three builds:

- *python*: the function run by the interpreter (or a numpy equivalent the kernel names), no
  numba at all. Importing numba costs about 0.25 s and loading the cached machine code of the
  kernels an evaluation needs about as much again, so a process that only ever scores a few
  thousand rows is faster without them.
- *serial*: numba's compiled function (``prange`` is ``range``).
- *parallel*: compiled with ``parallel=True`` (``prange`` over queries on numba's threads), for
  :func:`parallel_jit` kernels given at least :data:`SERIAL_BELOW` rows (the length of their
  longest array argument other than byte buffers); built only when such an input first comes.

Nothing imports numba until a compiled build is first needed, so ``import retrieval_eval``
never does. Every build gives the same results to the bit: ``cache=True`` keeps the compile off
every process but the first, ``fastmath`` stays off, and the python build runs under
``np.errstate(over="ignore", invalid="ignore")`` because the hashes rely on uint64 wrap-around
and the kernels check their own NaN and infinities (the fusion normalizations redo a step that
overflowed), as the compiled code does silently.

Which build runs is decided at each call, by the environment variable ``RETRIEVAL_EVAL_KERNELS``:

- ``auto`` (the default): for each call, from its work (its rows, as above, or what the
  kernel's ``work`` says) and two measured crossovers:

  - the compiled build for a kernel whose machine code is already loaded, and for a call of
    more than :data:`PYTHON_UP_TO`: there compiled wins even paying for importing numba and
    loading the kernel, in a new process;
  - the python build for a call of at most :data:`LOADED_UP_TO`: there it wins even when numba
    is imported already and only this kernel's machine code has to be loaded;
  - between the two, compiled once numba is imported (by a larger call, or by the user), or
    once the python builds have spent on such calls as long as importing numba takes
    (:data:`NUMBA_IMPORT_SECONDS`), python before that. This is the ski-rental rule: a
    notebook that scores a 1,000-query run again and again pays at most that much more than
    if it had known from the start, and a process that scores one such run never imports numba.

  An evaluation whose calls are all small (a TREC DL run of 43 queries) never imports numba,
  and each of its calls runs the same build from the first; one that is large loads only the
  kernels whose calls are large.
- ``python``: always the python build (tests and benchmarks).
- ``compiled``: always the compiled builds (tests and benchmarks).

``NUMBA_DISABLE_JIT=1`` runs every kernel as python whatever the variable says.

A compilation on a terminal is announced once per process on stderr (it takes seconds; see
:func:`compile_all` to do it ahead of time, e.g. when building an image).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import pkgutil
import sys
import threading
import time
import types
from collections.abc import Iterator
from typing import Any, Callable

import numpy as np

MODE_VARIABLE = "RETRIEVAL_EVAL_KERNELS"
MODES = ("auto", "python", "compiled")

_FLAGS = {"cache": True, "nogil": True, "fastmath": False}
# Below this many rows a parallel kernel runs its serial build. On 2 shared cores (load 2-4) the
# parallel builds lost everywhere measured, TREC measures through Evaluator.evaluate, medians of 5:
# 100k rows 57 ms parallel against 6 ms serial, 1M rows 107 against 65 ms, 5M rows 397-421 against
# 364-391 ms. Waking numba's workqueue threads costs milliseconds on a busy machine, and with two
# cores the best a parallel loop can win is 2x, so it is kept for inputs where that 2x is seconds.
SERIAL_BELOW = 2_000_000
# The work of one call up to which its python build runs instead of the compiled one, from where
# they cross through one evaluate() of a TREC run file in a fresh process
# (benchmarks/bench_compile.py --crossover at 300236a; 2 cores, load 1-1.5, medians of 3; seconds with
# the python builds against the compiled ones (import numba + cached load), TREC measures / the default
# metrics; the work of the largest call, about one per run row):
#   25 x 15:         500 work, python 0.14 / 0.14 s, compiled 0.72 / 0.69 s
#   43 x 100:       4.3k work, python 0.15 / 0.14 s, compiled 0.66 / 0.73 s
#   43 x 1000:       43k work, python 0.23 / 0.18 s, compiled 0.83 / 0.75 s
#   1000 x 100:     100k work, python 0.30 / 0.27 s, compiled 0.71 / 0.79 s
#   3000 x 100:     300k work, python 0.41 / 0.44 s, compiled 0.85 / 0.79 s
#   10000 x 100:     1M work,  python 1.48 / 1.31 s, compiled 0.85 / 0.88 s
# Between the last two the python time grows about 1.5 s per million of work and the compiled one
# stays near 0.85 s: they cross near 590k.
PYTHON_UP_TO = 500_000
# The work of one call up to which its python build wins even once numba is imported, against loading
# that one kernel's machine code from the cache (8-35 ms a build, benchmarks/bench_compile.py) and
# running it: the numpy builds take 0.1-0.5 us a unit of work (1000 x 100, rank_judged_documents 59 ms
# for 120k, trec_measures 17 ms for 172k), so they cost that much from about 30k on.
LOADED_UP_TO = 30_000
# What importing numba costs (0.27-0.42 s, bench_compile.py's import numba, warm and cold): how long the
# python builds may take on calls between the two crossovers before the compiled builds are loaded.
NUMBA_IMPORT_SECONDS = 0.3
# Seconds the python builds have taken on calls between the two crossovers in this process.
_python_seconds_between = 0.0
# The builds whose first compile this process has announced (or, not on a terminal, would have).
_announced: set[str] = set()
# Whether a first compile is announced: None, when stderr is a terminal; the CLI's --quiet and
# --progress set it (compile_notices), as they set its progress lines.
_announce_compiles: bool | None = None

#: Every kernel, in the order the modules define them.
REGISTRY: list["Kernel"] = []


def prange(*args: int) -> range:
    """``range`` when a kernel runs as python; numba's ``prange`` in its compiled builds."""
    return range(*args)


class Kernel:
    """A kernel function and its builds: python, serial (compiled) and, if ``parallel``, parallel (compiled).

    Calling it runs the build chosen as the module docstring describes. ``example`` returns
    arguments of exactly the types the library passes (same dtypes, same writability: numba
    compiles one specialization per combination), for :func:`compile_all`; kernels called only
    by other kernels have none, they are compiled inside their callers. ``python``, when given,
    is the python build instead of the function: a numpy equivalent with the same results, for
    a kernel whose loops are fast compiled but slow in Python. ``work``, when given, is the
    work of a call (from its arguments) as ``auto`` mode tallies it, instead of its rows: for
    a kernel whose time goes with the bytes it reads.
    """

    def __init__(
        self,
        function: Callable,
        *,
        parallel: bool,
        example: Callable[[], tuple] | None,
        python: Callable | None = None,
        work: Callable[..., int] | None = None,
    ) -> None:
        functools.update_wrapper(self, function)
        self.function = function
        self.is_parallel = parallel
        self.example = example
        self._work: Callable[[tuple], int] = _size if work is None else lambda args: work(*args)
        self._builds: dict[str, Callable] = {} if python is None else {"python": python}
        REGISTRY.append(self)

    @property
    def name(self) -> str:
        """``module.function``, the module relative to this package."""
        return f"{self.function.__module__.rpartition('.')[2]}.{self.function.__name__}"

    @property
    def python(self) -> Callable:
        """The function, with ``prange`` as ``range`` and the kernels it calls as their python builds."""
        if "python" not in self._builds:
            self._builds["python"] = _copy(self.function, self.function.__qualname__, range, lambda k: k.python)
        return self._builds["python"]

    @property
    def serial(self) -> Any:
        """numba's dispatcher of the serial build (created, not compiled, on first access)."""
        if "serial" not in self._builds:
            import numba

            suffix = "_serial" if self.is_parallel else ""  # never shares a cache entry with the parallel build
            function = _copy(self.function, self.function.__qualname__ + suffix, numba.prange, lambda k: k.serial)
            self._builds["serial"] = numba.njit(**_FLAGS)(function)
        return self._builds["serial"]

    @property
    def parallel(self) -> Any:
        """numba's dispatcher of the parallel build (created, not compiled, on first access)."""
        if not self.is_parallel:
            raise AttributeError(f"{self.name} has no parallel build")
        if "parallel" not in self._builds:
            import numba

            function = _copy(self.function, self.function.__qualname__, numba.prange, lambda k: k.serial)
            self._builds["parallel"] = numba.njit(parallel=True, **_FLAGS)(function)
        return self._builds["parallel"]

    @property
    def signatures(self) -> list:
        """The argument types the serial build is compiled for in this process (as numba's dispatchers list them)."""
        return list(self.serial.signatures)

    @property
    def loaded(self) -> bool:
        """Some compiled build holds machine code in this process."""
        return any(name != "python" and build.overloads for name, build in self._builds.items())

    def __call__(self, *args: Any) -> Any:
        global _python_seconds_between
        work = self._work(args)
        if _runs_python(self, work):
            start = time.perf_counter()
            with np.errstate(over="ignore", invalid="ignore"):
                result = self.python(*args)
            if work > LOADED_UP_TO:
                _python_seconds_between += time.perf_counter() - start
            return result
        parallel = self.is_parallel and work >= SERIAL_BELOW
        if not parallel:
            return _call_compiled(self.serial, args, build_name(self, False))
        with _parallel_launch():
            return _call_compiled(self.parallel, args, build_name(self, True))

    def __repr__(self) -> str:
        return f"<kernel {self.name}>"


def build_name(kernel: Kernel, parallel: bool) -> str:
    """``module.function``, with `` (parallel)`` for a parallel build: how compile times are keyed."""
    return f"{kernel.name} (parallel)" if parallel else kernel.name


def jit(
    function: Callable | None = None,
    *,
    example: Callable[[], tuple] | None = None,
    python: Callable | None = None,
    work: Callable[..., int] | None = None,
) -> Any:
    """Make a serial kernel (``@jit`` or ``@jit(example=..., python=..., work=...)``, see :class:`Kernel`)."""
    return _decorate(function, parallel=False, example=example, python=python, work=work)


def parallel_jit(
    function: Callable | None = None,
    *,
    example: Callable[[], tuple] | None = None,
    python: Callable | None = None,
    work: Callable[..., int] | None = None,
) -> Any:
    """Make a kernel whose outer loop is a ``prange`` over independent queries (``python=``, ``work=`` as for :func:`jit`)."""
    return _decorate(function, parallel=True, example=example, python=python, work=work)


def _decorate(
    function: Callable | None,
    *,
    parallel: bool,
    example: Callable[[], tuple] | None,
    python: Callable | None,
    work: Callable[..., int] | None,
) -> Any:
    """The :class:`Kernel` of ``function``, or (used with arguments, ``@jit(...)``) the decorator that makes it."""

    def make(f: Callable) -> Kernel:
        return Kernel(f, parallel=parallel, example=example, python=python, work=work)

    return make if function is None else make(function)


def read_only(values: Any, dtype: Any) -> np.ndarray:
    """A read-only array, as the library's columnar structs hold them (for examples)."""
    array = np.array(values, dtype=dtype)
    array.setflags(write=False)
    return array


def _copy(function: Callable, qualname: str, prange_as: Any, kernel_as: Callable[["Kernel"], Any]) -> Callable:
    """A copy of ``function`` whose globals map ``prange`` and the kernels it calls to one build's objects.

    The module's globals are copied, not changed: each build sees its own names.
    """
    namespace = dict(function.__globals__)
    for name in _global_names(function.__code__):
        value = namespace.get(name)
        if value is prange:
            namespace[name] = prange_as
        elif isinstance(value, Kernel):
            namespace[name] = kernel_as(value)
    copy = types.FunctionType(function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__)
    copy.__qualname__ = qualname
    copy.__doc__ = function.__doc__
    return copy


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _size(args: tuple) -> int:
    """The rows of a call: the first axis of its longest array argument other than a byte buffer.

    Arrays inside bundles (named tuples of arrays) count as arguments. The bytes of string ids
    are left out: a kernel's time goes with its rows (ids, judgments, queries) far more than
    with their lengths in bytes.
    """
    longest = 0
    for a in args:
        if isinstance(a, tuple):
            longest = max(longest, _size(a))
        elif isinstance(a, np.ndarray) and a.ndim and a.dtype != np.uint8:
            longest = max(longest, a.shape[0])
    return longest


def mode() -> str:
    """The value of ``RETRIEVAL_EVAL_KERNELS`` (``auto`` when unset)."""
    value = os.environ.get(MODE_VARIABLE, "auto") or "auto"
    if value not in MODES:
        raise ValueError(f"{MODE_VARIABLE} must be one of {', '.join(MODES)}, got {value!r}")
    return value


#: numba's threading layers (``NUMBA_THREADING_LAYER``, read lowercased), and the pools of those
#: that need a library beside numba (TBB, OpenMP; numba/np/ufunc/parallel.py); the rest can
#: always fall back on numba's own workqueue.
THREADING_LAYERS = ("default", "safe", "forksafe", "threadsafe", "tbb", "omp", "workqueue")
_LAYER_POOLS = {"tbb": ("tbbpool",), "safe": ("tbbpool",), "omp": ("omppool",), "threadsafe": ("tbbpool", "omppool")}


def check_numba_environment() -> None:
    """Refuse a ``NUMBA_NUM_THREADS`` or ``NUMBA_THREADING_LAYER`` that numba would reject later.

    numba reads them when it is imported or first runs a parallel kernel, and then fails with
    a traceback (a thread count of 0), warns and ignores the value (one that is no integer), or
    fails at the first large input (a layer it does not know, or whose library is not
    installed). Raises ``ValueError`` naming the variable and what it allows. Only a layer that
    needs TBB or OpenMP makes this import numba (to try loading the pool).
    """
    threads = os.environ.get("NUMBA_NUM_THREADS")
    if threads is not None:
        try:
            positive = int(threads) > 0
        except ValueError:
            positive = False
        if not positive:
            raise ValueError(f"NUMBA_NUM_THREADS must be a positive integer (numba's threads), got {threads!r}")
    layer = os.environ.get("NUMBA_THREADING_LAYER")
    if layer is None:
        return
    if layer.lower() not in THREADING_LAYERS:
        raise ValueError(f"NUMBA_THREADING_LAYER must be one of {', '.join(THREADING_LAYERS)}, got {layer!r}")
    pools = _LAYER_POOLS.get(layer.lower(), ())
    if pools and not any(_loads(f"numba.np.ufunc.{pool}") for pool in pools):
        needs = " or ".join({"tbbpool": "TBB (pip install tbb)", "omppool": "OpenMP"}[pool] for pool in pools)
        raise ValueError(
            f"NUMBA_THREADING_LAYER={layer} needs {needs}, which numba cannot load here; "
            "unset it, or choose default, forksafe or workqueue"
        )


def _loads(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def jit_disabled() -> bool:
    """numba's JIT is off (``NUMBA_DISABLE_JIT``), read without importing numba when it is not imported yet."""
    numba = sys.modules.get("numba")
    if numba is not None and hasattr(numba, "config"):
        return bool(numba.config.DISABLE_JIT)
    value = os.environ.get("NUMBA_DISABLE_JIT", "0").strip()
    return value not in ("", "0")


def _runs_python(kernel: Kernel, work: int) -> bool:
    """Whether this call runs the python build (see the module docstring)."""
    chosen = mode()
    if jit_disabled() or chosen == "python":
        return True
    if chosen == "compiled" or kernel.loaded or work > PYTHON_UP_TO:
        return False
    if work <= LOADED_UP_TO:
        return True
    return "numba" not in sys.modules and _python_seconds_between < NUMBA_IMPORT_SECONDS


# numba's workqueue threading layer aborts the process (it does not raise) when two Python threads
# launch parallel regions at once (numba/np/ufunc/workqueue.c), so launches are serialized while it
# may be the layer: until the first launch has chosen one, and for as long as it is workqueue.
_PARALLEL_LAUNCH = threading.Lock()


def _parallel_launch() -> Any:
    """A context that serializes parallel launches unless numba's layer is known to be threadsafe (tbb, omp)."""
    import numba

    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel region has run yet, so none is chosen
        return _PARALLEL_LAUNCH
    return _PARALLEL_LAUNCH if layer == "workqueue" else contextlib.nullcontext()


def _call_compiled(build: Any, args: tuple, name: str) -> Any:
    """``build(*args)``, announcing on a terminal the first compile of the build ``name`` in this process."""
    announce = _stderr_is_terminal() if _announce_compiles is None else _announce_compiles
    if name in _announced or not announce:
        return build(*args)
    _announced.add(name)
    from numba.core import event

    with event.install_listener("numba:compile", _compile_notice(name)):
        return build(*args)


@contextlib.contextmanager
def compile_notices(on: bool | None) -> Iterator[None]:
    """Within the block, a first compile is announced when ``on`` (never when False; None: on a terminal)."""
    global _announce_compiles
    previous, _announce_compiles = _announce_compiles, on
    try:
        yield
    finally:
        _announce_compiles = previous


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without isatty, or closed
        return False


def _compile_notice(name: str) -> Any:
    """A numba listener that prints one line when the build ``name`` starts to compile (a cache miss).

    The line gives the CPU seconds that compile took on the machine of
    :mod:`retrieval_eval.kernels.compile_estimates`, the kernels it calls included.
    """
    from numba.core import event

    from .compile_estimates import CPU_SECONDS

    class CompileNotice(event.Listener):
        printed = False

        def on_start(self, compile_event: Any) -> None:
            dispatcher = compile_event.data.get("dispatcher")
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            if not self.printed and module.startswith(__package__ + "."):
                self.printed = True
                seconds = CPU_SECONDS.get(name)
                estimate = f"about {seconds:.0f} s of CPU" if seconds is not None and seconds >= 1 else "under a second of CPU"
                print(
                    f"retrieval-eval: compiling {name} on first use ({estimate}; "
                    "once per install, see `retrieval-eval compile`)",
                    file=sys.stderr,
                    flush=True,
                )

        def on_end(self, compile_event: Any) -> None:
            pass

    return CompileNotice()


def kernels() -> list[Kernel]:
    """Every kernel of the package (its modules imported)."""
    package = sys.modules[__package__]
    for module in pkgutil.walk_packages(package.__path__, prefix=f"{__package__}."):
        importlib.import_module(module.name)
    return list(REGISTRY)
