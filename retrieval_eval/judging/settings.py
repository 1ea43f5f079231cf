"""How judges are run, given once: the endpoint and model, the cache, limits, retries, budget and prices.

:class:`JudgeSettings` is what the command line's judge flags (and a caller of the API) settle
on; every judged evaluator of a run (a relevance judge, the evaluators of an evaluation
document, Copilot Studio's methods) is run through it, so they share one endpoint, one cache
folder, one budget and one progress line. :meth:`JudgeSettings.run` runs one judge with them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import ConfigError
from .backends import CallableBackend, ChatBackend, EmbeddingsBackend
from .costs import Budget, PriceTable
from .endpoint import Endpoint, azure_endpoint, openai_endpoint
from .judge import Judge, Parser, Progress
from .limits import Limits, RetryPolicy
from .outcomes import Judgments, Totals
from .templates import PromptTemplate


@dataclass(frozen=True)
class JudgeSettings:
    """``endpoint`` (or ``function``, the user's own callable judge), ``embedding_model`` (for similarity by
    embeddings), ``cache`` (a file, or a folder holding one file per judge), ``cache_mode``, ``limits``, ``retry``,
    ``budget`` (shared by every judge run with these settings), ``prices``, ``timeout`` (seconds per request),
    ``progress`` (a callback, or True for a line on stderr)."""

    endpoint: Endpoint | None = None
    function: Any = None
    embedding_model: str | None = None
    cache: str | os.PathLike[str] | None = None
    cache_mode: str = "read-write"
    limits: Limits = field(default_factory=Limits)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget: Budget | None = None
    prices: PriceTable | None = None
    timeout: float = 60.0
    progress: Progress | bool | None = None

    def __post_init__(self) -> None:
        if (self.endpoint is None) == (self.function is None):
            raise ConfigError("a judge needs an endpoint (base URL and model) or a function, and only one of them")
        if not self.timeout > 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {self.timeout!r}")

    @classmethod
    def openai(cls, base_url: str | None = None, model: str | None = None, **settings: Any) -> JudgeSettings:
        """Settings for an OpenAI-compatible endpoint (the key from ``OPENAI_API_KEY`` unless ``api_key`` is given)."""
        keys = {name: settings.pop(name) for name in ("api_key", "organization") if name in settings}
        if not model:
            raise ConfigError("a judge needs its model name (--model)")
        return cls(endpoint=openai_endpoint(base_url=base_url, model=model, **keys), **settings)

    @classmethod
    def azure(cls, azure_endpoint_url: str | None = None, deployment: str | None = None, **settings: Any) -> JudgeSettings:
        """Settings for Azure OpenAI (the endpoint, key and api-version from ``AZURE_OPENAI_*`` unless given)."""
        keys = {name: settings.pop(name) for name in ("api_key", "api_version") if name in settings}
        if not deployment:
            raise ConfigError("an Azure OpenAI judge needs its deployment name (--model)")
        return cls(endpoint=azure_endpoint(azure_endpoint=azure_endpoint_url, deployment=deployment, **keys), **settings)

    @property
    def model(self) -> str | None:
        return self.endpoint.model if self.endpoint is not None else None

    def chat_backend(self) -> Any:
        if self.function is not None:
            return self.function if hasattr(self.function, "send") else CallableBackend(self.function)
        return ChatBackend(self.endpoint, timeout=self.timeout)

    def embeddings_backend(self) -> EmbeddingsBackend:
        if self.endpoint is None or not self.embedding_model:
            raise ConfigError("similarity by embeddings needs an endpoint and an embedding model (--embedding-model)")
        return EmbeddingsBackend(replace(self.endpoint, model=self.embedding_model), timeout=self.timeout)

    def judge(self, template: PromptTemplate, params: Mapping[str, Any], parse: Parser, scale: Any = None) -> Judge:
        """A chat judge on these settings' backend."""
        return Judge(self.chat_backend(), template=template, params=params, parse=parse, scale=scale)

    def run(self, judge: Judge, items: Sequence[Mapping[str, str]] | None = None, *, keys: Sequence[str] | None = None,
            bodies: Sequence[dict[str, Any]] | None = None) -> Judgments:
        """Run ``judge`` with these settings (the cache opened for the judge: a folder gets a file per fingerprint)."""
        return judge.run(items, keys=keys, bodies=bodies, cache=self.cache, cache_mode=self.cache_mode,
                         limits=self.limits, retry=self.retry, budget=self.budget, prices=self.prices,
                         progress=self._progress())

    def _progress(self) -> Progress | None:
        if self.progress is True:
            return stderr_progress
        return self.progress or None


def stderr_progress(totals: Totals, final: bool) -> None:
    """The run's counts on one line of stderr, rewritten in place on a terminal (the last line only otherwise)."""
    if sys.stderr.isatty():
        print(f"\r{totals.line()}", end="\n" if final else "", file=sys.stderr, flush=True)
    elif final:
        print(totals.line(), file=sys.stderr, flush=True)
