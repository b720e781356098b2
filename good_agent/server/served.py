"""One configured model: a ``[[models]]`` entry served by the model core.

The bridge has no transports, decoders or routing of its own: each entry becomes
a `ProviderModel` (strategy choice,
fallback, stream decoding) over a transport of the model core (the HTTP
transports of `good_agent.http.http_transport` for the built-in providers,
sharing the bridge's connection pool, or a registered provider's transport).
`ServedModel` adds what is the bridge's: the entry's profile overrides, the
time limits, and the reply shape the client encoders write.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import AsyncGenerator
from typing import Any

import anyio
import httpx2

from good_agent.http.http_transport import HttpTransport
from good_agent.http.transport import AnyTransport, limits_streams
from good_agent.http.wire import Wire
from good_agent.http.wire_errors import map_http_error
from good_agent.models.provider_model import ProviderModel
from good_agent.providers.embeddings import Embedder
from good_agent.providers.profiles import get_profile
from good_agent.providers.registry import embedder_of, http_transport_of, transport_factory_of
from good_agent.providers.strategies.base import ToolCallingMode
from good_agent.providers.streaming import ModelDelta
from good_agent.providers.thinking import EFFORTS
from good_agent.providers.tool_names import tool_function
from good_agent.providers.types import ChatRequest
from good_agent.server.common.closing import close_shielded
from good_agent.server.common.errors import bad_request
from good_agent.server.common.redaction import Secrets
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.strict_answers import StrictAnswer
from good_agent.types.errors import (
    ModelConfigError,
    ModelError,
    ModelOverloadedError,
    ModelTimeoutError,
)
from good_agent.types.messages import ModelResponse

BridgeRequest = ChatRequest
"""A request as received from a client: the provider layer's neutral
[`ChatRequest`][good_agent.providers.ChatRequest] (OpenAI chat messages and tools)."""


def finish_of(response: ModelResponse) -> str:
    """The OpenAI finish reason a client is sent: ``tool_calls`` when calls were made,
    else the upstream's reason when it is a string (a reply of the wrong shape may
    carry anything there), else ``stop``."""
    if response.tool_calls:
        return "tool_calls"
    reason: object = response.finish_reason
    return reason if isinstance(reason, str) and reason else "stop"


StreamItem = ModelDelta | ModelResponse
"""What a served stream holds: deltas, then the final reply."""

StreamBatch = list[StreamItem]
"""What a served stream yields: the items of one read of the upstream together."""


def _api_key(entry: ModelConfig, secrets: Secrets | None) -> str | None:
    """The upstream key of ``entry`` from its environment variable, added to ``secrets``."""
    api_key = os.environ.get(entry.api_key_env) if entry.api_key_env else None
    if secrets is not None:
        secrets.add(api_key)
    return api_key


def _http_options(
    entry: ModelConfig,
    server: ServerConfig,
    client: httpx2.AsyncClient,
    wire: Wire | None,
    secrets: Secrets | None,
) -> dict[str, Any]:
    """The options a built-in HTTP transport of ``entry`` is made with (key included)."""
    api_key = _api_key(entry, secrets)
    return {
        "base_url": entry.base_url,
        "api_key": api_key,
        "client": client,
        "wire": wire,
        "stream_timeout": server.stream_timeout,
        "connect_timeout": server.connect_timeout,
        "read_timeout": server.read_timeout,
        "max_retries": 0,  # a client of the bridge retries; the bridge sends once
    }


def build_transport(
    entry: ModelConfig,
    server: ServerConfig,
    client: httpx2.AsyncClient,
    wire: Wire | None = None,
    secrets: Secrets | None = None,
) -> tuple[AnyTransport, str]:
    """The transport for ``entry`` and the provider whose profiles apply to it (its key
    added to ``secrets``, the bridge's)."""
    http = http_transport_of(entry.provider)
    if http is not None:
        transport = http(entry.model, **_http_options(entry, server, client, wire, secrets))
        return transport, http.profile_provider
    factory = transport_factory_of(entry.provider)
    if factory is None:  # the configuration names only registered providers
        raise ModelConfigError(f"provider '{entry.provider}' has no transport")
    api_key = _api_key(entry, secrets)
    return factory(model=entry.model, base_url=entry.base_url, api_key=api_key), entry.provider


def build_embedder(
    entry: ModelConfig,
    server: ServerConfig,
    client: httpx2.AsyncClient,
    wire: Wire | None = None,
    secrets: Secrets | None = None,
) -> Embedder | None:
    """The embedder of an entry of ``kind = "embedding"`` (``None`` for a chat entry)."""
    if entry.kind != "embedding":
        return None
    options = _http_options(entry, server, client, wire, secrets)
    embedder = embedder_of(entry.provider)
    if embedder is None:  # the configuration allows embedding only where there is one
        raise ModelConfigError(f"provider '{entry.provider}' has no embeddings API")
    return embedder(entry.model, **options)


class ServedModel:
    """A configured model behind the bridge.

    Args:
        entry: The configuration entry.
        server: The server table (time limits).
        client: The bridge's shared HTTP client.
        wire: The bridge's own upstream client, when it has one (an ``Http1Wire`` or
            ``AiohttpWire``, used instead of ``client`` by the built-in providers).
        secrets: The bridge's secrets, which the route's upstream key joins.
    """

    def __init__(
        self,
        entry: ModelConfig,
        server: ServerConfig,
        client: httpx2.AsyncClient,
        wire: Wire | None = None,
        secrets: Secrets | None = None,
    ):
        self.entry = entry
        self.request_timeout = server.request_timeout
        self.stream_timeout = server.stream_timeout
        transport, profile_provider = build_transport(entry, server, client, wire, secrets)
        self.embedder = build_embedder(entry, server, client, wire, secrets)
        """The route's embedder, when it is an ``embedding`` route."""
        self.limits_streams = limits_streams(transport)
        """Whether the transport keeps ``stream_timeout`` itself (then no per-item check)."""
        self.typed = isinstance(transport, HttpTransport)
        """Whether the transport is built on `HttpTransport` (its failures typed, its
        stream time limit kept by the wire); a registered provider's may be anything."""
        profile = get_profile(f"{profile_provider}:{entry.model}")
        overrides: dict[str, Any] = entry.profile.values()
        profile = dataclasses.replace(profile, **overrides)
        strict_default = profile_provider == "openai" and "supports_strict" not in overrides
        self.model = ProviderModel(
            entry.model,
            transport,
            mode=entry.mode,
            settings=dict(entry.settings),
            profile=profile,
            strict=False if strict_default else "profile",
            text_format=entry.text_format,
            own_endpoint=entry.base_url is not None,
            validation_retries=entry.validation_retries,
        )

    @property
    def name(self) -> str:
        """The name clients use."""
        return self.entry.name

    @property
    def mode(self) -> ToolCallingMode:
        """The mode requests use unless the model falls back."""
        return self.model.strategy.mode

    def prepare(self, request: BridgeRequest) -> ChatRequest:
        """``request`` checked against what the upstream can do, with the tool settings."""
        if self.embedder is not None:
            raise bad_request(
                f"model '{self.name}' is an embedding model (kind = \"embedding\"); "
                "send it to POST /v1/embeddings",
                "model",
                "model_not_supported",
            )
        codec = self.model.tool_strategy.codec
        if request.response_format is not None and not codec.supports_response_format:
            raise bad_request(
                f"response_format is not supported by model '{self.name}' (its upstream, "
                f"{self.entry.provider}, has no JSON response format); describe the format "
                "in the prompt, or offer a tool whose parameters are the schema and set "
                "tool_choice to it",
                "response_format",
            )
        request = self.effort_as_thinking(request)
        if codec.name != "anthropic_messages":
            request = without_cache_breakpoints(request)
        for tool in request.tools:
            if tool_function(tool).get("strict") is True:
                settings = {"strict_tools": None, **request.settings}
                return dataclasses.replace(request, settings=settings)
        return request

    def effort_as_thinking(self, request: BridgeRequest) -> BridgeRequest:
        """A Chat Completions client's ``reasoning_effort`` (``low``, ``medium``,
        ``high``) as the ``thinking`` setting when the upstream speaks another API and
        its model reasons (see `good_agent.providers.thinking`); otherwise ``request``."""
        effort = request.settings.get("reasoning_effort")
        profile = self.model.profile
        if (
            effort not in EFFORTS
            or profile.codec == "openai_chat"
            or not profile.supports_thinking
            or "thinking" in request.settings
        ):
            return request
        settings = {k: v for k, v in request.settings.items() if k != "reasoning_effort"}
        return dataclasses.replace(request, settings={**settings, "thinking": effort})

    async def complete(self, request: BridgeRequest) -> ModelResponse:
        """Send ``request`` and return the whole reply (a strict JSON answer checked,
        see `good_agent.server.strict_answers`). Its time is bounded by the
        caller, in the scope it runs in (``request_timeout``;
        [`timed_out`][good_agent.server.ServedModel.timed_out] is the error when it
        passes): the bridge's one scope per call, which a client leaving also
        cancels."""
        chat = self.prepare(request)
        strict = StrictAnswer.of(self, request)
        try:
            reply = await self.model.request(chat)
            return reply if strict is None else await strict.settle(reply)
        except ModelError:
            raise
        except Exception as exc:
            raise self.transport_failure(exc) from exc

    def timed_out(self) -> ModelTimeoutError:
        """The error of a whole request that took longer than ``request_timeout``."""
        return ModelTimeoutError(
            f"{self.entry.provider} request timed out after {self.request_timeout:g} s",
            provider=self.entry.provider,
        )

    def transport_failure(self, exc: Exception) -> Exception:
        """A registered provider's transport failing with an untyped error, as a
        [`ModelError`][good_agent.ModelError] (the bridge's own failures are left as they are)."""
        if self.typed:
            return exc
        mapped = map_http_error(exc, provider=self.entry.provider)
        if isinstance(mapped, ModelError):
            return mapped
        return ModelOverloadedError(
            f"{self.entry.provider} failed: {type(exc).__name__}", provider=self.entry.provider
        )

    def stream(self, request: BridgeRequest) -> AsyncGenerator[StreamBatch, None]:
        """Stream ``request``: deltas, then the final reply, in batches (the items of
        one read of the upstream together), ``stream_timeout`` at most. The answer text
        of a strict JSON request is held back until it is checked."""
        batches = self.model.stream_batches(self.prepare(request))
        strict = StrictAnswer.of(self, request)
        if strict is not None and not strict.enforced_upstream:
            # The final answer is checked before it is sent.
            batches = strict.hold(batches)
        if self.limits_streams and self.typed:
            # The wire keeps the time limit and its failures are already typed:
            # nothing for `within` to add but one more generator per batch.
            return batches
        return within(batches, self)


async def within(
    batches: AsyncGenerator[StreamBatch, None], served: ServedModel
) -> AsyncGenerator[StreamBatch, None]:
    """``batches``, ended with a `ModelTimeoutError` once ``stream_timeout`` has passed."""
    deadline = anyio.current_time() + served.stream_timeout
    # A transport that keeps the limit itself (one timer for the whole reply) ends the
    # stream with a ModelTimeoutError; otherwise each wait for a batch is bounded here.
    bounded = not served.limits_streams
    try:
        while True:
            try:
                if bounded:
                    with anyio.CancelScope(deadline=deadline) as scope:
                        batch = await anext(batches)
                    if scope.cancelled_caught:
                        raise TimeoutError
                else:
                    batch = await anext(batches)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise ModelTimeoutError(
                    f"the streamed reply took longer than {served.stream_timeout:g} s "
                    "(server.stream_timeout)",
                    provider=served.entry.provider,
                ) from None
            except ModelError:
                raise
            except Exception as exc:
                raise served.transport_failure(exc) from exc
            yield batch
    finally:
        await close_shielded(batches)


def without_cache_breakpoints(request: BridgeRequest) -> BridgeRequest:
    """``request`` without the ``cache_control`` breakpoints an Anthropic client put
    on its parts, messages and tools (for an upstream of another API, whose
    caching is automatic); ``request`` itself when it has none."""
    marked = any("cache_control" in m for m in request.tools) or any(
        "cache_control" in m
        or (
            isinstance(m.get("content"), list)
            and any(isinstance(p, dict) and "cache_control" in p for p in m["content"])
        )
        for m in request.messages
    )
    if not marked:
        return request
    messages = []
    for message in request.messages:
        message = {k: v for k, v in message.items() if k != "cache_control"}
        if isinstance(message.get("content"), list):
            message["content"] = _uncached(message["content"])
        messages.append(message)
    tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in request.tools]
    return dataclasses.replace(request, messages=messages, tools=tools)


def _uncached(item: Any) -> Any:
    """``item`` without ``cache_control`` keys, at any depth."""
    if isinstance(item, dict):
        return {k: _uncached(v) for k, v in item.items() if k != "cache_control"}
    if isinstance(item, list):
        return [_uncached(v) for v in item]
    return item
