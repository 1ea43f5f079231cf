"""What judging costs: a price table, the estimate before a run, and a hard budget.

Prices are in the user's currency per million tokens, per model: ``{"gpt-4o-mini": {"prompt":
0.15, "completion": 0.60, "cached": 0.075}}`` (``cached``, prompt tokens the server served from
its cache, defaults to the prompt price). The cost of a reply is
``(prompt - cached) * prompt_price + cached * cached_price + completion * completion_price``, / 1e6.

The estimate of a request before it is sent is its upper bound: the prompt estimated at one token
per 4 characters of its messages (rounded up, plus 4 per message) and the completion at its
``max_tokens``. A budget refuses to send a request whose upper bound, added to what was spent and
what is in flight, would pass it: the run stops *before* that call, and the items left are
errors ("budget"), never scored.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, InputError
from .backends import Usage

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


@dataclass(frozen=True)
class Price:
    """Per million tokens: ``prompt``, ``completion``, ``cached`` (None: the prompt price)."""

    prompt: float
    completion: float
    cached: float | None = None

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached, usage.prompt)
        cached_price = self.prompt if self.cached is None else self.cached
        return ((usage.prompt - cached) * self.prompt + cached * cached_price + usage.completion * self.completion) / 1e6


class PriceTable:
    """Prices by model name; a model it lacks costs nothing (and a budget refuses to run without its price)."""

    def __init__(self, prices: Mapping[str, Price | Mapping[str, float]] | None = None) -> None:
        self.prices: dict[str, Price] = {}
        for model, price in (prices or {}).items():
            self.prices[str(model)] = price if isinstance(price, Price) else _price(price, str(model))

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> PriceTable:
        """A JSON file ``{model: {"prompt": p, "completion": c, "cached": k}}``."""
        source = os.fspath(path)
        try:
            with open(source, encoding="utf-8") as handle:
                data = json.load(handle)
        except ValueError as error:
            raise InputError(f"not JSON: {error}", source=source) from None
        if not isinstance(data, dict):
            raise InputError("a price table is an object {model: {prompt, completion, cached}}", source=source)
        try:
            return cls(data)
        except ConfigError as error:
            raise InputError(str(error), source=source) from None

    def price(self, model: str | None) -> Price | None:
        return self.prices.get(model or "")

    def cost(self, model: str | None, usage: Usage) -> float:
        price = self.price(model)
        return price.cost(usage) if price is not None else 0.0


def _price(values: Mapping[str, float], model: str) -> Price:
    if not isinstance(values, Mapping) or "prompt" not in values or "completion" not in values:
        raise ConfigError(f"price of {model!r}: give 'prompt' and 'completion' (per million tokens), and optionally 'cached'")
    unknown = set(values) - {"prompt", "completion", "cached"}
    if unknown:
        raise ConfigError(f"price of {model!r}: unknown field(s) {sorted(unknown)}; the fields are prompt, completion, cached")
    numbers = {name: values[name] for name in values}
    for name, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise ConfigError(f"price of {model!r}: {name} must be a number >= 0, got {value!r}")
    return Price(float(numbers["prompt"]), float(numbers["completion"]),
                 float(numbers["cached"]) if "cached" in numbers else None)


def estimate_prompt_tokens(body: dict[str, Any]) -> int:
    """Prompt tokens of a request, estimated: ceil(characters / 4) of each message, plus 4 per message."""
    messages = body.get("messages")
    if messages is None:  # embeddings
        return sum(math.ceil(len(text) / CHARS_PER_TOKEN) for text in body.get("input", []))
    return sum(math.ceil(len(str(message.get("content", ""))) / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE for message in messages)


def upper_bound(body: dict[str, Any]) -> Usage:
    """The most a request can use, as far as is known before sending it: the prompt estimate and ``max_tokens``."""
    completion = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    return Usage(estimate_prompt_tokens(body), int(completion), 0)


class Budget:
    """A hard limit on the cost of one run (``max_cost``, in the price table's currency), or on its tokens (``max_tokens``).

    :meth:`reserve` is called before each request with its upper bound: False means sending it
    could pass the limit, and the run stops there. :meth:`settle` replaces a reservation by what
    the reply really used.
    """

    def __init__(self, *, max_cost: float | None = None, max_tokens: int | None = None) -> None:
        for name, value in (("max_cost", max_cost), ("max_tokens", max_tokens)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0):
                raise ConfigError(f"budget {name} must be a positive number (or None: no limit), got {value!r}")
        self.max_cost, self.max_tokens = max_cost, max_tokens
        self.spent_cost = 0.0
        self.spent_tokens = 0
        self._held_cost = 0.0
        self._held_tokens = 0
        self._lock = threading.Lock()

    def reserve(self, cost: float, tokens: int) -> bool:
        with self._lock:
            if self.max_cost is not None and self.spent_cost + self._held_cost + cost > self.max_cost:
                return False
            if self.max_tokens is not None and self.spent_tokens + self._held_tokens + tokens > self.max_tokens:
                return False
            self._held_cost += cost
            self._held_tokens += tokens
            return True

    def settle(self, held_cost: float, held_tokens: int, cost: float, tokens: int) -> None:
        with self._lock:
            self._held_cost -= held_cost
            self._held_tokens -= held_tokens
            self.spent_cost += cost
            self.spent_tokens += tokens
