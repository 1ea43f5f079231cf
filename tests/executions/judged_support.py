"""What the judged-evaluator tests share: a judge pointed at a scripted server, and replies chosen by prompt."""

from __future__ import annotations

import json
from collections.abc import Callable

from retrieval_eval.judging.limits import RetryPolicy
from retrieval_eval.judging.settings import JudgeSettings
from tests.judging.server import Reply, Request, chat_reply, embeddings_reply

FAST_RETRY = RetryPolicy(max_retries=1, base_delay=0.0, max_delay=0.0)


def judge_at(url: str, **settings: object) -> JudgeSettings:
    return JudgeSettings.openai(url, "judge-model", retry=settings.pop("retry", FAST_RETRY), **settings)


def by_prompt(replies: dict[str, object], default: object = None) -> Callable[[Request], Reply]:
    """A script answering each chat request with the reply of the first key found in its user message.

    A reply is a dict (sent as JSON content), a str (sent as the content), or a :class:`Reply` (sent as it is).
    """

    def script(request: Request) -> Reply:
        if request.kind == "embeddings":
            return embeddings_reply(request)
        text = request.user_text
        reply = next((value for key, value in replies.items() if key in text), default)
        if isinstance(reply, Reply):
            return reply
        return chat_reply(reply if isinstance(reply, str) else json.dumps(reply), request)

    return script
