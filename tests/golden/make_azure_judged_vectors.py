"""Generate golden vectors from azure-ai-evaluation's LLM-judged evaluators (pinned to 1.18.10).

Run once with the SDK installed; CI does not need the SDK, it only reads the committed output::

    python3 -m venv .venv-sdk && .venv-sdk/bin/pip install azure-ai-evaluation==1.18.10
    .venv-sdk/bin/python tests/golden/make_azure_judged_vectors.py      # from the repository root

Nothing leaves the machine: every evaluator is pointed at ``tests/judging/server.py``'s scripted
chat-completions server on 127.0.0.1 (loaded by path: it is standard library only). To keep the
SDK offline every configuration carries an ``api_key`` (or a stand-in credential whose
``get_token`` answers locally), so the SDK never builds ``DefaultAzureCredential``; ``NO_PROXY``
covers 127.0.0.1 (the openai client's httpx honours proxy variables); ``AI_EVALS_USE_PF_PROMPTY``
is removed (the SDK's own prompty runner, not promptflow's); the experimental warning is off
(``AI_EVALS_DISABLE_EXPERIMENTAL_WARNING``). Calling an evaluator directly sends no telemetry in
1.18.10 (only ``evaluate()`` and the Foundry paths do). The cases are fixed, the replies carry
fixed token counts and model name, so re-running reproduces ``tests/data/azure_judged_golden.jsonl``
byte for byte.

Output format: one JSON object per line:

``case_id``, ``category``, ``sdk_version``
    Unique id, the family of cases, the SDK version that produced it.
``evaluator``
    The SDK class name.
``init``
    Constructor arguments: ``model_config`` with the server's URL as ``{server}`` (Azure:
    ``azure_endpoint``; OpenAI: ``base_url`` ``{server}/v1``); ``credential`` is the string
    ``"stand-in"`` for a credential object whose ``get_token`` returns ``"stand-in-token"``.
    Other keyword arguments as given.
``call``
    The call's keyword arguments (the encoding of ``make_azure_vectors.py``).
``replies``
    The scripted replies in the order requests arrive: ``content`` (str or null), ``usage``
    (``prompt_tokens``, ``completion_tokens``, ``total_tokens``, or null: no usage block),
    ``finish_reason``, ``model``, ``refusal`` (str or null). A request beyond the list gets the last one.
``requests``
    What the SDK sent, in order: ``path``, ``query``, ``headers`` (names only, sorted), ``params``
    (the body without ``messages``), ``roles`` (the messages' roles in order).
``output`` / ``error``
    The returned dict (typed pairs of ``make_azure_vectors.py``, key order kept), or what was raised:
    ``stage`` (init/call), ``type``, ``message`` (``args[0]``), and for EvaluationException its
    ``category`` and ``blame``.
``key_order``
    ``"exact"``; ``"sequential"`` for a parallel QAEvaluator, whose keys the SDK adds in the order
    its sub-evaluators finish: recorded in the order of its evaluator list (what ``_parallel=False`` gives).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
os.environ.pop("AI_EVALS_USE_PF_PROMPTY", None)
os.environ["AI_EVALS_DISABLE_EXPERIMENTAL_WARNING"] = "true"

import azure.ai.evaluation as sdk  # noqa: E402  (after the environment is set)
from azure.ai.evaluation._exceptions import EvaluationException  # noqa: E402
from make_azure_vectors import encode_input, encode_typed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "tests" / "data" / "azure_judged_golden.jsonl"
SDK_VERSION = version("azure-ai-evaluation")


def _load_server() -> Any:
    spec = importlib.util.spec_from_file_location("scripted_server", ROOT / "tests" / "judging" / "server.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["scripted_server"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


server_module = _load_server()

MODEL = "gpt-4o-2024-08-06"
QUERY = "What is the capital of France?"
RESPONSE = "Paris is the capital of France."
CONTEXT = "France is a country in Europe. Its capital and largest city is Paris."
GROUND_TRUTH = "The capital of France is Paris."

#: Each evaluator's call inputs (single turn).
INPUTS = {
    "RelevanceEvaluator": {"query": QUERY, "response": RESPONSE},
    "RetrievalEvaluator": {"query": QUERY, "context": CONTEXT},
    "GroundednessEvaluator": {"response": RESPONSE, "context": CONTEXT},
    "ResponseCompletenessEvaluator": {"response": RESPONSE, "ground_truth": GROUND_TRUTH},
    "CoherenceEvaluator": {"query": QUERY, "response": RESPONSE},
    "FluencyEvaluator": {"response": RESPONSE},
    "SimilarityEvaluator": {"query": QUERY, "response": RESPONSE, "ground_truth": GROUND_TRUTH},
}
JUDGED = list(INPUTS)


def reply(content: str | None, *, usage: bool = True, finish_reason: str = "stop", refusal: str | None = None,
          prompt_tokens: int = 900) -> dict[str, Any]:
    """A reply spec (what the server sends): fixed token counts, so that our prompts' lengths do not matter."""
    completion = 7
    return {
        "content": content,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion,
                  "total_tokens": prompt_tokens + completion} if usage else None,
        "finish_reason": finish_reason,
        "model": MODEL,
        "refusal": refusal,
    }


