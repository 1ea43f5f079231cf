"""Where a judge's requests go: an OpenAI-compatible endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, llama.cpp, OpenRouter).

Two shapes of URL, as the openai client builds them:

- OpenAI and every compatible server: ``{base_url}/chat/completions`` and ``{base_url}/embeddings``,
  the key sent as ``Authorization: Bearer <key>``; ``model`` goes in the request body.
- Azure OpenAI: ``{azure_endpoint}/openai/deployments/{deployment}/chat/completions?api-version={v}``
  (``/embeddings`` likewise), the key sent as ``api-key: <key>`` (or an Entra token as
  ``Authorization: Bearer``).

Keys come from the configuration or, as the openai client reads them, from the environment:
``OPENAI_API_KEY`` (and ``OPENAI_BASE_URL``, ``OPENAI_ORG_ID``) for OpenAI; ``AZURE_OPENAI_API_KEY``
or ``AZURE_OPENAI_AD_TOKEN``, ``AZURE_OPENAI_ENDPOINT`` and ``OPENAI_API_VERSION`` for Azure. A
server on this machine's loopback (vLLM, Ollama, llama.cpp) needs no key; any other endpoint
without one is a :class:`~retrieval_eval.errors.ConfigError` naming the variable to set.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from ..constraints import check_choice
from ..errors import ConfigError

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: The api-version the azure-ai-evaluation SDK 1.18.10 sends when its configuration gives none (its
#: evaluators' ``_DEFAULT_OPEN_API_VERSION``, seen in the requests it sends).
AZURE_DEFAULT_API_VERSION = "2024-02-15-preview"
_KINDS = ("openai", "azure")


@dataclass(frozen=True)
class Endpoint:
    """One endpoint: ``kind`` ("openai" or "azure"), ``base_url``, ``model`` (the model name, or Azure's deployment).

    ``api_key`` is kept out of ``repr`` and of every fingerprint; ``api_version`` is Azure's;
    ``bearer`` sends the key as ``Authorization: Bearer`` (Azure Entra tokens, every OpenAI key).
    """

    kind: str
    base_url: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    api_version: str | None = None
    organization: str | None = None
    bearer: bool = True

    def __post_init__(self) -> None:
        check_choice("endpoint kind", self.kind, _KINDS, bracketed=True)
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"endpoint URL must be http(s)://host[:port][/path], got {self.base_url!r}")
        if self.kind == "azure" and not self.model:
            raise ConfigError("an Azure OpenAI endpoint needs its deployment (azure_deployment, --model)")

    def url(self, operation: str) -> str:
        """The URL of ``operation`` ("chat/completions" or "embeddings")."""
        base = self.base_url.rstrip("/")
        if self.kind == "azure":
            version = quote(self.api_version or AZURE_DEFAULT_API_VERSION, safe="")
            return f"{base}/openai/deployments/{quote(str(self.model), safe='')}/{operation}?api-version={version}"
        return f"{base}/{operation}"

    def headers(self) -> dict[str, str]:
        """The authentication (and organization) headers of every request."""
        headers: dict[str, str] = {}
        if self.api_key:
            if self.kind == "azure" and not self.bearer:
                headers["api-key"] = self.api_key
            else:
                headers["Authorization"] = f"Bearer {self.api_key}"
        if self.organization:
            headers["OpenAI-Organization"] = self.organization
        return headers

    def body_model(self) -> str | None:
        """The ``model`` field of a request body: the model name, or Azure's deployment.

        Azure routes by the deployment in the path and ignores the field; the openai client (and so
        azure-ai-evaluation) sends it all the same, and so do we, so that requests are the same.
        """
        return self.model

    def describe(self) -> dict[str, Any]:
        """What identifies the endpoint's answers in a fingerprint: kind and model (never the key or the host)."""
        return {"kind": self.kind, "model": self.model}


def is_loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine (localhost, 127.0.0.0/8, ::1)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def openai_endpoint(
    *, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
    organization: str | None = None, environ: Mapping[str, str] | None = None,
) -> Endpoint:
    """An OpenAI-compatible endpoint; what is not given is read from the environment as the openai client reads it."""
    env = os.environ if environ is None else environ
    base = base_url or env.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    key = api_key if api_key is not None else env.get("OPENAI_API_KEY")
    if not key and not is_loopback(base):
        raise ConfigError(f"no API key for {base}: set OPENAI_API_KEY (or pass api_key)")
    return Endpoint("openai", base, model=model, api_key=key or None, organization=organization or env.get("OPENAI_ORG_ID"))


def azure_endpoint(
    *, azure_endpoint: str | None = None, deployment: str | None = None, api_key: str | None = None,
    api_version: str | None = None, token: str | None = None, environ: Mapping[str, str] | None = None,
) -> Endpoint:
    """An Azure OpenAI endpoint; what is not given is read from ``AZURE_OPENAI_*`` and ``OPENAI_API_VERSION``."""
    env = os.environ if environ is None else environ
    base = azure_endpoint or env.get("AZURE_OPENAI_ENDPOINT")
    if not base:
        raise ConfigError("no Azure OpenAI endpoint: set AZURE_OPENAI_ENDPOINT (or pass azure_endpoint)")
    key = api_key if api_key is not None else env.get("AZURE_OPENAI_API_KEY")
    bearer_token = token if token is not None else env.get("AZURE_OPENAI_AD_TOKEN")
    if not key and not bearer_token and not is_loopback(base):
        raise ConfigError(f"no key for {base}: set AZURE_OPENAI_API_KEY or AZURE_OPENAI_AD_TOKEN (or pass api_key)")
    version = api_version or env.get("OPENAI_API_VERSION") or AZURE_DEFAULT_API_VERSION
    return Endpoint("azure", base, model=deployment, api_key=key or bearer_token or None, api_version=version,
                    bearer=not key and bool(bearer_token))


def endpoint_from_model_config(config: Any) -> Endpoint:
    """The endpoint of an azure-ai-evaluation ``model_config``: a dict, or an object with the same attributes.

    Azure: ``azure_endpoint``, ``azure_deployment``, ``api_key`` (optional), ``api_version``
    (optional); OpenAI: ``model``, ``api_key``, ``base_url`` (optional), ``organization`` (optional).
    """
    values = dict(config) if isinstance(config, Mapping) else {
        name: getattr(config, name) for name in ("azure_endpoint", "azure_deployment", "api_key", "api_version",
                                                 "model", "base_url", "organization", "type") if hasattr(config, name)
    }
    values = {name: value for name, value in values.items() if value is not None}
    if "azure_endpoint" in values or values.get("type") == "azure_openai":
        if "azure_deployment" not in values:
            raise ConfigError("model_config: an Azure OpenAI configuration needs 'azure_deployment'")
        return azure_endpoint(azure_endpoint=values.get("azure_endpoint"), deployment=values["azure_deployment"],
                              api_key=values.get("api_key"), api_version=values.get("api_version"))
    if "model" not in values:
        raise ConfigError("model_config needs 'azure_endpoint' and 'azure_deployment' (Azure OpenAI) or 'model' (OpenAI)")
    return openai_endpoint(base_url=values.get("base_url"), model=values["model"], api_key=values.get("api_key"),
                           organization=values.get("organization"))
