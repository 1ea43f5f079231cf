"""Shared test settings: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` keeps CI short)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Without the JIT every kernel runs as Python: fewer examples keep that job within minutes.
settings.register_profile("nojit", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
