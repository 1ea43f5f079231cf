"""The judge's flags, shared by every command that asks a model (``check``, ``tasks``, ``judge``), and their settings.

:func:`add_judge_flags` adds them to a subcommand's parser; :func:`judge_settings` turns the
parsed flags into :class:`~retrieval_eval.judging.settings.JudgeSettings` (None when the judge is
optional and no model was named); :func:`totals_lines` is what a command prints on stderr after
a judged run. Nothing here loads the judge layer until the flags are read, so ``--help`` stays light.

Endpoints: ``--base-url URL --model NAME`` is any OpenAI-compatible server (the key from
``OPENAI_API_KEY``; none is needed on this machine's loopback); ``--azure --model DEPLOYMENT``
is Azure OpenAI, its endpoint from ``--base-url`` or ``AZURE_OPENAI_ENDPOINT`` and its key from
``AZURE_OPENAI_API_KEY`` (or ``AZURE_OPENAI_AD_TOKEN``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..policies import CACHE_MODES
from ..views import count_text, counted
from .common import checked_type, progress_wanted, usage

if TYPE_CHECKING:
    from ..judging.outcomes import Totals
    from ..judging.settings import JudgeSettings

# Flags that only mean something with a model; given without one they are a usage error, not ignored.
_NEEDS_MODEL = ("embedding_model", "cache", "cache_mode", "concurrency", "requests_per_minute", "tokens_per_minute",
                "max_retries", "timeout", "budget", "prices")


_positive_int = checked_type(int, lambda value: value >= 1, "a positive integer")
_count = checked_type(int, lambda value: value >= 0, "an integer >= 0")
_positive = checked_type(float, lambda value: value > 0 and value != float("inf"), "a positive number")


def add_judge_flags(parser: argparse.ArgumentParser, required: bool) -> None:
    """Add the judge's flags to ``parser`` (in a group of their own); ``required``: the command needs a model."""
    group = parser.add_argument_group("judge", "the model that judges (an OpenAI-compatible endpoint or Azure OpenAI)"
                                      + ("" if required else "; without --model the judged evaluators are skipped"))
    group.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 "
                       "(default: OPENAI_BASE_URL or api.openai.com); with --azure, the Azure OpenAI endpoint")
    group.add_argument("--model", metavar="NAME", required=required, help="the judge's model (with --azure: the deployment)")
    group.add_argument("--azure", action="store_true", help="Azure OpenAI: the endpoint from --base-url or "
                       "AZURE_OPENAI_ENDPOINT, the key from AZURE_OPENAI_API_KEY, the deployment from --model")
    group.add_argument("--embedding-model", metavar="NAME", help="the embedding model (or deployment) for similarity "
                       "by embeddings")
    group.add_argument("--cache", metavar="FILE|DIR", help="keep every reply: a JSONL file, or a folder with one file "
                           "per judge; a request found there is not sent again")
    group.add_argument("--cache-mode", choices=CACHE_MODES, help="read-write (default), replay (send nothing: a "
                       "request not cached is an error), refresh (send everything again)")
    group.add_argument("--concurrency", type=_positive_int, metavar="N", help="requests in flight at once (default 8)")
    group.add_argument("--requests-per-minute", type=_positive, metavar="N", help="rate limit (default: none)")
    group.add_argument("--tokens-per-minute", type=_positive, metavar="N", help="rate limit in tokens (default: none)")
    group.add_argument("--max-retries", type=_count, metavar="N", help="retries of a failed request: 429, 5xx, "
                       "timeouts (default 4)")
    group.add_argument("--timeout", type=_positive, metavar="SECONDS", help="seconds per request (default 60)")
    group.add_argument("--budget", type=_positive, metavar="COST", help="stop before the cost could pass COST (in the "
                       "currency of --prices, which it needs)")
    group.add_argument("--prices", metavar="PRICES.json", help='prices per million tokens: {"model": {"prompt": p, '
                       '"completion": c, "cached": k}}')


def judge_settings(args: argparse.Namespace) -> JudgeSettings | None:
    """The judge of the parsed flags; None when no model was named (a command whose judge is optional)."""
    if not args.model:
        if args.azure or args.base_url:
            raise usage("--base-url and --azure need the judge's model: --model NAME")
        given = [name for name in _NEEDS_MODEL if getattr(args, name, None) is not None]
        if given:
            raise usage(f"--{given[0].replace('_', '-')} needs a judge: give --model NAME (and --base-url or --azure)")
        return None
    if args.budget is not None and args.prices is None:
        raise usage("--budget COST needs the model's price: --prices PRICES.json")
    from ..judging.costs import Budget, PriceTable
    from ..judging.limits import Limits, RetryPolicy
    from ..judging.settings import JudgeSettings

    # The live line on a terminal (or with --progress, not with --quiet); the command prints the totals once anyway
    # (totals_lines).
    settings: dict[str, Any] = {"progress": True if progress_wanted(args) else None}
    if args.embedding_model:
        settings["embedding_model"] = args.embedding_model
    if args.cache:
        settings["cache"] = args.cache
    if args.cache_mode:
        settings["cache_mode"] = args.cache_mode
    limits = {name: getattr(args, name) for name in ("concurrency", "requests_per_minute", "tokens_per_minute")
              if getattr(args, name) is not None}
    if limits:
        settings["limits"] = Limits(**limits)
    if args.max_retries is not None:
        settings["retry"] = RetryPolicy(max_retries=args.max_retries)
    if args.timeout is not None:
        settings["timeout"] = args.timeout
    if args.prices:
        settings["prices"] = PriceTable.read(args.prices)
    if args.budget is not None:
        settings["budget"] = Budget(max_cost=args.budget)
    if args.azure:
        return JudgeSettings.azure(args.base_url, args.model, **settings)
    return JudgeSettings.openai(args.base_url, args.model, **settings)


def totals_lines(totals: Totals) -> list[str]:
    """What a judged run used, for stderr: requests, cache hits and errors; tokens and cost."""
    lines = [f"judge: {counted(totals.items, 'item')}, {count_text(totals.cache_hits)} from the cache, "
             f"{counted(totals.requests, 'request')}, {counted(totals.retries, 'retry', 'retries')}, {counted(totals.errors, 'error')}",
             f"judge tokens: {totals.prompt_tokens:,} prompt ({totals.cached_tokens:,} cached), "
             f"{totals.completion_tokens:,} completion; cost {totals.cost:.4f}"]
    if totals.usage_missing:
        lines[-1] += f"; {counted(totals.usage_missing, 'reply', 'replies')} without usage (not counted)"
    if totals.budget_stopped:
        lines.append("judge: stopped by the budget; the items not sent are errors")
    return lines
