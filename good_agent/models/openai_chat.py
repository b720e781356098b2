"""A language model for any OpenAI-compatible Chat Completions API."""

from __future__ import annotations

import os
from typing import Any

from good_agent.errors import ModelConfigError
from good_agent.messages import to_openai_messages
from good_agent.models.base import ModelRequest, ModelResponse
from good_agent.models.errors import map_openai_error
from good_agent.providers import openai_chat
from good_agent.providers.types import ChatRequest


class OpenAIChatModel:
    """Talk to OpenAI, or any server that speaks its Chat Completions API.

    Args:
        model: The upstream model id, e.g. ``"gpt-4o-mini"``.
        base_url: Endpoint root; defaults to ``OPENAI_BASE_URL`` or OpenAI's own.
        api_key: Key; defaults to ``OPENAI_API_KEY``. With a custom ``base_url`` and
            no key, a placeholder is sent, as local servers expect.
        client: A ready ``openai.AsyncOpenAI`` client (overrides the two above).
        settings: Default sampling settings (``temperature``, ``max_tokens``...).
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self._model = model
        self._base_url = base_url
        self._api_key = api_key
        self._client = client
        self.settings = dict(settings or {})

    @property
    def model_name(self) -> str:
        """The upstream model id."""
        return self._model

    def _get_client(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            base_url = self._base_url or os.environ.get("OPENAI_BASE_URL")
            api_key = self._api_key or os.environ.get("OPENAI_API_KEY")
            if api_key is None:
                if base_url is None:
                    raise ModelConfigError(
                        f"no API key for model '{self._model}': set OPENAI_API_KEY, "
                        "or pass api_key=... (or base_url=... for a local server)"
                    )
                api_key = "not-needed"
            self._client = AsyncOpenAI(base_url=base_url, api_key=api_key)
        return self._client

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        """Return the Chat Completions body this model sends for ``request``."""
        chat = ChatRequest(
            messages=to_openai_messages(request.messages),
            tools=request.tools,
            tool_choice=request.tool_choice,
            settings={**self.settings, **request.settings},
        )
        return openai_chat.encode_request(self._model, chat)

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Send one Chat Completions request and normalize the reply."""
        client = self._get_client()
        body = self.build_body(request)
        try:
            completion = await client.chat.completions.create(**body)
        except Exception as exc:
            raise map_openai_error(exc, provider="openai") from exc
        return ModelResponse.from_provider(openai_chat.decode_response(completion.model_dump()))
