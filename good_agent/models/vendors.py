"""The model classes of the built-in vendors: the table of built-in models.

Each is an :class:`~good_agent.models.provider_model.SDKModel` on its vendor's
transport (``providers/<vendor>/``), codec and profile rules. The SDK transports need
their extras (``anthropic``, ``google``); Ollama is reached over HTTP with
:class:`~good_agent.providers.ollama.http_transport.OllamaHttpTransport`.
"""

from __future__ import annotations

from typing import Any

from good_agent.models.provider_model import SDKModel
from good_agent.providers.anthropic.sdk_transport import AnthropicTransport
from good_agent.providers.gemini.sdk_transport import GeminiTransport
from good_agent.providers.ollama.http_transport import OllamaHttpTransport
from good_agent.providers.openai.sdk_transport import OpenAIClientTransport
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.transport import Transport


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
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An `OllamaHttpTransport`."""
        return OllamaHttpTransport(model, base_url=base_url, api_key=api_key, client=client)


class OpenAIChatModel(SDKModel):
    """Talk to OpenAI, or any server that speaks its Chat Completions API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``OPENAI_BASE_URL`` or OpenAI's own, ``api_key`` to
    ``OPENAI_API_KEY`` for OpenAI's own endpoint only (with another ``base_url`` and no
    key a placeholder is sent, as local servers expect), ``client`` is a ready
    ``openai.AsyncOpenAI``. Built directly, it uses ``NATIVE`` tools and sends schemas
    exactly as given (``strict=False``); [`resolve_model`][good_agent.resolve_model] follows the
    profile.
    """

    provider_prefix = "openai"
    default_mode = ToolCallingMode.NATIVE
    default_strict = False

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An `OpenAIClientTransport` for Chat Completions."""
        return OpenAIClientTransport(model, base_url=base_url, api_key=api_key, client=client)


class OpenAIResponsesModel(SDKModel):
    """Talk to OpenAI through the Responses API (arguments as for
    [`OpenAIChatModel`][good_agent.OpenAIChatModel])."""

    provider_prefix = "openai-responses"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An `OpenAIClientTransport` for the Responses API."""
        return OpenAIClientTransport(
            model, base_url=base_url, api_key=api_key, client=client, api="responses"
        )


class AnthropicModel(SDKModel):
    """Claude models through the Messages API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY`` for Anthropic's own endpoint only, ``client`` is a ready
    ``anthropic.AsyncAnthropic``, and ``max_tokens`` defaults to 4096.
    """

    provider_prefix = "anthropic"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An `AnthropicTransport`."""
        return AnthropicTransport(model, base_url=base_url, api_key=api_key, client=client)


class GeminiModel(SDKModel):
    """Gemini models through the Gemini API.

    Takes the arguments of `SDKModel`:
    ``api_key`` defaults to ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` for Google's own
    endpoint only, ``client`` is
    a ready ``google.genai.Client``.
    """

    provider_prefix = "gemini"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """A `GeminiTransport`."""
        return GeminiTransport(model, base_url=base_url, api_key=api_key, client=client)
