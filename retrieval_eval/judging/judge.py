"""A judge: a backend, a prompt template, the request's parameters and a reply parser, run over a batch of items.

The judge's **fingerprint** is the first 16 hex digits of the SHA-256 of its canonical description
(backend kind and model, template name and hash, parameters, scale, parser): the same judge in
any process has the same fingerprint, and its cached replies are found again (:mod:`.cache`).

:meth:`Judge.run` sends one request per item not already answered (identical requests once),
``limits.concurrency`` at a time, within the rate limits and the budget, retrying transient
failures (:mod:`.limits`), and returns one :class:`~.outcomes.Judgment` per item in item order:
the results do not depend on the batch, the concurrency or the order replies arrive in. An item
whose reply cannot be had or read is an error (counted, listed, its value None), never a score.
A status that says the endpoint, key or model is wrong for every request (401, 403, 404) stops
the run with that one line. Ctrl-C stops it too; every reply that arrived is in the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from .backends import Completion
from .cache import CacheMiss, JudgeCache, request_key
from .costs import Budget, PriceTable, upper_bound
from .limits import Limits, RateLimiter, RetryPolicy
from .outcomes import Judgment, Judgments, Totals
from .templates import PromptTemplate
from .transport import FATAL_STATUSES, EndpointError, TransientError

#: ``progress(totals, final)``: called from the calling thread about every ``PROGRESS_SECONDS``, and once at the
#: end with ``final`` True.
Progress = Callable[[Totals, bool], None]
PROGRESS_SECONDS = 0.25


class ReplyError(ValueError):
    """A reply that arrived but cannot be read as a judgment (raised by a parser; the item becomes an error)."""


#: ``parse(completion) -> value``; raises :class:`ReplyError` for a reply it cannot read.
Parser = Callable[[Completion], Any]


def content_of(completion: Completion) -> str:
    """The reply's text; a refusal, an empty reply or one cut by the length limit is a :class:`ReplyError`."""
    if completion.refusal:
        raise ReplyError(f"the model refused: {completion.refusal[:120]!r}")
    if completion.content is None or not completion.content.strip():
        raise ReplyError(f"the reply has no content (finish_reason {completion.finish_reason!r})")
    return completion.content


class Judge:
    """``backend`` (:mod:`.backends`) asked with ``template`` and ``params`` (temperature, max_tokens, ...);
    ``parse`` reads each reply (default: its text); ``scale`` documents the labels (in the fingerprint)."""

    def __init__(self, backend: Any, *, template: PromptTemplate | None = None, params: Mapping[str, Any] | None = None,
                 parse: Parser | None = None, scale: Any = None, parser_name: str | None = None) -> None:
        self.backend = backend
        self.template = template
        self.params = dict(params or {})
        self.parse = parse or content_of
        self.scale = scale
        self.parser_name = parser_name or getattr(self.parse, "name", None) or getattr(self.parse, "__qualname__", "parser")
        for reserved in ("messages", "model", "input", "stream"):
            if reserved in self.params:
                raise ConfigError(f"judge parameter {reserved!r} is set by the judge itself; leave it out of params")

    def describe(self) -> dict[str, Any]:
        """What the fingerprint is made of (JSON)."""
        description = {**self.backend.describe(), "params": self.params, "scale": self.scale, "parser": self.parser_name}
        if self.template is not None:
            description |= {"template": self.template.name, "template_hash": self.template.hash}
        return description

    @property
    def fingerprint(self) -> str:
        canonical = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]

    def body(self, item: Mapping[str, str], where: str = "item") -> dict[str, Any]:
        """The request body of ``item`` (the template's messages and the judge's parameters)."""
        if self.template is None:
            raise ConfigError("this judge has no template: give run() request bodies (bodies=...)")
        return {"messages": self.template.messages(item, where), **self.params}

    def open_cache(self, path: str | os.PathLike[str] | JudgeCache | None, mode: str = "read-write") -> JudgeCache | None:
        if path is None or isinstance(path, JudgeCache):
            return path
        return JudgeCache(path, self.fingerprint, self.describe(), mode=mode)

    def estimate(self, bodies: Sequence[dict[str, Any]], prices: PriceTable | None, model: str | None = None) -> float:
        """The upper bound of the cost of sending ``bodies`` (see :mod:`.costs`)."""
        if prices is None:
            return 0.0
        name = model or self.backend.describe().get("model")
        return sum(prices.cost(name, upper_bound(body)) for body in bodies)

    def run(
        self,
        items: Sequence[Mapping[str, str]] | None = None,
        *,
        keys: Sequence[str] | None = None,
        bodies: Sequence[dict[str, Any]] | None = None,
        cache: str | os.PathLike[str] | JudgeCache | None = None,
        cache_mode: str = "read-write",
        limits: Limits | None = None,
        retry: RetryPolicy | None = None,
        budget: Budget | None = None,
        prices: PriceTable | None = None,
        progress: Progress | None = None,
        seed: int = 0,
    ) -> Judgments:
        """Judge every item (a mapping of the template's fields to texts), or send ``bodies`` as they are.

        ``keys`` name the items in errors and in the cache (default: their 1-based positions). Every
        item is checked before anything is sent: a missing or empty text is one error naming the item.
        """
        if (items is None) == (bodies is None):
            raise ConfigError("give the items to judge, or the request bodies, not both")
        count = len(items) if items is not None else len(bodies)
        names = [str(key) for key in keys] if keys is not None else [str(i) for i in range(1, count + 1)]
        if len(names) != count:
            raise ConfigError(f"{len(names)} keys for {count} items")
        if bodies is None:
            bodies = [self.body(item, f"item {name}") for name, item in zip(names, items)]
        opened = self.open_cache(cache, cache_mode)
        try:
            return _Run(self, list(bodies), names, opened, limits or Limits(), retry or RetryPolicy(), budget,
                        prices, progress, seed).execute()
        finally:
            if opened is not None and opened is not cache:
                opened.close()


