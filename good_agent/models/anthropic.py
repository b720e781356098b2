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
from good_agent.models.provider_model import ProviderModel, StrictSetting
from good_agent.providers.profiles import ModelProfile, get_profile
from good_agent.providers.strategies.base import ToolCallingMode
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


class AnthropicModel(ProviderModel):
    """Claude models through the Messages API.

    Args:
        model: The model id, e.g. ``"claude-sonnet-4-5"``.
        base_url: Endpoint root (default ``ANTHROPIC_BASE_URL`` or Anthropic's).
        api_key: Key (default ``ANTHROPIC_API_KEY``).
        client: A ready ``anthropic.AsyncAnthropic`` (overrides the two above).
        settings: Default settings (``max_tokens`` defaults to 4096).
        mode: Tool-calling mode (``AUTO``: the profile's, native tools).
        profile: A ready profile instead of the registry's.
        strict: Strict tools (see :class:`ProviderModel`).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        settings: dict[str, Any] | None = None,
        mode: ToolCallingMode | str = ToolCallingMode.AUTO,
        profile: ModelProfile | None = None,
        strict: StrictSetting = "profile",
    ) -> None:
        transport = AnthropicTransport(model, base_url=base_url, api_key=api_key, client=client)
        profile = profile or get_profile(f"anthropic:{model}")
        super().__init__(
            model, transport, mode=mode, settings=settings, profile=profile, strict=strict
        )
