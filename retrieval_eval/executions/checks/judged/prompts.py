"""The prompts of the judged evaluators (this project's own wording; no reference system's prompt is copied).

Every prompt asks for one JSON object and nothing else; :mod:`.replies` reads it strictly. The
reply each one asks for:

- the 1-5 evaluators (Relevance, Coherence, Groundedness, Similarity): ``{"score": 1..5, "reason": str}``;
- GeneralQuality: ``{"relevance": bool, "groundedness": bool, "completeness": bool,
  "abstention": bool, "reason": str}`` (``groundedness`` left out when there is no context);
- CompareMeaning: ``{"score": 0..100, "reason": str}``;
- Custom: ``{"label": one of the label names, "reason": str}``;
- the entailment of a RetrievalResult claim: ``{"supported": bool, "evidence": [passage numbers], "reason": str}``;
- a task criterion of the agent optimizer's datasets: ``{"score": 0 or 1, "reason": str}``.
"""

from __future__ import annotations

from ....judging.templates import PromptTemplate

#: The request parameters of every chat judge here: deterministic sampling, a JSON object, a short answer.
PARAMS = {"temperature": 0.0, "top_p": 1.0, "max_tokens": 400, "response_format": {"type": "json_object"}}

_SYSTEM = (
    "You are a careful, impartial evaluator of an AI assistant's answers. You follow the rubric you are given, "
    "judge only what is in front of you, and reply with one JSON object and nothing else."
)
_LIKERT_REPLY = 'Reply with a JSON object {{"score": <an integer from 1 to 5>, "reason": "<one sentence>"}}.'


def _likert(name: str, rubric: str, body: str) -> PromptTemplate:
    return PromptTemplate(name=name, system=_SYSTEM, user=f"{rubric}\n\n{body}\n\n{_LIKERT_REPLY}")


RELEVANCE = _likert(
    "m365-relevance-1-5",
    "Rate how well the response addresses the user's question, on a scale of 1 to 5:\n"
    "5 = answers the question fully and directly; 4 = answers it, with small gaps or some digression; "
    "3 = partly answers it; 2 = touches the topic without answering; 1 = unrelated to the question or no answer.\n"
    "Judge whether the question is answered, not whether the answer is well written.",
    "Question: {query}\n\nResponse: {response}",
)

COHERENCE = _likert(
    "m365-coherence-1-5",
    "Rate the coherence of the response, on a scale of 1 to 5: does it read as one clear, logically ordered "
    "whole whose sentences follow from each other and fit the question?\n"
    "5 = clear and well organized throughout; 4 = clear with minor lapses; 3 = understandable but disjointed "
    "in places; 2 = hard to follow; 1 = incoherent.",
    "Question: {query}\n\nResponse: {response}",
)

GROUNDEDNESS = _likert(
    "m365-groundedness-1-5",
    "Rate how well the response is grounded in the context, on a scale of 1 to 5: every claim it makes must be "
    "supported by the context; a claim that goes beyond the context or contradicts it is ungrounded.\n"
    "5 = every claim is supported; 4 = nearly all, one minor unsupported detail; 3 = the main claims are "
    "supported, some are not; 2 = most claims are unsupported; 1 = unsupported or contradicting the context.\n"
    "Judge support only, not whether the response is helpful or complete.",
    "Question: {query}\n\nContext:\n{context}\n\nResponse: {response}",
)

SIMILARITY = _likert(
    "m365-similarity-1-5",
    "Rate how similar in meaning the response is to the expected answer, on a scale of 1 to 5. Compare what "
    "they say, not their wording: a paraphrase with the same facts is 5.\n"
    "5 = the same meaning; 4 = the same main points, a detail differs or is missing; 3 = partly the same; "
    "2 = mostly different; 1 = different or contradicting.",
    "Question: {query}\n\nExpected answer: {ground_truth}\n\nResponse: {response}",
)

