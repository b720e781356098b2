"""A :class:`~good_agent.models.base.LanguageModel` for Anthropic's Messages API.

Uses the official ``anthropic`` SDK (``pip install 'good-agent[anthropic]'``).
``api_key`` defaults to ``ANTHROPIC_API_KEY`` and ``base_url`` to
``ANTHROPIC_BASE_URL`` (the SDK reads both).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from good_agent.models.errors import map_anthropic_error
from good_agent.models.provider_model import SDKModel
from good_agent.models.sdk_transport import SDKTransport, mid_stream_error
from good_agent.models.transport import Transport
from good_agent.providers.types import JSONDict


class AnthropicTransport(SDKTransport):
    """Sends Messages API bodies with ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"

    def build_client(self) -> Any:
        """An ``AsyncAnthropic`` (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``)."""
        try:
            from anthropic import AsyncAnthropic
        except ImportError as exc:
            raise self.missing_sdk("anthropic", "anthropic") from exc
        api_key = self.require_key("ANTHROPIC_API_KEY")
        base_url = self.setting(self._base_url, "ANTHROPIC_BASE_URL")
        return AsyncAnthropic(api_key=api_key, base_url=base_url)

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``messages.create``."""
        client = self.get_client()
        try:
            message = await client.messages.create(**body)
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        result: JSONDict = message.model_dump()
        return result

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Call ``messages.create(stream=True)``; each event as a dict, to the end."""
        client = self.get_client()
        try:
            events = await client.messages.create(**body, stream=True)
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        try:
            async for event in events:
                yield event.model_dump()
        except Exception as exc:
            raise mid_stream_error(
                map_anthropic_error(exc, provider=self.provider), exc, self.provider
            ) from exc
        finally:
            await events.close()


class AnthropicModel(SDKModel):
    """Claude models through the Messages API.

    Takes the arguments of :class:`~good_agent.models.provider_model.SDKModel`:
    ``base_url`` defaults to ``ANTHROPIC_BASE_URL``, ``api_key`` to
    ``ANTHROPIC_API_KEY``, ``client`` is a ready ``anthropic.AsyncAnthropic``, and
    ``max_tokens`` defaults to 4096.
    """

    provider_prefix = "anthropic"

    @classmethod
    def make_transport(
        cls, model: str, *, base_url: str | None, api_key: str | None, client: Any
    ) -> Transport:
        """An :class:`AnthropicTransport`."""
        return AnthropicTransport(model, base_url=base_url, api_key=api_key, client=client)
