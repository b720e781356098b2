"""The model classes of the vendors: a model on a vendor's descriptor.

Each is an `SDKModel` on its vendor's codec, profile rules and HTTP transport, all read
from the vendor's [`Vendor`][good_agent.providers.vendor.Vendor] descriptor in the one
registry: the transport class a bridge route to the same upstream builds. Given an
official SDK client instead (``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``,
``google.genai.Client``), a model sends with that client (the descriptor's SDK
transport). The built-in vendors have named classes (`OpenAIChatModel`...); any other
registered vendor gets one from `vendor_model`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import httpx2

from good_agent.http.http_transport import HttpTransport
from good_agent.http.transport import Transport
from good_agent.models.provider_model import SDKModel
from good_agent.providers.registry import vendor_of
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.types.errors import ModelConfigError


class _VendorModel(SDKModel):
    """A built-in vendor's model: the vendor's HTTP transport (on ``client`` when it is
    an ``httpx2.AsyncClient``), or its SDK transport on an official SDK client."""

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
        vendor = vendor_of(cls.provider_prefix)
        http: type[HttpTransport] | None = None
        sdk: Callable[..., Any] | None = None
        if vendor is not None:
            http = vendor.http_transports.get(cls.provider_prefix)
            sdk = vendor.sdk_transports.get(cls.provider_prefix)
        if http is None:
            raise ModelConfigError(f"no HTTP transport for provider '{cls.provider_prefix}'")
        if client is None or isinstance(client, httpx2.AsyncClient):
            return http.for_model(
                model,
                base_url=base_url,
                api_key=api_key,
                client=client,
                max_retries=max_retries,
                **cls._transport_options,
            )
        if sdk is None:
            raise ModelConfigError(
                f"client for model '{model}' must be an httpx2.AsyncClient, "
                f"not {type(client).__name__}"
            )
        transport: Transport = sdk(model, client=client, base_url=base_url)
        return transport


class OllamaModel(_VendorModel):
    """Models served by Ollama.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``OLLAMA_HOST`` or ``http://localhost:11434``,
    ``api_key`` (a bearer token) to ``OLLAMA_API_KEY`` (not for a given ``base_url`` of
    another host than ``ollama.com``), ``client`` is a ready
    ``httpx2.AsyncClient``; settings map to Ollama ``options``.
    """

    provider_prefix = "ollama"


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


class OpenAIResponsesModel(_VendorModel):
    """Talk to OpenAI through the Responses API (arguments as for
    [`OpenAIChatModel`][good_agent.OpenAIChatModel])."""

    provider_prefix = "openai-responses"


class AnthropicModel(_VendorModel):
    """Claude models through the Messages API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY`` for Anthropic's own endpoint only, ``client`` is an
    ``httpx2.AsyncClient`` or a ready ``anthropic.AsyncAnthropic``, and ``max_tokens``
    defaults to 4096.
    """

    provider_prefix = "anthropic"


class GeminiModel(_VendorModel):
    """Gemini models through the Gemini API.

    Takes the arguments of `SDKModel`:
    ``base_url`` defaults to ``GOOGLE_GEMINI_BASE_URL``, ``api_key`` to
    ``GEMINI_API_KEY`` then ``GOOGLE_API_KEY`` for Google's own endpoint only,
    ``client`` is an ``httpx2.AsyncClient`` or a ready ``google.genai.Client``. Thought
    signatures are remembered and sent back (Gemini 3 requires them).
    """

    provider_prefix = "gemini"
    _transport_options: ClassVar[Mapping[str, Any]] = {"signature_cache": 256}


@functools.cache
def vendor_model(provider: str) -> type[SDKModel]:
    """The model class of provider prefix ``provider`` of a registered vendor with an HTTP
    transport: its vendor's HTTP transport, or its SDK transport on an SDK client."""
    return type(f"VendorModel[{provider}]", (_VendorModel,), {"provider_prefix": provider})
