"""The machinery of a judged drop-in: the SDK's constructor and call, run through the judge layer.

An evaluator is called as the SDK's (keywords, or ``conversation=``), checks its inputs as the SDK
does (:mod:`.inputs`), asks the model once per turn through :class:`~retrieval_eval.judging.judge.Judge`
with the SDK's request parameters (:mod:`.request`) and this project's prompts (:mod:`.prompts`),
reads each reply as the SDK does (:mod:`.reply`) and returns the SDK's output dict, turns
aggregated as the SDK aggregates them.

A reply the SDK reads as NaN (no score, an empty object, a JSON number or list, ...) gives the
SDK's dict (score NaN, result ``"unknown"``, ``passed`` False), as a drop-in must; a reply it
cannot read at all (not JSON, no text, a score that is not a number) raises
:class:`~retrieval_eval.azure.EvaluationException` with one line saying what was wrong, where the
SDK raises a raw ``JSONDecodeError``, ``TypeError`` or ``ValueError``. :meth:`JudgedEvaluator.evaluate_batch`
lists both kinds of row as errors.

Extras the SDK lacks (keyword-only): ``cache`` (a file, or a directory holding one file per judge:
a repeated request is answered from it, see :mod:`retrieval_eval.judging.cache`), ``cache_mode``,
``limits`` (concurrency, rate limits), ``retry`` (retries with backoff on 429/5xx/timeouts),
``request_timeout`` (seconds per request), and ``evaluate_batch`` (many rows judged concurrently).
Identical requests are sent once (a conversation with two identical turns sends one request).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...judging.backends import ChatBackend
from ...judging.judge import Judge, ReplyError
from ...judging.limits import Limits, RetryPolicy
from ...judging.outcomes import Judgment, Judgments
from ...judging.templates import PromptTemplate
from ..exceptions import EvaluationException
from ..output import finite_number
from .batch import BatchOutputs, merged_totals
from .inputs import aggregate, check_inputs, conversation_turns
from .reply import INVALID_OUTPUT, Reading, metadata, read_direct, read_strategy, turn_output
from .request import config_values, endpoint_of, request_params

#: Options of the SDK's Foundry "decision" models, refused for chat models as the SDK refuses them.
_DECISION_OPTIONS = ("timeout", "timeout_seconds", "max_retries", "cancellation_requested", "max_request_bytes",
                     "max_state_question_bytes", "max_response_bytes")

#: One evaluation planned: the prompt, its inputs in the SDK's order, and each turn's inputs.
Plan = tuple[PromptTemplate, tuple[str, ...], list[dict[str, Any]]]


class JudgedEvaluator:
    """Base of the judged drop-ins; a subclass names its result key, prompt, inputs and reading."""

    _RESULT_KEY: ClassVar[str]
    _PROMPT: ClassVar[PromptTemplate]
    #: The prompt's inputs, in the SDK's order (the order of ``sample_input``).
    _FIELDS: ClassVar[tuple[str, ...]]
    #: The call's keywords besides ``conversation`` (what a conversation's turns are made of).
    _CALL_FIELDS: ClassVar[tuple[str, ...]]
    #: The inputs the SDK's input check looks at (None: it has no check).
    _CHECKED: ClassVar[tuple[str, ...] | None] = None
    _MAX_TOKENS: ClassVar[int] = 800
    _SEED: ClassVar[int | None] = None
    #: Read as Relevance and ResponseCompleteness read (their own code), else as the SDK's shared strategy.
    _DIRECT: ClassVar[bool] = False
    #: A text reply is searched for ``<S2>`` tags (every strategy evaluator but Similarity).
    _TAGGED: ClassVar[bool] = True
    id: ClassVar[str]

    def __init__(
        self,
        model_config: Any,
        *,
        threshold: float = 3,
        credential: Any = None,
        cache: str | os.PathLike[str] | None = None,
        cache_mode: str = "read-write",
        limits: Limits | None = None,
        retry: RetryPolicy | None = None,
        request_timeout: float = 600.0,
        **kwargs: Any,
    ) -> None:
        if any(kwargs.get(name) is not None for name in _DECISION_OPTIONS):
            raise EvaluationException("Decision execution controls are only supported by decision model evaluators.")
        if not finite_number(threshold):
            raise EvaluationException(f"{self._name}: the threshold must be a finite number, got {threshold!r}.")
        self._threshold = threshold
        self._config = config_values(model_config)
        self._credential = credential
        self._reasoning = bool(kwargs.get("is_reasoning_model", False))
        self._params = request_params(self._MAX_TOKENS, seed=self._SEED, reasoning=self._reasoning)
        self._cache, self._cache_mode = cache, cache_mode
        self._limits, self._retry, self._request_timeout = limits or Limits(), retry or RetryPolicy(), request_timeout
        if self._config.get("api_key") or "azure_endpoint" not in self._config:
            endpoint_of(self._config)  # a configuration that cannot work fails here, not at the first call

    @property
    def _name(self) -> str:
        return type(self).__name__

    @property
    def threshold(self) -> float:
        """A score passes when it is at least this."""
        return self._threshold

    def __call__(self, *, query: Any = None, response: Any = None, context: Any = None, ground_truth: Any = None,
                 conversation: Any = None, **kwargs: Any) -> dict[str, Any]:
        """Judge one input (or a conversation, turn by turn); the SDK's output dict (see the module)."""
        values = {name: value for name, value in dict(kwargs, query=query, response=response, context=context,
                                                      ground_truth=ground_truth, conversation=conversation).items()
                  if value is not None}
        template, fields, turns = self._plan(values)
        judgments = self._run(template, [self._body(template, fields, turn) for turn in turns],
                              [f"turn {number}" for number in range(1, len(turns) + 1)])
        return aggregate([self._output(judgment, fields, turn) for judgment, turn in zip(judgments, turns)])

    def evaluate_batch(self, rows: Sequence[Mapping[str, Any]]) -> BatchOutputs:
        """Judge every row (a mapping of the call's keywords) concurrently, within ``limits``; see :class:`BatchOutputs`.

        ``outputs[i]`` equals what calling the evaluator on row i returns; a row the call would
        raise for has None and its reason in ``errors``, and so has (beside its dict) a row whose
        score the SDK reads as NaN.
        """
        plans: list[Plan | None] = []
        errors: dict[int, str] = {}
        for index, row in enumerate(rows):
            try:
                plans.append(self._plan({name: value for name, value in dict(row).items() if value is not None}))
            except EvaluationException as error:
                plans.append(None)
                errors[index] = str(error)
        by_template: dict[str, list[tuple[int, int]]] = {}
        for index, plan in enumerate(plans):
            if plan is not None:
                by_template.setdefault(plan[0].name, []).extend((index, turn) for turn in range(len(plan[2])))
        answers: dict[tuple[int, int], Judgment] = {}
        runs = []
        for positions in by_template.values():
            template, fields = plans[positions[0][0]][:2]
            bodies = [self._body(template, fields, plans[row][2][turn]) for row, turn in positions]
            judgments = self._run(template, bodies, [f"row {row + 1} turn {turn + 1}" for row, turn in positions])
            runs.append(judgments.totals)
            answers.update(zip(positions, judgments))
        outputs: list[dict[str, Any] | None] = []
        for index, plan in enumerate(plans):
            if plan is None:
                outputs.append(None)
                continue
            _, fields, turns = plan
            try:
                output = aggregate([self._output(answers[index, number], fields, turn)
                                    for number, turn in enumerate(turns)])
            except EvaluationException as error:
                outputs.append(None)
                errors[index] = str(error)
                continue
            outputs.append(output)
            if _has_unknown(output, self._RESULT_KEY):
                errors[index] = f"{self._name}: the judge's reply holds no score the SDK can read (result 'unknown')"
        listed = tuple((str(index + 1), errors[index]) for index in sorted(errors))
        return BatchOutputs(tuple(outputs), listed, merged_totals(runs, len(plans), len(listed)))

    # -- the steps -------------------------------------------------------------------------------------------

    def _plan(self, values: dict[str, Any]) -> Plan:
        """The prompt and the turns of one call's ``values`` (the SDK's checks and conversion)."""
        if self._CHECKED is not None:
            check_inputs(self._CHECKED, values)
        turns = self._turns(values)
        return self._PROMPT, self._FIELDS, turns

    def _turns(self, values: dict[str, Any]) -> list[dict[str, Any]]:
        conversation = values.get("conversation")
        if conversation is not None and any(values.get(name) for name in self._CALL_FIELDS):
            raise EvaluationException(
                f"{self._name}: Cannot provide both 'conversation' and individual inputs at the same time.")
        if conversation is not None:
            return conversation_turns(conversation, self._CALL_FIELDS)
        if any(values.get(name) is None for name in self._required()):
            raise EvaluationException(f"{self._name}: Either 'conversation' or individual inputs must be provided.")
        return [{name: values.get(name) for name in self._CALL_FIELDS}]

    def _required(self) -> tuple[str, ...]:
        return self._CALL_FIELDS

    def _body(self, template: PromptTemplate, fields: tuple[str, ...], turn: Mapping[str, Any]) -> dict[str, Any]:
        # Filled here rather than by the template, which refuses empty texts: the SDK sends them.
        texts = {name: str(turn.get(name)) for name in fields}
        return {"messages": [{"role": "system", "content": template.system.format(**texts)},
                             {"role": "user", "content": template.user.format(**texts)}], **self._params}

    def _judge(self, template: PromptTemplate) -> Judge:
        backend = ChatBackend(endpoint_of(self._config, self._credential), timeout=self._request_timeout)
        return Judge(backend, template=template, params=self._params, parse=self._read, scale=(1, 5),
                     parser_name=f"azure-ai-evaluation-1.18.10:{'direct' if self._DIRECT else 'strategy'}")

    def _run(self, template: PromptTemplate, bodies: list[dict[str, Any]], keys: list[str]) -> Judgments:
        if not bodies:
            return Judgments((), merged_totals([], 0, 0), "")
        return self._judge(template).run(bodies=bodies, keys=keys, cache=self._cache, cache_mode=self._cache_mode,
                                         limits=self._limits, retry=self._retry)

    def _read(self, completion: Any) -> Reading:
        return read_direct(completion) if self._DIRECT else read_strategy(completion, tagged=self._TAGGED)

    def _output(self, judgment: Judgment, fields: tuple[str, ...], turn: Mapping[str, Any]) -> dict[str, Any]:
        """One turn's output dict; a turn without a readable reply raises (the SDK stops at the first such turn)."""
        if judgment.completion is None:
            raise EvaluationException(f"{self._name}: {judgment.error}")
        try:
            reading = self._read(judgment.completion)
        except ReplyError as error:
            message = str(error)
            raise EvaluationException(message if message == INVALID_OUTPUT else f"{self._name}: {message}") from None
        properties = None
        if not (reading.skipped and self._DIRECT):
            properties = dict(reading.properties or {})
            properties.update(metadata(judgment.completion, {name: turn.get(name) for name in fields}))
        return turn_output(self._RESULT_KEY, reading, self._threshold, properties, direct=self._DIRECT)


def _has_unknown(output: Mapping[str, Any], key: str) -> bool:
    """Whether a turn's score is NaN (one turn: the dict's score; several: any per-turn score)."""
    scores = output.get("evaluation_per_turn", {}).get(f"{key}_score", [output.get(f"{key}_score")])
    return any(isinstance(score, float) and math.isnan(score) for score in scores)
