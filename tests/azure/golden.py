"""Replaying the judged golden vectors: a scripted server answering as the record says, the drop-in built from its init."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from retrieval_eval.judging.limits import Limits, RetryPolicy
from tests.judging.server import Reply, ScriptedServer
from tests.reference.test_oracle_vs_golden import decode_input, decode_typed

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "azure_judged_golden.jsonl"


def load() -> list[dict[str, Any]]:
    """Every record, its call and output decoded."""
    records = []
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["call"] = decode_input(record["call"])
        if record["output"] is not None:
            record["output"] = decode_typed(["dict", record["output"]])
        records.append(record)
    return records


def reply_body(spec: dict[str, Any], number: int) -> dict[str, Any]:
    """The body the recording server sent for a reply spec (see the generator)."""
    message: dict[str, Any] = {"role": "assistant", "content": spec["content"]}
    if spec["refusal"] is not None:
        message["refusal"] = spec["refusal"]
    body: dict[str, Any] = {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1_700_000_000,
                            "model": spec["model"],
                            "choices": [{"index": 0, "message": message, "finish_reason": spec["finish_reason"]}]}
    if spec["usage"] is not None:
        body["usage"] = spec["usage"]
    return body


class Replayer:
    """One server for many records: :meth:`script` sets the replies the next requests get, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: list[dict[str, Any]] = []
        self._start = 0
        self.server = ScriptedServer(self._answer)

    def _answer(self, request: Any) -> Reply:
        with self._lock:
            replies, start = self._replies, self._start
        number = request.number - start
        return Reply(body=reply_body(replies[min(number, len(replies)) - 1], number))

    def script(self, replies: list[dict[str, Any]]) -> int:
        """Set the replies; returns the number of requests received so far (the new record's first is the next)."""
        with self._lock:
            self._replies, self._start = replies, len(self.server.requests)
            return self._start

    def requests_since(self, start: int) -> list[Any]:
        return self.server.requests[start:]


class StandInCredential:
    """A credential answering locally, as the recording's."""

    class _Token:
        token = "stand-in-token"

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        return self._Token()


def resolve(value: Any, url: str) -> Any:
    if isinstance(value, dict):
        return {key: resolve(item, url) for key, item in value.items()}
    return value.replace("{server}", url) if isinstance(value, str) else value


def build_init(record: dict[str, Any], url: str, **extras: Any) -> tuple[Any, dict[str, Any]]:
    """``(model_config, keyword arguments)`` of a record's constructor, with one request at a time (so that the
    n-th request is the n-th turn's, as the SDK sends them) and no retry waits."""
    init = resolve(record["init"], url)
    config = init.pop("model_config")
    if init.get("credential") == "stand-in":
        init["credential"] = StandInCredential()
    init |= {"limits": Limits(concurrency=1), "retry": RetryPolicy(max_retries=0), **extras}
    return config, init
