"""The request azure-ai-evaluation 1.18.10 sends for a judged evaluator, and where it sends it.

Parameters (its prompt files fix them): ``temperature 0.0``, ``top_p 1.0``, ``presence_penalty 0``,
``frequency_penalty 0``, ``response_format {"type": "json_object"}``, ``max_tokens`` 800 (1600 for
Retrieval), and ``seed 123`` for ResponseCompleteness. With ``is_reasoning_model=True`` (o1/o3-like
models) ``max_tokens`` becomes ``max_completion_tokens: 60000`` and temperature, top_p and both
penalties are left out. Messages: ``[system, user]``. The body's ``model`` is the model name
(OpenAI) or the deployment (Azure).

Endpoint of a ``model_config`` (a dict, or an object with the same attributes):

- Azure OpenAI (``azure_endpoint``, ``azure_deployment``, ``api_key``, optional ``api_version``):
  ``{azure_endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...``, the key in
  ``api-key``; without ``api_version`` the SDK sends ``2024-02-15-preview`` (the environment's
  ``OPENAI_API_VERSION`` is not read). Without a key, the ``credential``'s
  ``get_token("https://ai.azure.com/.default")`` token is sent as ``Authorization: Bearer``.
- OpenAI or any compatible server (``model``, ``api_key``, optional ``base_url`` such as
  ``http://localhost:8000/v1`` for vLLM or ``http://localhost:11434/v1`` for Ollama,
  ``organization``): ``{base_url}/chat/completions``, ``Authorization: Bearer``. The SDK needs
  ``"type": "openai"`` in such a dict (without it, it fails on every call: its check for a
  ``model`` key iterates over the letters of "model"); the drop-ins do not.

The configuration is read, never changed (the SDK writes ``type`` and ``api_version`` into the caller's dict).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ConfigError
from ...judging.endpoint import AZURE_DEFAULT_API_VERSION, Endpoint, endpoint_from_model_config
from ..exceptions import EvaluationException

#: The scope of the Entra token the SDK asks a credential for.
TOKEN_SCOPE = "https://ai.azure.com/.default"
#: ``max_completion_tokens`` of a reasoning model's request.
REASONING_MAX_COMPLETION_TOKENS = 60000
_CONFIG_FIELDS = ("type", "azure_endpoint", "azure_deployment", "api_key", "api_version", "model", "base_url",
                  "organization", "credential")


def request_params(max_tokens: int, *, seed: int | None = None, reasoning: bool = False) -> dict[str, Any]:
    """The body's parameters besides the messages and the model (see the module)."""
    params: dict[str, Any] = {"temperature": 0.0, "max_tokens": max_tokens, "top_p": 1.0}
    if seed is not None:
        params["seed"] = seed
    params |= {"presence_penalty": 0, "frequency_penalty": 0, "response_format": {"type": "json_object"}}
    if reasoning:
        for name in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
            del params[name]
        del params["max_tokens"]
        params["max_completion_tokens"] = REASONING_MAX_COMPLETION_TOKENS
    return params


def config_values(model_config: Any) -> dict[str, Any]:
    """The fields of a ``model_config`` dict or object, without its None values (a copy: the caller's is untouched)."""
    if isinstance(model_config, Mapping):
        values = dict(model_config)
    else:
        values = {name: getattr(model_config, name) for name in _CONFIG_FIELDS if hasattr(model_config, name)}
    if not values:
        raise EvaluationException("Model config validation failed.")
    return {name: value for name, value in values.items() if value is not None}


def endpoint_of(values: Mapping[str, Any], credential: Any = None) -> Endpoint:
    """The endpoint of a model configuration's ``values`` (a fresh Entra token when it has a credential and no key)."""
    is_azure = "azure_endpoint" in values or values.get("type") == "azure_openai"
    config = dict(values)
    config.pop("credential", None)
    credential = credential if credential is not None else values.get("credential")
    try:
        if not is_azure:
            return endpoint_from_model_config(config)
        config.setdefault("api_version", AZURE_DEFAULT_API_VERSION)
        if not config.get("api_key") and credential is not None:
            if not config.get("azure_endpoint") or not config.get("azure_deployment"):
                raise ConfigError("model_config: Azure OpenAI needs 'azure_endpoint' and 'azure_deployment'")
            token = credential.get_token(TOKEN_SCOPE).token
            return Endpoint("azure", config["azure_endpoint"], model=config["azure_deployment"], api_key=token,
                            api_version=config["api_version"], bearer=True)
        return endpoint_from_model_config(config)
    except ConfigError as error:
        raise EvaluationException(f"Model config validation failed: {error}") from None
