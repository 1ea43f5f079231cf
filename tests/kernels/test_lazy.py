"""numba is imported only when a compiled build is needed; small work runs as Python; a compile is announced."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest

from retrieval_eval.kernels import _config
from retrieval_eval.kernels.core.grouping import counting_sort

ROOT = Path(__file__).resolve().parents[2]
needs_jit = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no compiled builds without the JIT")


def python(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter from the repository root."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", _config.MODE_VARIABLE)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env={**environment, **env},
        capture_output=True, text=True, check=True,
    )


def test_a_small_evaluation_never_imports_numba():
    out = python("""
        import sys
        import retrieval_eval as rev, retrieval_eval.kernels, retrieval_eval.kernels._config as config
        config.kernels()  # every kernel module
        assert "numba" not in sys.modules, "imported"
        result = rev.evaluate("data/qrels.trec", "data/run.trec", ["map", "ndcg@10"])
        print("numba" in sys.modules, result.means["map"])
    """)
    imported, mean = out.stdout.split()
    assert imported == "False"
    forced = python("""
        import sys, retrieval_eval as rev
        mean = rev.evaluate("data/qrels.trec", "data/run.trec", ["map", "ndcg@10"]).means["map"]
        print("numba" in sys.modules, mean)
    """, RETRIEVAL_EVAL_KERNELS="compiled")
    assert forced.stdout.split() == ["True", mean]  # the same mean, compiled


HASH_A = """
    import sys, numpy as np
    from retrieval_eval.kernels.core.hashing import fnv1a_hashes
    print(hex(fnv1a_hashes(np.array([0, 1]), np.frombuffer(b"a", dtype=np.uint8))[0]), "numba" in sys.modules)
"""


@pytest.mark.parametrize("env", [{"NUMBA_DISABLE_JIT": "1", "RETRIEVAL_EVAL_KERNELS": "compiled"}, {}])
def test_python_runs_without_numba_and_without_overflow_warnings(env):
    """Under NUMBA_DISABLE_JIT whatever the mode, or for small work: FNV-1a 64 of "a" wraps around silently."""
    out = python(HASH_A, **env)
    assert out.stdout.split() == ["0xaf63dc4c8601ec8c", "False"]
    assert out.stderr == ""


@pytest.fixture
def auto(monkeypatch):
    """Mode auto with a crossover of 10 rows; records which calls ran compiled."""
    monkeypatch.setenv(_config.MODE_VARIABLE, "auto")
    monkeypatch.setattr(_config, "PYTHON_UP_TO", 10)
    compiled = []
    call = _config._call_compiled
    monkeypatch.setattr(
        _config, "_call_compiled", lambda build, args, name: compiled.append(len(args[0])) or call(build, args, name)
    )
    monkeypatch.setattr(counting_sort, "_builds", {})  # nothing loaded yet
    return compiled


@needs_jit
def test_auto_decides_each_call_by_its_own_work_whatever_the_process_did_before(auto):
    for n in (4, 10, 5, 2):  # 21 rows of python work, none of the calls past 10: every call python
        order, offsets = counting_sort(np.zeros(n, dtype=np.int64), 1)
        assert order.tolist() == list(range(n)) and offsets.tolist() == [0, n]
    assert auto == []
    assert not counting_sort.loaded  # numba's machine code was never loaded for them
    for n in (11, 3):  # past the crossover: compiled; then loaded, so compiled for small calls too
        order, offsets = counting_sort(np.zeros(n, dtype=np.int64), 1)
        assert order.tolist() == list(range(n)) and offsets.tolist() == [0, n]
    assert auto == [11, 3]


@needs_jit
def test_between_the_crossovers_auto_runs_compiled_once_numba_is_imported(auto, monkeypatch):
    monkeypatch.setattr(_config, "LOADED_UP_TO", 3)
    assert "numba" in sys.modules  # this test module imported it
    for n in (3, 5):
        counting_sort(np.zeros(n, dtype=np.int64), 1)
    assert auto == [5]


SKI_RENTAL = """
    import sys, numpy as np
    from retrieval_eval.kernels import _config
    from retrieval_eval.kernels.core.grouping import counting_sort
    _config.LOADED_UP_TO, _config.PYTHON_UP_TO, _config.NUMBA_IMPORT_SECONDS = 3, 10, 1e-9
    counting_sort(np.zeros(2, dtype=np.int64), 1)
    counting_sort(np.zeros(5, dtype=np.int64), 1)  # python: nothing spent between the crossovers yet
    first = "numba" in sys.modules
    counting_sort(np.zeros(5, dtype=np.int64), 1)  # python has spent more than importing numba costs
    print(first, "numba" in sys.modules, counting_sort.loaded)
"""


@needs_jit
def test_between_the_crossovers_python_runs_until_it_has_cost_an_import_of_numba():
    assert python(SKI_RENTAL).stdout.split() == ["False", "True", "True"]


@needs_jit
def test_auto_uses_a_compiled_build_already_loaded(auto):
    counting_sort.serial(np.zeros(1, dtype=np.int64), 1)
    counting_sort(np.zeros(3, dtype=np.int64), 1)
    assert auto == [3]


def test_an_unknown_mode_is_an_error(monkeypatch):
    monkeypatch.setenv(_config.MODE_VARIABLE, "fast")
    with pytest.raises(ValueError, match="RETRIEVAL_EVAL_KERNELS must be one of auto, python, compiled, got 'fast'"):
        counting_sort(np.zeros(1, dtype=np.int64), 1)


NOTICE = "retrieval-eval: compiling grouping.counting_sort on first use (under a second of CPU; once per install"
COMPILE_ONE = """
    import numpy as np
    from retrieval_eval.kernels.core.grouping import counting_sort
    counting_sort(np.zeros(2, dtype=np.int64), 1)
