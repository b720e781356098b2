"""Upstream calls over HTTP, one class per provider, looked up in :data:`UPSTREAMS`.

Each upstream posts a codec-built body to its provider's documented endpoint,
either whole (:meth:`HttpUpstream.complete`) or as a stream of decoded events
(:meth:`HttpUpstream.stream`: server-sent events, or NDJSON for Ollama). Every
failure is raised as a typed :class:`~good_agent.core.errors.ModelError`. Keys are
sent in headers, never in URLs, so they cannot surface in error messages.

Add a provider by registering a factory: ``UPSTREAMS["name"] = MyUpstream``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import httpx2

from good_agent.core.errors import ModelError, ModelOverloadedError, ModelTimeoutError
from good_agent.models.errors import error_for_status, map_http_error
from good_agent.models.http_transport import ollama_host
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.decoders import (
    AnthropicDecoder,
    GeminiDecoder,
    OllamaDecoder,
    OpenAIChatDecoder,
    StreamDecoder,
)
from good_agent.server.errors import register_secret


class HttpUpstream:
    """Base of the HTTP upstreams: a shared client, timeouts, error mapping.

    ``provider`` names the upstream in errors and logs; ``profile_provider`` is the
    provider prefix whose capability profiles and codec apply (a subclass for another
    OpenAI-compatible service keeps ``"openai"``).

    Args:
        entry: The model's configuration entry.
        server: The server table (timeouts).
        client: The shared ``httpx2.AsyncClient``.
    """

    provider = "openai"
    profile_provider = "openai"
    default_base_url = "https://api.openai.com/v1"

    def __init__(
        self, entry: ModelConfig, server: ServerConfig, client: httpx2.AsyncClient
    ) -> None:
        self.entry = entry
        self.client = client
        self.base_url = (entry.base_url or self.default_base_url).rstrip("/")
        self.api_key = os.environ.get(entry.api_key_env) if entry.api_key_env else None
        if self.api_key:
            register_secret(self.api_key)
        self.timeout = httpx2.Timeout(
            server.read_timeout, connect=server.connect_timeout, pool=server.read_timeout
        )
        self.request_timeout = server.request_timeout

    def headers(self) -> dict[str, str]:
        """The request headers (the key as a bearer token when one is set)."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The endpoint for ``body``."""
        return f"{self.base_url}/chat/completions"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``body`` as sent: the stream flag set as the provider expects."""
        if stream:
            return {**body, "stream": True, "stream_options": {"include_usage": True}}
        return body

    def decoder(self, names: ToolNameMap | None) -> StreamDecoder:
        """A fresh stream decoder for one reply."""
        return OpenAIChatDecoder(names)

    def check_event(self, event: JSONDict) -> None:
        """Raise when a stream event reports an upstream failure."""
        error = event.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise ModelOverloadedError(
                f"{self.provider} failed mid-stream: {message}", provider=self.provider
            )

    async def complete(self, body: JSONDict) -> JSONDict:
        """Send ``body`` and return the whole reply."""
        try:
            with anyio.fail_after(self.request_timeout):
                response = await self.client.post(
                    self.url(body, stream=False),
                    json=self.wire_body(body, stream=False),
                    headers=self.headers(),
                    timeout=self.timeout,
                )
                if response.status_code >= 400:
                    raise self.status_error(response)
                result: JSONDict = response.json()
        except TimeoutError:
            raise ModelTimeoutError(
                f"{self.provider} request timed out", provider=self.provider
            ) from None
        except (httpx2.HTTPError, ValueError) as exc:
            raise self.transport_error(exc) from exc
        return result

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Send ``body`` for a streamed reply; yield each decoded event."""
        try:
            async with self.client.stream(
                "POST",
                self.url(body, stream=True),
                json=self.wire_body(body, stream=True),
                headers=self.headers(),
                timeout=self.timeout,
            ) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise self.status_error(response)
                async for event in self.events(response):
                    self.check_event(event)
                    yield event
        except (httpx2.HTTPError, ValueError) as exc:
            raise self.transport_error(exc) from exc

    async def events(self, response: httpx2.Response) -> AsyncIterator[JSONDict]:
        """The JSON payloads of a server-sent event stream (``[DONE]`` ends it)."""
        async for sse in httpx2.EventSource(response):
            if sse.data == "[DONE]":
                return
            if sse.data:
                value = json.loads(sse.data)
                if isinstance(value, dict):
                    yield value

    def status_error(self, response: httpx2.Response) -> ModelError:
        """The typed error for an HTTP error status."""
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text[:500]
        message: Any = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(message, dict):
            message = message.get("message", message)
        retry = response.headers.get("retry-after")
        try:
            retry_after = float(retry) if retry is not None else None
        except ValueError:
            retry_after = None
        return error_for_status(
            response.status_code,
            str(message),
            provider=self.provider,
            body=body,
            retry_after=retry_after,
        )

    def transport_error(self, exc: Exception) -> Exception:
        """Map a transport or decoding failure to a :class:`ModelError`."""
        if isinstance(exc, ValueError) and not isinstance(exc, httpx2.HTTPError):
            return ModelOverloadedError(
                f"{self.provider} sent a reply that is not valid JSON", provider=self.provider
            )
        return map_http_error(exc, provider=self.provider)