def reply_body(spec: dict[str, Any], number: int) -> dict[str, Any]:
    """The chat-completions body of a reply spec (``number``: the request's 1-based count)."""
    message: dict[str, Any] = {"role": "assistant", "content": spec["content"]}
    if spec["refusal"] is not None:
        message["refusal"] = spec["refusal"]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1_700_000_000, "model": spec["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": spec["finish_reason"]}],
    }
    if spec["usage"] is not None:
        body["usage"] = spec["usage"]
    return body


def scripted(replies: list[dict[str, Any]]) -> Any:
    """A script answering the n-th request with the n-th reply (the last one beyond the list)."""

    def script(request: Any) -> Any:
        spec = replies[min(request.number, len(replies)) - 1]
        return server_module.Reply(body=reply_body(spec, request.number))

    return script


def j(value: Any) -> str:
    return json.dumps(value)


# The replies every evaluator is scripted with, one case each: (name, content or reply spec).
SCORE_REPLIES: list[tuple[str, Any]] = [
    *[(f"score-{n}", j({"reason": f"Reason for a {n}.", "score": n})) for n in range(1, 6)],
    ("no-reason", j({"score": 4})),
    ("reason-after-score", j({"score": 2, "reason": "Off topic."})),
    ("string-score", j({"reason": "r", "score": "4"})),
    ("string-fraction", j({"reason": "r", "score": "3.5"})),
    ("string-word", j({"reason": "r", "score": "four"})),
    ("fractional-3.5", j({"reason": "r", "score": 3.5})),
    ("fractional-2.99", j({"reason": "r", "score": 2.99})),
    ("out-of-range-0", j({"reason": "r", "score": 0})),
    ("out-of-range-6", j({"reason": "r", "score": 6})),
    ("out-of-range--1", j({"reason": "r", "score": -1})),
    ("out-of-range-100", j({"reason": "r", "score": 100})),
    ("null-score", j({"reason": "r", "score": None})),
    ("bool-score", j({"reason": "r", "score": True})),
    ("nan-score", '{"reason": "r", "score": NaN}'),
    ("infinite-score", '{"reason": "r", "score": Infinity}'),
    ("huge-int-score", '{"reason": "r", "score": 1' + "0" * 400 + "}"),
    ("list-score", j({"reason": "r", "score": [4]})),
    ("no-score-key", j({"reason": "No score here."})),
    ("capital-score-key", j({"Score": 4, "Reason": "r"})),
    ("empty-object", "{}"),
    ("extra-keys", j({"explanation": "x", "score": 4, "reason": "r", "confidence": 0.9})),
    ("reason-not-string", j({"score": 4, "reason": ["a", "b"]})),
    ("properties", j({"score": 4, "reason": "r", "properties": {"note": "extra", "model": "overridden"}})),
    ("properties-null", j({"score": 4, "reason": "r", "properties": None})),
    ("skipped", j({"reason": "Not a question.", "score": None, "status": "skipped"})),
    ("status-other", j({"reason": "r", "score": 4, "status": "partial"})),
    ("not-json", "The score is 4."),
    ("tagged-text", "<S0>thinking</S0><S1>Fine.</S1><S2>4</S2>"),
    ("code-fence", "```json\n" + j({"score": 4, "reason": "r"}) + "\n```"),
    ("json-with-prose", "Here you go: " + j({"score": 4})),
    ("json-array", j([4])),
    ("json-number", "4"),
    ("json-string-tagged", j("<S0>thinking</S0><S1>Fine.</S1><S2>4</S2>")),
    ("json-string-tagged-fraction", j("<S1>Fine.</S1><S2>score 3.5</S2>")),
    ("json-string-digits", j("I would say 4 out of 5")),
    ("json-string-object", j(j({"score": 5, "reason": "double encoded"}))),
    ("json-null", "null"),
    ("empty-content", ""),
    ("whitespace-content", "   "),
    ("refusal", reply(None, refusal="I can't help with that.")),
    ("missing-usage", reply(j({"reason": "r", "score": 4}), usage=False)),
    ("finish-length", reply(j({"reason": "r", "score": 3}), finish_reason="length")),
    ("unicode-reason", j({"reason": "Très bien — 好", "score": 5})),
]

