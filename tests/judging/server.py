"""A real HTTP server on 127.0.0.1 that speaks the chat-completions and embeddings protocols with scripted replies.

The tests (and the recording of golden vectors against azure-ai-evaluation) point a client at it
instead of a model: it listens on a free port, answers every POST ending in ``/chat/completions``
or ``/embeddings`` (OpenAI's paths, and Azure's ``/openai/deployments/<name>/...?api-version=``),
records every request it receives, and stops when the ``with`` block ends.

What it answers is decided by ``script(request) -> Reply``, called once per request with the
parsed :class:`Request`; the default answers a chat request with ``content(request)`` and a usage
block whose token counts are the lengths of the texts (so totals are checkable), and an
embeddings request with a deterministic vector per input text. Faults are replies too: a status
(429 with ``Retry-After``, 500), a delay longer than the client's timeout, a body that is not JSON,
content that does not parse, a refusal, a reply without ``usage``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

#: The longest a scripted delay may hold a handler, so that no test can hang on the server.
MAX_DELAY = 10.0


@dataclass(frozen=True)
class Request:
    """One request as received: ``path`` (without the query), ``query`` (its parameters), ``headers``, ``body`` (parsed JSON)."""

    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    number: int  # 1-based count of requests the server has received, this one included

    @property
    def kind(self) -> str:
        return "embeddings" if self.path.endswith("/embeddings") else "chat"

    @property
    def user_text(self) -> str:
        """The last user message's content (chat requests)."""
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        users = [message.get("content", "") for message in messages if message.get("role") == "user"]
        return users[-1] if users else ""


@dataclass(frozen=True)
class Reply:
    """What the server sends: ``status``, ``body`` (a dict is sent as JSON, bytes as they are), ``headers``, after ``delay`` seconds."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def tokens(text: str) -> int:
    """The server's token count of a text: its number of whitespace-separated words (at least 1)."""
    return max(1, len(text.split()))


def chat_reply(content: str | None, request: Request, *, usage: bool = True, finish_reason: str = "stop",
               refusal: str | None = None, cached_tokens: int = 0) -> Reply:
    """A 200 chat-completions reply carrying ``content``, with usage counted by :func:`tokens`."""
    prompt = sum(tokens(str(message.get("content", ""))) for message in request.body.get("messages", []))
    completion = tokens(content or refusal or "")
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    body: dict[str, Any] = {
        "id": f"chatcmpl-{request.number}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": request.body.get("model") or "scripted-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                         "prompt_tokens_details": {"cached_tokens": cached_tokens}}
    return Reply(body=body)


def embedding(text: str, dimensions: int = 8) -> list[float]:
    """A deterministic unit vector for ``text`` (from its SHA-256), the same in every process."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    values = [(byte - 127.5) / 127.5 for byte in digest[:dimensions]]
    norm = sum(value * value for value in values) ** 0.5
    return [value / norm for value in values]


def embeddings_reply(request: Request) -> Reply:
    inputs = request.body.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else inputs
    data = [{"object": "embedding", "index": i, "embedding": embedding(text)} for i, text in enumerate(inputs)]
    used = sum(tokens(text) for text in inputs)
    return Reply(body={"object": "list", "data": data, "model": request.body.get("model") or "scripted-embedding",
                       "usage": {"prompt_tokens": used, "total_tokens": used}})


def default_script(content: Callable[[Request], str]) -> Callable[[Request], Reply]:
    """Chat requests answered with ``content(request)``, embeddings with :func:`embedding` vectors."""

    def script(request: Request) -> Reply:
        return embeddings_reply(request) if request.kind == "embeddings" else chat_reply(content(request), request)

    return script


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops the connections of 32 clients opening at once (each then waits a second
    # for the kernel to retry it): a model server takes many more.
    request_queue_size = 256


class ScriptedServer:
    """The server, as a context manager: ``url`` is its base URL (``http://127.0.0.1:PORT``), ``requests`` what it received."""

    def __init__(self, script: Callable[[Request], Reply] | None = None) -> None:
        self.script = script or default_script(lambda request: json.dumps({"label": 1}))
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints
            # The headers and the body are two writes: without TCP_NODELAY the second waits for the client's
            # delayed acknowledgement of the first (40 ms a request).
            disable_nagle_algorithm = True

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                parts = urlsplit(self.path)
                with server._lock:
                    request = Request(parts.path, parse_qs(parts.query), {k.lower(): v for k, v in self.headers.items()},
                                      body, len(server.requests) + 1)
                    server.requests.append(request)
                reply = server.script(request)
                if reply.delay:
                    server._stopping.wait(min(reply.delay, MAX_DELAY))
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test): nothing to send to

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the http.server signature)
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def chat_requests(self) -> list[Request]:
        return [request for request in self.requests if request.kind == "chat"]

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def run_forever(script: Callable[[Request], Reply] | None = None) -> None:
    """Serve until interrupted, printing the URL (for recording golden vectors from another process)."""
    with ScriptedServer(script) as server:
        print(server.url, flush=True)
        try:
            while True:
                time.sleep(1)
        except KeyboardInterrupt:
            pass
