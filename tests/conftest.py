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
def eval_schema() -> Path:
    """The evaluation-document JSON schema's folder, with its examples and sample dataset."""
    return require_shared("schemas/m365-copilot-eval")
