"""A :class:`~good_agent.models.base.LanguageModel` for Anthropic's Messages API.

Uses the official ``anthropic`` SDK (``pip install 'good-agent[anthropic]'``).
``api_key`` defaults to ``ANTHROPIC_API_KEY`` and ``base_url`` to
``ANTHROPIC_BASE_URL`` (the SDK reads both).
"""

from __future__ import annotations

import os
from typing import Any

from good_agent.errors import ModelConfigError
from good_agent.models.errors import map_anthropic_error
from good_agent.models.provider_model import SDKModel, Transport
from good_agent.providers.types import JSONDict


class AnthropicTransport:
    """Sends Messages API bodies with ``anthropic.AsyncAnthropic``."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
    ) -> None:
        self._model = model
        self._base_url = base_url
        self._api_key = api_key
        self._client = client

    def get_client(self) -> Any:
        """The SDK client, built on first use."""
        if self._client is None:
            try:
                from anthropic import AsyncAnthropic
            except ImportError as exc:
                raise ModelConfigError(
                    f"model '{self._model}' needs the anthropic SDK: "
                    "pip install 'good-agent[anthropic]'"
                ) from exc
            api_key = self._api_key or os.environ.get("ANTHROPIC_API_KEY")
            if not api_key:
                raise ModelConfigError(
                    f"no API key for model '{self._model}': set ANTHROPIC_API_KEY "
                    "or pass api_key=..."
                )
            base_url = self._base_url or os.environ.get("ANTHROPIC_BASE_URL")
            self._client = AsyncAnthropic(api_key=api_key, base_url=base_url)
        return self._client

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``messages.create``."""
        client = self.get_client()
        try:
            message = await client.messages.create(**body)
        except Exception as exc:
            raise map_anthropic_error(exc, provider=self.provider) from exc
        result: JSONDict = message.model_dump()
        return result


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
