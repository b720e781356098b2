"""The ``google-genai`` SDK transport for the Gemini API, and its error mapping.

An option for a caller who brings a ``google.genai.Client`` (the ``google`` extra);
by default models and the bridge speak HTTP
(`good_agent.providers.gemini.http_transport`). The codec's snake_case body maps
one to one onto ``generate_content(model=, contents=, config=)``. Thought signatures
Gemini returns with function calls are remembered and sent back, as Gemini 3 models
require (`good_agent.providers.gemini.signatures`).
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

from good_agent.http.wire_errors import (
    SHOWN_CHARS,
    error_for_status,
    map_http_error,
)
from good_agent.providers.gemini.signatures import ThoughtSignatures
from good_agent.providers.sdk_transport import SDKTransport, mid_stream_error
from good_agent.providers.types import JSONDict
from good_agent.types.errors import (
    ModelResponseError,
)

_CONFIG_KEYS = ("system_instruction", "tools", "tool_config")


def sdk_arguments(body: JSONDict) -> JSONDict:
    """Keyword arguments for ``client.aio.models.generate_content`` from a codec body."""
    config: JSONDict = dict(body.get("generation_config") or {})
    for key in _CONFIG_KEYS:
        if key in body:
            config[key] = body[key]
    config.setdefault("automatic_function_calling", {"disable": True})
    contents = [_with_bytes(content) for content in body.get("contents", [])]
    return {"model": body["model"], "contents": contents, "config": config}


def _with_bytes(content: JSONDict) -> JSONDict:
    """The SDK takes ``inline_data.data`` as bytes (it writes the base64 itself)."""
    parts = content.get("parts") or []
    if not any(isinstance(p, dict) and "inline_data" in p for p in parts):
        return content
    out = []
    for part in parts:
        inline = part.get("inline_data") if isinstance(part, dict) else None
        if isinstance(inline, dict) and isinstance(inline.get("data"), str):
            part = {**part, "inline_data": {**inline, "data": base64.b64decode(inline["data"])}}
        out.append(part)
    return {**content, "parts": out}


class GeminiTransport(SDKTransport):
    """Sends ``generateContent`` bodies with the caller's ``google.genai.Client``.

    Takes the arguments of `SDKTransport`,
    and ``signature_cache``: how many thought signatures to remember (see
    `good_agent.providers.gemini.signatures`).
    """

    provider = "gemini"

    def __init__(self, model: str, *, signature_cache: int = 256, **connection: Any) -> None:
        super().__init__(model, **connection)
        self.signatures = ThoughtSignatures(signature_cache)

    async def send(self, body: JSONDict) -> JSONDict:
        """Call ``aio.models.generate_content``."""
        self.signatures.attach(body)
        try:
            response = await self.client.aio.models.generate_content(**sdk_arguments(body))
        except Exception as exc:
            raise map_google_error(exc, provider=self.provider) from exc
        result: JSONDict = response.model_dump(mode="json", exclude_none=True)
        self.signatures.remember(result)
        return result

    async def stream(self, body: JSONDict) -> AsyncIterator[JSONDict]:
        """Call ``aio.models.generate_content_stream``; each chunk as a dict, to the end."""
        self.signatures.attach(body)
        try:
            chunks = await self.client.aio.models.generate_content_stream(**sdk_arguments(body))
            async for chunk in chunks:
                result: JSONDict = chunk.model_dump(mode="json", exclude_none=True)
                self.signatures.remember(result)
                yield result
        except Exception as exc:
            mapped = map_google_error(exc, provider=self.provider)
            raise mid_stream_error(mapped, exc, self.provider) from exc


def map_google_error(exc: Exception, *, provider: str = "gemini") -> Exception:
    """Map a ``google-genai`` exception to a `ModelError`; others pass through."""
    from google.genai import errors as genai_errors

    if isinstance(exc, genai_errors.APIError):
        message = str(exc.message or exc.status or exc)
        return error_for_status(int(exc.code), message, provider=provider, body=exc.details)
    if isinstance(exc, json.JSONDecodeError):
        return ModelResponseError(
            f"{provider} sent a malformed reply: the body is not JSON ({exc.msg})",
            provider=provider,
            body=exc.doc[:SHOWN_CHARS],
        )
    return map_http_error(exc, provider=provider)
