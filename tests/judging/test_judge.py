"""The judge layer against a real HTTP server on 127.0.0.1: retries, errors, usage, budgets, concurrency.

Every fault the issue lists is scripted by the server (429 with Retry-After, 500, a reply slower
than the timeout, a body that is not JSON, content that does not parse, a refusal, missing usage),
and every count asserted is the server's own (the requests it received, the tokens it reported).
"""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.judging.backends import CallableBackend, ChatBackend
from retrieval_eval.judging.costs import Budget, PriceTable, upper_bound
from retrieval_eval.judging.endpoint import openai_endpoint
from retrieval_eval.judging.judge import Judge
from retrieval_eval.judging.limits import Limits, RetryPolicy
from retrieval_eval.judging.prompts import RELEVANCE, RELEVANCE_PARAMS
from retrieval_eval.judging.replies import LabelParser
from retrieval_eval.judging.transport import EndpointError
from tests.judging.server import Reply, ScriptedServer, chat_reply, tokens

NO_WAIT = RetryPolicy(max_retries=3, base_delay=0.0)


def label_of(text: str) -> int:
    """The scripted judge's label of a request: a function of its text only."""
    return sum(map(ord, text)) % 4


def labelling(request):
    return chat_reply(json.dumps({"label": label_of(request.user_text)}), request)


def relevance_judge(server: ScriptedServer, *, timeout: float = 5.0, model: str = "judge-model") -> Judge:
    backend = ChatBackend(openai_endpoint(base_url=server.url + "/v1", model=model), timeout=timeout)
    return Judge(backend, template=RELEVANCE, params=RELEVANCE_PARAMS, parse=LabelParser())


def items(n: int, prefix: str = "doc") -> list[dict[str, str]]:
    return [{"query": f"query {i % 7}", "document": f"{prefix} {i}"} for i in range(n)]


def expected_labels(judge: Judge, batch: list[dict[str, str]]) -> list[int]:
    return [label_of(judge.body(item)["messages"][-1]["content"]) for item in batch]


def test_each_item_one_request_in_order_with_the_servers_tokens():
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        batch = items(30)
        result = judge.run(batch, limits=Limits(concurrency=4))
        assert result.values == expected_labels(judge, batch)
        assert len(server.requests) == 30 and result.totals.requests == 30 and result.totals.errors == 0
        usage = [request.body for request in server.requests]
        assert all(body["model"] == "judge-model" and body["temperature"] == 0.0 for body in usage)
        sent = {json.dumps(r.body, sort_keys=True) for r in server.requests}
        assert len(sent) == 30
        # The server's own counts (tests.judging.server.tokens) of what it received and what it answered.
        served_prompt = sum(tokens(m["content"]) for request in server.requests for m in request.body["messages"])
        served_completion = sum(tokens(json.dumps({"label": label})) for label in result.values)
        assert result.totals.prompt_tokens == served_prompt > 0
        assert result.totals.completion_tokens == served_completion


def test_identical_requests_are_sent_once():
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        result = judge.run([{"query": "q", "document": "d"}] * 5 + [{"query": "q", "document": "e"}])
        assert len(server.requests) == 2
        assert [item.cached for item in result.items] == [False, True, True, True, True, False]
        assert len(set(result.values[:5])) == 1