class _Run:
    """One execution of :meth:`Judge.run` (its state shared by the worker threads)."""

    def __init__(self, judge: Judge, bodies: list[dict[str, Any]], names: list[str], cache: JudgeCache | None,
                 limits: Limits, retry: RetryPolicy, budget: Budget | None, prices: PriceTable | None,
                 progress: Progress | None, seed: int) -> None:
        self.judge, self.bodies, self.names, self.cache = judge, bodies, names, cache
        self.limits, self.retry, self.budget, self.progress, self.seed = limits, retry, budget, progress, seed
        self.model = judge.backend.describe().get("model")
        self.prices = prices or PriceTable()
        if budget is not None and budget.max_cost is not None and self.prices.price(self.model) is None:
            raise ConfigError(f"a budget in cost needs the price of model {self.model!r} in the price table")
        self.fingerprint = judge.fingerprint
        self.keys = [request_key(self.fingerprint, body) for body in bodies]
        self.totals = Totals(items=len(bodies))
        self.results: list[Judgment | None] = [None] * len(bodies)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.fatal: EndpointError | None = None
        self.limiter = RateLimiter(limits)

    def execute(self) -> Judgments:
        started = time.monotonic()
        pending: dict[str, list[int]] = {}
        for index, key in enumerate(self.keys):
            reply = self.cache.get(key) if self.cache is not None and self.cache.mode != "refresh" else None
            if reply is not None:
                self._finish(index, reply, attempts=0, cached=True, cost=0.0)
            else:
                pending.setdefault(key, []).append(index)
        if pending and self.cache is not None and self.cache.mode == "replay":
            first = self.names[next(iter(pending.values()))[0]]
            raise CacheMiss(f"cache {self.cache.path}: {sum(map(len, pending.values()))} item(s) not in the cache, "
                            f"first item {first}; replay mode sends nothing (run in read-write mode to fill it)")
        self.totals.estimated_cost = self.judge.estimate([self.bodies[group[0]] for group in pending.values()],
                                                         self.prices, self.model)
        work: queue.SimpleQueue[list[int] | None] = queue.SimpleQueue()
        for group in pending.values():
            work.put(group)
        workers = [threading.Thread(target=self._work, args=(work, number), daemon=True)
                   for number in range(min(self.limits.concurrency, len(pending)))]
        for _ in workers:
            work.put(None)
        try:
            for worker in workers:
                worker.start()
            while any(worker.is_alive() for worker in workers):
                for worker in workers:
                    worker.join(PROGRESS_SECONDS)
                    self._report(started)
        except BaseException:
            self.stop.set()  # the workers stop taking items; what arrived is in the cache already
            raise
        if self.fatal is not None:
            raise self.fatal
        self._report(started, final=True)
        return Judgments(tuple(self.results), self.totals, self.fingerprint, self.judge.describe())

    def _report(self, started: float, final: bool = False) -> None:
        with self.lock:
            self.totals.seconds = time.monotonic() - started
        if self.progress is not None:
            self.progress(self.totals, final)

    def _work(self, work: queue.SimpleQueue, number: int) -> None:
        rng = random.Random(self.seed * 1_000_003 + number)
        while (group := work.get()) is not None:
            if self.stop.is_set():
                self._fail(group, "not judged: the run was stopped", attempts=0)
                continue
            self._judge(group, rng)

    def _judge(self, group: list[int], rng: random.Random) -> None:
        body = self.bodies[group[0]]
        bound = upper_bound(body)
        held_cost = self.prices.cost(self.model, bound)
        if self.budget is not None and not self.budget.reserve(held_cost, bound.total):
            with self.lock:
                self.totals.budget_stopped = True
            self._fail(group, "not judged: the budget would be passed by this request", attempts=0)
            return
        attempts, reply, error = 0, None, None
        while not self.stop.is_set():
            self.limiter.acquire(bound.total)
            attempts += 1
            with self.lock:
                self.totals.requests += 1
                self.totals.retries += int(attempts > 1)
            try:
                reply = self.judge.backend.send(body)
                break
            except TransientError as failure:
                error = failure
                if attempts > self.retry.max_retries:
                    break
                if self.stop.wait(self.retry.delay(attempts, failure.retry_after, rng)):
                    break
            except EndpointError as failure:
                error = failure
                if failure.status in FATAL_STATUSES:
                    self.fatal = EndpointError(f"the endpoint refused the request ({failure}): check the URL, key and "
                                               "model", status=failure.status)
                    self.stop.set()
                break
        if reply is None:
            if self.budget is not None:
                self.budget.settle(held_cost, bound.total, 0.0, 0)
            reason = f"no reply after {attempts} attempt(s): {error}" if error is not None else "not judged: the run was stopped"
            self._fail(group, reason, attempts)
            return
        cost = self.prices.cost(self.model, reply.usage) if reply.usage else held_cost
        if self.budget is not None:
            self.budget.settle(held_cost, bound.total, cost, reply.usage.total if reply.usage else bound.total)
        if self.cache is not None:
            self.cache.put(self.keys[group[0]], self.names[group[0]], reply)
        for position, index in enumerate(group):
            self._finish(index, reply, attempts=attempts if position == 0 else 0, cached=position > 0,
                         cost=cost if position == 0 else 0.0, counted=position == 0)

    def _finish(self, index: int, reply: Completion, *, attempts: int, cached: bool, cost: float, counted: bool = False) -> None:
        try:
            value, error = self.judge.parse(reply), None
        except ReplyError as failure:
            value, error = None, f"item {self.names[index]}: {failure}"
        with self.lock:
            self.results[index] = Judgment(self.names[index], value, reply, error, attempts, cached, cost)
            self.totals.done += 1
            self.totals.cache_hits += int(cached)
            self.totals.errors += int(error is not None)
            if counted:
                self.totals.cost += cost
                if reply.usage is None:
                    self.totals.usage_missing += 1
                else:
                    self.totals.prompt_tokens += reply.usage.prompt
                    self.totals.completion_tokens += reply.usage.completion
                    self.totals.cached_tokens += reply.usage.cached

    def _fail(self, group: list[int], reason: str, attempts: int) -> None:
        with self.lock:
            for position, index in enumerate(group):
                message = reason if reason.startswith("item ") else f"item {self.names[index]}: {reason}"
                self.results[index] = Judgment(self.names[index], None, None, message, attempts if position == 0 else 0)
                self.totals.done += 1
                self.totals.errors += 1
