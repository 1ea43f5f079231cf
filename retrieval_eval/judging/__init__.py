"""The judge layer: a model (or any callable) as a judge, cached, rate-limited, retried and budgeted.

A judge turns a batch of requests (the texts of each item) into judgments: one chat-completions
call per item through an OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp's server, OpenRouter), or the user's own callable. On top of it: labels that fill the
holes of qrels (with where each label came from), and how far a judge agrees with people.

Names are loaded on first use, so that the command line's ``--help`` loads neither pandas nor numba.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "label_agreement": ".agreement",
    "LabelAgreement": ".agreement",
    "ranking_agreement": ".ranking_agreement",
    "RankingAgreement": ".ranking_agreement",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
