"""Backends: what sends one request to a model and reads its reply.

A backend has ``describe()`` (what goes into the judge's fingerprint: its kind and model) and
``send(body) -> Completion``. The request body is built by the judge (messages and parameters);
the backend adds what its protocol needs (the model, the URL, the keys) and reads the reply:

- :class:`ChatBackend`: the chat-completions protocol: the text of ``choices[0].message.content``,
  the finish reason, the model that answered, a refusal when the model refused, and ``usage``
  (prompt, completion and cached prompt tokens; ``None`` when the reply has none).
- :class:`EmbeddingsBackend`: the embeddings protocol: one vector per input text.
- :class:`CallableBackend`: the user's own function, ``fn(messages) -> str`` (or a dict with
  ``content`` and optional ``usage``): any model, any library, or a deterministic judge.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .endpoint import Endpoint
from .transport import TransientError, Transport


@dataclass(frozen=True)
class Usage:
    """Tokens of one reply as the server counted them: ``prompt``, ``completion``, ``cached`` (prompt tokens served from its cache)."""

    prompt: int = 0
    completion: int = 0
    cached: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion

    def to_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt, "completion_tokens": self.completion, "cached_tokens": self.cached}

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Usage | None:
        if not isinstance(values, dict):
            return None
        details = values.get("prompt_tokens_details")
        cached = values.get("cached_tokens", details.get("cached_tokens") if isinstance(details, dict) else 0)
        return cls(int(values.get("prompt_tokens") or 0), int(values.get("completion_tokens") or 0), int(cached or 0))


@dataclass(frozen=True)
class Completion:
    """One reply: ``content`` (the text, or ``vectors`` for embeddings), ``usage`` (None: the reply had none),
    ``finish_reason``, ``model`` (as the server named it), ``refusal`` (the model's refusal text, if it refused)."""

    content: str | None
    usage: Usage | None
    finish_reason: str | None = None
    model: str | None = None
    refusal: str | None = None
    vectors: tuple[tuple[float, ...], ...] | None = None

    def to_record(self) -> dict[str, Any]:
        """The JSON form kept in the cache."""
        record: dict[str, Any] = {"content": self.content, "usage": self.usage.to_dict() if self.usage else None,
                                  "finish_reason": self.finish_reason, "model": self.model}
        if self.refusal is not None:
            record["refusal"] = self.refusal
        if self.vectors is not None:
            record["vectors"] = [list(vector) for vector in self.vectors]
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Completion:
        vectors = record.get("vectors")
        return cls(record.get("content"), Usage.from_dict(record.get("usage")), record.get("finish_reason"),
                   record.get("model"), record.get("refusal"),
                   tuple(tuple(float(x) for x in vector) for vector in vectors) if vectors is not None else None)


class _HttpBackend:
    """What the two protocols share: the endpoint's URL for ``operation``, its headers, the model in the body."""

    operation = ""
    kind = ""

    def __init__(self, endpoint: Endpoint, *, timeout: float = 60.0) -> None:
        self.endpoint = endpoint
        self.transport = Transport(timeout)
        self._headers = endpoint.headers()
        self._url = endpoint.url(self.operation)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.kind, **self.endpoint.describe()}

    def _post(self, body: dict[str, Any]) -> Any:
        model = self.endpoint.body_model()
        return self.transport.post(self._url, {"model": model, **body} if model else body, self._headers)


class ChatBackend(_HttpBackend):
    """The chat-completions protocol at ``endpoint``; ``timeout`` in seconds per request."""

    operation = "chat/completions"
    kind = "chat"

    def send(self, body: dict[str, Any]) -> Completion:
        return read_chat_reply(self._post(body))


def read_chat_reply(reply: Any) -> Completion:
    """The :class:`Completion` of a chat-completions reply; a reply without a choice is retried (:class:`TransientError`)."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not choices or not isinstance(choices[0], dict):
        raise TransientError(f"a reply without choices: {str(reply)[:120]!r}")
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content")
    return Completion(
        content if isinstance(content, str) else None, Usage.from_dict(reply.get("usage")), choice.get("finish_reason"),
        reply.get("model"), message.get("refusal") if isinstance(message.get("refusal"), str) else None,
    )


class EmbeddingsBackend(_HttpBackend):
    """The embeddings protocol at ``endpoint``: ``{"input": [texts]}`` -> one vector per text, in order."""

    operation = "embeddings"
    kind = "embeddings"

    def send(self, body: dict[str, Any]) -> Completion:
        reply = self._post(body)
        data = reply.get("data") if isinstance(reply, dict) else None
        expected = len(body.get("input", []))
        if not isinstance(data, list) or len(data) != expected:
            raise TransientError(f"an embeddings reply without {expected} vectors: {str(reply)[:120]!r}")
        ordered = sorted(data, key=lambda item: item.get("index", 0))
        vectors = tuple(tuple(float(x) for x in item["embedding"]) for item in ordered)
        return Completion(None, Usage.from_dict(reply.get("usage")), None, reply.get("model"), vectors=vectors)


class CallableBackend:
    """The user's function as a backend: ``fn(messages)`` returns the reply's text, or a dict with
    ``content`` and optionally ``usage`` (OpenAI's usage keys), ``finish_reason`` and ``model``.

    ``name`` identifies it in the fingerprint (default: the function's qualified name and a hash
    of its source, so that an edited function does not read another's cached answers).
    """

    def __init__(self, fn: Callable[[list[dict[str, str]]], Any], *, name: str | None = None) -> None:
        if not callable(fn):
            raise ConfigError(f"a judge backend must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.name = name or _callable_name(fn)

    def describe(self) -> dict[str, Any]:
        return {"backend": "callable", "model": self.name}

    def send(self, body: dict[str, Any]) -> Completion:
        reply = self.fn(list(body["messages"]))
        if isinstance(reply, Completion):
            return reply
        if isinstance(reply, str):
            return Completion(reply, None, "stop", self.name)
        if isinstance(reply, dict) and ("content" in reply or "refusal" in reply):
            return Completion(reply.get("content"), Usage.from_dict(reply.get("usage")), reply.get("finish_reason", "stop"),
                              reply.get("model", self.name), reply.get("refusal"))
        raise ConfigError(f"judge function {self.name} returned {type(reply).__name__}; expected a str or a dict with 'content'")


def _callable_name(fn: Callable[..., Any]) -> str:
    qualified = getattr(fn, "__qualname__", type(fn).__name__)
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return qualified
    return f"{qualified}#{hashlib.sha256(source.encode('utf-8')).hexdigest()[:12]}"


def embedding_body(texts: Sequence[str]) -> dict[str, Any]:
    """An embeddings request body for ``texts``."""
    return {"input": list(texts)}
