"""Drop-in for azure-ai-evaluation's ``F1ScoreEvaluator``: token-overlap F1 of a response against its ground truth.

Definition (the SDK's, 1.18.10). Both texts are normalized: lower-cased (``str.lower``), every
ASCII punctuation character (``string.punctuation``) deleted, every article replaced by a space
(``re.sub(r"\\b(a|an|the)\\b", " ", text)``: a whole word ``a``, ``an`` or ``the``, where words
are runs of Python's Unicode ``\\w``), and split on Unicode whitespace (``str.split``). With
*r* the response's tokens, *g* the ground truth's and *c* the size of their multiset
intersection::

    F1 = 0                                   if c = 0
    F1 = 2 P R / (P + R),  P = c / |r|, R = c / |g|   otherwise

computed in that order of floating-point operations, so values equal the SDK's to the bit. F1
is in [0, 1] (dimensionless); two texts that normalize to no tokens score 0. A response passes
when ``F1 >= threshold``.

The output dict has the SDK's keys, order and value types: ``f1_score``, ``f1_score_score``,
``f1_score_passed``, ``f1_score_result``, ``f1_score_reason`` (None), ``f1_score_status``
(``"completed"``), ``f1_score_threshold`` (the threshold as given) and ``f1_score_properties``
(None). A ``conversation`` (``{"messages": [...]}``) is scored turn by turn as the SDK does:
user and assistant messages are paired in order, the response is the assistant's ``content`` and
the ground truth its ``ground_truth`` (both ``""`` when absent); one turn gives that turn's dict,
several give the mean of every numeric value (booleans count as 0/1), the last turn's other
values and ``evaluation_per_turn``, no turn gives ``{}``.

Where the SDK misbehaves this does the right thing instead (each tested):

- a threshold that is not a finite real number (None, a string, a bool, NaN, infinity) is an
  :class:`~.exceptions.EvaluationException` when the evaluator is made; the SDK accepts it and
  then raises TypeError on every call (None, strings) or silently fails (NaN) or passes (True
  is 1) every response;
- a response or ground truth that is not a string is an EvaluationException naming it; the SDK
  raises ``AttributeError: 'int' object has no attribute 'lower'``;
- a malformed conversation (no ``messages`` list, a message without ``role``, content that is
  not a string, such as the SDK's image content) is an EvaluationException; the SDK raises
  KeyError or TypeError, or scores the text of a Python list;
- a key of a conversation other than ``messages`` and ``context``, or of a message other than
  ``role``, ``content``, ``context`` and ``ground_truth`` (a guess such as ``answer`` or
  ``reference``), is an EvaluationException naming the keys expected; the SDK ignores it and
  scores the turn against an empty ground truth, 0.0.

:meth:`F1ScoreEvaluator.evaluate_table` and :meth:`F1ScoreEvaluator.evaluate_rows` score a
whole file of (response, ground truth) rows in one columnar pass (:mod:`.f1_columns`); the table
keeps the rows' id columns beside their scores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .answer_f1 import f1_from_counts, shared_token_count
from .exceptions import EvaluationException
from .output import PASS_FAIL, evaluator_output, finite_number

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from ..io.answer_rows import AnswerRows

_NAME = "F1ScoreEvaluator"
_MISSING_INPUTS = f"{_NAME}: Either 'conversation' or individual inputs must be provided."
_BOTH_INPUTS = f"{_NAME}: Cannot provide both 'conversation' and individual inputs at the same time."


class F1ScoreEvaluator:
    """Token-overlap F1 of ``response`` against ``ground_truth``; the SDK's constructor, call and output.

    >>> F1ScoreEvaluator()(response="The cat sat.", ground_truth="a cat sat down")["f1_score"]
    0.8
    """

    id = "azureai://built-in/evaluators/f1_score"

    def __init__(self, *, threshold: float = 0.5) -> None:
        if not finite_number(threshold):
            raise EvaluationException(f"{_NAME}: the threshold must be a finite number, got {threshold!r}.")
        self._threshold = threshold

    @property
    def threshold(self) -> float:
        """A response passes when its F1 is at least this."""
        return self._threshold

    def __call__(
        self, *, response: Any = None, ground_truth: Any = None, conversation: Any = None, **_: Any
    ) -> dict[str, Any]:
        """Score one response (or a conversation, turn by turn); the output dict has the SDK's keys, order and types."""
        if conversation is not None:
            # The SDK's test is truthiness: an empty response beside a conversation is ignored.
            if response or ground_truth:
                raise EvaluationException(_BOTH_INPUTS)
            return self._conversation(conversation)
        if response is None or ground_truth is None:
            raise EvaluationException(_MISSING_INPUTS)
        return self._output(self._score(response, ground_truth))

    def evaluate_table(
        self, rows: Any, *, response_field: str = "response", ground_truth_field: str = "ground_truth"
    ) -> pd.DataFrame:
        """Score every row of a file (JSONL, JSON, parquet, CSV/TSV), DataFrame, Table or list of dicts, column-wise.

        Returns one row per input row, in input order: the input's id columns where it has them (``id``,
        ``query_id`` or another name of a query id, such as ``qid``; as they are), then ``f1_score``
        (float64), ``f1_score_passed`` (bool) and ``f1_score_result`` (``pass``/``fail``). A missing or
        non-text value is an InputError naming the source, row and field.
        """
        import pandas as pd

        answers, scores = self._scored(rows, response_field, ground_truth_field)
        passed = scores >= self._threshold
        return pd.DataFrame(
            {
                **{name: values.to_pandas() for name, values in answers.ids.items()},
                "f1_score": scores,
                "f1_score_passed": passed,
                "f1_score_result": pd.Series(passed).map(PASS_FAIL).astype(object),
            }
        )

    def evaluate_rows(
        self, rows: Any, *, response_field: str = "response", ground_truth_field: str = "ground_truth"
    ) -> Iterator[dict[str, Any]]:
        """Like calling the evaluator on every row, scored in one columnar pass: one output dict per row."""
        _, scores = self._scored(rows, response_field, ground_truth_field)
        return (self._output(float(score)) for score in scores)

    def _scored(self, rows: Any, response_field: str, ground_truth_field: str) -> tuple[AnswerRows, np.ndarray]:
        """The rows read and the F1 of each."""
        from ..io.answer_rows import read_answer_rows
        from .f1_columns import f1_scores

        answers = read_answer_rows(rows, response_field=response_field, ground_truth_field=ground_truth_field)
        return answers, f1_scores(answers.responses, answers.ground_truths)

    def _score(self, response: Any, ground_truth: Any) -> float:
        for name, text in (("response", response), ("ground_truth", ground_truth)):
            if not isinstance(text, str):
                raise EvaluationException(f"{_NAME}: '{name}' must be a string, got {type(text).__name__}.")
        predicted, reference, shared = shared_token_count(response, ground_truth)
        return f1_from_counts(shared, predicted, reference)

    def _output(self, score: float) -> dict[str, Any]:
        return evaluator_output("f1_score", score, self._threshold, None)

    def _conversation(self, conversation: Any) -> dict[str, Any]:
        turns = [self._output(self._score(response, truth)) for response, truth in _turns(conversation)]
        if not turns:
            return {}
        if len(turns) == 1:
            return turns[0]
        per_turn = {key: [turn[key] for turn in turns] for key in turns[0]}
        aggregated: dict[str, Any] = {
            key: (sum(values) / len(values) if all(isinstance(v, (int, float)) for v in values) else values[-1])
            for key, values in per_turn.items()
        }
        aggregated["evaluation_per_turn"] = per_turn
        return aggregated


