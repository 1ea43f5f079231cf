"""The output dict every azure-ai-evaluation evaluator returns (1.18.10), keys in the SDK's order, and its thresholds."""

from __future__ import annotations

import math
import numbers
from typing import Any

PASS_FAIL = {True: "pass", False: "fail"}


def finite_number(value: Any) -> bool:
    """A real number that is finite: numpy numbers count, bools do not (True is no threshold)."""
    return not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(value)


def evaluator_output(name: str, score: float, threshold: Any, properties: dict[str, Any] | None) -> dict[str, Any]:
    """``{name, name_score, name_passed, name_result, name_reason, name_status, name_threshold, name_properties}``.

    The evaluator's score twice, whether it passed (``score >= threshold``: both evaluators here
    are higher-is-better), ``pass``/``fail``, no reason, ``completed``, the threshold as given
    and the properties.
    """
    passed = score >= threshold
    return {
        name: score,
        f"{name}_score": score,
        f"{name}_passed": passed,
        f"{name}_result": PASS_FAIL[passed],
        f"{name}_reason": None,
        f"{name}_status": "completed",
        f"{name}_threshold": threshold,
        f"{name}_properties": properties,
    }