THRESHOLDS = [(3, 3), (3, 4), (3, 2), (4, 4), (2, 2), (4, 3.5), (3, 3.5), (5, 5), (1, 1), (3, 0), (5, 6)]


def azure_config(**extra: Any) -> dict[str, Any]:
    return {"azure_endpoint": "{server}", "azure_deployment": "judge-deployment", "api_key": "test-key", **extra}


def openai_config(**extra: Any) -> dict[str, Any]:
    return {"type": "openai", "base_url": "{server}/v1", "model": "judge-model", "api_key": "test-key", **extra}


def as_spec(item: Any) -> dict[str, Any]:
    return item if isinstance(item, dict) else reply(item)


def cases() -> list[dict[str, Any]]:
    """Every case: category, evaluator, init, call, replies."""
    out: list[dict[str, Any]] = []

    def add(category: str, evaluator: str, init: dict[str, Any], call: dict[str, Any], replies: list[Any]) -> None:
        out.append({"category": category, "evaluator": evaluator, "init": init, "call": call,
                    "replies": [as_spec(item) for item in replies]})

    for name in JUDGED:
        call = INPUTS[name]
        for label, content in SCORE_REPLIES:
            add(f"reply:{label}", name, {"model_config": azure_config()}, call, [content])
        for score, threshold in THRESHOLDS:
            add("threshold", name, {"model_config": azure_config(), "threshold": threshold}, call,
                [j({"reason": "r", "score": score})])
        add("threshold", name, {"model_config": azure_config(), "threshold": 3}, call, [j({"reason": "r"})])
        add("config:openai", name, {"model_config": openai_config()}, call, [j({"reason": "r", "score": 4})])
        add("config:openai-untyped", name, {"model_config": {k: v for k, v in openai_config().items() if k != "type"}},
            call, [j({"reason": "r", "score": 4})])
        add("config:api-version", name, {"model_config": azure_config(api_version="2025-01-01-preview")}, call,
            [j({"reason": "r", "score": 4})])
        add("config:credential", name,
            {"model_config": {k: v for k, v in azure_config().items() if k != "api_key"}, "credential": "stand-in"},
            call, [j({"reason": "r", "score": 4})])
        add("config:reasoning", name, {"model_config": azure_config(), "is_reasoning_model": True}, call,
            [j({"reason": "r", "score": 4})])
        add("config:reasoning-openai", name, {"model_config": openai_config(), "is_reasoning_model": True}, call,
            [j({"reason": "r", "score": 2})])
        # Inputs the evaluator refuses, and inputs it takes as they are.
        for missing in call:
            add("inputs:missing", name, {"model_config": azure_config()},
                {key: value for key, value in call.items() if key != missing}, [j({"score": 4})])
        add("inputs:none", name, {"model_config": azure_config()}, {}, [j({"score": 4})])
        first = next(iter(call))
        add("inputs:empty-text", name, {"model_config": azure_config()}, {**call, first: ""}, [j({"score": 4})])
        add("inputs:unicode", name, {"model_config": azure_config()},
            {key: value + " — ünïcode “quotes” 好" for key, value in call.items()}, [j({"score": 4})])
        add("inputs:extra-keyword", name, {"model_config": azure_config()}, {**call, "unused": "x"}, [j({"score": 4})])
        for label, conversation, replies in conversations(name):
            add(f"conversation:{label}", name, {"model_config": azure_config()}, {"conversation": conversation}, replies)
        add("conversation:with-inputs", name, {"model_config": azure_config()},
            {"conversation": conversations(name)[0][1], **call}, [j({"score": 4})])
    # Groundedness with a query: another prompt, the query among the inputs; and without context.
    grounded = {"query": QUERY, "response": RESPONSE, "context": CONTEXT}
    for label, content in SCORE_REPLIES[:6] + [("not-json", "The score is 4."), ("no-score-key", j({"reason": "r"}))]:
        add(f"with-query:{label}", "GroundednessEvaluator", {"model_config": azure_config()}, grounded, [content])
    add("with-query:no-context", "GroundednessEvaluator", {"model_config": azure_config()},
        {"query": QUERY, "response": RESPONSE}, [j({"reason": "r", "score": 4})])
    add("with-query:empty-query", "GroundednessEvaluator", {"model_config": azure_config()},
        {"query": "", "response": RESPONSE, "context": CONTEXT}, [j({"reason": "r", "score": 4})])
    add("with-query:reasoning", "GroundednessEvaluator", {"model_config": azure_config(), "is_reasoning_model": True},
        grounded, [j({"reason": "r", "score": 4})])
    qa_cases(add)
    return out


