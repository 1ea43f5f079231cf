"""Shared test settings: hypothesis profiles, shared data, one Dask cluster for the session."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Examples per property test. Half of a run's time is spent in the property tests, in proportion
# to these counts. "dev" is what `python -m pytest` gets, and what CI's JIT leg gets too: CI runs
# the whole suite twice within ten minutes on two cores (100 examples made the JIT leg alone ten
# minutes on a cold cache). Without the JIT ("nojit") every kernel runs as Python and the same
# code was already exercised by the JIT leg, so fewer.
# No deadline anywhere: a first call compiles kernels for seconds and a shared machine stalls,
# and neither is a failure (speed is measured in benchmarks/, not here).
_PROFILES = {"dev": 50, "nojit": 25}
for _name, _examples in _PROFILES.items():
    settings.register_profile(_name, max_examples=_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# With the JIT, every test checks the compiled kernels against its oracle: in the default "auto"
# mode a process runs its first work (every small test input) as python. The python builds are
# what the NUMBA_DISABLE_JIT leg runs, tests/kernels/test_builds.py checks every build against the
# others bit for bit, and the tests of the auto mode itself set the mode they test.
if os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0"):
    os.environ.setdefault("RETRIEVAL_EVAL_KERNELS", "compiled")

# Terminal text is fitted to $COLUMNS (else the terminal's width): every test sees the width of a
# pipe, whatever terminal runs it; the tests of the width set the one they test.
os.environ["COLUMNS"] = "100"


SHARED = Path(__file__).resolve().parents[2] / "shared"


def require_shared(relative: str) -> Path:
    """A file or folder of ``shared/`` beside the repository (read at test time, never copied in).

    Skips the test with a reason when it is absent, except under CI (``CI=true``), where its
    absence fails the test.
    """
    path = SHARED / relative
    if not path.exists():
        message = f"{relative} is not at {path} (shared/ beside the repository)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def trec_eval_test() -> Path:
    """trec_eval's own test files (``shared/peers/trec_eval_test``)."""
    return require_shared("peers/trec_eval_test")


@pytest.fixture(scope="session")
def trec_eval_binary() -> Path:
    """The real trec_eval 10 binary, built once from ``shared/peers/trec_eval_src`` into a cache directory.

    Skips without make and a C compiler, except under CI (``CI=true``), where it fails.
    """
    script = require_shared("peers/build_trec_eval.sh")
    if shutil.which("make") is None or shutil.which("cc") is None:
        message = "building trec_eval needs make and a C compiler"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    built = subprocess.run(["bash", str(script)], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        pytest.fail(f"building trec_eval failed: {built.stderr.strip()}")
    return Path(built.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def eval_schema() -> Path:
    """The evaluation-document JSON schema's folder, with its examples and sample dataset."""
    return require_shared("schemas/m365-copilot-eval")


@pytest.fixture(scope="session")
def dask_client():
    """A client of a LocalCluster of 2 worker processes, shared by every Dask test of the session.

    Each worker process imports the library and loads its kernels, seconds per cluster, so the
    tests that do not test starting a cluster share this one.
    """
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's ``chromium`` (headless); skips without it, except under CI (``CI=true``), where its absence fails."""
    path = shutil.which("chromium")
    if path is None:
        message = "the browser tests need Debian's chromium (apt-get install chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path
