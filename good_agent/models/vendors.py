"""The model classes of the built-in vendors: the table of built-in models.

Each is an :class:`~good_agent.models.provider_model.SDKModel` on its vendor's codec,
profile rules and HTTP transport (``providers/<vendor>/http_transport.py``): the class a
bridge route to the same upstream builds. Given an official SDK client instead
(``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``, ``google.genai.Client``), a
model sends with that client (``providers/<vendor>/sdk_transport.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import httpx2

from good_agent.http.http_transport import HttpTransport
from good_agent.http.transport import Transport
from good_agent.models.provider_model import SDKModel
from good_agent.providers.anthropic.http_transport import AnthropicHttpTransport
from good_agent.providers.anthropic.sdk_transport import AnthropicTransport
from good_agent.providers.gemini.http_transport import GeminiHttpTransport
from good_agent.providers.gemini.sdk_transport import GeminiTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.http_transport import (
    OpenAIHttpTransport,
    OpenAIResponsesHttpTransport,
)
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.types.errors import ModelConfigError


class _VendorModel(SDKModel):
    """A built-in vendor's model: the vendor's HTTP transport (on ``client`` when it is
    an ``httpx2.AsyncClient``), or its SDK transport on an official SDK client."""

    _http_transport: ClassVar[type[HttpTransport]]
    _sdk_transport: ClassVar[Callable[..., Transport] | None] = None
    _transport_options: ClassVar[Mapping[str, Any]] = {}

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
        """The vendor's HTTP transport, or its SDK transport on an SDK ``client``."""
        if client is None or isinstance(client, httpx2.AsyncClient):
            return cls._http_transport.for_model(
                model,
                base_url=base_url,
                api_key=api_key,
                client=client,
                max_retries=max_retries,
                **cls._transport_options,
            )
        sdk = cls._sdk_transport
        if sdk is None:
            raise ModelConfigError(
                f"client for model '{model}' must be an httpx2.AsyncClient, "
                f"not {type(client).__name__}"
            )
        return sdk(model, client=client, base_url=base_url)


class OllamaModel(_VendorModel):
    """Models served by Ollama.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434``,
    ``api_key`` (a bearer token) to ``OLLAMA_API_KEY`` (not for a given ``base_url`` of
    another host than ``ollama.com``), ``client`` is a ready
    ``httpx2.AsyncClient``; settings map to Ollama ``options``.
    """

    provider_prefix = "ollama"
    _http_transport = OllamaHttpTransport


class OpenAIChatModel(_VendorModel):
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
    _http_transport = OpenAIHttpTransport
    _sdk_transport = OpenAIClientTransport


def _responses_client_transport(model: str, **connection: Any) -> OpenAIClientTransport:
    return OpenAIClientTransport(model, api="responses", **connection)


class OpenAIResponsesModel(_VendorModel):
    """Talk to OpenAI through the Responses API (arguments as for
    [`OpenAIChatModel`][good_agent.OpenAIChatModel])."""

    provider_prefix = "openai-responses"
    _http_transport = OpenAIResponsesHttpTransport
    _sdk_transport = _responses_client_transport


class AnthropicModel(_VendorModel):
    """Claude models through the Messages API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY`` for Anthropic's own endpoint only, ``client`` is an
    ``httpx2.AsyncClient`` or a ready ``anthropic.AsyncAnthropic``, and ``max_tokens``
    defaults to 4096.
    """

    provider_prefix = "anthropic"
    _http_transport = AnthropicHttpTransport
    _sdk_transport = AnthropicTransport


class GeminiModel(_VendorModel):
    """Gemini models through the Gemini API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``GOOGLE_GEMINI_BASE_URL``, ``api_key`` to
    ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` for Google's own endpoint only,
    ``client`` is an ``httpx2.AsyncClient`` or a ready ``google.genai.Client``. Thought
    signatures are remembered and sent back (Gemini 3 requires them).
    """

    provider_prefix = "gemini"
    _http_transport = GeminiHttpTransport
    _sdk_transport = GeminiTransport
    _transport_options: ClassVar[Mapping[str, Any]] = {"signature_cache": 256}