def turns(*pairs: tuple[str, str], **extra: Any) -> list[dict[str, Any]]:
    messages = []
    for number, (query, response) in enumerate(pairs, 1):
        messages.append({"role": "user", "content": query})
        messages.append({"role": "assistant", "content": response, **{k: f"{v} {number}" for k, v in extra.items()}})
    return messages


def conversations(name: str) -> list[tuple[str, dict[str, Any], list[Any]]]:
    """(label, conversation, replies) for an evaluator."""
    two = {"messages": turns(("Capital of France?", "Paris."), ("And of Spain?", "Madrid."),
                             ground_truth="The capital", context="Turn context")}
    three = {"messages": turns(("Q1?", "A1."), ("Q2?", "A2."), ("Q3?", "A3."), ground_truth="Truth", context="Ctx")}
    with_context = {"messages": turns(("Q1?", "A1."), ("Q2?", "A2.")), "context": "Global context."}
    return [
        ("two-turns", two, [j({"reason": "first", "score": 4}), j({"reason": "second", "score": 2})]),
        ("three-turns", three, [j({"reason": "a", "score": 5}), j({"reason": "b", "score": 3}),
                                j({"reason": "c", "score": 1})]),
        ("one-unknown-turn", three, [j({"reason": "a", "score": 5}), j({"reason": "no score"}),
                                     j({"reason": "c", "score": 2})]),
        ("one-skipped-turn", two, [j({"reason": "a", "score": 4}), j({"reason": "skip", "score": None,
                                                                     "status": "skipped"})]),
        ("missing-usage-turn", two, [reply(j({"reason": "a", "score": 4}), usage=False),
                                     reply(j({"reason": "b", "score": 3}), prompt_tokens=500)]),
        ("bad-turn", two, [j({"reason": "a", "score": 4}), "not json"]),
        ("global-context", with_context, [j({"reason": "a", "score": 3}), j({"reason": "b", "score": 4})]),
        ("one-turn", {"messages": turns(("Only?", "Yes."), ground_truth="Yes", context="C")},
         [j({"reason": "a", "score": 4})]),
        ("unanswered-user", {"messages": turns(("Q1?", "A1.")) + [{"role": "user", "content": "Q2?"}]},
         [j({"reason": "a", "score": 4})]),
        ("system-message", {"messages": [{"role": "system", "content": "Be nice."}] + turns(("Q1?", "A1."), ("Q2?", "A2."))},
         [j({"reason": "a", "score": 2}), j({"reason": "b", "score": 5})]),
        ("no-messages", {"messages": []}, [j({"score": 4})]),
    ]