class OpenAIUpstream(HttpUpstream):
    """OpenAI Chat Completions, or any server that speaks it (vLLM, llama.cpp, LM Studio)."""


class AnthropicUpstream(HttpUpstream):
    """Anthropic's Messages API (``POST /v1/messages``)."""

    provider = "anthropic"
    profile_provider = "anthropic"
    default_base_url = "https://api.anthropic.com"
    api_version = "2023-06-01"

    def headers(self) -> dict[str, str]:
        """``x-api-key`` and ``anthropic-version``."""
        headers = {"anthropic-version": self.api_version}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return headers

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The Messages endpoint."""
        root = self.base_url.removesuffix("/v1")
        return f"{root}/v1/messages"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream: true`` for a streamed reply."""
        return {**body, "stream": True} if stream else body

    def decoder(self, names: ToolNameMap | None) -> StreamDecoder:
        """A Messages stream decoder."""
        return AnthropicDecoder(names)

    def check_event(self, event: JSONDict) -> None:
        """Raise on an ``error`` event."""
        if event.get("type") == "error":
            error = event.get("error") or {}
            raise ModelOverloadedError(
                f"anthropic failed mid-stream: {error.get('message', error)}", provider="anthropic"
            )


class GeminiUpstream(HttpUpstream):
    """The Gemini API (``generateContent`` / ``streamGenerateContent?alt=sse``)."""

    provider = "gemini"
    profile_provider = "gemini"
    default_base_url = "https://generativelanguage.googleapis.com"
    api_version = "v1beta"

    def headers(self) -> dict[str, str]:
        """``x-goog-api-key``."""
        return {"x-goog-api-key": self.api_key} if self.api_key else {}

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The method URL for the body's model."""
        model = str(body.get("model") or self.entry.model).removeprefix("models/")
        root = self.base_url.removesuffix(f"/{self.api_version}")
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{root}/{self.api_version}/models/{model}:{method}"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """The body without ``model`` (it is in the URL)."""
        return {k: v for k, v in body.items() if k != "model"}

    def decoder(self, names: ToolNameMap | None) -> StreamDecoder:
        """A ``streamGenerateContent`` decoder."""
        return GeminiDecoder(names)


class OllamaUpstream(HttpUpstream):
    """Ollama's native ``/api/chat`` (NDJSON when streaming)."""

    provider = "ollama"
    profile_provider = "ollama"
    default_base_url = "http://localhost:11434"

    def __init__(
        self, entry: ModelConfig, server: ServerConfig, client: httpx2.AsyncClient
    ) -> None:
        super().__init__(entry, server, client)
        self.base_url = ollama_host(entry.base_url or self.default_base_url)

    def url(self, body: JSONDict, *, stream: bool) -> str:
        """The chat endpoint."""
        return f"{self.base_url}/api/chat"

    def wire_body(self, body: JSONDict, *, stream: bool) -> JSONDict:
        """``stream`` set explicitly (Ollama streams by default)."""
        return {**body, "stream": stream}

    def decoder(self, names: ToolNameMap | None) -> StreamDecoder:
        """An NDJSON line decoder."""
        return OllamaDecoder(names)

    async def events(self, response: httpx2.Response) -> AsyncIterator[JSONDict]:
        """One JSON object per line."""
        async for line in response.aiter_lines():
            if line.strip():
                value = json.loads(line)
                if isinstance(value, dict):
                    yield value


UpstreamFactory = Callable[[ModelConfig, ServerConfig, httpx2.AsyncClient], HttpUpstream]
"""Builds the upstream for one configuration entry."""

UPSTREAMS: dict[str, UpstreamFactory] = {
    "openai": OpenAIUpstream,
    "anthropic": AnthropicUpstream,
    "gemini": GeminiUpstream,
    "ollama": OllamaUpstream,
}
"""The upstream factory for each ``provider`` name a configuration may use."""
