"""Rate limits, backoff and Retry-After, on a fake clock: the waits are the definitions', to the microsecond."""

from __future__ import annotations

import email.utils
import random

import pytest

from retrieval_eval.errors import ConfigError
from retrieval_eval.judging.limits import Limits, RateLimiter, RetryPolicy, TokenBucket
from retrieval_eval.judging.transport import retry_after_seconds


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_bucket_allows_its_rate_in_a_burst_then_refills_continuously():
    clock = FakeClock()
    bucket = TokenBucket(60, clock=clock, sleep=clock.sleep)  # 60 a minute: one a second, a burst of 60
    assert [bucket.take(1) for _ in range(60)] == [0.0] * 60
    assert bucket.take(1) == pytest.approx(1.0)
    assert bucket.take(3) == pytest.approx(3.0)
    clock.now += 30
    assert bucket.take(30) == 0.0 and bucket.take(1) == pytest.approx(1.0)


def test_a_request_larger_than_a_minutes_allowance_waits_for_a_full_bucket():
    clock = FakeClock()
    bucket = TokenBucket(1000, clock=clock, sleep=clock.sleep)
    assert bucket.take(1000) == 0.0
    assert bucket.take(5000) == pytest.approx(60.0)


def test_the_limiter_waits_for_both_buckets(monkeypatch):
    clock = FakeClock()
    limiter = RateLimiter(Limits(requests_per_minute=120, tokens_per_minute=600))
    for bucket in (limiter.requests, limiter.tokens):
        bucket._clock, bucket._sleep, bucket._updated = clock, clock.sleep, 0.0
    assert limiter.acquire(600) == 0.0
    assert limiter.acquire(300) == pytest.approx(30.0)  # 300 tokens at 10 a second


def test_backoff_doubles_within_its_cap_with_jitter_and_retry_after_wins():
    policy = RetryPolicy(max_retries=5, base_delay=1.0, max_delay=5.0, max_retry_after=20.0)
    rng = random.Random(0)
    waits = [policy.delay(n, None, rng) for n in range(1, 6)]
    caps = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert all(cap / 2 <= wait <= cap for wait, cap in zip(waits, caps))
    assert policy.delay(1, 7.5, rng) == 7.5 and policy.delay(1, 500.0, rng) == 20.0


def test_retry_after_in_seconds_milliseconds_or_a_date():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "3"}) == 0.25
    date = email.utils.formatdate(1_000_010.0, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=1_000_000.0) == pytest.approx(10.0)
    assert retry_after_seconds({"retry-after": "soon"}) is None and retry_after_seconds({}) is None


@pytest.mark.parametrize(("settings", "message"), [
    ({"concurrency": 0}, "concurrency must be a positive integer"),
    ({"requests_per_minute": 0}, "requests_per_minute must be positive"),
    ({"tokens_per_minute": -5}, "tokens_per_minute must be positive"),
])
def test_limits_are_checked(settings, message):
    with pytest.raises(ConfigError, match=message):
        Limits(**settings)


def test_retries_are_checked():
    with pytest.raises(ConfigError, match="max_retries must be an integer >= 0"):
        RetryPolicy(max_retries=-1)