def qa_cases(add: Any) -> None:
    call = {"query": QUERY, "response": RESPONSE, "context": CONTEXT, "ground_truth": GROUND_TRUTH}
    ordered = [j({"reason": f"r{n}", "score": n}) for n in (5, 4, 3, 2, 1)]
    add("qa:sequential", "QAEvaluator", {"model_config": azure_config(), "_parallel": False}, call, ordered)
    add("qa:sequential-thresholds", "QAEvaluator",
        {"model_config": azure_config(), "_parallel": False, "groundedness_threshold": 5, "relevance_threshold": 5,
         "coherence_threshold": 2, "fluency_threshold": 2, "similarity_threshold": 1, "f1_score_threshold": 0.9},
        call, ordered)
    add("qa:sequential-unknown", "QAEvaluator", {"model_config": azure_config(), "_parallel": False}, call,
        [j({"reason": "r"}), j({"score": 4}), j({"score": "3"}), j({"score": 2.5}), j({"score": 7})])
    add("qa:parallel", "QAEvaluator", {"model_config": azure_config()}, call, [j({"reason": "same", "score": 4})])
    add("qa:parallel-openai", "QAEvaluator", {"model_config": openai_config()}, call, [j({"reason": "same", "score": 2})])
    add("qa:reasoning", "QAEvaluator", {"model_config": azure_config(), "_parallel": False, "is_reasoning_model": True},
        call, ordered)
    add("qa:bad-threshold", "QAEvaluator", {"model_config": azure_config(), "fluency_threshold": "3"}, call, ordered)
    add("qa:missing-context", "QAEvaluator", {"model_config": azure_config(), "_parallel": False},
        {key: value for key, value in call.items() if key != "context"}, ordered)


class StandInCredential:
    """A TokenCredential that answers locally."""

    class _Token:
        token = "stand-in-token"
        expires_on = 4_102_444_800

    def get_token(self, *scopes: str, **kwargs: Any) -> Any:
        return self._Token()


def resolve(value: Any, url: str) -> Any:
    """The init with the placeholders filled: the server's URL, the stand-in credential."""
    if isinstance(value, dict):
        return {key: resolve(item, url) for key, item in value.items()}
    if isinstance(value, str):
        return value.replace("{server}", url)
    return value


def qa_order(output: dict[str, Any]) -> dict[str, Any]:
    """A parallel QAEvaluator's keys in the order of its evaluator list."""
    prefixes = ["groundedness", "relevance", "coherence", "fluency", "similarity", "f1_score"]

    def rank(key: str) -> int:
        return max((index for index, prefix in enumerate(prefixes) if key == prefix or key.startswith(prefix + "_")),
                   key=lambda index: len(prefixes[index]))

    return {key: output[key] for key in sorted(output, key=rank)}


def request_record(request: Any) -> dict[str, Any]:
    body = dict(request.body)
    messages = body.pop("messages")
    return {"path": request.path, "query": request.query, "headers": sorted(request.headers), "params": body,
            "roles": [message["role"] for message in messages]}


def record(index: int, case: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"case_id": f"judged-{index:04d}", "category": case["category"],
                           "sdk_version": SDK_VERSION, "evaluator": case["evaluator"], "init": case["init"],
                           "call": encode_input(case["call"]), "replies": case["replies"], "requests": [],
                           "output": None, "error": None, "key_order": "exact"}
    with server_module.ScriptedServer(scripted(case["replies"])) as server:
        init = resolve(case["init"], server.url)
        if init.get("credential") == "stand-in":
            init["credential"] = StandInCredential()
        stage = "init"
        try:
            model_config = init.pop("model_config")
            evaluator = getattr(sdk, case["evaluator"])(model_config, **init)
            stage = "call"
            result = evaluator(**case["call"])
        except Exception as exc:  # noqa: BLE001 -- every failure is part of the record
            error = {"stage": stage, "type": type(exc).__name__, "message": str(exc.args[0]) if exc.args else ""}
            if isinstance(exc, EvaluationException):
                error["category"] = exc.category.value
                error["blame"] = exc.blame.value
            out["error"] = error
        else:
            if case["evaluator"] == "QAEvaluator" and case["init"].get("_parallel", True):
                result, out["key_order"] = qa_order(result), "sequential"
            out["output"] = encode_typed(result)[1]
        out["requests"] = [request_record(request) for request in server.requests]
    return out


def main() -> None:
    logging.disable(logging.CRITICAL)  # the SDK logs every failed reply at ERROR level
    records = [record(index, case) for index, case in enumerate(cases())]
    OUTPUT.write_text("".join(json.dumps(item) + "\n" for item in records), encoding="utf-8")
    print(f"{len(records)} cases -> {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
