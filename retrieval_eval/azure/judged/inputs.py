"""The judged evaluators' inputs as azure-ai-evaluation 1.18.10 takes them: its checks, a conversation's turns,
and how the turns' output dicts aggregate.

Checks (the SDK's messages). Relevance and Coherence check the query and the response, Fluency
the response, Groundedness the response (and the query when one is given): ``None`` is
``"<Name> is a required input and cannot be None."``, ``""`` is ``"<Name> string cannot be empty."``.
A conversation given to those must be a dict whose ``messages`` is a non-empty list of dicts, each
with a ``role`` and a non-empty ``content``. Retrieval, ResponseCompleteness and Similarity check
nothing: an empty text is sent to the model as it is, and a conversation without messages gives
``{}``. Every evaluator refuses a conversation beside a (truthy) input, and a call that gives
neither.

Turns. The i-th user message is paired with the i-th assistant message (an unanswered user
message is dropped); the query is the user message's ``content``, the response the assistant's,
the ground truth the assistant's ``ground_truth`` (all ``""`` when absent). Evaluators that take
a context get ``str()`` of a dict holding the conversation's ``context`` (``global_context``), the
user message's (``query_context``, if the evaluator takes a query) and the assistant's
(``response_context``, if it takes a response), each only when truthy: ``"{}"`` when none.

Aggregation of several turns: every key whose per-turn values are all numbers (booleans count as
0/1, so ``passed`` becomes the share of turns that passed, and the threshold a float) is their
mean; any other key takes the last turn's value, except the per-turn metadata keys (names ending
in ``_total_tokens``, ``_prompt_tokens``, ``_completion_tokens``, ``_finish_reason``,
``_sample_input``, ``_sample_output``, ``_model``, ``_details``), which are left out; then
``evaluation_per_turn`` maps every key to its per-turn values. One turn gives its dict, no turn ``{}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import EvaluationException

_METADATA_SUFFIXES = ("_total_tokens", "_prompt_tokens", "_completion_tokens", "_finish_reason", "_sample_input",
                      "_sample_output", "_model", "_details")


def _check_text(value: Any, name: str) -> None:
    if value is None:
        raise EvaluationException(f"{name} is a required input and cannot be None.")
    if isinstance(value, str):
        if value == "":
            raise EvaluationException(f"{name} string cannot be empty.")
        return
    if isinstance(value, list):
        raise EvaluationException(f"{name}: lists of agent messages are not supported by these drop-ins; give text.")
    raise EvaluationException(f"{name} must be a string or a list of messages.")


def _check_conversation(conversation: Any) -> None:
    if not isinstance(conversation, dict):
        raise EvaluationException("Conversation must be a dictionary.")
    messages = conversation.get("messages")
    if "messages" not in conversation:
        raise EvaluationException("Each Conversation must contain a 'messages' field.")
    if not isinstance(messages, list):
        raise EvaluationException("The 'messages' field must be a list in Conversation.")
    if not messages:
        raise EvaluationException("Conversation messages list cannot be empty.")
    for message in messages:
        if not isinstance(message, dict):
            raise EvaluationException("Each message in the conversation messages list must be a dictionary.")
        if "role" not in message:
            raise EvaluationException("Each message must contain a 'role' field.")
        if "content" not in message:
            raise EvaluationException("Each message must contain a 'content' field.")
        content = message["content"]
        if not (isinstance(content, str) or (isinstance(content, list) and all(isinstance(i, dict) and i for i in content))):
            raise EvaluationException("The 'content' field must be a string or a list of dictionaries messages.")
        if not content:
            raise EvaluationException("The 'content' field can't be empty.")


def check_inputs(checked: Sequence[str], values: Mapping[str, Any]) -> None:
    """The SDK's checks of ``checked`` inputs (``"query"``, ``"response"``), or of the conversation when one is given."""
    conversation = values.get("conversation")
    if conversation:
        _check_conversation(conversation)
        return
    for name in checked:
        _check_text(values.get(name), name.capitalize())


def conversation_turns(conversation: Any, fields: Sequence[str]) -> list[dict[str, str]]:
    """The inputs of each turn of ``conversation`` for an evaluator taking ``fields`` (see the module)."""
    if not isinstance(conversation, Mapping) or not isinstance(conversation.get("messages"), list):
        raise EvaluationException("a conversation must be a dictionary with a list of 'messages'.")
    queries, responses = [], []
    for message in conversation["messages"]:
        if not isinstance(message, Mapping) or "role" not in message:
            raise EvaluationException("Each message must contain a 'role' field.")
        if isinstance(message.get("content"), list):
            raise EvaluationException("conversations with image or tool content are not supported by these drop-ins.")
        if message["role"] == "user":
            queries.append(message)
        elif message["role"] == "assistant":
            responses.append(message)
    shared = conversation.get("context")
    turns = []
    for query, response in zip(queries, responses):
        turn: dict[str, Any] = {}
        if "query" in fields:
            turn["query"] = query.get("content", "")
        if "response" in fields:
            turn["response"] = response.get("content", "")
        if "context" in fields:
            context = {}
            if shared:
                context["global_context"] = shared
            if query.get("context") and "query" in fields:
                context["query_context"] = query["context"]
            if response.get("context") and "response" in fields:
                context["response_context"] = response["context"]
            turn["context"] = str(context)
        if "ground_truth" in fields:
            turn["ground_truth"] = response.get("ground_truth", "")
        turns.append(turn)
    return turns


def aggregate(turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One output dict from the turns' dicts (see the module)."""
    if not turns:
        return {}
    if len(turns) == 1:
        return turns[0]
    per_turn: dict[str, list[Any]] = {}
    for turn in turns:
        for key, value in turn.items():
            per_turn.setdefault(key, []).append(value)
    aggregated: dict[str, Any] = {}
    for key, values in per_turn.items():
        if all(isinstance(value, (int, float)) for value in values):
            aggregated[key] = sum(values) / len(values)
        elif not key.endswith(_METADATA_SUFFIXES):
            aggregated[key] = values[-1]
    aggregated["evaluation_per_turn"] = per_turn
    return aggregated