#: The keys of a conversation and of its messages (the SDK's conversation form): any other is a guess
#: (``answer``, ``reference``...) that the SDK ignores, scoring the turn against an empty ground truth.
_CONVERSATION_KEYS = ("messages", "context")
_MESSAGE_KEYS = ("role", "content", "context", "ground_truth")


def _turns(conversation: Any) -> list[tuple[Any, Any]]:
    """(response, ground truth) of each turn: the i-th user message paired with the i-th assistant message."""
    messages = conversation.get("messages") if isinstance(conversation, Mapping) else None
    if not isinstance(messages, list):
        raise EvaluationException(f"{_NAME}: a conversation must be an object with a list of 'messages'.")
    _refuse_unknown_keys(conversation, _CONVERSATION_KEYS, "a conversation")
    users, responses = 0, []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or "role" not in message:
            raise EvaluationException(f"{_NAME}: conversation message {index + 1} must be an object with a 'role'.")
        _refuse_unknown_keys(message, _MESSAGE_KEYS, f"conversation message {index + 1}")
        if message["role"] == "user":
            users += 1
        elif message["role"] == "assistant":
            responses.append((message.get("content", ""), message.get("ground_truth", "")))
    return responses[:users]


def _refuse_unknown_keys(value: Mapping[Any, Any], known: tuple[str, ...], what: str) -> None:
    unknown = [key for key in value if key not in known]
    if unknown:
        raise EvaluationException(
            f"{_NAME}: {what} has the key(s) {', '.join(map(repr, unknown))}; expected only "
            f"{', '.join(map(repr, known))} (an assistant message's ground truth is its 'ground_truth')."
        )
