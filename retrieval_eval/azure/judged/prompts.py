"""This project's own prompts for the judged drop-ins (the SDK's prompt files are not copied).

Each asks for what the SDK's prompt asks for, so that the same reply reads the same: a JSON
object ``{"reason": "<why>", "score": <integer 1-5>}``, higher is better, and
``{"reason": "<why>", "score": null, "status": "skipped"}`` when the inputs cannot be judged. The
inputs are the SDK's, in its order (the ``{slot}`` names).
"""

from __future__ import annotations

from ...judging.templates import PromptTemplate

_ANSWER = (
    "Think about the rubric first, then answer with one JSON object and nothing else: "
    '{{"reason": "<one or two sentences>", "score": <an integer from 1 to 5>}}. '
    "If the inputs cannot be judged at all, answer "
    '{{"reason": "<why>", "score": null, "status": "skipped"}}.'
)


def _template(name: str, role: str, task: str, rubric: str, inputs: str) -> PromptTemplate:
    system = f"You are {role}. You grade fairly, read only what you are given, and answer in JSON."
    user = f"{task}\n\nScale:\n{rubric}\n\n{inputs}\n\n{_ANSWER}"
    return PromptTemplate(name=f"azure-{name}-v1", system=system, user=user)


RELEVANCE = _template(
    "relevance", "an assessor of answers to questions",
    "Grade how well the RESPONSE addresses what the user asked in the QUERY (which may hold earlier turns).",
    "1 = off topic or no answer; 2 = touches the topic, does not help; 3 = answers part of it; "
    "4 = answers it with minor gaps; 5 = answers it fully and adds useful insight.",
    "QUERY: {query}\nRESPONSE: {response}",
)

RETRIEVAL = _template(
    "retrieval", "an assessor of search results",
    "Grade how relevant the retrieved CONTEXT is to the QUERY, and whether the most useful passages come first. "
    "There is no reference answer: judge the passages against the query alone.",
    "1 = nothing relevant; 2 = loosely related passages only; 3 = some relevant passages, poorly ranked or "
    "incomplete; 4 = relevant passages ranked well, small gaps; 5 = highly relevant passages, best first.",
    "QUERY: {query}\nCONTEXT: {context}",
)

GROUNDEDNESS = _template(
    "groundedness", "a fact checker",
    "Grade how far every claim of the RESPONSE is supported by the CONTEXT. Claims the context does not "
    "support count against the response, even when they are true.",
    "1 = unrelated to the context; 2 = mostly unsupported or contradicting; 3 = partly supported; "
    "4 = supported with a minor unsupported detail; 5 = fully supported and complete.",
    "CONTEXT: {context}\nRESPONSE: {response}",
)

GROUNDEDNESS_WITH_QUERY = _template(
    "groundedness-query", "a fact checker",
    "Grade how far every claim of the RESPONSE to the QUERY is supported by the CONTEXT. Claims the context "
    "does not support count against the response, even when they are true; a response that ignores the query "
    "scores low.",
    "1 = unrelated to the context or the query; 2 = mostly unsupported or contradicting; 3 = partly supported; "
    "4 = supported with a minor unsupported detail; 5 = fully supported and answers the query.",
    "QUERY: {query}\nCONTEXT: {context}\nRESPONSE: {response}",
)

RESPONSE_COMPLETENESS = _template(
    "response-completeness", "an assessor of answer completeness",
    "Grade how much of the information in the GROUND TRUTH the RESPONSE covers. Extra information neither "
    "helps nor hurts; missing or contradicted statements hurt.",
    "1 = covers none of it; 2 = covers little; 3 = covers about half; 4 = covers most, misses a detail; "
    "5 = covers all of it.",
    "RESPONSE: {response}\nGROUND TRUTH: {ground_truth}",
)

COHERENCE = _template(
    "coherence", "an assessor of writing",
    "Grade how coherent the RESPONSE to the QUERY is: whether its ideas follow logically, connect clearly and "
    "build an argument a reader can follow.",
    "1 = incoherent; 2 = fragmented; 3 = partly coherent, with jumps; 4 = coherent; "
    "5 = highly coherent and well organized.",
    "QUERY: {query}\nRESPONSE: {response}",
)

FLUENCY = _template(
    "fluency", "an assessor of writing",
    "Grade the fluency of the RESPONSE: grammar, vocabulary, sentence structure and readability, "
    "whatever it says.",
    "1 = barely readable; 2 = frequent errors; 3 = clear with some errors; 4 = well written, rare errors; "
    "5 = polished and varied.",
    "RESPONSE: {response}",
)

SIMILARITY = _template(
    "similarity", "an assessor of answers to questions",
    "Grade how similar in meaning the RESPONSE is to the GROUND TRUTH, as answers to the QUERY "
    "(meaning, not wording).",
    "1 = unrelated; 2 = little shared meaning; 3 = about half the meaning; 4 = mostly the same meaning; "
    "5 = the same meaning.",
    "QUERY: {query}\nRESPONSE: {response}\nGROUND TRUTH: {ground_truth}",
)
