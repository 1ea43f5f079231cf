"""The error the drop-in evaluators raise where azure-ai-evaluation raises its ``EvaluationException``."""

from __future__ import annotations

from ..errors import InputError


class EvaluationException(InputError):
    """Raised where the SDK raises its ``EvaluationException``, with the SDK's message."""
