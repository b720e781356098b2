"""The model classes of the built-in vendors: the table of built-in models.

Each is an :class:`~good_agent.models.provider_model.SDKModel` on its vendor's codec,
profile rules and HTTP transport (``providers/<vendor>/http_transport.py``): the class a
bridge route to the same upstream builds. Given an official SDK client instead
(``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``, ``google.genai.Client``), a
model sends with that client (``providers/<vendor>/sdk_transport.py``).
"""

from __future__ import annotations

from typing import Any

import httpx2

from good_agent.models.provider_model import SDKModel
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.anthropic.sdk_transport import AnthropicTransport
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.gemini.sdk_transport import GeminiTransport
from good_agent.providers.http_transport import HttpTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.http_transport import (
    OpenAIHttpTransport,
    OpenAIResponsesHttpTransport,
)
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.transport import Transport
from good_agent.types.errors import ModelConfigError


def vendor_transport(
    http: type[HttpTransport],
    model: str,
    *,
    base_url: str | None,
    api_key: str | None,
    client: Any,
    max_retries: int,
    sdk: Any = None,
    **options: Any,
) -> Transport:
    """The transport of a built-in model: ``http`` (on ``client`` when it is an
    ``httpx2.AsyncClient``), or ``sdk(model, client=client)`` for an SDK client."""
    if client is None or isinstance(client, httpx2.AsyncClient):
        return http.for_model(
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
            **options,
        )
    if sdk is None:
        raise ModelConfigError(
            f"client for model '{model}' must be an httpx2.AsyncClient, not {type(client).__name__}"
        )
    transport: Transport = sdk(model, client=client, base_url=base_url)
    return transport


class OllamaModel(SDKModel):
    """Models served by Ollama.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434``,
    ``api_key`` (a bearer token) to ``OLLAMA_API_KEY`` (not for a given ``base_url`` of
    another host than ``ollama.com``), ``client`` is a ready
    ``httpx2.AsyncClient``; settings map to Ollama ``options``.
    """

    provider_prefix = "ollama"

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """An `OllamaHttpTransport`."""
        return vendor_transport(
            OllamaHttpTransport,
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
        )


class OpenAIChatModel(SDKModel):
    """Talk to OpenAI, or any server that speaks its Chat Completions API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``OPENAI_BASE_URL`` or OpenAI's own, ``api_key`` to
    ``OPENAI_API_KEY`` for OpenAI's own endpoint only (with another ``base_url`` and no
    key none is sent), ``client`` is an ``httpx2.AsyncClient`` or a ready
    ``openai.AsyncOpenAI``. Built directly, it uses ``NATIVE`` tools and sends schemas
    exactly as given (``strict=False``); [`resolve_model`][good_agent.resolve_model] follows the
    profile.
    """

    provider_prefix = "openai"
    default_mode = ToolCallingMode.NATIVE
    default_strict = False

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """An `OpenAIHttpTransport` (an `OpenAIClientTransport` on an SDK client)."""
        return vendor_transport(
            OpenAIHttpTransport,
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
            sdk=OpenAIClientTransport,
        )


class OpenAIResponsesModel(SDKModel):
    """Talk to OpenAI through the Responses API (arguments as for
    [`OpenAIChatModel`][good_agent.OpenAIChatModel])."""

    provider_prefix = "openai-responses"

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """An `OpenAIResponsesHttpTransport` (an `OpenAIClientTransport` for the
        Responses API on an SDK client)."""
        return vendor_transport(
            OpenAIResponsesHttpTransport,
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
            sdk=_responses_client_transport,
        )


def _responses_client_transport(model: str, **connection: Any) -> OpenAIClientTransport:
    return OpenAIClientTransport(model, api="responses", **connection)


class AnthropicModel(SDKModel):
    """Claude models through the Messages API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY`` for Anthropic's own endpoint only, ``client`` is an
    ``httpx2.AsyncClient`` or a ready ``anthropic.AsyncAnthropic``, and ``max_tokens``
    defaults to 4096.
    """

    provider_prefix = "anthropic"

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """An `AnthropicHttpTransport` (an `AnthropicTransport` on an SDK client)."""
        return vendor_transport(
            AnthropicHttpTransport,
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
            sdk=AnthropicTransport,
        )


class GeminiModel(SDKModel):
    """Gemini models through the Gemini API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``GOOGLE_GEMINI_BASE_URL``, ``api_key`` to
    ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` for Google's own endpoint only,
    ``client`` is an ``httpx2.AsyncClient`` or a ready ``google.genai.Client``. Thought
    signatures are remembered and sent back (Gemini 3 requires them).
    """

    provider_prefix = "gemini"

    @classmethod
    def make_transport(
        cls,
        model: str,
        *,
        base_url: str | None,
        api_key: str | None,
        client: Any,
        max_retries: int = 2,
    ) -> Transport:
        """A `GeminiHttpTransport` (a `GeminiTransport` on an SDK client)."""
        return vendor_transport(
            GeminiHttpTransport,
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            max_retries=max_retries,
            sdk=GeminiTransport,
            signature_cache=256,
        )
