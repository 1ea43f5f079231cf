"""The judge's cache: content-addressed, append-only, one judge per file.

A cache file is JSON Lines. Its first line names the judge that wrote it
(``{"retrieval_eval_judge_cache": 1, "fingerprint": ..., "judge": {...}}``); each line after it
is one reply: ``{"key", "item", "reply", "at"}``. ``key`` is the SHA-256 of the judge's
fingerprint and the request's canonical JSON (its messages, hence its texts, and parameters), so
a request is found again whatever the order, batch or process it comes in; ``item`` is the
caller's name of the item (for reading the file); ``at`` the Unix time of the reply.

Every reply is appended (one ``write`` of a whole line, on a file opened for appending) as soon
as it arrives, so an interrupted run keeps every answer already paid for. A reply is kept even
when its content does not parse: it was paid for, and the same request gets the same reply.
Failures (statuses, timeouts) are not kept: they were not answers.

Modes:

- ``"read-write"`` (default): a request found in the cache is not sent; its first reply is used.
- ``"replay"``: nothing is sent; a request not in the cache is an error (deterministic CI, papers).
- ``"refresh"``: every request is sent again and its reply appended beside the earlier ones (the
  newest is used), so the judge's agreement with itself can be measured (:meth:`JudgeCache.replies`).

A file written by another judge (another fingerprint) is refused, naming both; a directory as the
cache holds one file per judge, ``<fingerprint>.jsonl``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..constraints import check_choice
from ..errors import ConfigError, InputError
from ..policies import CACHE_MODES
from .backends import Completion

_MAGIC = "retrieval_eval_judge_cache"
_VERSION = 1


def request_key(fingerprint: str, body: dict[str, Any]) -> str:
    """The cache key of a request: SHA-256 of the fingerprint and the body's canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{fingerprint}\n{canonical}".encode("utf-8")).hexdigest()


class CacheMiss(ConfigError):
    """A request is not in a cache opened in ``"replay"`` mode."""


class JudgeCache:
    """The replies of one judge (``fingerprint``, ``description``) in ``path`` (a file, or a directory of files)."""

    def __init__(self, path: str | os.PathLike[str], fingerprint: str, description: dict[str, Any], *,
                 mode: str = "read-write") -> None:
        check_choice("cache mode", mode, CACHE_MODES, bracketed=True)
        target = Path(os.fspath(path))
        if target.is_dir() or os.fspath(path).endswith(os.sep):
            target.mkdir(parents=True, exist_ok=True)
            target = target / f"{fingerprint}.jsonl"
        self.path = target
        self.mode = mode
        self.fingerprint = fingerprint
        self._replies: dict[str, list[Completion]] = {}
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._header = {_MAGIC: _VERSION, "fingerprint": fingerprint, "judge": description}
        if target.exists():
            self._load()
        elif mode == "replay":
            raise ConfigError(f"cache {target}: no such file, and replay mode sends nothing (run once in read-write mode)")

    def __len__(self) -> int:
        return len(self._replies)

    def get(self, key: str) -> Completion | None:
        """The reply to use for ``key``: the first one kept (the newest under ``"refresh"``), or None."""
        replies = self._replies.get(key)
        if not replies:
            return None
        return replies[-1] if self.mode == "refresh" else replies[0]

    def replies(self, key: str) -> list[Completion]:
        """Every reply kept for ``key``, oldest first (several after refreshes)."""
        return list(self._replies.get(key, ()))

    def put(self, key: str, item: str, reply: Completion) -> None:
        """Keep ``reply`` in memory and append it to the file at once."""
        line = json.dumps({"key": key, "item": item, "reply": reply.to_record(), "at": round(time.time(), 3)},
                          ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock:
            self._replies.setdefault(key, []).append(reply)
            if self._fd is None:
                self._open()
            os.write(self._fd, line.encode("utf-8"))

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _open(self) -> None:
        new = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as error:
            raise ConfigError(f"cache {self.path}: cannot write: {error.strerror}") from None
        if new:
            os.write(self._fd, (json.dumps(self._header, sort_keys=True) + "\n").encode("utf-8"))

    def _load(self) -> None:
        source = str(self.path)
        with open(self.path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            return
        header = _parse(lines[0], source, 1)
        if not isinstance(header, dict) or header.get(_MAGIC) != _VERSION:
            raise InputError("not a judge cache (its first line names no judge)", source=source, row=1)
        if header.get("fingerprint") != self.fingerprint:
            raise ConfigError(
                f"cache {source} was written by judge {header.get('fingerprint')} ({_summary(header.get('judge'))}), "
                f"not by this judge {self.fingerprint} ({_summary(self._header['judge'])}): give another cache file")
        for number, line in enumerate(lines[1:], start=2):
            entry = _parse(line, source, number)
            try:
                key, reply = entry["key"], Completion.from_record(entry["reply"])
            except (KeyError, TypeError, AttributeError):
                raise InputError("a cache entry needs 'key' and 'reply'", source=source, row=number) from None
            self._replies.setdefault(key, []).append(reply)


def _parse(line: str, source: str, number: int) -> Any:
    try:
        return json.loads(line)
    except ValueError as error:
        raise InputError(f"not JSON ({error.msg}); the cache file is damaged", source=source, row=number) from None


def _summary(description: Any) -> str:
    if not isinstance(description, dict):
        return "unknown"
    fields = [f"{name} {description[name]}" for name in ("model", "template", "template_hash") if description.get(name)]
    return ", ".join(fields) or "unknown"
