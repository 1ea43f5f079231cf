"""One JSON POST over HTTP(S), on a kept-alive connection per thread, with the outcome sorted for retrying.

Standard library only (``http.client``): a judge's per-request cost is the server's latency plus
a fraction of a millisecond here, and no client library has to be installed or imported.

- :class:`TransientError`: worth asking again (408, 409, 429, 5xx, a timeout, a dropped
  connection, a 200 whose body is not JSON), with the server's ``Retry-After`` when it sent one
  (seconds or an HTTP date; Azure's ``retry-after-ms`` too).
- :class:`EndpointError`: asking again cannot help (400, 401, 403, 404, 422, ...): the status and
  the server's own message, in one line.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import socket
import ssl
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from ..errors import RetrievalEvalError

_RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504})
#: Statuses that say the endpoint, key or model is wrong for every request, not this one.
FATAL_STATUSES = frozenset({401, 403, 404})


class EndpointError(RetrievalEvalError):
    """The endpoint refused a request in a way that asking again cannot mend; ``status`` is its HTTP status."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TransientError(EndpointError):
    """A failure worth retrying; ``retry_after``: the seconds the server asked to wait, when it said."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


def retry_after_seconds(headers: http.client.HTTPMessage | dict[str, str], now: float | None = None) -> float | None:
    """The wait a reply asks for: ``retry-after-ms`` (milliseconds), ``Retry-After`` (seconds or an HTTP date)."""
    get = headers.get
    millis = get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


class Transport:
    """POSTs JSON to URLs of one host, one kept-alive connection per calling thread; ``timeout`` in seconds."""

    def __init__(self, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._local = threading.local()

    def post(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """The parsed JSON reply of a 2xx status; raises :class:`TransientError` or :class:`EndpointError` otherwise."""
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        sent = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        connection = self._connection(parts.scheme, parts.netloc)
        try:
            connection.request("POST", target or "/", body=payload, headers=sent)
            response = connection.getresponse()
            raw = response.read()
        except (socket.timeout, TimeoutError) as error:
            self._drop()
            raise TransientError(f"no reply within {self.timeout:g} s ({error.__class__.__name__})") from None
        except (http.client.HTTPException, ConnectionError, OSError) as error:
            self._drop()
            raise TransientError(f"connection to {parts.netloc} failed: {error.__class__.__name__}: {error}") from None
        if response.getheader("connection", "").lower() == "close":
            self._drop()
        status = response.status
        if 200 <= status < 300:
            try:
                return json.loads(raw)
            except ValueError:
                raise TransientError(f"status {status} with a body that is not JSON: {_excerpt(raw)}", status=status) from None
        message = f"status {status}: {_server_message(raw)}"
        if status in _RETRYABLE:
            raise TransientError(message, status=status, retry_after=retry_after_seconds(response.headers))
        raise EndpointError(message, status=status)

    def _connection(self, scheme: str, netloc: str) -> http.client.HTTPConnection:
        cached = getattr(self._local, "connection", None)
        if cached is not None and self._local.key == (scheme, netloc):
            return cached
        self._drop()
        if scheme == "https":
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                netloc, timeout=self.timeout, context=ssl.create_default_context())
        else:
            connection = http.client.HTTPConnection(netloc, timeout=self.timeout)
        self._local.connection, self._local.key = connection, (scheme, netloc)
        return connection

    def _drop(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None


def _server_message(raw: bytes) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the body's start."""
    try:
        parsed = json.loads(raw)
        error = parsed.get("error") if isinstance(parsed, dict) else None
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
    except ValueError:
        pass
    return _excerpt(raw)


def _excerpt(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").strip().replace("\n", " ")
    return repr(text[:120] + ("..." if len(text) > 120 else ""))
