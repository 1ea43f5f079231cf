"""Shared test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` keeps CI short), shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Without the JIT every kernel runs as Python: fewer examples keep that job within minutes.
settings.register_profile("nojit", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


TREC_EVAL_TEST = Path(__file__).resolve().parents[2] / "shared" / "peers" / "trec_eval_test"


@pytest.fixture(scope="session")
def trec_eval_test() -> Path:
    """trec_eval's own test files, read from ``shared/`` beside the repository (never copied in).

    Skipped with a reason when absent, except under CI (``CI=true``), where their absence fails.
    """
    if not TREC_EVAL_TEST.is_dir():
        message = f"trec_eval's test files are not at {TREC_EVAL_TEST} (shared/peers/trec_eval_test beside the repository)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return TREC_EVAL_TEST