def test_429_with_retry_after_is_retried_exactly_and_waits_as_told():
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def script(request):
        with lock:
            seen[request.user_text] = seen.get(request.user_text, 0) + 1
            count = seen[request.user_text]
        if count <= 2:
            return Reply(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0.05"})
        return labelling(request)

    with ScriptedServer(script) as server:
        judge = relevance_judge(server)
        result = judge.run(items(6), retry=RetryPolicy(max_retries=2, base_delay=30.0), limits=Limits(concurrency=3))
        # Retry-After (50 ms) is honoured instead of the 30 s backoff: the run takes well under a second.
        assert result.totals.seconds < 10
        assert len(server.requests) == 18 and result.totals.requests == 18 and result.totals.retries == 12
        assert [item.attempts for item in result.items] == [3] * 6 and result.totals.errors == 0


def test_after_the_last_retry_an_item_is_an_error_listed_and_unjudged():
    def script(request):
        if "doc 3" in request.user_text:
            return Reply(500, {"error": {"message": "upstream failed"}})
        return labelling(request)

    with ScriptedServer(script) as server:
        judge = relevance_judge(server)
        result = judge.run(items(6), retry=NO_WAIT)
        assert len(server.requests) == 5 + 4  # five judged once, doc 3 tried 1 + 3 times
        assert result.values[3] is None and all(value is not None for i, value in enumerate(result.values) if i != 3)
        assert result.errors == [("4", "item 4: no reply after 4 attempt(s): status 500: upstream failed")]
        assert result.totals.errors == 1 and result.totals.retries == 3


def test_a_reply_slower_than_the_timeout_is_a_transient_failure():
    def script(request):
        if "doc 1" in request.user_text and request.number <= 2:
            return Reply(body=chat_reply('{"label": 2}', request).body, delay=1.5)
        return labelling(request)

    with ScriptedServer(script) as server:
        judge = relevance_judge(server, timeout=0.3)
        result = judge.run(items(2), retry=NO_WAIT, limits=Limits(concurrency=1))
        assert result.totals.errors == 0
        assert result.items[1].attempts >= 2
        assert "no reply within" not in str(result.errors)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (lambda r: Reply(body=b"<html>not json</html>"), "not JSON"),
        (lambda r: chat_reply("I think it is relevant.", r), "not a JSON object"),
        (lambda r: chat_reply('{"score": 2}', r), "no 'label' field"),
        (lambda r: chat_reply('{"label": 7}', r), "outside the scale 0..3"),
        (lambda r: chat_reply('{"label": 1.5}', r), "must be an integer"),
        (lambda r: chat_reply('{"label": "2"}', r), "must be an integer"),
        (lambda r: chat_reply(None, r, refusal="I cannot help with that."), "the model refused"),
        (lambda r: chat_reply("", r, finish_reason="length"), "no content"),
    ],
)
def test_a_reply_that_cannot_be_read_is_an_error_never_a_label(reply, reason):
    with ScriptedServer(reply) as server:
        result = relevance_judge(server).run(items(1), retry=RetryPolicy(max_retries=1, base_delay=0.0))
        assert result.values == [None] and result.totals.errors == 1
        assert reason in result.errors[0][1] and result.errors[0][1].startswith("item 1:")


def test_a_reply_without_usage_is_counted_as_such():
    with ScriptedServer(lambda r: chat_reply('{"label": 1}', r, usage=False)) as server:
        result = relevance_judge(server).run(items(3))
        assert result.values == [1, 1, 1]
        assert result.totals.usage_missing == 3 and result.totals.prompt_tokens == 0


def test_a_wrong_key_or_model_stops_the_run_with_one_line():
    with ScriptedServer(lambda r: Reply(401, {"error": {"message": "Incorrect API key provided"}})) as server:
        with pytest.raises(EndpointError, match="Incorrect API key provided.*check the URL, key and model"):
            relevance_judge(server).run(items(20), retry=NO_WAIT)
        assert len(server.requests) <= Limits().concurrency


def test_the_budget_stops_before_the_call_that_would_pass_it():
    prices = PriceTable({"judge-model": {"prompt": 1000.0, "completion": 2000.0}})
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        batch = items(10)
        bound = prices.cost("judge-model", upper_bound(judge.body(batch[0])))
        budget = Budget(max_cost=bound * 3.5)
        result = judge.run(batch, budget=budget, prices=prices, limits=Limits(concurrency=1))
        assert result.totals.budget_stopped
        judged = [item for item in result.items if item.ok]
        # Replies cost less than their upper bound, so at least three fit; none was sent past the limit.
        assert len(judged) >= 3 and len(server.requests) == len(judged)
        assert budget.spent_cost <= budget.max_cost
        assert result.totals.cost == pytest.approx(sum(prices.cost("judge-model", i.completion.usage) for i in judged))
        assert all("budget" in error for _, error in result.errors)
        assert result.totals.estimated_cost == pytest.approx(sum(
            prices.cost("judge-model", upper_bound(judge.body(item))) for item in batch))


