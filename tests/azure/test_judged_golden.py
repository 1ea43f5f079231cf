"""The judged drop-ins against golden vectors recorded from azure-ai-evaluation 1.18.10.

``tests/data/azure_judged_golden.jsonl`` is produced by ``tests/golden/make_azure_judged_vectors.py``:
the SDK pointed at the scripted server, each record holding the replies the server gave, what the
SDK sent and what it returned or raised. Here the same replies are given to the drop-in and:

- its output dict equals the SDK's exactly: keys and their order, value types, values (NaN equals
  NaN), the properties included. Nothing there necessarily differs: the token counts are the
  reply's (fixed in the script, not counted from our different prompt text), and
  ``sample_input`` is the JSON of the inputs, not the prompt;
- its requests carry the SDK's: as many, the same path and api-version, the same body apart from
  the messages (model, temperature, top_p, max_tokens or max_completion_tokens, seed, penalties,
  response_format), the same message roles, the same authentication header. The messages'
  text necessarily differs: the prompts are our own;
- where the SDK raises EvaluationException, the drop-in raises it with the same message, at the
  same stage (constructor or call); where the SDK raises a raw error (JSONDecodeError,
  TypeError, ValueError, OverflowError) for a reply it cannot read, the drop-in raises
  EvaluationException; where the SDK cannot use an OpenAI configuration without ``"type"``, the
  drop-in can (and gives the typed configuration's output).

For a parallel QAEvaluator the SDK's key order depends on which sub-evaluator finishes first; the
record holds the sequential order (``key_order``), which the drop-in always gives.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import retrieval_eval.azure as drop_ins
from retrieval_eval.azure import EvaluationException
from tests.azure.golden import Replayer, build_init, load

RECORDS = load()
SDK_RAW_ERRORS = {"JSONDecodeError", "TypeError", "ValueError", "OverflowError", "AttributeError"}


@pytest.fixture(scope="module")
def replayer():
    replay = Replayer()
    with replay.server:
        yield replay


def assert_same(ours: Any, theirs: Any, path: str = "") -> None:
    """Equal values of the same type, dict keys in the same order; NaN equals NaN."""
    assert type(ours) is type(theirs), (path, ours, theirs)
    if isinstance(theirs, dict):
        assert list(ours) == list(theirs), path
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), path
        for index, (mine, sdk) in enumerate(zip(ours, theirs)):
            assert_same(mine, sdk, f"{path}[{index}]")
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert math.isnan(ours), (path, ours)
    else:
        assert ours == theirs, (path, ours, theirs)


def auth_header(headers: list[str]) -> str | None:
    return next((name for name in ("api-key", "authorization") if name in headers), None)


def replay(replayer: Replayer, record: dict[str, Any]) -> tuple[str, Any, list[Any]]:
    """(stage, output or exception, requests) of the drop-in on a record."""
    start = replayer.script(record["replies"])
    config, init = build_init(record, replayer.server.url)
    stage = "init"
    try:
        evaluator = getattr(drop_ins, record["evaluator"])(config, **init)
        stage = "call"
        result: Any = evaluator(**record["call"])
    except Exception as error:  # noqa: BLE001 -- compared with what the SDK raised
        result = error
    return stage, result, replayer.requests_since(start)


def assert_requests(ours: list[Any], theirs: list[dict[str, Any]]) -> None:
    assert len(ours) == len(theirs)
    for mine, sdk in zip(ours, theirs):
        body = dict(mine.body)
        messages = body.pop("messages")
        assert mine.path == sdk["path"]
        assert mine.query == sdk["query"]
        assert body == sdk["params"]
        assert [message["role"] for message in messages] == sdk["roles"]
        assert auth_header(sorted(mine.headers)) == auth_header(sdk["headers"])


def typed_twin(record: dict[str, Any]) -> dict[str, Any]:
    """The record of the same evaluator with the typed OpenAI configuration."""
    return next(other for other in RECORDS
                if other["evaluator"] == record["evaluator"] and other["category"] == "config:openai")


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r['case_id']}-{r['evaluator']}-{r['category']}" for r in RECORDS])
def test_drop_in_matches_the_sdk(replayer, record):
    stage, result, requests = replay(replayer, record)
    error = record["error"]
    if error is not None and error["type"] == "MissingRequiredInputError":
        # The SDK's bug: an OpenAI configuration without "type" fails on every call. Ours works.
        twin = typed_twin(record)
        assert_same(result, twin["output"])
        assert_requests(requests, twin["requests"])
        return
    assert_requests(requests, record["requests"])
    if error is None:
        assert not isinstance(result, Exception), result
        assert_same(result, record["output"])
        return
    assert isinstance(result, EvaluationException), (error, result)
    assert stage == error["stage"]
    if error["type"] == "EvaluationException":
        assert str(result) == error["message"]
    else:
        assert error["type"] in SDK_RAW_ERRORS
        assert "\n" not in str(result)
