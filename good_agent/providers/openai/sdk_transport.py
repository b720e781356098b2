"""The ``openai`` SDK transport (Chat Completions or Responses) and its error mapping.

An option for a caller who brings an ``openai.AsyncOpenAI`` client; by default models
and the bridge speak HTTP (`good_agent.providers.openai.http_transport`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from good_agent.http.wire_errors import (
    connection_error,
    dump_reply,
    error_for_status,
    error_message,
    request_url,
    retry_after_seconds,
)
from good_agent.providers.sdk_transport import SDKTransport, mid_stream_error
from good_agent.providers.types import JSONDict
from good_agent.types.errors import (
    ModelTimeoutError,
)

VENDOR_FIELDS = (
    "structured_outputs",
    "guided_json",
    "guided_regex",
    "guided_choice",
    "guided_grammar",
    "guided_decoding_backend",
    "chat_template_kwargs",
    "top_k",
    "repetition_penalty",
)
"""Request fields of OpenAI-compatible servers (vLLM, llama.cpp) unknown to the SDK."""


class OpenAIClientTransport(SDKTransport):
    """Sends bodies with the caller's ``openai.AsyncOpenAI`` (Chat Completions or Responses).

    Takes the arguments of `SDKTransport`,
    and ``api``: ``"chat"`` or ``"responses"``.
    """

    provider = "openai"

    def __init__(self, model: str, *, api: str = "chat", **connection: Any) -> None:
        super().__init__(model, **connection)
        self._api = api

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``chat.completions.create`` or ``responses.create``.

        Fields the SDK does not know (vLLM's ``structured_outputs``, ``guided_json``...)
        travel in its ``extra_body``.
        """
        try:
            reply = await self._create(sdk_body(body))
        except Exception as exc:
            raise map_openai_error(exc, provider=self.provider) from exc
        return dump_reply(reply, provider=self.provider)

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """The same call with ``stream=True``: each chunk or event as a dict.

        Chat Completions streams ask for the usage chunk (``stream_options``). The
        SDK reads the response to its end after ``[DONE]``, so the connection is
        reused; closing this iterator early closes the response.
        """
        wire = {**sdk_body(body), "stream": True}
        if self._api != "responses":
            wire["stream_options"] = {"include_usage": True, **(wire.get("stream_options") or {})}
        try:
            events = await self._create(wire)
        except Exception as exc:
            raise map_openai_error(exc, provider=self.provider) from exc
        try:
            async for event in events:
                yield dump_reply(event, provider=self.provider)
        except Exception as exc:
            raise mid_stream_error(
                map_openai_error(exc, provider=self.provider), exc, self.provider
            ) from exc
        finally:
            await events.close()

    async def _create(self, body: JSONDict) -> Any:
        client = self.client
        if self._api == "responses":
            return await client.responses.create(**body)
        return await client.chat.completions.create(**body)


def sdk_body(body: JSONDict) -> JSONDict:
    """``body`` with the fields the SDK does not know moved into ``extra_body``."""
    vendor = {k: body[k] for k in VENDOR_FIELDS if k in body}
    if not vendor:
        return body
    moved = {k: v for k, v in body.items() if k not in vendor}
    moved["extra_body"] = {**body.get("extra_body", {}), **vendor}
    return moved


def map_openai_error(exc: Exception, *, provider: str) -> Exception:
    """Map an ``openai`` SDK exception to a `ModelError`; others pass through."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeoutError(f"{provider} request timed out", provider=provider)
    if isinstance(exc, openai.APIConnectionError):
        return connection_error(provider, request_url(exc), exc)
    if isinstance(exc, openai.APIStatusError):
        retry_after = retry_after_seconds(exc.response.headers.get("retry-after"))
        return error_for_status(
            exc.status_code,
            error_message(exc),
            provider=provider,
            body=exc.body,
            retry_after=retry_after,
            url=request_url(exc),
        )
    return exc
