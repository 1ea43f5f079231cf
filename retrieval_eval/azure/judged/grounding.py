"""Drop-ins for azure-ai-evaluation's judged retrieval evaluators (1.18.10): how relevant retrieved context is to a
query (:class:`RetrievalEvaluator`), and how far a response rests on its context (:class:`GroundednessEvaluator`);
1-5 scores from a model, higher is better, pass at ``threshold``.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import EvaluationException
from . import prompts
from .base import JudgedEvaluator, Plan
from .inputs import check_inputs


class RetrievalEvaluator(JudgedEvaluator):
    """How relevant ``context`` (the retrieved passages) is to ``query``, with no ground truth, 1-5.

    Keys ``retrieval``, ``retrieval_score``, ... Its requests ask for up to 1600 tokens.
    """

    _RESULT_KEY = "retrieval"
    _PROMPT = prompts.RETRIEVAL
    _FIELDS = ("query", "context")
    _CALL_FIELDS = ("query", "context")
    _MAX_TOKENS = 1600
    id = "azureai://built-in/evaluators/retrieval"


class GroundednessEvaluator(JudgedEvaluator):
    """How far ``response`` is supported by ``context`` (with the ``query`` when given), 1-5; keys ``groundedness``, ...

    As the SDK: a (non-empty) ``query`` selects the prompt that also reads the query; a query and a
    response without a context judge the response against itself (the SDK's agent path, given
    text); a conversation is judged without its queries.
    """

    _RESULT_KEY = "groundedness"
    _PROMPT = prompts.GROUNDEDNESS
    _FIELDS = ("response", "context")
    _CALL_FIELDS = ("response", "context", "query")
    id = "azureai://built-in/evaluators/groundedness"

    def _plan(self, values: dict[str, Any]) -> Plan:
        with_query = bool(values.get("query"))
        check_inputs(("query", "response") if with_query else ("response",), values)
        if values.get("context") or values.get("conversation"):
            turns = self._turns(values)
        elif not values.get("query") or not values.get("response"):
            raise EvaluationException(
                f"{self._name}: Either 'conversation' or individual inputs must be provided. For Agent groundedness "
                "'query' and 'response' are required.")
        else:
            turns = [{"query": values["query"], "response": values["response"], "context": values["response"]}]
        if with_query:
            return prompts.GROUNDEDNESS_WITH_QUERY, ("query", "response", "context"), turns
        return self._PROMPT, self._FIELDS, turns

    def _required(self) -> tuple[str, ...]:
        return ("response", "context")  # the query is optional