_QUALITY_RUBRIC = (
    "Judge the assistant's response to the question on each criterion, true or false:\n"
    "- relevance: the response addresses what the question asks;\n"
    "{grounded}"
    "- completeness: the response covers every aspect of the question;\n"
    "- abstention: the assistant attempted an answer (false when it declined, deflected or said it cannot help)."
)
_QUALITY_REPLY = (
    'Reply with a JSON object {{"relevance": true|false, {grounded_field}"completeness": true|false, '
    '"abstention": true|false, "reason": "<one sentence>"}}.'
)

GENERAL_QUALITY = PromptTemplate(
    name="studio-general-quality",
    system=_SYSTEM,
    user=_QUALITY_RUBRIC.replace("{grounded}", "- groundedness: every claim of the response rests on the context;\n")
    + "\n\nQuestion: {query}\n\nContext:\n{context}\n\nResponse: {response}\n\n"
    + _QUALITY_REPLY.replace("{grounded_field}", '"groundedness": true|false, '),
)

GENERAL_QUALITY_NO_CONTEXT = PromptTemplate(
    name="studio-general-quality-no-context",
    system=_SYSTEM,
    user=_QUALITY_RUBRIC.replace("{grounded}", "")
    + "\n\nQuestion: {query}\n\nResponse: {response}\n\n"
    + _QUALITY_REPLY.replace("{grounded_field}", ""),
)

COMPARE_MEANING = PromptTemplate(
    name="studio-compare-meaning-0-100",
    system=_SYSTEM,
    user=(
        "Rate, from 0 to 100, how well the response carries the intended meaning of the expected answer: the same "
        "intent and facts count, the wording does not. 100 = the same meaning; 50 = half of what matters is "
        "conveyed; 0 = nothing of it, or the opposite.\n\n"
        "Question: {query}\n\nExpected answer: {expected}\n\nResponse: {response}\n\n"
        'Reply with a JSON object {{"score": <an integer from 0 to 100>, "reason": "<one sentence>"}}.'
    ),
)

_CUSTOM = (
    "Evaluate the assistant's response by these instructions:\n{instructions}\n\n"
    "Assign exactly one of these labels:\n{labels}\n\n"
    "Question: {query}\n\n"
)
_CUSTOM_REPLY = 'Reply with a JSON object {{"label": "<the label\'s name, exactly as written>", "reason": "<one sentence>"}}.'

CUSTOM = PromptTemplate(name="studio-custom", system=_SYSTEM, user=_CUSTOM + "Response: {response}\n\n" + _CUSTOM_REPLY)

CUSTOM_EXPECTED = PromptTemplate(
    name="studio-custom-expected",
    system=_SYSTEM,
    user=_CUSTOM + "Expected answer: {expected}\n\nResponse: {response}\n\n" + _CUSTOM_REPLY,
)

ENTAILMENT = PromptTemplate(
    name="m365-retrieval-entailment",
    system=_SYSTEM,
    user=(
        "Decide whether the retrieved passages support the claim: supported means that a reader of the passages "
        "alone would accept the claim as stated; a claim they only make plausible, or contradict, is not supported.\n\n"
        "Claim: {claim}\n\nPassages:\n{evidence}\n\n"
        'Reply with a JSON object {{"supported": true|false, "evidence": [<the numbers of the passages that '
        'support it; [] when not supported>], "reason": "<one sentence>"}}.'
    ),
)

_CRITERION = (
    "Decide whether the agent's response to the task meets this criterion.\n\n"
    "Criterion: {criterion}\nWhat to check: {instruction}\n\n"
    "Task: {query}\n\n"
)
_CRITERION_REPLY = 'Reply with a JSON object {{"score": <1 if the criterion is met, else 0>, "reason": "<one sentence>"}}.'

TASK_CRITERION = PromptTemplate(
    name="optimizer-task-criterion", system=_SYSTEM, user=_CRITERION + "Response: {response}\n\n" + _CRITERION_REPLY
)

TASK_CRITERION_GROUND_TRUTH = PromptTemplate(
    name="optimizer-task-criterion-ground-truth",
    system=_SYSTEM,
    user=_CRITERION + "Reference answer: {ground_truth}\n\nResponse: {response}\n\n" + _CRITERION_REPLY,
)
