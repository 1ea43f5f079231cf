"""How hard a judge may press its endpoint: concurrency, requests and tokens per minute, retries with backoff.

Rate limits are token buckets refilled continuously: ``requests_per_minute`` allows that many
requests in any minute (a burst of at most that many), ``tokens_per_minute`` the same of the
tokens each request is expected to use (its prompt estimate plus ``max_tokens``). A caller that
finds the bucket short waits for it; nothing is dropped.

Retries: a transient failure (429, 5xx, a timeout, a dropped connection, a reply that is not
JSON) is tried again up to ``max_retries`` times. The wait before retry ``n`` (1-based) is the
server's ``Retry-After`` when it gave one, else ``min(max_delay, base_delay * 2**(n-1))``
scaled by a random factor in [0.5, 1] (jitter, so that many workers do not retry in step). After
the last retry the item is an error: counted, listed and left unjudged.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass

from ..errors import ConfigError


@dataclass(frozen=True)
class Limits:
    """``concurrency`` (requests in flight at once), ``requests_per_minute``, ``tokens_per_minute`` (None: no limit)."""

    concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.concurrency, bool) or not isinstance(self.concurrency, int) or self.concurrency < 1:
            raise ConfigError(f"concurrency must be a positive integer, got {self.concurrency!r}")
        for name in ("requests_per_minute", "tokens_per_minute"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ConfigError(f"{name} must be positive (or None: no limit), got {value!r}")


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` after the first attempt; waits in seconds (see the module)."""

    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 120.0  # a longer Retry-After is waited for this long at most

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ConfigError(f"max_retries must be an integer >= 0, got {self.max_retries!r}")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ConfigError("retry delays must be >= 0 seconds")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        return min(self.max_delay, self.base_delay * 2 ** (retry - 1)) * (0.5 + 0.5 * rng.random())


class TokenBucket:
    """``rate`` units per minute, at most ``rate`` banked; :meth:`take` waits until ``amount`` is there."""

    def __init__(self, rate: float, clock=time.monotonic, sleep=time.sleep) -> None:
        self.capacity = float(rate)
        self.per_second = float(rate) / 60.0
        self.level = float(rate)
        self._clock, self._sleep = clock, sleep
        self._updated = clock()
        self._lock = threading.Lock()

    def take(self, amount: float) -> float:
        """Take ``amount`` (at most the capacity: a request larger than a minute's allowance waits for a full bucket);
        returns the seconds waited."""
        amount = min(float(amount), self.capacity)
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                self.level = min(self.capacity, self.level + (now - self._updated) * self.per_second)
                self._updated = now
                if self.level >= amount:
                    self.level -= amount
                    return waited
                wait = (amount - self.level) / self.per_second
            self._sleep(wait)
            waited += wait


class RateLimiter:
    """The request and token buckets of :class:`Limits` (either may be absent)."""

    def __init__(self, limits: Limits) -> None:
        self.requests = TokenBucket(limits.requests_per_minute) if limits.requests_per_minute else None
        self.tokens = TokenBucket(limits.tokens_per_minute) if limits.tokens_per_minute else None

    def acquire(self, expected_tokens: int) -> float:
        """Wait until one more request of ``expected_tokens`` may be sent; the seconds waited."""
        waited = self.requests.take(1) if self.requests else 0.0
        return waited + (self.tokens.take(expected_tokens) if self.tokens else 0.0)
