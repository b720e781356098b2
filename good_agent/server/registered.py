"""Upstreams for providers registered with :func:`good_agent.models.register_provider`.

Their transport sends whole requests only, so a streamed reply is the whole reply
decoded by the provider's codec and sent as one set of deltas.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import anyio
import httpx2

from good_agent.core.errors import ModelError, ModelOverloadedError, ModelTimeoutError
from good_agent.models.transport import AnyTransport
from good_agent.models.registry import TRANSPORTS
from good_agent.providers.codecs import get_codec
from good_agent.providers.profiles import get_profile
from good_agent.providers.tool_names import ToolNameMap
from good_agent.providers.types import JSONDict
from good_agent.server.config import ModelConfig, ServerConfig
from good_agent.server.errors import register_secret
from good_agent.server.events import CallDelta, Finish, StreamEvent, TextDelta, UsageDelta
from good_agent.server.upstream import UPSTREAMS, HttpUpstream


class WholeReplyDecoder:
    """Turns one whole reply into neutral stream events with the provider's codec."""

    def __init__(self, codec_name: str, names: ToolNameMap | None) -> None:
        self.codec = get_codec(codec_name)
        self.names = names

    def feed(self, raw: JSONDict) -> list[StreamEvent]:
        """Events for the whole reply ``raw``."""
        reply = self.codec.decode_response(raw, self.names)
        events: list[StreamEvent] = []
        if reply.content:
            events.append(TextDelta(reply.content))
        for index, call in enumerate(reply.tool_calls):
            events.append(CallDelta(index, call.id, call.name, call.raw_arguments))
        events.append(UsageDelta(reply.usage.input_tokens, reply.usage.output_tokens))
        events.append(Finish(reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")))
        return events


class RegisteredUpstream(HttpUpstream):
    """An upstream served by a registered provider's own transport."""

    def __init__(
        self,
        provider: str,
        entry: ModelConfig,
        server: ServerConfig,
        client: httpx2.AsyncClient,
    ) -> None:
        super().__init__(entry, server, client)
        self.provider = provider
        self.profile_provider = provider
        api_key = os.environ.get(entry.api_key_env) if entry.api_key_env else None
        if api_key:
            register_secret(api_key)
        self.transport: AnyTransport = TRANSPORTS[provider](
            model=entry.model, base_url=entry.base_url, api_key=api_key
        )
        self.codec_name = get_profile(f"{provider}:{entry.model}").codec

    async def complete(self, body: JSONDict) -> JSONDict:
        """Send ``body`` with the provider's transport."""
        try:
            with anyio.fail_after(self.request_timeout):
                return await self.transport.send(body)
        except TimeoutError:
            raise ModelTimeoutError(
                f"{self.provider} request timed out", provider=self.provider
            ) from None
        except ModelError:
            raise
        except httpx2.HTTPStatusError as exc:
            raise self.status_error(exc.response) from exc
        except Exception as exc:
            raise ModelOverloadedError(
                f"{self.provider} failed: {type(exc).__name__}", provider=self.provider
            ) from exc

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """The whole reply, as the only event."""
        yield await self.complete(body)

    def decoder(self, names: ToolNameMap | None) -> WholeReplyDecoder:
        """Decodes the whole reply with the provider's codec."""
        return WholeReplyDecoder(self.codec_name, names)


def build_upstream(
    entry: ModelConfig, server: ServerConfig, client: httpx2.AsyncClient
) -> HttpUpstream:
    """The upstream for ``entry``: a built-in HTTP upstream or a registered provider's."""
    factory = UPSTREAMS.get(entry.provider)
    if factory is not None:
        return factory(entry, server, client)
    return RegisteredUpstream(entry.provider, entry, server, client)
