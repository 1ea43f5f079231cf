"""The built-in prompts (this project's own wording).

:data:`RELEVANCE` grades how well a passage answers a search query on the 0-3 scale of TREC's
deep-learning tracks, as UMBRELA asks it: 3 perfectly relevant (dedicated to the query, holds the
exact answer), 2 highly relevant (answers it, with some noise or gaps), 1 related (on the topic,
does not answer), 0 irrelevant. The model answers with a JSON object ``{"label": n}``.
"""

from __future__ import annotations

from .templates import PromptTemplate

RELEVANCE_SCALE = (0, 3)

RELEVANCE = PromptTemplate(
    name="relevance-0-3",
    system=(
        "You are an expert search-quality assessor. You judge how well a passage answers a search query, "
        "reading only the query and the passage, and you answer with a JSON object and nothing else."
    ),
    user=(
        "Grade the passage for the query on this scale:\n"
        "3 = perfectly relevant: the passage is about the query and contains the exact answer.\n"
        "2 = highly relevant: the passage answers the query, but the answer is partial, unclear or mixed "
        "with unrelated text.\n"
        "1 = related: the passage is on the query's topic but does not answer it.\n"
        "0 = irrelevant: the passage has nothing to do with the query.\n"
        "First work out what the searcher wants, then how much of it the passage gives. Do not reward a "
        "passage for sharing words with the query.\n\n"
        "Query: {query}\n\n"
        "Passage: {document}\n\n"
        'Answer with a JSON object {{"label": <0, 1, 2 or 3>}}.'
    ),
)

#: The request parameters of the built-in relevance judge: deterministic sampling, a JSON reply, a short answer.
RELEVANCE_PARAMS = {"temperature": 0.0, "max_tokens": 50, "response_format": {"type": "json_object"}}