def test_bad_settings_are_one_line_errors():
    with pytest.raises(ConfigError, match="budget max_cost must be a positive number"):
        Budget(max_cost=0)
    with pytest.raises(ConfigError, match="no API key for https://api.example.com/v1: set OPENAI_API_KEY"):
        openai_endpoint(base_url="https://api.example.com/v1", model="m", environ={})
    with pytest.raises(ConfigError, match="needs the price of model 'm'"):
        Judge(CallableBackend(lambda m: '{"label": 1}', name="m")).run(
            bodies=[{"messages": []}], budget=Budget(max_cost=1.0), prices=PriceTable())
    with pytest.raises(InputError, match="item 2: the text 'document' is empty"):
        Judge(CallableBackend(lambda m: "x"), template=RELEVANCE).run([{"query": "q", "document": "d"},
                                                                       {"query": "q", "document": " "}])
    with pytest.raises(InputError, match="item 1: the judge's prompt needs the text 'document'"):
        Judge(CallableBackend(lambda m: "x"), template=RELEVANCE).run([{"query": "q"}])


def test_a_callable_is_a_judge_and_its_fingerprint_follows_its_code():
    def judge_fn(messages):
        return {"content": json.dumps({"label": 2}), "usage": {"prompt_tokens": 3, "completion_tokens": 1}}

    judge = Judge(CallableBackend(judge_fn), template=RELEVANCE, params=RELEVANCE_PARAMS, parse=LabelParser())
    result = judge.run(items(4))
    assert result.values == [2, 2, 2, 2] and result.totals.prompt_tokens == 12
    other = Judge(CallableBackend(lambda messages: "x"), template=RELEVANCE, params=RELEVANCE_PARAMS, parse=LabelParser())
    assert judge.fingerprint != other.fingerprint


@settings(max_examples=10)
@given(st.integers(1, 40), st.integers(1, 12), st.integers(0, 2**16))
def test_results_do_not_depend_on_batch_size_or_concurrency(n, concurrency, seed):
    with ScriptedServer(labelling) as server:
        judge = relevance_judge(server)
        batch = items(n)
        whole = judge.run(batch, limits=Limits(concurrency=concurrency), seed=seed)
        split = [judge.run(batch[i:i + 7], limits=Limits(concurrency=1)) for i in range(0, n, 7)]
        assert whole.values == [value for part in split for value in part.values] == expected_labels(judge, batch)


def test_embeddings_are_read_in_order_and_cached(tmp_path):
    from retrieval_eval.judging.backends import EmbeddingsBackend, embedding_body
    from tests.judging.server import embedding

    with ScriptedServer() as server:
        backend = EmbeddingsBackend(openai_endpoint(base_url=server.url + "/v1", model="embedder"))
        judge = Judge(backend, parse=lambda completion: completion.vectors)
        texts = [["alpha", "beta"], ["gamma"]]
        result = judge.run(bodies=[embedding_body(batch) for batch in texts], cache=tmp_path / "e.jsonl")
        again = judge.run(bodies=[embedding_body(batch) for batch in texts], cache=tmp_path / "e.jsonl")
        assert len(server.requests) == 2 and server.requests[0].path == "/v1/embeddings"
    expected = [[tuple(embedding(text)) for text in batch] for batch in texts]
    assert [list(value) for value in result.values] == expected == [list(value) for value in again.values]
    assert again.totals.cache_hits == 2
