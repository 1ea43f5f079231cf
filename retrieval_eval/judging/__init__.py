"""The judge layer: a model (or any callable) as a judge, cached, rate-limited, retried and budgeted.

A judge turns a batch of requests (the texts of each item) into judgments: one chat-completions
call per item through an OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama,
llama.cpp's server, OpenRouter), or the user's own callable. On top of it: labels that fill the
holes of qrels (with where each label came from), and how far a judge agrees with people.

Names are loaded on first use, so that the command line's ``--help`` loads neither pandas nor numba.
"""

from .._lazy import lazy_attributes

_EXPORTS = {
    "Budget": ".costs",
    "CallableBackend": ".backends",
    "ChatBackend": ".backends",
    "Completion": ".backends",
    "EmbeddingsBackend": ".backends",
    "Endpoint": ".endpoint",
    "FilledQrels": ".holes",
    "Judge": ".judge",
    "JudgeCache": ".cache",
    "JudgeSettings": ".settings",
    "Judgment": ".outcomes",
    "Judgments": ".outcomes",
    "LabelAgreement": ".agreement",
    "LabelParser": ".replies",
    "Limits": ".limits",
    "PriceTable": ".costs",
    "PromptTemplate": ".templates",
    "RankingAgreement": ".ranking_agreement",
    "ReplyError": ".judge",
    "RetryPolicy": ".limits",
    "Totals": ".outcomes",
    "azure_endpoint": ".endpoint",
    "endpoint_from_model_config": ".endpoint",
    "judge_holes": ".holes",
    "judge_judged": ".holes",
    "kendall_tau_b": "..sweep.rank_correlation",
    "label_agreement": ".agreement",
    "openai_endpoint": ".endpoint",
    "rbo_ext": "..sweep.rank_correlation",
    "ranking_agreement": ".ranking_agreement",
    "relevance_judge": ".holes",
    "tau_ap": "..sweep.rank_correlation",
}

__all__ = sorted(_EXPORTS)
__getattr__ = lazy_attributes(__name__, _EXPORTS)