"""


def stderr_of(cache: Path, *, terminal: bool, code: str = COMPILE_ONE) -> str:
    """What a fresh process running ``code`` (by default: calling one compiled kernel) prints on stderr (a pseudo-terminal or a pipe)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), _config.MODE_VARIABLE: "compiled"}
    env.pop("NUMBA_DISABLE_JIT", None)
    if not terminal:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True).stderr
    leader, follower = pty.openpty()
    try:
        subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, stderr=follower, check=True)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # Linux: the follower side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode()
    finally:
        os.close(leader)


@needs_jit
def test_a_compile_on_a_terminal_is_announced_once_and_a_cached_load_is_not(tmp_path):
    first = stderr_of(tmp_path / "cache", terminal=True)  # an empty cache: a miss
    assert first.count(NOTICE) == 1, first
    assert "retrieval-eval compile" in first
    assert NOTICE not in stderr_of(tmp_path / "cache", terminal=True)  # now cached


@needs_jit
def test_a_compile_is_not_announced_when_stderr_is_not_a_terminal(tmp_path):
    assert NOTICE not in stderr_of(tmp_path / "cache", terminal=False)


def _with_notices(on: bool) -> str:
    body = textwrap.indent(textwrap.dedent(COMPILE_ONE), "    ")
    return f"from retrieval_eval.kernels._config import compile_notices\nwith compile_notices({on}):\n{body}"


@needs_jit
def test_quiet_keeps_a_compile_on_a_terminal_silent_and_progress_announces_it_in_a_pipe(tmp_path):
    assert NOTICE not in stderr_of(tmp_path / "quiet", terminal=True, code=_with_notices(False))
    assert stderr_of(tmp_path / "progress", terminal=False, code=_with_notices(True)).count(NOTICE) == 1


@pytest.mark.parametrize(("flags", "on"), [([], None), (["--quiet"], False), (["--progress"], True)])
def test_the_cli_passes_quiet_and_progress_to_the_compile_notice(monkeypatch, capsys, flags, on):
    import contextlib

    import retrieval_eval.kernels
    from retrieval_eval.cli import main

    seen = []
    monkeypatch.setattr(retrieval_eval.kernels, "compile_notices", lambda value: seen.append(value) or contextlib.nullcontext())
    assert main(["evaluate", str(ROOT / "data" / "qrels.trec"), str(ROOT / "data" / "run.trec"), *flags]) == 0
    assert seen == [on]


@pytest.fixture
def builds_run(monkeypatch):
    """Mode auto, nothing compiled loaded yet for the kernels given; the names of the compiled builds called."""
    monkeypatch.setenv(_config.MODE_VARIABLE, "auto")
    ran = []
    call = _config._call_compiled
    monkeypatch.setattr(_config, "_call_compiled", lambda build, args, name: ran.append(name) or call(build, args, name))

    def unloaded(*kernels):
        for kernel in kernels:
            monkeypatch.setattr(kernel, "_builds", {"python": kernel.python})
        return ran

    return unloaded


def _string_ids(ids: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    return np.cumsum([0, *map(len, ids)]).astype(np.int64), np.frombuffer(b"".join(ids), dtype=np.uint8)


@needs_jit
def test_one_long_id_is_hashed_compiled_with_the_python_builds_bits(builds_run):
    # The python build steps once per byte position of the longest id: a 1 MB id took 3.4 s that way.
    from retrieval_eval.kernels.core.hashing import ROWS_PER_BYTE_POSITION, fnv1a_hashes

    ran = builds_run(fnv1a_hashes)
    offsets, data = _string_ids([b"q" * (_config.PYTHON_UP_TO // ROWS_PER_BYTE_POSITION + 1), b"x"])
    hashes = fnv1a_hashes(offsets, data)
    assert ran == ["hashing.fnv1a_hashes"]
    short = np.array([0, 1], dtype=np.int64)
    assert hashes[1] == fnv1a_hashes.python(short, data[-1:])[0]
    assert hashes[0] == fnv1a_hashes.python(offsets[:2], data[: offsets[1]])[0]


@needs_jit
def test_neighbours_sharing_a_long_prefix_are_told_apart_compiled(builds_run):
    # segment_starts' python build compares equal-length neighbours a byte position at a time.
    from retrieval_eval.kernels.core.grouping import segment_starts
    from retrieval_eval.kernels.core.hashing import ROWS_PER_BYTE_POSITION

    ran = builds_run(segment_starts)
    prefix = b"p" * (_config.PYTHON_UP_TO // ROWS_PER_BYTE_POSITION)
    offsets, data = _string_ids([prefix + b"a", prefix + b"a", prefix + b"b"])
    starts = segment_starts(np.zeros(3, dtype=np.uint64), offsets, data, True)
    assert ran == ["grouping.segment_starts"] and starts.tolist() == [0, 2]
